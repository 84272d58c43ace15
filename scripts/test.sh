#!/usr/bin/env bash
# The test suite. Uses DATABASE_URL / REDIS_URL when set (PostgreSQL + Redis), else SQLite and
# the in-memory channel layer.
#
#   bash scripts/test.sh                 quick: every test not marked browser or slow
#   bash scripts/test.sh --full          the whole suite: every other test, then the browser tests
#   bash scripts/test.sh --full --no-browser
#                                        the whole suite but the browser tests
#
# Other arguments go to the main pytest run (a path, -k, --ignore=...). Tests run in parallel
# on TEST_WORKERS processes (default: one per core; 0 runs them in this process). With
# TEST_REPORT_DIR set, each pytest run leaves a JUnit report there (.ci/run prints the slowest
# tests from them).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

full=0
browser=1
args=()
for arg in "$@"; do
    case "$arg" in
        --full) full=1 ;;
        --no-browser) browser=0 ;;
        *) args+=("$arg") ;;
    esac
done

ensure_venv requirements-dev.txt
compile_messages

workers=${TEST_WORKERS:-$(nproc)}
report() {  # a JUnit report of one pytest run, when TEST_REPORT_DIR asks for them
    if [ -n "${TEST_REPORT_DIR:-}" ]; then
        mkdir -p "$TEST_REPORT_DIR"
        echo "--junitxml=$TEST_REPORT_DIR/$1.xml"
    fi
}

echo ">> database: ${DATABASE_URL:-SQLite}; channel layer: ${REDIS_URL:-in-memory}"
if [ "$full" = 1 ]; then
    marks="not browser"
else
    marks="not browser and not slow"
    browser=0
fi
# worksteal: a worker that runs out takes tests from the other's queue. xdist's default hands
# them out in the order pytest-django sorts them, which puts the minute-long multi-process tests
# (transactional) near the end, and one worker finished alone for a minute.
.venv/bin/python -m pytest -m "$marks" -p no:cacheprovider -p no:playwright \
    -n "$workers" --dist worksteal --timeout="${TEST_TIMEOUT:-300}" $(report main) "${args[@]}"

[ "$browser" = 1 ] || exit 0
# Browser tests drive Chromium through Playwright in their own process (docs/conventions.md):
# Playwright's event loop and pytest-asyncio's cannot share one. A module is one daphne server
# and its tests share it, so a worker takes whole modules. The photographs (scripts/screenshots.py)
# are left out: they play the hands tests/browser/test_table.py plays, for three and a half
# minutes of a CI run.
ensure_command chromium chromium || { echo "!! skipping browser tests: no chromium"; exit 0; }
set +e
.venv/bin/python -m pytest -m "browser and not photos" -p no:asyncio -p no:cacheprovider \
    -n "$workers" --dist loadfile --timeout="${BROWSER_TEST_TIMEOUT:-300}" $(report browser)
status=$?
set -e
if [ "$status" = 5 ]; then
    echo ">> no browser tests collected"
    exit 0
fi
exit "$status"
