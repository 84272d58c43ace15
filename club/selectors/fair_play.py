"""Fair-play signals for the staff: pairs who play together often, bean flows between players,
shared connection addresses and abandoned hands."""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from accounts.models import User
from club.models import ConnectionRecord, HandOutcome
from games.api import HandAction, HandPlayer


@dataclass
class Signal:
    kind: str
    users: list[Any]
    summary: dict[str, Any]
    hand_ids: list[int]


def _since() -> datetime.datetime:
    return timezone.now() - datetime.timedelta(days=settings.DDZ_FAIRPLAY_DAYS)


def _users(ids: set[int]) -> dict[int, User]:
    return {u.pk: u for u in User.objects.filter(pk__in=ids)}


def _human_seats(since: datetime.datetime) -> dict[int, dict[int, int]]:
    """hand id -> {seat: user id} for the humans of finished hands since ``since``."""
    rows = HandPlayer.objects.filter(
        hand__status="finished",
        hand__finished_at__gte=since,
        user__isnull=False,
        is_bot=False,
        user__is_bot=False,
    ).values_list("hand_id", "seat", "user_id")
    hands: dict[int, dict[int, int]] = defaultdict(dict)
    for hand_id, seat, user_id in rows:
        hands[hand_id][seat] = user_id
    return hands


def signal_frequent_pairs(*, since: datetime.datetime | None = None) -> list[Signal]:
    """Two accounts sharing at least DDZ_FAIRPLAY_PAIR_MIN_HANDS hands, which are at least
    DDZ_FAIRPLAY_PAIR_SHARE of the hands of the less active of the two."""
    hands = _human_seats(since or _since())
    played: dict[int, int] = defaultdict(int)
    together: dict[tuple[int, int], list[int]] = defaultdict(list)
    for hand_id, seats in hands.items():
        users = sorted(set(seats.values()))
        for u in users:
            played[u] += 1
        for i, a in enumerate(users):
            for b in users[i + 1 :]:
                together[(a, b)].append(hand_id)
    minimum = settings.DDZ_FAIRPLAY_PAIR_MIN_HANDS
    share = settings.DDZ_FAIRPLAY_PAIR_SHARE
    found = []
    for (a, b), ids in together.items():
        fewer = min(played[a], played[b])
        if len(ids) >= minimum and fewer and len(ids) / fewer >= share:
            found.append(((a, b), ids, len(ids) / fewer))
    people = _users({u for (pair, _i, _s) in found for u in pair})
    return [
        Signal(
            "pair",
            [people[a], people[b]],
            {"hands": len(ids), "share": round(s * 100)},
            sorted(ids, reverse=True),
        )
        for (a, b), ids, s in sorted(found, key=lambda f: -len(f[1]))
    ]


def signal_bean_flows(*, since: datetime.datetime | None = None) -> list[Signal]:
    """Beans flowing one way between two accounts on opposite sides: each losing seat's loss
    is shared among the winners in proportion to their gains. A pair is flagged when at least
    DDZ_FAIRPLAY_FLOW_MIN_HANDS hands moved at least DDZ_FAIRPLAY_FLOW_MIN_BEANS net from one
    to the other and the receiver won at least DDZ_FAIRPLAY_FLOW_SHARE of those hands."""
    outcomes = HandOutcome.objects.filter(finished_at__gte=since or _since()).values_list(
        "hand_id", "user_id", "side", "beans"
    )
    by_hand: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for hand_id, user_id, side, beans in outcomes:
        by_hand[hand_id].append((user_id, side, beans))
    flow: dict[tuple[int, int], float] = defaultdict(float)  # (payer, receiver) -> beans
    taken: dict[tuple[int, int], int] = defaultdict(int)  # (payer, receiver) -> hands
    hands_of: dict[tuple[int, int], list[int]] = defaultdict(list)  # (a, b), a < b
    for hand_id, rows in by_hand.items():
        gain = sum(b for _u, _s, b in rows if b > 0)
        for a, aside, abeans in rows:
            for b, bside, bbeans in rows:
                if aside == bside or a >= b:
                    continue
                hands_of[(a, b)].append(hand_id)
                if abeans < 0 < bbeans:
                    flow[(a, b)] += -abeans * bbeans / gain
                    taken[(a, b)] += 1
                elif bbeans < 0 < abeans:
                    flow[(b, a)] += -bbeans * abeans / gain
                    taken[(b, a)] += 1
    found = []
    for (a, b), ids in hands_of.items():
        net = flow[(a, b)] - flow[(b, a)]
        payer, receiver = (a, b) if net > 0 else (b, a)
        received = taken[(payer, receiver)]
        if (
            len(ids) >= settings.DDZ_FAIRPLAY_FLOW_MIN_HANDS
            and abs(net) >= settings.DDZ_FAIRPLAY_FLOW_MIN_BEANS
            and received / len(ids) >= settings.DDZ_FAIRPLAY_FLOW_SHARE
        ):
            found.append((payer, receiver, round(abs(net)), ids, received))
    people = _users({u for f in found for u in f[:2]})
    return [
        Signal(
            "flow",
            [people[p], people[r]],
            {"beans": net, "hands": len(ids), "received": received},
            sorted(ids, reverse=True),
        )
        for p, r, net, ids, received in sorted(found, key=lambda f: -f[2])
    ]


def signal_shared_addresses(*, since: datetime.datetime | None = None) -> list[Signal]:
    """Two or more seated accounts that connected to one table from one address, with the
    hands they played there together."""
    rows = (
        ConnectionRecord.objects.filter(seen_at__gte=since or _since(), seated=True)
        .values("table_id", "ip")
        .annotate(users=Count("user_id", distinct=True))
        .filter(users__gte=2)
    )
    found = []
    for row in rows:
        user_ids = set(
            ConnectionRecord.objects.filter(
                table_id=row["table_id"], ip=row["ip"], seated=True
            ).values_list("user_id", flat=True)
        )
        per_hand: dict[int, set[int]] = defaultdict(set)
        for hand_id, user_id in HandPlayer.objects.filter(
            hand__table_id=row["table_id"], user_id__in=user_ids
        ).values_list("hand_id", "user_id"):
            per_hand[hand_id].add(user_id)
        ids = sorted((h for h, us in per_hand.items() if len(us) >= 2), reverse=True)
        found.append((row["table_id"], row["ip"], user_ids, ids))
    people = _users({u for f in found for u in f[2]})
    return [
        Signal(
            "address",
            [people[u] for u in sorted(users)],
            {"table": table_id, "ip": ip, "hands": len(ids)},
            ids,
        )
        for table_id, ip, users, ids in found
    ]


def signal_abandons(*, since: datetime.datetime | None = None) -> list[Signal]:
    """Accounts that timed out or left (托管 taken over by the server, or the player leaving)
    in at least DDZ_FAIRPLAY_ABANDON_SHARE of at least DDZ_FAIRPLAY_ABANDON_MIN_HANDS hands."""
    hands = _human_seats(since or _since())
    played: dict[int, int] = defaultdict(int)
    for seats in hands.values():
        for u in set(seats.values()):
            played[u] += 1
    bad: dict[int, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    actions = HandAction.objects.filter(
        hand_id__in=list(hands),
        source__in=[HandAction.Source.TIMEOUT, HandAction.Source.AUTOPLAY],
    ).values_list("hand_id", "seat", "source", "payload")
    for hand_id, seat, source, payload in actions:
        user_id = hands[hand_id].get(seat)
        if user_id is None:
            continue
        if source == HandAction.Source.TIMEOUT:
            bad[user_id][hand_id].add("timeout")
        elif (
            isinstance(payload, dict) and payload.get("act") == "autoplay" and payload.get("value")
        ):
            bad[user_id][hand_id].add("left")
    found = []
    for user_id, per_hand in bad.items():
        total = played[user_id]
        if (
            total >= settings.DDZ_FAIRPLAY_ABANDON_MIN_HANDS
            and len(per_hand) / total >= settings.DDZ_FAIRPLAY_ABANDON_SHARE
        ):
            found.append((user_id, per_hand, total))
    people = _users({f[0] for f in found})
    return [
        Signal(
            "abandon",
            [people[u]],
            {
                "hands": total,
                "flagged": len(per_hand),
                "timeouts": sum(1 for k in per_hand.values() if "timeout" in k),
                "left": sum(1 for k in per_hand.values() if "left" in k),
                "share": round(len(per_hand) * 100 / total),
            },
            sorted(per_hand, reverse=True),
        )
        for u, per_hand, total in sorted(found, key=lambda f: -len(f[1]) / f[2])
    ]


def fair_play_signals() -> dict[str, list[Signal]]:
    return {
        "pair": signal_frequent_pairs(),
        "flow": signal_bean_flows(),
        "address": signal_shared_addresses(),
        "abandon": signal_abandons(),
    }
