#!/usr/bin/env bash
# Mutation testing of the pure rule modules (docs/mutation.md): mutmut changes one thing at a time
# in each module that pyproject.toml's [tool.mutmut] lists (a flipped comparison, an off-by-one, a
# dropped term, a changed constant) and runs the tests that reach the changed function; a mutant
# the tests do not notice "survived". Then scripts/mutation_report.py prints each module's
# figures and the survivors that docs/mutation.md does not explain.
#
#   bash scripts/mutation.sh                       every listed module (before a release)
#   bash scripts/mutation.sh 'competitions.arena*' only the mutants whose names match
#
# One process at the lowest priority (the machine is shared). mutmut works in ./mutants (a copy
# of the sources, git-ignored) and keeps its verdicts there: delete the folder for a clean run.
# It runs from a virtualenv of its own, .venv-mutation (requirements-mutation.txt says why).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_command msgfmt gettext
if [ ! -x .venv-mutation/bin/python ]; then
    echo ">> creating .venv-mutation"
    "${PYTHON:-python3}" -m venv .venv-mutation
fi
echo ">> installing requirements-mutation.txt"
.venv-mutation/bin/python -m pip install -q --disable-pip-version-check -r requirements-mutation.txt
.venv-mutation/bin/python manage.py compilemessages --ignore='.venv*' --ignore='bench/*' \
    --ignore='mutants/*' -v 0

nice -n 19 .venv-mutation/bin/mutmut run --max-children 1 "$@"
.venv-mutation/bin/python scripts/mutation_report.py
