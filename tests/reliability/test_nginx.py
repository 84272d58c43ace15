"""deploy/nginx.conf end to end: TLS, the websocket upgrade and ``least_conn`` over two daphne
processes, the origin check behind the proxy. Skipped when nginx is not installed."""

from __future__ import annotations

import asyncio
import re
import shutil
import ssl
import subprocess
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from games import services
from tests.reliability.harness import ROOT, free_port, session_cookie
from tests.support.tables import ensure_triggers, make_player, make_room

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.timeout(90),
    pytest.mark.skipif(not shutil.which("nginx"), reason="nginx is not installed"),
]

HOST = "ddz.example.org"


def _setup():
    ensure_triggers()
    table = services.table_create(room=make_room("qq5"))
    user = make_player()
    services.table_join(table_id=table.pk, user=user)
    return table.pk, session_cookie(user)


def _nginx_conf(tmp: Path, ports: list[int], https: int, http: int) -> Path:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
         str(tmp / "k.pem"), "-out", str(tmp / "c.pem"), "-days", "1", "-subj", f"/CN={HOST}"],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = conf.replace(f"/etc/letsencrypt/live/{HOST}/fullchain.pem", str(tmp / "c.pem"))
    conf = conf.replace(f"/etc/letsencrypt/live/{HOST}/privkey.pem", str(tmp / "k.pem"))
    conf = re.sub(r"\s*server 127\.0\.0\.1:800[34][^;]*;", "", conf)
    conf = conf.replace("127.0.0.1:8001", f"127.0.0.1:{ports[0]}")
    conf = conf.replace("127.0.0.1:8002", f"127.0.0.1:{ports[1]}")
    conf = re.sub(r"listen \[::\]:\d+[^;]*;", "", conf)
    conf = conf.replace("listen 443 ssl", f"listen 127.0.0.1:{https} ssl")
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{http};")
    conf = conf.replace("/srv/ddz/staticfiles/", f"{tmp}/")
    (tmp / "ddz.conf").write_text(conf)
    main = tmp / "nginx.conf"
    main.write_text(
        f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;\nevents {{}}\n"
        f"http {{\n access_log off;\n include {tmp}/ddz.conf;\n}}\n"
    )
    return main


async def test_sockets_through_nginx_reach_both_processes(servers, tmp_path):
    import websockets
    from websockets.exceptions import InvalidStatus

    table_id, cookie = await database_sync_to_async(_setup)()
    hosts = {"ALLOWED_HOSTS": f"{HOST},127.0.0.1,localhost"}
    a, b = servers("A", **hosts), servers("B", **hosts)
    https = free_port()
    conf = _nginx_conf(tmp_path, [a.port, b.port], https, free_port())
    subprocess.run(["nginx", "-c", str(conf), "-p", str(tmp_path)], check=True, timeout=30)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    url = f"wss://{HOST}:{https}/ws/table/{table_id}/"
    try:
        for _ in range(4):
            ws = await websockets.connect(
                url,
                host="127.0.0.1",
                port=https,
                ssl=context,
                origin=f"https://{HOST}",
                additional_headers={"Cookie": f"sessionid={cookie}"},
                ping_interval=None,
            )
            first = await asyncio.wait_for(ws.recv(), 10)
            assert 'id="table-controls"' in first
            await ws.close()
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(
                url,
                host="127.0.0.1",
                port=https,
                ssl=context,
                origin="https://evil.example",
                additional_headers={"Cookie": f"sessionid={cookie}"},
            )
        assert refused.value.response.status_code == 403
    finally:
        subprocess.run(
            ["nginx", "-c", str(conf), "-p", str(tmp_path), "-s", "stop"], timeout=30, check=False
        )
    for server in (a, b):  # least_conn spread the sockets over both processes
        log = Path(server.log.name).read_text()
        assert "WSCONNECT /ws/table/" in log, server.name
