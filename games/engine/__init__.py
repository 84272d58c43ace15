"""The rules engine: pure Python, standard library only (never imports Django).

Public API (docs/rules.md §2–§6, §8): card notation, the variant registry, combinations and
the beat relation, typed errors. Other engine modules add their names below.
"""

from games.engine.beans import RoomStakes, largest_remainder
from games.engine.bot import BotLevel, bot_action
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
from games.engine.dealing import (
    Deal,
    deal,
    new_seed,
    next_landlord_seat,
    seed_commitment,
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
from games.engine.hand import (
    apply,
    autoplay_action,
    default_action,
    legal_actions,
    start_hand,
    summary,
    waiting_seats,
)
from games.engine.record import ReplayError, hand_record, replay
from games.engine.state import Action, HandState
from games.engine.variants import VARIANTS, Variant, find_variant
from games.engine.views import public_view, view_for

__all__ = [
    "BJ",
    "BOMB_KINDS",
    "KINDS",
    "RANK_ACE",
    "RANK_TWO",
    "SJ",
    "VARIANTS",
    "Action",
    "BotLevel",
    "CardsNotHeld",
    "Combo",
    "Deal",
    "DoesNotBeat",
    "EngineError",
    "HandState",
    "IllegalAction",
    "IllegalPlay",
    "InvalidNotation",
    "NotYourTurn",
    "ReplayError",
    "RoomStakes",
    "UnknownOption",
    "UnknownVariant",
    "Variant",
    "WrongPhase",
    "apply",
    "autoplay_action",
    "beats",
    "bot_action",
    "card_code",
    "card_rank",
    "card_suit",
    "classify",
    "deal",
    "default_action",
    "find_variant",
    "format_cards",
    "format_ranks",
    "hand_record",
    "largest_remainder",
    "legal_actions",
    "new_seed",
    "next_landlord_seat",
    "parse_cards",
    "parse_ranks",
    "public_view",
    "rank_counts",
    "rank_name",
    "ranks_of",
    "reading_to_follow",
    "reading_to_lead",
    "replay",
    "seed_commitment",
    "start_hand",
    "summary",
    "view_for",
    "waiting_seats",
]
