"""The table page reconnects by itself (static/games/reconnect.js) in real Chromium.

A daphne process serves a qq5 table where ``ann`` plays with four bots. The server is stopped
(SIGTERM: daphne closes the sockets, code 1001, which the htmx ws extension alone would not
retry) and killed (``kill -9``: code 1006); while it is down the hand moves on (ann's seat goes
to 托管 and the bots finish the hand). Started again on the same port, the page reconnects
without a reload and shows the exact new state: the result.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from tests.browser.conftest import Served
from tests.browser.pages import PASSWORD, login, open_page

pytestmark = pytest.mark.timeout(300)

SETUP = f"""
from accounts.services import beans_grant
from django.contrib.auth import get_user_model
from games import services
# no shortest simultaneous step: with ann on 托管 only the bots' replies are left
room = services.room_create(
    name="reconnect", variant="qq5", turn_seconds=600, bid_seconds=600, step_min_seconds=0
)
user = get_user_model().objects.create_user(username="ann", password={PASSWORD!r})
beans_grant(user=user, amount=100000)
table = services.table_create(room=room)
services.table_join(table_id=table.pk, user=user)
services.table_fill_with_bots(table_id=table.pk)
services.hand_start(table_id=table.pk)
print("TABLE", table.pk)
"""

AUTOPLAY = """
from django.contrib.auth import get_user_model
from games import services
from games.runner.deadlines import hand_apply_due_deadlines
from games.models import Hand
hand = Hand.objects.get(status="active")
services.seat_set_autoplay(
    hand_id=hand.pk, user=get_user_model().objects.get(username="ann"), enabled=True
)
# the bots reply from a deadline runner (``run_deadlines``, apart from the stopped server): each
# reply at its time
for _ in range(2000):
    hand.refresh_from_db()
    if hand.status != "active":
        break
    hand_apply_due_deadlines(now=hand.deadline_at)
print("STATUS", Hand.objects.get(pk=hand.pk).status)
"""


@pytest.fixture
def served(databases) -> Iterator[tuple[Served, int]]:
    """The server and the table where ann plays with four bots."""
    served = Served(databases, SETUP)
    try:
        yield served, int(served.printed.split("TABLE")[-1].split()[0])
    finally:
        served.stop()


def _while_down(served: Served) -> None:
    assert "STATUS finished" in served.manage("shell", "-c", AUTOPLAY)


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["stop", "kill9"])
def test_the_page_reconnects_and_shows_what_happened_meanwhile(browser, served, stop_signal):
    served, table_id = served
    page = open_page(browser, served.base)
    login(page, served.base, "ann")
    page.goto(f"{served.base}/table/{table_id}/")
    page.wait_for_selector("#table-hand [data-card]")
    assert page.locator("[data-result]").count() == 0
    page.evaluate(
        """() => {
        window.__sameDocument = true;
        window.__attempts = 0;
        document.addEventListener('htmx:wsConnecting', () => { window.__attempts += 1; });
    }"""
    )

    served.server.stop(stop_signal)
    page.wait_for_selector("#table-conn:not([hidden])")  # the page noticed
    _while_down(served)
    page.wait_for_function("() => window.__attempts >= 2")  # retries against the closed port
    served.server.start(timeout=60)

    # back by itself, same document (no reload), showing the finished hand
    page.wait_for_selector("#table-conn[hidden]", state="attached")
    page.wait_for_selector("[data-result]")
    assert page.evaluate("window.__sameDocument === true")
