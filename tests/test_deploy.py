"""The deployment files: ``check --deploy`` is clean with the production environment of
``deploy/env.example``, HSTS stays switchable, nginx passes the websocket upgrade (and its
config parses when nginx is installed), the systemd units start what exists."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def production_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "DJANGO_"))}
    for line in (DEPLOY / "env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip()
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    env.update(overrides)
    return {k: v for k, v in env.items() if v is not None}


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_is_clean_with_the_production_environment():
    done = check_deploy(production_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_hsts_is_switchable_and_only_hsts_is_reported_without_it():
    env = production_env()
    for key in ("SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD"):
        env.pop(key)
    done = check_deploy(env)
    assert done.returncode != 0
    assert re.findall(r"\(security\.(\w+)\)", done.stdout + done.stderr) == ["W004"]


def test_production_refuses_the_development_key():
    env = production_env()
    env.pop("SECRET_KEY")
    done = check_deploy(env)
    assert done.returncode != 0 and "SECRET_KEY must be set" in done.stderr


def test_secure_cookies_and_proxy_header_in_production():
    code = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT,"
        " s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_SECONDS,"
        " s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['socket_timeout'])"
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=production_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].split() == [
        "True",
        "True",
        "True",
        "('HTTP_X_FORWARDED_PROTO',",
        "'https')",
        "31536000",
        "None",
    ]


def test_nginx_passes_the_websocket_upgrade():
    conf = (DEPLOY / "nginx.conf").read_text()
    ws = conf[conf.index("location /ws/") :]
    ws = ws[: ws.index("}")]
    for needed in (
        "proxy_http_version 1.1",
        "proxy_set_header Upgrade $http_upgrade",
        "proxy_set_header Connection $connection_upgrade",
        "X-Forwarded-Proto $scheme",
    ):
        assert needed in ws
    assert re.search(r"map \$http_upgrade \$connection_upgrade \{\s*default upgrade;", conf)
    ports = re.findall(r"server 127\.0\.0\.1:(\d+)", conf)
    assert len(ports) >= 2


@pytest.mark.skipif(not shutil.which("nginx"), reason="nginx is not installed")
def test_nginx_config_parses(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=ddz.test"],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    conf = (DEPLOY / "nginx.conf").read_text()
    conf = conf.replace("/etc/letsencrypt/live/ddz.example.org/fullchain.pem", str(cert))
    conf = conf.replace("/etc/letsencrypt/live/ddz.example.org/privkey.pem", str(key))
    (tmp_path / "ddz.conf").write_text(conf)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n access_log off;\n include {tmp_path}/ddz.conf;\n}}\n"
    )
    done = subprocess.run(
        ["nginx", "-t", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_systemd_units_start_what_exists():
    daphne = (DEPLOY / "ddz-daphne@.service").read_text()
    assert "--proxy-headers" in daphne and "ddz_site.asgi:application" in daphne
    assert "EnvironmentFile=/etc/ddz/env" in daphne
    assert "Restart=always" in daphne
    commands = {
        "ddz-deadlines.service": "run_deadlines",
        "ddz-audit.service": "audit_beans",
    }
    for unit, command in commands.items():
        text = (DEPLOY / unit).read_text()
        assert f"manage.py {command}" in text
        assert (ROOT / "games" / "management" / "commands" / f"{command}.py").exists() or (
            ROOT / "accounts" / "management" / "commands" / f"{command}.py"
        ).exists()
    assert "OnCalendar=" in (DEPLOY / "ddz-audit.timer").read_text()


def test_the_units_and_nginx_use_readiness_metrics_and_backups():
    daphne = (DEPLOY / "ddz-daphne@.service").read_text()
    assert "ExecStartPost=/srv/ddz/deploy/ddz-wait-ready.sh %i" in daphne
    assert "/readyz" in (DEPLOY / "ddz-wait-ready.sh").read_text()
    assert "Environment=PROMETHEUS_MULTIPROC_DIR=/run/ddz-metrics" in daphne
    conf = (DEPLOY / "nginx.conf").read_text()
    assert conf.count("proxy_next_upstream error timeout http_502 http_503") == 2
    assert re.search(r"location = /metrics \{ return 404; \}", conf)
    backup = (DEPLOY / "ddz-backup.service").read_text()
    assert "ExecStart=/srv/ddz/deploy/ddz-backup.sh" in backup
    script = (DEPLOY / "ddz-backup.sh").read_text()
    assert "pg_dump --format=custom" in script and "-mtime" in script
    assert os.access(DEPLOY / "ddz-backup.sh", os.X_OK)
    assert "OnCalendar=" in (DEPLOY / "ddz-backup.timer").read_text()
    assert (ROOT / "competitions" / "management" / "commands" / "restore_check.py").exists()
    assert "targets:" in (DEPLOY / "prometheus.yml").read_text()
