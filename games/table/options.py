"""The words for the variants' rule options (``Variant.option_choices``): a label and a help
text per option, a label per value. The host's settings page and the operators' room form
show them; docs/rules.md says what each one changes."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

OPTION_LABELS = {
    "qq5_double_scope": _("Doubling applies to"),
    "new5_scheme": _("Scoring scheme"),
    "classic3_kicker_policy": _("Kickers"),
    "classic3_show_cards": _("Show cards"),
    "card_counter": _("Card counter"),
    "fenzhou_nuke": _("Nuke"),
    "fenzhou_allow_solo_call": _("Landlord may call a card he holds"),
    "fenzhou_bare_plane_last": _("Bare plane as the last play"),
    "fenzhou_joker_kicker": _("Jokers as kickers"),
    "fenzhou_bonus_counts_all_bombs": _("Bonus counts every bomb"),
}
OPTION_HELP = {
    "qq5_double_scope": _(
        "The whole table: one double doubles every stake. Each player: a double doubles "
        "only the stakes of the player who chose it, as in classic three-player."
    ),
    "new5_scheme": _("Level: a unit is base × D. City: a unit is base × 2 to the power D."),
    "classic3_kicker_policy": _(
        "Permissive: four-with-two may take a pair or both jokers as its singles, and a "
        "plane's singles may share a rank. Strict: kickers are distinct singles or natural "
        "pairs."
    ),
    "classic3_show_cards": _(
        "After taking the bottom the landlord may show his hand face up to everyone; the "
        "stakes double."
    ),
    "card_counter": _("Each player's table shows how many cards of each rank he has not seen yet."),
    "fenzhou_nuke": _(
        "Four jokers: all four jokers are the nuke, a pair of one joker is a bomb. Big and "
        "small jokers: one small and one big joker are the nuke."
    ),
    "fenzhou_allow_solo_call": _(
        "The landlord may call a card whose other copy he holds himself, and plays alone."
    ),
    "fenzhou_bare_plane_last": _("A plane without kickers may be played as a hand's last play."),
    "fenzhou_joker_kicker": _("A joker may be the single kicker of a triple or of a plane."),
    "fenzhou_bonus_counts_all_bombs": _(
        "Yes: every bomb played adds its bonus. No: only the winners' own bombs do."
    ),
}
OPTION_VALUE_LABELS: dict[Any, Any] = {
    "global": _("the whole table"),
    "per_player": _("each player"),
    "level": _("level"),
    "city": _("city"),
    "permissive": _("permissive"),
    "strict": _("strict"),
    "four_jokers": _("four jokers"),
    "big_plus_small": _("big and small jokers"),
    True: _("yes"),
    False: _("no"),
}


def option_label(name: str) -> str:
    return str(OPTION_LABELS.get(name, name))


def value_label(value: Any) -> str:
    return str(OPTION_VALUE_LABELS.get(value, value))
