#!/usr/bin/env bash
# Fresh machine → running club: venv, requirements, translations, database, demo data, server.
# SETUP_ONLY=1 stops before starting the server.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_venv requirements.txt
compile_messages
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py load_demo
if [ "${SETUP_ONLY:-0}" = 1 ]; then
    exit 0
fi
echo ">> serving http://127.0.0.1:8000/ (daphne: HTTP and websockets); Ctrl-C stops"
exec .venv/bin/python manage.py runserver 127.0.0.1:8000
