"""``flush`` empties the append-only tables on SQLite and puts their triggers back."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from accounts.models import BeanEntry
from games import services
from games.models import HandAction
from tests.support.tables import make_player, make_room, play_to_end, seated_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL's flush is a TRUNCATE")
def test_flush_lifts_and_restores_every_append_only_trigger():
    table = seated_table(make_room("classic3"), [make_player() for _ in range(3)])
    services.hand_start(table_id=table.pk)
    play_to_end(table)
    assert BeanEntry.objects.exists() and HandAction.objects.exists()
    call_command("flush", interactive=False, verbosity=0)
    assert not BeanEntry.objects.exists() and not HandAction.objects.exists()
    names = {
        row[0]
        for row in connection.cursor().execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        )
    }
    assert {"beanentry_no_delete", "handaction_no_delete"} <= names
