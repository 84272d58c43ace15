"""The four rule sets, one class each, looked up by their stable key.

Rule differences live here as class-level flags and hooks; code elsewhere asks the variant
instead of branching on its key. Uncertain readings of RULES.md are named options whose
defaults are the spec's choices, so a room can switch them without code changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from games.engine.errors import UnknownOption, UnknownVariant


class Variant:
    """Base class: a variant's constants, its rule options and its hooks."""

    key: ClassVar[str]
    name: ClassVar[str]
    seats: ClassVar[int]
    decks: ClassVar[int]
    hand_size: ClassVar[int]  # cards dealt to an ordinary seat
    bottom_size: ClassVar[int]  # 底牌; fenzhou5 has none, the landlord keeps the remainder
    landlord_hand_size: ClassVar[int]  # the landlord's count once the bottom (or remainder) is his
    # Each option maps to its allowed values; the first one is the spec's default.
    option_choices: ClassVar[Mapping[str, tuple[Any, ...]]] = {}

    def __init__(self, **options: Any) -> None:
        resolved = {name: choices[0] for name, choices in self.option_choices.items()}
        for name, value in options.items():
            if name not in self.option_choices:
                raise UnknownOption(f"{self.key} has no rule option {name!r}")
            if value not in self.option_choices[name]:
                allowed = ", ".join(repr(choice) for choice in self.option_choices[name])
                raise UnknownOption(f"{self.key} option {name!r} must be one of {allowed}")
            resolved[name] = value
        self.options: Mapping[str, Any] = resolved

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items() if v != self.option_choices[k][0]}
        args = ", ".join([repr(self.key), *(f"{k}={v!r}" for k, v in changed.items())])
        return f"find_variant({args})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Variant) and other.key == self.key and other.options == self.options
        )

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted(self.options.items()))))

    @classmethod
    def option_defaults(cls) -> dict[str, Any]:
        return {name: choices[0] for name, choices in cls.option_choices.items()}

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        """The most units one seat can lose in a hand (RULES.md §7 `min_balance`).

        Where the variant's multiplier has no cap of its own, the room's `max_multiplier`
        bounds it, and without one the loss is taken at multiplier 16 (RULES.md §7).
        """
        raise NotImplementedError


UNCAPPED_MULTIPLIER_FOR_MIN_BALANCE = 16


def _multiplier_bound(max_multiplier: int | None) -> int:
    return max_multiplier if max_multiplier is not None else UNCAPPED_MULTIPLIER_FOR_MIN_BALANCE


class QQ5(Variant):
    key = "qq5"
    name = "五人斗地主"
    seats = 5
    decks = 2
    hand_size = 21
    bottom_size = 3
    landlord_hand_size = 24
    option_choices = {"qq5_double_scope": ("global", "per_player")}

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        # A solo landlord against four farmers settles X = 4 × M (RULES.md §3.6).
        return 4 * _multiplier_bound(max_multiplier)


class New5(Variant):
    key = "new5"
    name = "新五人斗地主"
    seats = 5
    decks = 3
    hand_size = 31
    bottom_size = 7
    landlord_hand_size = 38
    option_choices = {"new5_scheme": ("level", "city")}
    # Grab material is six identities (two jokers, four suits of the 明牌 rank), three copies
    # each, worth at most two grabs per identity: G ≤ 12, doubled by 明独打.
    MAX_BASE_MULTIPLE = 2 * 12

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        if self.options["new5_scheme"] == "level":
            return 4 * self.MAX_BASE_MULTIPLE
        # Scheme B (2^D) has no practical cap: bound it like any uncapped multiplier.
        return 4 * _multiplier_bound(max_multiplier)


class Classic3(Variant):
    key = "classic3"
    name = "经典斗地主"
    seats = 3
    decks = 1
    hand_size = 17
    bottom_size = 3
    landlord_hand_size = 20
    option_choices = {"classic3_kicker_policy": ("permissive", "strict")}
    MAX_BID = 3
    MAX_DOUBLINGS = 4

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        # The landlord settles both farmers' stakes, each at most bid 3 × 2^4 (RULES.md §5.5).
        return 2 * self.MAX_BID * 2**self.MAX_DOUBLINGS


class Fenzhou5(Variant):
    key = "fenzhou5"
    name = "汾州五人斗地主"
    seats = 5
    decks = 2
    hand_size = 21
    bottom_size = 0
    landlord_hand_size = 24
    option_choices = {
        "fenzhou_nuke": ("four_jokers", "big_plus_small"),
        "fenzhou_allow_solo_call": (True, False),
        "fenzhou_bare_plane_last": (True, False),
        "fenzhou_joker_kicker": (True, False),
        "fenzhou_bonus_counts_all_bombs": (True, False),
    }

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        # A solo landlord pays 4u; u = 1 + bonuses has no cap, so bound it like a multiplier.
        return 4 * _multiplier_bound(max_multiplier)


VARIANTS: dict[str, type[Variant]] = {cls.key: cls for cls in (QQ5, New5, Classic3, Fenzhou5)}


def find_variant(key: str, **options: Any) -> Variant:
    try:
        cls = VARIANTS[key]
    except KeyError:
        raise UnknownVariant(f"unknown variant {key!r}; known: {', '.join(VARIANTS)}") from None
    return cls(**options)
