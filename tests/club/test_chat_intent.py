"""The ``chat`` intent of the table socket (games/live/intents.py): a phrase key or a short text."""

from __future__ import annotations

import json

import pytest

from games.live.intents import MAX_CHAT_CHARS, parse_frame
from games.table.errors import ActionRejected, ErrorCode


def frame(**data):
    return json.dumps({"intent": "chat", "HEADERS": {"HX-Request": "true"}, **data})


class ChatIntentTests:
    def test_a_phrase_key_or_a_text(self):
        intent = parse_frame(frame(key="hurry"))
        assert (intent.kind, intent.chat_key, intent.text) == ("chat", "hurry", "")
        intent = parse_frame(frame(text="  gg  ", table="3"))
        assert (intent.chat_key, intent.text, intent.table_id) == ("", "gg", 3)

    @pytest.mark.parametrize(
        "data",
        [{"key": ["hurry"]}, {"key": "k" * 33}, {"text": "x" * (MAX_CHAT_CHARS + 1)}, {"text": 5}],
    )
    def test_odd_values_are_refused(self, data):
        with pytest.raises(ActionRejected) as refused:
            parse_frame(frame(**data))
        assert refused.value.code is ErrorCode.BAD_VALUE
