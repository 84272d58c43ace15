"""The four rule sets, one class each, looked up by their stable key.

Rule differences live here as class-level flags and hooks; code elsewhere asks the variant
instead of branching on its key. Uncertain readings of docs/rules.md are named options whose
defaults are the spec's choices, so a room can switch them without code changes.

Combination rules (read by ``games.engine.combos``)
----------------------------------------------------
Plain attributes below are the combination table of docs/rules.md §3.2, §4.2, §5.2 and §6.3 in
data form. They are class attributes with the classic defaults; a subclass overrides them,
and ``_configure()`` adjusts them per instance from the rule options (e.g. the classic3
kicker policy), so ``combos.py`` never looks at a variant's key or options. Bombs are
hooks: ``natural_bomb``, ``joker_readings`` and ``chain_bomb`` return the kind and the
``bomb_power`` tuple of the variant's bomb table (§3.3, §4.3, §5.3, §6.4); bomb powers
compare as tuples within one variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final, Protocol

from games.engine.errors import UnknownOption, UnknownVariant

SJ = 16
BJ = 17


class Play(Protocol):
    """What a variant reads of a play's reading (a ``combos.Combo``) to score it."""

    @property
    def kind(self) -> str: ...

    @property
    def bomb_power(self) -> tuple[int, ...] | None: ...

    @property
    def is_bomb(self) -> bool: ...


# A bomb-class reading as the hooks return it: (kind, key, bomb_power).
BombReading = tuple[str, int, tuple[int, ...]]
# A reading of an all-joker play: (kind, key, bomb_power or None).
JokerReading = tuple[str, int, tuple[int, ...] | None]

# Sequence positions (docs/rules.md §2.1, §4.1): the standard game runs 3..A only.
STANDARD_CHAIN_POSITIONS: Mapping[int, tuple[int, ...]] = {r: (r,) for r in range(3, 15)}
# new5: A is low (1) or high (14), 2 is only ever low (2); jokers never.
LOW_ACE_TWO_CHAIN_POSITIONS: Mapping[int, tuple[int, ...]] = {
    **{r: (r,) for r in range(3, 14)},
    14: (1, 14),
    15: (2,),
}

# A rule option's value: a named reading (a str) or a switch (a bool).
OptionValue = str | bool

# Table aids every variant offers, named like rule options so that a room may switch them off:
# no play, step or settlement depends on them (docs/rules.md §9).
AID_OPTIONS: Mapping[str, tuple[OptionValue, ...]] = {"card_counter": (True, False)}

# When a play may be made: at any time, only as the player's final play, or never.
ALWAYS = "always"
FINAL = "final"
NEVER = "never"


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
    option_choices: ClassVar[Mapping[str, tuple[OptionValue, ...]]] = {}
    # The face-up card may be a joker (classic3 turns up any dealt card; docs/rules.md §5.1).
    face_up_jokers: ClassVar[bool] = False
    # 积分 moves by units × base score B (qq5, docs/rules.md §3.6); elsewhere the units leave B out.
    score_by_base: ClassVar[bool] = False

    # ---- combination rules (instance-overridable by _configure) -------------------------
    # Sequence positions of each rank allowed in a straight, pair chain or plane body.
    chain_positions: Mapping[int, tuple[int, ...]] = STANDARD_CHAIN_POSITIONS
    min_straight: int = 5
    max_straight: int = 12
    min_pair_chain: int = 3
    max_pair_chain: int = 14  # pairs; the chain positions bound it anyway
    min_triple_chain: int = 2  # also the smallest plane
    # A non-bomb play may hold at most this many cards of one rank (§0 #14); None = no limit.
    non_bomb_max_per_rank: int | None = 3
    joker_pairs: bool = False  # SJ SJ / BJ BJ are 对子 (new5)
    bare_triple: str = ALWAYS  # 三张
    bare_triple_chain: str = ALWAYS  # 三顺 / bare plane
    # Bare triple chains that are no combination, as sets of ranks (new5: AAA222).
    forbidden_bare_triple_chains: frozenset[frozenset[int]] = frozenset()
    triple_single: bool = False  # 三带一 (a single kicker)
    triple_pair: bool = False  # 三带二 / 三带一对 (a pair kicker)
    triple_pair_joker_pair: bool = False  # the pair kicker may be SJ SJ / BJ BJ (new5)
    plane_single: bool = False  # 飞机带单
    plane_pair: bool = False  # 飞机带对
    four_two: bool = False  # 四带二 (singles) and 四带两对 (classic3)
    # Single kickers (三带一, 飞机带单, 四带二): may a joker be one, may two kickers share a
    # rank, may SJ and BJ both be kickers of one play?
    kicker_jokers: bool = True
    kicker_repeats: bool = False
    kicker_both_jokers: bool = True
    # Pair wings (飞机带对, 四带两对): may two pairs share a rank (4 of a kind as two pairs)?
    wing_pair_repeats: bool = False
    # Pair wings must form a consecutive pair run on chain positions (new5).
    wings_consecutive: bool = False
    # Wing sets that are refused, as sorted rank tuples (new5: AA22 on a 2-triple plane).
    forbidden_wings: frozenset[tuple[int, ...]] = frozenset()
    # Extra wing sets allowed beside natural pairs (new5: SJSJ+BJBJ on a 2-triple plane).
    special_wings: frozenset[tuple[int, ...]] = frozenset()
    # The kinds this variant can produce (for documentation, UIs and tests).
    kinds: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **options: Any) -> None:
        resolved = {name: choices[0] for name, choices in self.option_choices.items()}
        for name, value in options.items():
            if name not in self.option_choices:
                raise UnknownOption(f"{self.key} has no rule option {name!r}")
            if value not in self.option_choices[name]:
                allowed = ", ".join(repr(choice) for choice in self.option_choices[name])
                raise UnknownOption(f"{self.key} option {name!r} must be one of {allowed}")
            resolved[name] = value
        self.options: Mapping[str, OptionValue] = resolved
        self._hash = hash((self.key, tuple(sorted(resolved.items()))))
        self._configure()
        self.joker_table: Mapping[tuple[int, int], tuple[JokerReading, ...]] = (
            self._build_joker_table()
        )

    def _configure(self) -> None:
        """Adjust the combination rules to the chosen options (subclasses override)."""

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items() if v != self.option_choices[k][0]}
        args = ", ".join([repr(self.key), *(f"{k}={v!r}" for k, v in changed.items())])
        return f"find_variant({args})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Variant) and other.key == self.key and other.options == self.options
        )

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def option_defaults(cls) -> dict[str, OptionValue]:
        return {name: choices[0] for name, choices in cls.option_choices.items()}

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        """The most units one seat can lose in a hand (docs/rules.md §7 `min_balance`).

        Where the variant's multiplier has no cap of its own, the room's `max_multiplier`
        bounds it, and without one the loss is taken at multiplier 16 (docs/rules.md §7).
        """
        raise NotImplementedError

    # ---- bomb hooks ----------------------------------------------------------------------
    def natural_bomb(self, size: int, rank: int) -> BombReading | None:
        """The reading of `size` cards of one natural rank as a bomb, or None."""
        return None

    def joker_bombs(self, small: int, big: int) -> tuple[BombReading, ...]:
        """Bomb-class readings of a play of only jokers (`small` SJ, `big` BJ; 2+ cards)."""
        return ()

    def chain_bomb(self, length: int, top: int) -> BombReading | None:
        """A run of `length` ≥ 2 consecutive 4-of-a-kinds topped by `top` (fenzhou5 连炸)."""
        return None

    def bomb_bonus(self, combo: Play) -> int:
        """What playing `combo` adds to the hand's bomb count (hand scoring helper).

        qq5 and classic3: the number of doublings it causes (docs/rules.md §3.5, §5.5);
        fenzhou5: the points it adds to the bonus S (§6.7); new5: always 0 (§4.5).
        """
        return 0

    def _build_joker_table(self) -> Mapping[tuple[int, int], tuple[JokerReading, ...]]:
        jokers_per_kind = self.decks
        table: dict[tuple[int, int], tuple[JokerReading, ...]] = {
            (1, 0): (("single", SJ, None),),
            (0, 1): (("single", BJ, None),),
        }
        for small in range(jokers_per_kind + 1):
            for big in range(jokers_per_kind + 1):
                if small + big < 2:
                    continue
                readings: list[JokerReading] = []
                if self.joker_pairs and (small, big) in ((2, 0), (0, 2)):
                    readings.append(("pair", SJ if small else BJ, None))
                readings.extend(self.joker_bombs(small, big))
                if readings:
                    table[(small, big)] = tuple(readings)
        return table


UNCAPPED_MULTIPLIER_FOR_MIN_BALANCE = 16


def _multiplier_bound(max_multiplier: int | None) -> int:
    return max_multiplier if max_multiplier is not None else UNCAPPED_MULTIPLIER_FOR_MIN_BALANCE


class QQ5(Variant):
    """docs/rules.md §3: two decks, 明地主 + 暗地主; 三带二 and 飞机带对 only; bombs 4..8 of a
    kind."""

    key = "qq5"
    name = "五人斗地主"
    score_by_base = True
    seats = 5
    decks = 2
    hand_size = 21
    bottom_size = 3
    landlord_hand_size = 24
    option_choices = {"qq5_double_scope": ("global", "per_player"), **AID_OPTIONS}

    triple_pair = True
    plane_pair = True
    kinds = (
        "single",
        "pair",
        "triple",
        "triple_pair",
        "straight",
        "pair_chain",
        "triple_chain",
        "plane_pair",
        "bomb",
        "joker_bomb",
        "nuke",
    )
    # §3.3 tiers: 4炸 0, 双王 1, 5炸 2, 6炸 3, 三王 4, 7炸 5, 8炸 6, 天王 7.
    NATURAL_BOMB_TIER: ClassVar[Mapping[int, int]] = {4: 0, 5: 2, 6: 3, 7: 5, 8: 6}
    DOUBLING_TIERS: ClassVar[frozenset[int]] = frozenset({2, 3, 4, 5, 6, 7})  # §3.5

    def natural_bomb(self, size: int, rank: int) -> BombReading | None:
        tier = self.NATURAL_BOMB_TIER.get(size)
        return None if tier is None else ("bomb", rank, (tier, rank))

    def joker_bombs(self, small: int, big: int) -> tuple[BombReading, ...]:
        count = small + big
        if count == 2 and big in (0, 2):  # 双王: BJ BJ > SJ SJ; SJ+BJ is nothing (§0 #2)
            return (("joker_bomb", BJ if big else SJ, (1, BJ if big else SJ)),)
        if count == 3:  # 三王: BJ BJ SJ > BJ SJ SJ
            return (("joker_bomb", BJ, (4, big)),)
        if count == 4:  # 天王
            return (("nuke", BJ, (7, 0)),)
        return ()

    def bomb_bonus(self, combo: Play) -> int:
        power = combo.bomb_power
        return 1 if power is not None and power[0] in self.DOUBLING_TIERS else 0

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        # A solo landlord against four farmers settles X = 4 × M (docs/rules.md §3.6).
        return 4 * _multiplier_bound(max_multiplier)


class New5(Variant):
    """docs/rules.md §4: three decks, A/2 low in sequences, joker pairs, consecutive pair wings."""

    key = "new5"
    name = "新五人斗地主"
    seats = 5
    decks = 3
    hand_size = 31
    bottom_size = 7
    landlord_hand_size = 38
    option_choices = {"new5_scheme": ("level", "city"), **AID_OPTIONS}
    # Grab material is six identities (two jokers, four suits of the 明牌 rank), three copies
    # each, worth at most two grabs per identity: G ≤ 12, doubled by 明独打.
    MAX_BASE_MULTIPLE = 2 * 12

    chain_positions = LOW_ACE_TWO_CHAIN_POSITIONS
    max_straight = 13
    joker_pairs = True
    triple_pair = True
    triple_pair_joker_pair = True
    plane_pair = True
    forbidden_bare_triple_chains = frozenset({frozenset({14, 15})})  # bare AAA222
    wings_consecutive = True
    forbidden_wings = frozenset({(14, 14, 15, 15)})  # AA22 on a 2-triple plane
    special_wings = frozenset({(SJ, SJ, BJ, BJ)})  # 222333+小王小王大王大王
    kinds = (
        "single",
        "pair",
        "triple",
        "triple_pair",
        "straight",
        "pair_chain",
        "triple_chain",
        "plane_pair",
        "bomb",
        "joker_bomb",
    )

    def natural_bomb(self, size: int, rank: int) -> BombReading | None:
        # §4.3: more cards win, then rank; the joker band sits between sizes 4 and 5.
        return ("bomb", rank, (size, 0, rank, 0)) if 4 <= size <= 12 else None

    def joker_bombs(self, small: int, big: int) -> tuple[BombReading, ...]:
        count = small + big
        if count >= 4 or (count == 3 and big in (0, 3)):
            return (("joker_bomb", BJ if big else SJ, (4, 1, count, big)),)
        return ()  # SJ SJ BJ and SJ BJ BJ are illegal; pairs are 对子

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        if self.options["new5_scheme"] == "level":
            return 4 * self.MAX_BASE_MULTIPLE
        # Scheme B (2^D) has no practical cap: bound it like any uncapped multiplier.
        return 4 * _multiplier_bound(max_multiplier)


class Classic3(Variant):
    """docs/rules.md §5: one deck; 三带一/三带对, 飞机带单/带对, 四带二/四带两对, rocket.

    ``classic3_kicker_policy``: ``"permissive"`` (default, §0 #15) lets single kickers repeat
    a rank (5555+33) or be SJ+BJ, and lets two wing pairs share a rank (3333+AAAA).
    ``"strict"`` refuses all three: single kickers are pairwise different ranks and never
    SJ together with BJ; pair wings are pairwise different ranks.
    """

    key = "classic3"
    face_up_jokers = True
    name = "经典斗地主"
    seats = 3
    decks = 1
    hand_size = 17
    bottom_size = 3
    landlord_hand_size = 20
    option_choices = {
        "classic3_kicker_policy": ("permissive", "strict"),
        "classic3_show_cards": (False, True),
        **AID_OPTIONS,
    }
    MAX_BID: Final = 3
    MAX_DOUBLINGS: Final = 4

    non_bomb_max_per_rank = None  # 四带二 holds four of a rank and is no bomb
    max_pair_chain = 10  # 双顺 up to 10 pairs (§5.2)
    triple_single = True
    triple_pair = True
    plane_single = True
    plane_pair = True
    four_two = True
    kicker_repeats = True
    wing_pair_repeats = True
    kinds = (
        "single",
        "pair",
        "triple",
        "triple_single",
        "triple_pair",
        "straight",
        "pair_chain",
        "triple_chain",
        "plane_single",
        "plane_pair",
        "four_two_singles",
        "four_two_pairs",
        "bomb",
        "rocket",
    )

    def _configure(self) -> None:
        if self.options["classic3_kicker_policy"] == "strict":
            self.kicker_repeats = False
            self.kicker_both_jokers = False
            self.wing_pair_repeats = False

    def natural_bomb(self, size: int, rank: int) -> BombReading | None:
        return ("bomb", rank, (0, rank)) if size == 4 else None

    def joker_bombs(self, small: int, big: int) -> tuple[BombReading, ...]:
        return (("rocket", BJ, (1, 0)),) if (small, big) == (1, 1) else ()

    def bomb_bonus(self, combo: Play) -> int:
        return 1 if combo.is_bomb else 0

    def max_loss_units(self, *, max_multiplier: int | None = None) -> int:
        # The landlord settles both farmers' stakes, each at most bid 3 × 2^4 (docs/rules.md §5.5).
        return 2 * self.MAX_BID * 2**self.MAX_DOUBLINGS


class Fenzhou5(Variant):
    """docs/rules.md §6: two decks; 三带一 only; bare triple/plane only as the final play;
    bombs are exactly 4 (or 对王), 连炸, 导弹 (8), 多连炸, 核弹. 5–7 of a kind is nothing.

    ``fenzhou_nuke``: ``"four_jokers"`` (default) makes BJ BJ SJ SJ the 核弹; under
    ``"big_plus_small"`` SJ+BJ is the 核弹 and four jokers together are no combination
    (they are played as two nukes, §6.3). ``fenzhou_bare_plane_last``: a bare plane is legal
    as the final play (default) or never. ``fenzhou_joker_kicker``: a joker may be a single
    kicker of 三带一 and of a plane (default) or not.
    """

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
        **AID_OPTIONS,
    }

    bare_triple = FINAL
    bare_triple_chain = FINAL
    triple_single = True
    plane_single = True
    kinds = (
        "single",
        "pair",
        "triple",
        "triple_single",
        "straight",
        "pair_chain",
        "triple_chain",
        "plane_single",
        "bomb",
        "joker_bomb",
        "chain_bomb",
        "missile",
        "multi_chain_bomb",
        "nuke",
    )
    # §6.7 bonus per play.
    BONUS: ClassVar[Mapping[str, int]] = {
        "bomb": 1,
        "joker_bomb": 1,
        "chain_bomb": 3,
        "missile": 4,
        "multi_chain_bomb": 5,
        "nuke": 7,
    }

    def _configure(self) -> None:
        self.bare_triple_chain = FINAL if self.options["fenzhou_bare_plane_last"] else NEVER
        self.kicker_jokers = bool(self.options["fenzhou_joker_kicker"])

    def natural_bomb(self, size: int, rank: int) -> BombReading | None:
        if size == 4:
            return ("bomb", rank, (0, 1, rank))
        if size == 8:
            return ("missile", rank, (2, 8, rank))
        return None  # 5, 6 or 7 of a kind is no combination at all

    def joker_bombs(self, small: int, big: int) -> tuple[BombReading, ...]:
        if (small, big) == (2, 0):
            return (("joker_bomb", SJ, (0, 1, SJ)),)
        if (small, big) == (0, 2):
            return (("joker_bomb", BJ, (0, 1, BJ)),)
        nuke = (2, 2) if self.options["fenzhou_nuke"] == "four_jokers" else (1, 1)
        if (small, big) == nuke:
            return (("nuke", BJ, (9, 0, 0)),)
        return ()

    def chain_bomb(self, length: int, top: int) -> BombReading | None:
        if length == 2:
            return ("chain_bomb", top, (1, 2, top))
        return ("multi_chain_bomb", top, (3, length, top))

    def bomb_bonus(self, combo: Play) -> int:
        return self.BONUS.get(combo.kind, 0) if combo.is_bomb else 0

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
