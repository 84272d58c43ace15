"""Running it like a service (issue #38), in one process: the health and metrics endpoints,
the log scrubbing (a whole hand's log at DEBUG holds no card of a live hand, no session key and
no password), the Sentry scrubber, JSON log lines with the work's ids, and the operators' live
view. The several-process parts (Redis stopped and back, two processes' metrics, a backup's
restore) are tests/reliability/test_operations.py."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator
from django.test import Client, override_settings
from pythonjsonlogger.json import JsonFormatter

from ddz_site import health
from ddz_site.asgi import application
from games import services
from games.engine.cards import format_cards
from games.models import Hand, ServerProcess
from games.reads.selectors import hand_state
from games.runner import deadlines
from site_kit import logs
from tests.support.metrics import samples
from tests.support.tables import (
    Socket,
    active_hand,
    drain,
    make_player,
    make_room,
    play_over_sockets,
    seated_table,
    table_version,
)

db = database_sync_to_async


async def _get(path: str, *, client: str = "127.0.0.1", headers=()) -> tuple[int, bytes]:
    comm = HttpCommunicator(application, "GET", path, headers=[(b"host", b"testserver"), *headers])
    comm.scope["client"] = (client, 40000)
    response = await comm.get_response(timeout=30)
    return response["status"], response["body"]


@pytest.fixture
def fresh_monitor():
    """Each test checks readiness afresh (no verdict of another test's)."""
    health.monitor.last, health.monitor.failures = None, 0
    yield health.monitor
    health.monitor.last, health.monitor.failures = None, 0


# --------------------------------------------------------------------------- health


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_monitor")
async def test_liveness_and_readiness_answer_json_without_secrets(settings):
    status, body = await _get("/healthz")
    assert (status, json.loads(body)) == (200, {"status": "ok"})
    status, body = await _get("/readyz")
    found = json.loads(body)
    assert status == 200, found
    assert found["status"] == "ok"
    assert set(found["checks"]) == {
        "database",
        "redis",
        "channel_layer",
        "deadline_runner",
        "migrations",
    }
    assert found["checks"]["database"] == found["checks"]["migrations"] == "ok"
    assert found["checks"]["channel_layer"] == "ok"
    text = body.decode()
    for secret in (settings.SECRET_KEY, settings.DATABASES["default"]["NAME"]):
        assert str(secret) not in text


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_monitor")
async def test_a_late_deadline_runner_makes_the_process_unready_and_it_refuses_new_pages(
    settings, monkeypatch
):
    monkeypatch.setattr(deadlines, "runner_running", lambda: True)
    monkeypatch.setattr(deadlines.heartbeat, "round_ended", time.monotonic())
    assert (await _get("/readyz"))[0] == 200
    health.monitor.last = None
    late = time.monotonic() - settings.DDZ_READY_RUNNER_SECONDS - 1
    monkeypatch.setattr(deadlines.heartbeat, "round_ended", late)
    status, body = await _get("/readyz")
    assert status == 503
    assert json.loads(body)["checks"]["deadline_runner"] == "failed"
    assert (await _get("/"))[0] == 200  # one failed check is no reason to turn players away
    health.monitor.last = None
    assert (await _get("/readyz"))[0] == 503
    # not ready twice in a row: a page is refused (nginx tries another), the probes answer
    assert (await _get("/"))[0] == 503
    assert (await _get("/healthz"))[0] == 200


# --------------------------------------------------------------------------- metrics


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_metrics_answer_allowed_addresses_only_and_count_tables_from_the_database(settings):
    settings.DDZ_TRUST_FORWARDED_FOR = True
    room = await db(make_room)("classic3")
    table = await db(seated_table)(room, [await db(make_player)()])
    await db(services.hand_start)(table_id=table.pk, user=None)
    status, body = await _get("/metrics")
    assert status == 200
    text = body.decode()
    assert samples(text, "ddz_tables_in_play") == {'{variant="classic3"}': 1.0}
    assert samples(text, "ddz_hands_active") == {'{variant="classic3"}': 1.0}
    for name in ("ddz_sockets", "ddz_actions_total", "ddz_action_commit_seconds_bucket"):
        assert f"# TYPE {name.removesuffix('_total').removesuffix('_bucket')}" in text
    assert (await _get("/metrics", client="203.0.113.9"))[0] == 404
    # a client that names loopback first in X-Forwarded-For is still who nginx saw, last
    spoofed = [(b"x-forwarded-for", b"127.0.0.1, 203.0.113.9")]
    assert (await _get("/metrics", headers=spoofed))[0] == 404


# --------------------------------------------------------------------------- logs


def test_the_scrubber_masks_secrets_and_cards():
    text = 'login password=hunter2 sessionid=abc123 "session_key": "k9" played 3s 4h SJ in 5 s'
    scrubbed = logs.scrub_text(text)
    for secret in ("hunter2", "abc123", "k9", "3s", "4h", "SJ"):
        assert secret not in scrubbed
    assert "in 5 s" in scrubbed and "login" in scrubbed


def test_the_sentry_scrubber_sends_no_secret_and_no_card():
    event = {
        "message": "does not beat 3s 3h",
        "request": {
            "url": "https://club/table/1/",
            "cookies": {"sessionid": "abc123"},
            "headers": {"Cookie": "sessionid=abc123"},
            "data": {"password": "hunter2"},
        },
        "extra": {"password": "hunter2", "table_id": 7},
        "breadcrumbs": {
            "values": [
                {"category": "query", "message": "SELECT * FROM django_session WHERE x = 'k0'"},
                {"category": "games.push", "message": "push of table 7"},
            ]
        },
        "exception": {
            "values": [
                {
                    "value": "not in hand: 9d",
                    "stacktrace": {"frames": [{"function": "apply", "vars": {"hand": "9d 9s"}}]},
                }
            ]
        },
    }
    sent = json.dumps(logs.sentry_before_send(event, {}))
    for secret in ("abc123", "hunter2", "3s", "3h", "9d", "9s", "k0"):
        assert secret not in sent
    assert '"table_id": 7' in sent and "https://club/table/1/" in sent
    assert "push of table 7" in sent


def _json_handler(buffer: io.StringIO) -> logging.Handler:
    handler = logging.StreamHandler(buffer)
    handler.addFilter(logs.ScrubFilter())
    handler.setFormatter(JsonFormatter("%(levelname)s %(name)s %(message)s"))
    return handler


@pytest.fixture
def captured_json():
    """Every log record of the test, as the club's JSON lines, at DEBUG."""
    buffer = io.StringIO()
    handler = _json_handler(buffer)
    root, django = logging.getLogger(), logging.getLogger("django")
    levels = root.level, django.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    django.setLevel(logging.DEBUG)
    yield buffer
    root.removeHandler(handler)
    root.setLevel(levels[0])
    django.setLevel(levels[1])


def test_a_json_line_carries_the_ids_of_the_work_that_logged(captured_json):
    token = logs.bind(request_id="r-1", user_id=5, table_id=7, hand_id=11)
    try:
        logging.getLogger("games.test").info("moved %s", "it")
        logging.getLogger("games.test").info("signed in with password=%s", "pw1")
    finally:
        logs.unbind(token)
    first, second = captured_json.getvalue().splitlines()[-2:]
    line = json.loads(first)
    assert line["message"] == "moved it"
    assert json.loads(second)["message"] == "signed in with password=[redacted]"
    assert (line["request_id"], line["user_id"], line["table_id"], line["hand_id"]) == (
        "r-1",
        5,
        7,
        11,
    )


@pytest.mark.django_db
def test_a_request_binds_its_request_id_and_user(make_user, captured_json):
    user = make_user(username="reader")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    # the CSRF refusal is logged while the request is handled
    client.post("/accounts/logout/", headers={"X-Request-ID": "req-42"})
    lines = [json.loads(line) for line in captured_json.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == "req-42"]
    assert mine and all(line["user_id"] == user.pk for line in mine)


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer")
async def test_a_whole_hand_logged_at_debug_names_no_card_no_session_key_no_password(
    captured_json, client
):
    password = "Sesame-Open-4242"
    room = await db(make_room)("classic3")
    users = [await db(make_player)() for _ in range(3)]

    def sign_in() -> str:
        users[0].set_password(password)
        users[0].save()
        client.post("/accounts/login/", {"login": users[0].username, "password": password})
        return client.session.session_key

    table = await db(seated_table)(room, users)
    sockets = {i: await Socket(u, table.pk, f"seat{i}").open() for i, u in enumerate(users)}
    await drain(list(sockets.values()))
    with override_settings(DEBUG=True):  # every query logged too, with its parameters
        session_key = await db(sign_in)()  # its session row written and read in queries
        await db(services.hand_start)(table_id=table.pk, user=users[0])
        for sock in sockets.values():
            await sock.reach(await db(table_version)(table.pk))
        hand = await db(active_hand)(table.pk)
        dealt = (await db(hand_state)(hand)).hands
        # a refused move names the cards it tried in the engine's words
        seat = next(iter(sockets))
        await sockets[seat].send({"intent": "act", "version": "0", "act": "play", "cards": "3s"})
        await sockets[seat].expect(1)
        await play_over_sockets(table.pk, sockets, [])
    for sock in sockets.values():
        await sock.close()
    hand = await db(Hand.objects.get)(pk=hand.pk)
    assert hand.status == Hand.Status.FINISHED
    lines = captured_json.getvalue().splitlines()
    assert len(lines) > 100  # the hand was logged, queries and all
    records = [json.loads(line) for line in lines]
    assert any(r.get("table_id") == table.pk and "hand_id" in r for r in records)
    cards = {card for held in dealt for card in format_cards(held).split()}
    for line in lines:
        assert session_key not in line
        assert password not in line
        words = set(re.findall(r"[0-9A-Za-z]+", line))
        assert not cards & words, line


# --------------------------------------------------------------------------- the live view


@pytest.mark.django_db
def test_the_live_view_shows_the_processes_heartbeats_and_refreshes_its_region(
    staff_client, client, make_user
):
    logging.getLogger("games.test").error("the printer is on fire")
    deadlines.process_beat()
    process = ServerProcess.objects.get()
    response = staff_client.get("/admin/live/")
    assert response.status_code == 200
    page = response.content.decode()
    assert f"{process.host}:{process.pid}" in page
    assert "the printer is on fire" in page
    assert 'hx-trigger="every 5s"' in page and "htmx" in page
    region = staff_client.get("/admin/live/", headers={"HX-Request": "true"}).content.decode()
    assert region.lstrip().startswith('<div id="live-view"') and "<html" not in region
    client.force_login(make_user(username="plain"))
    assert client.get("/admin/live/").status_code == 302  # the admin's login, not the view


def _without_metrics_dir(env: dict[str, str]) -> dict[str, str]:
    # prometheus-client takes the variable's presence, even empty, for the multi-process mode
    return {k: v for k, v in env.items() if k != "PROMETHEUS_MULTIPROC_DIR"}


def test_metrics_off_record_nothing():
    code = (
        "from site_kit import metrics\n"
        "metrics.ACTIONS.labels('act').inc()\n"
        "metrics.ACTION_PUSH_SECONDS.observe(0.1)\n"
        "print(metrics.ON, b'ddz_actions' in metrics.exposition())\n"
    )
    for value, expected in (("0", "False False"), ("1", "True True")):
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=Path(__file__).resolve().parents[1],
            env={**_without_metrics_dir(os.environ), "DDZ_METRICS": value},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.stdout.split("\n")[0] == expected, done.stderr
