"""The rules engine: pure Python, standard library only (never imports Django).

Public API (RULES.md §2–§6, §8): card notation, the variant registry, combinations and
the beat relation, typed errors. Other engine modules add their names below.
"""

from games.engine.cards import (
    BJ,
    RANK_ACE,
    RANK_TWO,
    SJ,
    card_code,
    card_rank,
    card_suit,
    format_cards,
    format_ranks,
    parse_cards,
    parse_ranks,
    rank_counts,
    rank_name,
    ranks_of,
)
from games.engine.combos import (
    BOMB_KINDS,
    KINDS,
    Combo,
    beats,
    classify,
    reading_to_follow,
    reading_to_lead,
)
from games.engine.errors import (
    CardsNotHeld,
    DoesNotBeat,
    EngineError,
    IllegalAction,
    IllegalPlay,
    InvalidNotation,
    NotYourTurn,
    UnknownOption,
    UnknownVariant,
    WrongPhase,
)
from games.engine.variants import VARIANTS, Variant, find_variant

__all__ = [
    "BJ",
    "BOMB_KINDS",
    "KINDS",
    "RANK_ACE",
    "RANK_TWO",
    "SJ",
    "VARIANTS",
    "CardsNotHeld",
    "Combo",
    "DoesNotBeat",
    "EngineError",
    "IllegalAction",
    "IllegalPlay",
    "InvalidNotation",
    "NotYourTurn",
    "UnknownOption",
    "UnknownVariant",
    "Variant",
    "WrongPhase",
    "beats",
    "card_code",
    "card_rank",
    "card_suit",
    "classify",
    "find_variant",
    "format_cards",
    "format_ranks",
    "parse_cards",
    "parse_ranks",
    "rank_counts",
    "rank_name",
    "ranks_of",
    "reading_to_follow",
    "reading_to_lead",
]
