"""A push's frames are values (games/push/frames.py): each kind crosses the channel layer and
comes back equal, in a form the Redis layer's msgpack takes, and each socket's consumer picks
its own rendering from it. What is no table state leaves as a bulletin after its commit."""

from __future__ import annotations

import msgpack
import pytest
from django.conf import settings
from django.db import transaction
from django.utils import translation

from games.push import deliver, frames, send
from games.push.outbox import Bulletin

SEAT = frames.SeatFrame(table_id=3, user_id=11, language="en", html="<p>mine</p>", started=1.5)
PUBLIC = frames.PublicFrame(
    table_id=3,
    html_by_language={
        "zh-hans": frames.frame_header(version=4, full=False) + "<p>共</p>",
        "en": frames.frame_header(version=4, full=False) + "<p>shared</p>",
    },
    watcher_by_language={"zh-hans": "<p>看</p>", "en": "<p>watching</p>"},
    seated_languages={11: "en", 12: "zh-hans"},
    own_sent=frozenset({11}),
)
BULLETIN = frames.BulletinFrame(
    group=frames.page_group("event", 9),
    html_by_language={"zh-hans": "<p>聊</p>", "en": "<p>chat</p>"},
    skip_users=frozenset({11, 12}),
)
CLOSE = frames.CloseWatchers(table_id=3, keep=frozenset({11, 20}))


@pytest.mark.parametrize("frame", [SEAT, PUBLIC, BULLETIN, CLOSE], ids=lambda f: f.KIND)
def test_a_frame_crosses_the_layer_unchanged(frame):
    group, message = frames.to_message(frame)
    assert group == frame.group
    # what the Redis layer does to it: msgpack refuses keys that are not strings
    wire = msgpack.unpackb(msgpack.packb(message, strict_types=False), strict_map_key=True)
    assert frames.from_message(wire) == frame


def test_the_groups_are_the_tables_and_the_pages():
    assert SEAT.group == "table.3.user.11"
    assert PUBLIC.group == CLOSE.group == "table.3.public"
    assert BULLETIN.group == "event-9"
    assert frames.page_group("event", 9, 11) == "event-9-user-11"


def test_a_seated_socket_reads_the_shared_regions_in_its_seats_language_marked():
    english = PUBLIC.text_for(user_id=11, language="zh-hans")
    assert "<p>shared</p>" in english and "watching" not in english
    assert 'data-own="1"' in english  # his own frame of the version went before it
    chinese = PUBLIC.text_for(user_id=12, language="en")
    assert "<p>共</p>" in chinese and 'data-own="0"' in chinese


def test_a_spectator_reads_the_shared_regions_and_his_own_in_his_language():
    assert PUBLIC.text_for(user_id=99, language="en").endswith("<p>shared</p><p>watching</p>")
    # a language nobody at the table reads: the club's
    assert PUBLIC.text_for(user_id=99, language="fr").endswith("<p>共</p><p>看</p>")


def test_a_bulletin_skips_its_users_and_speaks_each_readers_language():
    assert BULLETIN.text_for(user_id=11, language="en") is None
    assert BULLETIN.text_for(user_id=30, language="en") == "<p>chat</p>"
    assert BULLETIN.text_for(user_id=None, language="zh-hans") == "<p>聊</p>"


@pytest.mark.django_db(transaction=True)
def test_a_bulletin_leaves_after_its_commit_in_every_language_and_never_after_a_rollback(
    monkeypatch,
):
    sent: list = []
    monkeypatch.setattr(send, "send_frames", sent.extend)
    bulletin = Bulletin(
        group=frames.public_group(5), render=translation.get_language, skip_users=(7,)
    )
    with transaction.atomic():
        deliver.announce(bulletin)
        assert sent == []
    (frame,) = sent
    assert frame.group == "table.5.public" and frame.skip_users == {7}
    assert frame.html_by_language == {code: code for code, _name in settings.LANGUAGES}
    with pytest.raises(RuntimeError), transaction.atomic():
        deliver.announce(bulletin)
        raise RuntimeError("rolled back")
    assert len(sent) == 1
