#!/bin/sh
# ExecStartPost of deploy/ddz-daphne@.service: systemd counts the instance started only once
# its /readyz answers 200 (ddz_site/health.py), so a rolling restart (one instance after the
# other) never has two instances unready at once. Gives up after DDZ_READY_WAIT seconds.
set -u
port="$1"
tries="${DDZ_READY_WAIT:-60}"
while [ "$tries" -gt 0 ]; do
    if curl -fsS -o /dev/null --max-time 5 "http://127.0.0.1:$port/readyz"; then
        exit 0
    fi
    tries=$((tries - 1))
    sleep 1
done
echo "ddz on port $port: not ready" >&2
exit 1
