"""The rules pages' words (docs/rules.md in the players' words): per variant its roles, the steps
of a hand, the bomb ladder and the settlement with a worked example, keyed by the variant key
like the other tables of the screen (docs/conventions.md §2). What the variant classes say (the
deck, the combinations it knows and their constraints, its rule options) is read from them, so
the page follows the engine; each drawn example is a play the engine reads as its kind
(tests/games/pages/test_rules_pages.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine.variants import (
    FINAL,
    LOW_ACE_TWO_CHAIN_POSITIONS,
    NEVER,
    VARIANTS,
    Variant,
    find_variant,
)
from games.screen.labels import KIND_LABELS, card_faces, role_label
from games.table.options import OPTION_HELP, option_label, value_label

# One play of each kind, in suited notation (docs/rules.md §8.1); a variant's own where the
# common one is not its reading.
EXAMPLES: dict[str, str] = {
    "single": "Ks",
    "pair": "9h 9s",
    "triple": "7d 7c 7s",
    "triple_single": "8d 8c 8s 4h",
    "triple_pair": "Jd Jc Js 5h 5s",
    "straight": "6d 7c 8h 9s Td",
    "pair_chain": "4d 4s 5c 5h 6d 6s",
    "triple_chain": "9d 9c 9s Td Tc Ts",
    "plane_single": "5d 5c 5s 6d 6h 6s 9c Kd",
    "plane_pair": "Td Tc Ts Jd Jc Jh 3d 3s 4c 4h",
    "four_two_singles": "Qd Qc Qh Qs 3d 8c",
    "four_two_pairs": "6d 6c 6h 6s 4d 4h 9c 9s",
    "bomb": "8d 8c 8h 8s",
    "rocket": "SJ BJ",
    "chain_bomb": "3d 3c 3h 3s 4d 4c 4h 4s",
    "missile": "5d 5d 5c 5c 5h 5h 5s 5s",
    "multi_chain_bomb": "Td Tc Th Ts Jd Jc Jh Js Qd Qc Qh Qs",
    "nuke": "SJ SJ BJ BJ",
}
VARIANT_EXAMPLES: dict[str, dict[str, str]] = {
    "qq5": {"joker_bomb": "SJ SJ", "bomb": "8d 8c 8h 8s 8s"},
    "new5": {"joker_bomb": "BJ BJ BJ", "straight": "Ah 2s 3d 4c 5h", "bomb": "8d 8c 8h 8s 8s 8h"},
    "fenzhou5": {"joker_bomb": "BJ BJ"},
}

KIND_TEXT = {
    "single": gettext_lazy("Any one card."),
    "pair": gettext_lazy("Two cards of one rank."),
    "triple": gettext_lazy("Three cards of one rank."),
    "triple_single": gettext_lazy("A triple and one card of another rank."),
    "triple_pair": gettext_lazy("A triple and a pair of another rank."),
    "straight": gettext_lazy("Five or more cards of consecutive ranks, no 2 and no joker."),
    "pair_chain": gettext_lazy("Three or more pairs of consecutive ranks."),
    "triple_chain": gettext_lazy("Two or more triples of consecutive ranks, without wings."),
    "plane_single": gettext_lazy(
        "Two or more triples of consecutive ranks, each with one card of another rank."
    ),
    "plane_pair": gettext_lazy(
        "Two or more triples of consecutive ranks, each with a pair of another rank."
    ),
    "four_two_singles": gettext_lazy("Four of a rank and two more cards. Not a bomb."),
    "four_two_pairs": gettext_lazy("Four of a rank and two pairs. Not a bomb."),
    "bomb": gettext_lazy("Four or more cards of one rank: beats every play that is no bomb."),
    "rocket": gettext_lazy("The small and the big joker: beats everything."),
    "joker_bomb": gettext_lazy("Jokers played together as a bomb."),
    "chain_bomb": gettext_lazy("Two four-card bombs of consecutive ranks (no 2)."),
    "missile": gettext_lazy("All eight cards of one rank."),
    "multi_chain_bomb": gettext_lazy(
        "Three or more four-card bombs of consecutive ranks (no 2); longer beats shorter."
    ),
    "nuke": gettext_lazy("All four jokers: nothing beats it."),
}
VARIANT_KIND_TEXT = {
    "qq5": {
        "bomb": gettext_lazy("Four to eight cards of one rank."),
        "joker_bomb": gettext_lazy(
            "Two identical jokers or any three jokers. A small and a big joker together are no "
            "play."
        ),
    },
    "new5": {
        "bomb": gettext_lazy("Four to twelve cards of one rank."),
        "joker_bomb": gettext_lazy(
            "Three small or three big jokers, or any four, five or six jokers."
        ),
    },
    "classic3": {"bomb": gettext_lazy("Four cards of one rank.")},
    "fenzhou5": {
        "bomb": gettext_lazy("Exactly four cards of one rank. Five to seven of a kind is no play."),
        "joker_bomb": gettext_lazy("Two big jokers or two small jokers."),
    },
}

# What each seat may become, the hidden partner explained (docs/rules.md §3.4, §4.4, §5.1, §6.5).
ROLES = {
    "qq5": gettext_lazy(
        "One dealt card is turned face up: its holder is the open landlord and takes the three "
        "bottom cards face down. The deck has two of every card, and whoever holds the face-up "
        "card's twin is the hidden landlord: two landlords against three farmers. Nobody else "
        "knows who he is until he reveals himself or plays the twin; from then on the two "
        "landlords see each other's hands. If the open landlord holds the twin himself, he "
        "plays alone against four."
    ),
    "new5": gettext_lazy(
        "The players grab the landlord with pairs and triples of the face-up card's rank or of "
        "jokers; the strongest grab makes the main landlord, who takes the seven bottom cards "
        "and then chooses: call a friend (the table is told a card he holds twice; the holder "
        "of its third copy is his hidden deputy, who knows it), play a hidden solo (nobody is "
        "told; it shows when he plays a card he holds three times), or play an open solo "
        "against four for double stakes."
    ),
    "classic3": gettext_lazy(
        "The highest bidder is the landlord and plays alone against the two farmers, who win "
        "together when either of them goes out first."
    ),
    "fenzhou5": gettext_lazy(
        "The landlord's seat moves on by one every hand. He names a card he holds (not a 2, "
        "not a joker); the holder of its other copy is his hidden henchman, who knows it and "
        "is shown when he plays that card. If the landlord holds both copies he plays alone "
        "against four, and nobody is told."
    ),
}

STEPS = {
    "qq5": (
        gettext_lazy("Deal: 21 cards each, 3 to the bottom; one card is turned face up."),
        gettext_lazy(
            "Identity: the landlords may each reveal themselves; any reveal doubles the "
            "stakes once."
        ),
        gettext_lazy("Doubling: every player may double, each double ×2."),
        gettext_lazy("Play: the open landlord leads; the first player out wins for his side."),
    ),
    "new5": (
        gettext_lazy("Deal: 31 cards each, 7 to the bottom; one card is shown face up."),
        gettext_lazy(
            "Grab: all at once, with pairs and triples of the face-up rank or of jokers; "
            "every grab adds one to the stake."
        ),
        gettext_lazy(
            "The main landlord takes the bottom. He wins at once if he holds no card twice, "
            "ten cards of one rank, or no bomb at all."
        ),
        gettext_lazy("Partner: call a friend, hidden solo or open solo."),
        gettext_lazy("Play: the main landlord leads; the first player out wins for his side."),
    ),
    "classic3": (
        gettext_lazy(
            "Deal: 17 cards each, 3 to the bottom; the holder of the face-up card bids first."
        ),
        gettext_lazy(
            "Bid once each: 1, 2 or 3 points, or pass; 3 ends the bidding. If all pass, the "
            "cards are dealt again."
        ),
        gettext_lazy(
            "The bottom is shown to all and goes to the landlord. A farmer who had no turn to "
            "bid (someone bid 3 first) may double."
        ),
        gettext_lazy("Play: the landlord leads; the first player out wins for his side."),
    ),
    "fenzhou5": (
        gettext_lazy(
            "Deal: the four farmers get 21 cards each, the landlord keeps the other 24; no "
            "bottom, no bidding."
        ),
        gettext_lazy("Call: the landlord names the card that makes his henchman."),
        gettext_lazy("Play: the landlord leads; the first player out wins for his side."),
    ),
}

BOMB_LADDER = {
    "qq5": gettext_lazy(
        "From low to high: four of a kind < two identical jokers < five of a kind < six of a "
        "kind < three jokers < seven of a kind < eight of a kind < all four jokers. Bombs of "
        "one size compare by rank."
    ),
    "new5": gettext_lazy(
        "More cards beat fewer, then the higher rank wins. The joker bombs sit above every "
        "four-card bomb (even 2222) and below every five-card bomb: more jokers win, then more "
        "big jokers."
    ),
    "classic3": gettext_lazy(
        "The rocket beats every bomb; bombs compare by rank: 2222 is highest."
    ),
    "fenzhou5": gettext_lazy(
        "From low to high: bombs (3333 … 2222, then two small jokers, then two big jokers) < "
        "chain bombs < missiles < multi-chain bombs < the nuke."
    ),
}

SETTLEMENT = {
    "qq5": gettext_lazy(
        "The multiplier starts at 1 and doubles for a reveal, for each double, for each bomb "
        "of five cards or more, three jokers or four jokers, and for a spring (the losers "
        "played no card). A farmer's stake "
        "is the multiplier; a landlord's stake is the farmers' stakes shared between the "
        "landlords. The score moves by the stake times the base score."
    ),
    "new5": gettext_lazy(
        "The stake D is the number of grabs (at least 1), doubled by an open solo; bombs and "
        "springs do not count. A unit is D (level scheme) or 2 to the power D (city scheme). "
        "Two against three: the main landlord ±2 units, the deputy ±1, each farmer ∓1. Solo: "
        "the landlord ±4 units, each farmer ∓1. An auto-win: the landlord +4, each other −1."
    ),
    "classic3": gettext_lazy(
        "Each farmer's stake is the bid × 2 for each bomb or rocket played, for a spring or an "
        "anti-spring, and for his own double, at most ×16. The landlord wins or pays both "
        "farmers' stakes. Spring: the landlord goes out and neither farmer played a card. "
        "Anti-spring: a farmer goes out and the landlord played only his first lead."
    ),
    "fenzhou5": gettext_lazy(
        "The unit u is 1 plus a bonus for every bomb played: bomb +1, chain bomb +3, missile +4, "
        "multi-chain bomb +5, nuke +7. Two against three: each farmer ±u, the landlord and the "
        "henchman ±1.5u each. Solo: the landlord ±4u, each farmer ∓u."
    ),
}

WORKED_EXAMPLE = {
    "qq5": gettext_lazy(
        "Base score 1, room ×50, house take 10. The hidden landlord reveals (×2), one farmer "
        "doubles (×2), a five-card bomb is played (×2): the multiplier is 8. Each farmer's "
        "stake is 8 and each landlord's 3 × 8 ÷ 2 = 12. The landlords win: each gets "
        "12 × 50 − 10 = 590 beans, each farmer pays 8 × 50 + 10 = 410, the house keeps 50."
    ),
    "new5": gettext_lazy(
        "Six grabs were made: D = 6. The main landlord calls a friend and their side wins. "
        "Level scheme, base score 1: the main landlord +12, the deputy +6, each farmer −6. In "
        "the city scheme the unit is 2⁶ = 64: +128, +64 and −64 each."
    ),
    "classic3": gettext_lazy(
        "Room ×10, a bid of 3, one bomb played: each farmer's stake is 3 × 2 = 6 units, 60 "
        "beans. The landlord wins 120 beans, 108 after a rake of 10%; each farmer pays 60."
    ),
    "fenzhou5": gettext_lazy(
        "Played: two small jokers (+1), 9999 (+1) and eight fives (+4): u = 7. The landlord's "
        "side wins two against three: the landlord +10.5 and the henchman +10.5 (11 and 10 "
        "beans: halves are rounded so the hand sums to zero), each farmer −7."
    ),
}

INTRO = {
    "qq5": gettext_lazy("Five players, two decks, an open and a hidden landlord."),
    "new5": gettext_lazy("Five players, three decks, grabbing the landlord and calling a friend."),
    "classic3": gettext_lazy("Three players, one deck, bidding 1 to 3 points."),
    "fenzhou5": gettext_lazy("Five players, two decks, the landlord calls a hidden henchman."),
}


def _notes(variant: Variant, kind: str) -> list[str]:
    """The constraints of ``kind`` the variant's combination flags add to its plain text."""
    notes: list[str] = []
    if kind == "pair" and variant.joker_pairs:
        notes.append(_("Two small or two big jokers are a pair too."))
    if kind == "triple" and variant.bare_triple == FINAL:
        notes.append(_("Only as a player's last play."))
    if kind == "triple_chain":
        if variant.bare_triple_chain == FINAL:
            notes.append(_("Only as a player's last play."))
        elif variant.bare_triple_chain == NEVER:
            notes.append(_("Not allowed under this room's options."))
    if kind == "triple_pair" and not variant.triple_pair_joker_pair:
        notes.append(_("The pair is of natural cards, never jokers."))
    if kind == "triple_pair" and variant.triple_pair_joker_pair:
        notes.append(_("The pair may be two identical jokers."))
    if kind in ("triple_single", "plane_single") and not variant.kicker_jokers:
        notes.append(_("The single may not be a joker."))
    if kind == "plane_single":
        if variant.kicker_repeats:
            notes.append(_("The singles may share a rank."))
        else:
            notes.append(_("The singles are of different ranks."))
    if kind == "plane_pair" and variant.wings_consecutive:
        notes.append(_("The pairs must be of consecutive ranks too."))
    if kind in ("straight", "pair_chain", "triple_chain", "plane_pair") and (
        variant.chain_positions is LOW_ACE_TWO_CHAIN_POSITIONS
    ):
        notes.append(
            _("A and 2 may be low in a run: A2345 is the lowest straight; none goes past A.")
        )
    return notes


def combinations(variant: Variant) -> list[dict[str, Any]]:
    own_text = VARIANT_KIND_TEXT.get(variant.key, {})
    own_examples = VARIANT_EXAMPLES.get(variant.key, {})
    rows = []
    for kind in variant.kinds:
        example = own_examples.get(kind) or EXAMPLES[kind]
        rows.append(
            {
                "kind": kind,
                "label": str(KIND_LABELS[kind]),
                "text": str(own_text.get(kind, KIND_TEXT[kind])),
                "notes": _notes(variant, kind),
                "example": example,
                "cards": card_faces(example),
            }
        )
    return rows


def deck_facts(variant: Variant) -> list[str]:
    cards = variant.decks * 54
    facts = [
        _("%(seats)s players, %(decks)s × 54 = %(cards)s cards.")
        % {"seats": variant.seats, "decks": variant.decks, "cards": cards},
        _("Each player gets %(n)s cards; the landlord plays with %(lord)s.")
        % {"n": variant.hand_size, "lord": variant.landlord_hand_size},
    ]
    if variant.bottom_size:
        facts.append(_("%(n)s cards are the bottom.") % {"n": variant.bottom_size})
    facts.append(
        _("Single cards rank, high to low: big joker, small joker, 2, A, K … 3. Suits never count.")
    )
    return facts


def option_rows(variant_key: str, chosen: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Each rule option of the variant: its words, its default and, for a room, its value."""
    rows = []
    for name, values in VARIANTS[variant_key].option_choices.items():
        value = (chosen or {}).get(name, values[0])
        rows.append(
            {
                "name": name,
                "label": option_label(name),
                "help": str(OPTION_HELP.get(name, "")),
                "default": value_label(values[0]),
                "value": value_label(value) if chosen is not None else None,
                "changed": chosen is not None and value != values[0],
            }
        )
    return rows


def rules_context(*, variant_key: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Everything the rules page of one variant shows; ``options``: a room's rule options
    (None: the defaults, and no room column)."""
    variant = find_variant(variant_key, **(options or {}))
    return {
        "variant_key": variant_key,
        "intro": str(INTRO[variant_key]),
        "deck": deck_facts(variant),
        "landlord": role_label(variant_key, "landlord"),
        "partner": role_label(variant_key, "partner") if variant.seats > 3 else None,
        "roles": str(ROLES[variant_key]),
        "steps": [str(step) for step in STEPS[variant_key]],
        "combinations": combinations(variant),
        "multi_deck": variant.non_bomb_max_per_rank is not None and variant.decks > 1,
        "bomb_ladder": str(BOMB_LADDER[variant_key]),
        "settlement": str(SETTLEMENT[variant_key]),
        "worked_example": str(WORKED_EXAMPLE[variant_key]),
        "options": option_rows(variant_key, options),
    }
