"""The fixed quick-chat phrases and emotes (keys are stable: they travel in frames)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

PHRASES: dict[str, object] = {
    "hurry": _("Hurry up!"),  # 快点吧
    "nice": _("Nice cards!"),  # 好牌
    "teamwork": _("Great teamwork!"),  # 合作愉快
    "sorry": _("Sorry!"),  # 不好意思
    "again": _("One more hand!"),  # 再来一局
    "thanks": _("Thanks!"),  # 谢谢
}
EMOTES: dict[str, str] = {
    "smile": "😄",
    "laugh": "😂",
    "cool": "😎",
    "cry": "😭",
    "angry": "😠",
    "wink": "😉",
    "shock": "😱",
    "kiss": "😘",
}
# What a screen reader says for each emote (its button's label).
EMOTE_LABELS: dict[str, object] = {
    "smile": _("Smile"),
    "laugh": _("Laugh"),
    "cool": _("Cool"),
    "cry": _("Cry"),
    "angry": _("Angry"),
    "wink": _("Wink"),
    "shock": _("Shocked"),
    "kiss": _("Kiss"),
}


def phrase_text(key: str) -> str | None:
    if key in PHRASES:
        return str(PHRASES[key])
    return EMOTES.get(key)
