#!/usr/bin/env bash
# The whole suite. Uses DATABASE_URL / REDIS_URL when set (PostgreSQL + Redis), else SQLite and
# the in-memory channel layer. Extra arguments go to the main pytest run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv requirements-dev.txt
compile_messages

echo ">> database: ${DATABASE_URL:-SQLite}; channel layer: ${REDIS_URL:-in-memory}"
.venv/bin/python -m pytest -m "not browser" -p no:cacheprovider -p no:playwright \
    --timeout="${TEST_TIMEOUT:-300}" "$@"

# Browser tests drive Chromium through Playwright in their own process (STACK.md).
if grep -rqs --include='*.py' "mark.browser" tests; then
    ensure_command chromium chromium || { echo "!! skipping browser tests: no chromium"; exit 0; }
fi
set +e
.venv/bin/python -m pytest -m browser -p no:asyncio -p no:cacheprovider \
    --timeout="${BROWSER_TEST_TIMEOUT:-300}"
status=$?
set -e
if [ "$status" = 5 ]; then
    echo ">> no browser tests collected"
    exit 0
fi
exit "$status"
