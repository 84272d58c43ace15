"""Reads of club life: leaderboards, public profiles, spectators, fair-play signals, skill
ratings and seasons."""

from __future__ import annotations

import datetime
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from accounts.models import User
from accounts.selectors import title_for
from club import skill
from club.models import (
    ConnectionRecord,
    HandOutcome,
    PlayerSettings,
    Rating,
    RatingChange,
    Season,
    SeasonStanding,
    Suspension,
)
from club.skill import Game, SeatRecord, Skill
from games.api import (
    HandAction,
    HandPlayer,
    PreparedRead,
    Seat,
    SocketLease,
    Table,
    lease_seconds,
    table_spectators,
    user_live_sockets,
)

PERIODS = (7, 30)


# --------------------------------------------------------------------------- spectators


def spectator_count(*, table_id: int) -> int:
    """Distinct signed-in users with a socket open at the table who hold no seat there: their
    sockets' leases (games/services/presence.py), so every serving process counts the same
    spectators, and a process that stops or dies takes its spectators with it."""
    return table_spectators(table_id=table_id, now=timezone.now(), lease_seconds=lease_seconds())


def spectator_sockets(*, table_id: int, user_id: int) -> int | None:
    """How many sockets ``user_id`` has open at the table as a spectator; None when he holds a
    seat there (a player's sockets never change the count)."""
    if Seat.objects.filter(table_id=table_id, user_id=user_id).exists():
        return None
    return user_live_sockets(
        table_id=table_id,
        user_id=user_id,
        now=timezone.now(),
        lease_seconds=lease_seconds(),
    )


def _at_table_languages(table_id: int) -> Any:
    """(user id, stored language) of everyone seated at or watching the table: one shape
    whatever the seats, so that it compiles once. A watcher is anyone with a socket's lease at
    the table (one of a process that died, until swept, only adds a rendering)."""
    seated = Seat.objects.filter(table_id=table_id).values("user_id")
    watching = SocketLease.objects.filter(table_id=table_id).values("user_id")
    return User.objects.filter(Q(pk__in=seated) | Q(pk__in=watching)).values_list(
        "pk", "club_settings__language"
    )


_AT_TABLE_LANGUAGES = PreparedRead(_at_table_languages, "table_id")


def push_languages(
    *, table_id: int, seated_user_ids: Iterable[int]
) -> tuple[dict[int, str], set[str]]:
    """What one push of the table renders in, in one query: each seated player's language
    (the one he stored, else the club's default), and the languages its spectators read (an
    empty set when nobody watches: no public frame is rendered then)."""
    shipped = dict(settings.LANGUAGES)
    seated = set(seated_user_ids)
    players: dict[int, str] = {}
    spectators: set[str] = set()
    for user_id, stored in _AT_TABLE_LANGUAGES.rows(table_id=table_id):
        language = stored if stored in shipped else settings.LANGUAGE_CODE
        if user_id in seated:
            players[user_id] = language
        else:
            spectators.add(language)
    return players, spectators


def tables_to_watch(*, limit: int = 30) -> list[Any]:
    """Tables with a hand in play, busiest rooms first, for the lobby's Watch list."""
    qs = Table.objects.filter(status=Table.Status.PLAYING, room__is_active=True, managed=False)
    if any(f.name == "is_private" for f in Table._meta.get_fields()):
        qs = qs.filter(is_private=False)
    return list(qs.select_related("room").order_by("room__name", "-changed_at")[:limit])


# --------------------------------------------------------------------------- leaderboards


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    username: str
    value: int
    hands: int
    title: Any = None
    provisional: bool = False  # a rating board's row whose rating is still provisional
    badge: Any = None  # a season board's row: the highest title of the season


def _humans() -> Any:
    return User.objects.filter(is_bot=False, is_active=True)


def leaderboard_score(*, limit: int = 50) -> list[BoardRow]:
    """Everyone by score (the title ladder's measure), humans only."""
    users = (
        _humans()
        .annotate(hands=Count("hand_outcomes"))
        .order_by("-score", "username")
        .values("pk", "username", "score", "hands")[:limit]
    )
    return [
        BoardRow(i + 1, u["pk"], u["username"], u["score"], u["hands"], title_for(u["score"]))
        for i, u in enumerate(users)
    ]


def leaderboard_beans(
    *,
    days: int | None,
    variant: str | None = None,
    limit: int = 50,
    metric: str = "beans",
    season: Season | None = None,
) -> list[BoardRow]:
    """Beans (or score) won over the last ``days`` days (None: ever) or in ``season``, per
    variant or overall, from the hand outcomes (the ledger's settlement of each hand); humans
    only."""
    qs = HandOutcome.objects.filter(user__is_bot=False, user__is_active=True)
    if season is not None:
        qs = qs.filter(season=season)
    elif days is not None:
        qs = qs.filter(finished_at__gte=timezone.now() - datetime.timedelta(days=days))
    if variant:
        qs = qs.filter(variant_key=variant)
    column = "score" if metric == "score" else "beans"
    rows = (
        qs.values("user_id", "user__username", "user__score")
        .annotate(total=Sum(column), hands=Count("id"))
        .order_by("-total", "user__username")[:limit]
    )
    return [
        BoardRow(
            i + 1,
            r["user_id"],
            r["user__username"],
            int(r["total"] or 0),
            r["hands"],
            title_for(r["user__score"]),
        )
        for i, r in enumerate(rows)
    ]


# --------------------------------------------------------------------------- profiles


@dataclass
class ProfileStats:
    hands: int = 0
    won: int = 0
    springs: int = 0
    biggest_win: HandOutcome | None = None
    by_variant: list[dict[str, Any]] = field(default_factory=list)
    by_side: list[dict[str, Any]] = field(default_factory=list)


def _rate(won: int, hands: int) -> int:
    return round(won * 100 / hands) if hands else 0


def profile_stats(*, user: User) -> ProfileStats:
    qs = HandOutcome.objects.filter(user=user)
    won = Count("id", filter=Q(won=True))
    totals = qs.aggregate(hands=Count("id"), won=won, springs=Count("id", filter=Q(spring=True)))
    stats = ProfileStats(hands=totals["hands"], won=totals["won"], springs=totals["springs"])
    stats.biggest_win = qs.filter(beans__gt=0).order_by("-beans", "-finished_at").first()
    for row in (
        qs.values("variant_key", "side")
        .annotate(hands=Count("id"), won=won)
        .order_by("variant_key", "side")
    ):
        row["rate"] = _rate(row["won"], row["hands"])
        stats.by_variant.append(row)
    for row in qs.values("side").annotate(hands=Count("id"), won=won).order_by("side"):
        row["rate"] = _rate(row["won"], row["hands"])
        stats.by_side.append(row)
    return stats


def profile_recent_hands(*, user: User, limit: int = 20) -> list[HandOutcome]:
    """His latest finished hands (public: their records are public once over)."""
    return list(
        HandOutcome.objects.filter(user=user, hand__status="finished")
        .select_related("hand", "hand__table__room")
        .order_by("-finished_at", "-id")[:limit]
    )


def user_suspension(*, user: User) -> Suspension | None:
    return Suspension.objects.filter(user=user).first()


# --------------------------------------------------------------------------- fair play


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


def latest_activity(*, user: User) -> datetime.datetime | None:
    return HandOutcome.objects.filter(user=user).aggregate(m=Max("finished_at"))["m"]


def languages_of(*, user_ids: Iterable[int]) -> dict[int, str]:
    """Each player's stored language (player settings), for the players who stored one that
    the club ships; a table push renders a seat's regions in its player's language."""
    shipped = dict(settings.LANGUAGES)
    rows = PlayerSettings.objects.filter(user_id__in=list(user_ids)).exclude(language="")
    return {
        user_id: language
        for user_id, language in rows.values_list("user_id", "language")
        if language in shipped
    }


# --------------------------------------------------------------------------- skill ratings

_CHUNK = 500


def _finished_result(hand: Any) -> tuple[list[int], bool] | None:
    """(landlord side's seats, whether it won) of a settled hand, from its result JSON; None
    for a hand without a settlement or a winner (a classic3 deal everyone passed)."""
    result = hand.result if isinstance(hand.result, dict) else {}
    summary = result.get("summary") or {}
    teams = summary.get("teams") or {}
    winner = summary.get("winner_side")
    if hand.status != "finished" or not result.get("beans") or winner not in ("landlord", "farmer"):
        return None
    return list(teams.get("landlord") or []), winner == "landlord"


def rated_games(*, hands: Sequence[Any]) -> dict[int, Game | None]:
    """The game each finished hand rates (club.skill.rated_game: people who decided on both
    sides, no bot), None for an unrated hand; a few queries for any number of hands. A seat
    decided when its person took at least one action himself (HandAction source "human"):
    toggling 托管 on is such a decision, so nobody voids a bad hand's rating by handing it to
    托管, while a seat the server played throughout (timeouts, a dropped connection) did not."""
    settled = {h.pk: (h, found) for h in hands if (found := _finished_result(h)) is not None}
    games: dict[int, Game | None] = {h.pk: None for h in hands}
    ids = list(settled)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        seats: dict[int, list[tuple[int, int | None]]] = defaultdict(list)
        for hand_id, seat, user_id, seat_bot, user_bot in HandPlayer.objects.filter(
            hand_id__in=chunk
        ).values_list("hand_id", "seat", "user_id", "is_bot", "user__is_bot"):
            seats[hand_id].append((seat, None if seat_bot or user_bot else user_id))
        decided = set(
            HandAction.objects.filter(hand_id__in=chunk, source=HandAction.Source.HUMAN)
            .values_list("hand_id", "seat")
            .distinct()
        )
        for hand_id in chunk:
            hand, (landlord_side, landlord_won) = settled[hand_id]
            if len(seats[hand_id]) != len(hand.result["beans"]):
                continue  # a hand without its player records
            records = [
                SeatRecord(user_id, seat in landlord_side, (hand_id, seat) in decided)
                for seat, user_id in seats[hand_id]
            ]
            games[hand_id] = skill.rated_game(records, landlord_won=landlord_won)
    return games


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in one variant as pages show it (the default for an unrated one)."""

    variant_key: str
    skill: Skill
    hands: int = 0
    last_hand_at: datetime.datetime | None = None

    @property
    def shown(self) -> int:
        return self.skill.shown

    @property
    def provisional(self) -> bool:
        return self.skill.provisional


def _player_rating(variant_key: str, row: Any = None) -> PlayerRating:
    if row is None:
        return PlayerRating(variant_key, skill.default_skill())
    return PlayerRating(variant_key, Skill(row.mu, row.sigma), row.hands, row.last_hand_at)


def ratings_of(*, user_ids: Iterable[int], variant_key: str) -> dict[int, PlayerRating]:
    """Each of these players' rating in the variant (the starting one if he has none yet)."""
    wanted = set(user_ids)
    rows = Rating.objects.filter(variant_key=variant_key, user_id__in=wanted)
    found = {row.user_id: _player_rating(variant_key, row) for row in rows}
    return {u: found.get(u) or _player_rating(variant_key) for u in wanted}


# The ratings next to the names at a table are read for every push of it: kept in memory per
# (variant, player) for SEAT_RATING_SECONDS. A rating moves only when its player's hand ends,
# and the process that rates the hand forgets his entries then (rating_hand_record), so the
# push that ends the hand, rendered by that process, shows the new numbers; another process
# shows them within SEAT_RATING_SECONDS.
SEAT_RATING_SECONDS = 60.0
_SEAT_RATINGS_KEPT = 20_000
_seat_ratings_lock = threading.Lock()
_seat_ratings: dict[tuple[str, int], tuple[float, PlayerRating]] = {}


def seat_ratings(*, user_ids: Iterable[int], variant_key: str) -> dict[int, PlayerRating]:
    """``ratings_of`` for the table's seats (the games.table.hooks ``ratings_of`` hook): at most one
    query, none while the players' ratings are in memory."""
    now = time.monotonic()
    wanted = set(user_ids)
    found: dict[int, PlayerRating] = {}
    with _seat_ratings_lock:
        for user_id in wanted:
            kept = _seat_ratings.get((variant_key, user_id))
            if kept is not None and now - kept[0] < SEAT_RATING_SECONDS:
                found[user_id] = kept[1]
    missing = wanted - found.keys()
    if missing:
        read = ratings_of(user_ids=missing, variant_key=variant_key)
        found.update(read)
        with _seat_ratings_lock:
            if len(_seat_ratings) >= _SEAT_RATINGS_KEPT:
                _seat_ratings.clear()
            _seat_ratings.update({(variant_key, u): (now, r) for u, r in read.items()})
    return found


def seat_ratings_clear(**_kwargs: object) -> None:
    """Forget every kept rating (signal receiver: a flush or migration may empty the table)."""
    with _seat_ratings_lock:
        _seat_ratings.clear()


def seat_ratings_forget(*, user_ids: Iterable[int] | None, variant_key: str) -> None:
    """Forget the kept ratings of these players (None: everyone's) in the variant."""
    with _seat_ratings_lock:
        if user_ids is None:
            for key in [k for k in _seat_ratings if k[0] == variant_key]:
                del _seat_ratings[key]
        for user_id in user_ids or ():
            _seat_ratings.pop((variant_key, user_id), None)


def rating_for(*, user: Any, variant_key: str) -> PlayerRating:
    return ratings_of(user_ids=[user.pk], variant_key=variant_key)[user.pk]


def profile_ratings(*, user: User) -> list[PlayerRating]:
    """His ratings in the variants he has rated hands in."""
    rows = Rating.objects.filter(user=user, hands__gt=0).order_by("variant_key")
    return [_player_rating(row.variant_key, row) for row in rows]


def rating_active_since(*, now: datetime.datetime | None = None) -> datetime.datetime:
    """A player is active on the rating boards with a rated hand since this time."""
    return (now or timezone.now()) - datetime.timedelta(days=settings.DDZ_RATING_ACTIVE_DAYS)


def leaderboard_rating(
    *, variant_key: str, season: Season | None = None, limit: int = 50
) -> list[BoardRow]:
    """Players by rating in the variant, active ones only: with a rated hand in the last
    DDZ_RATING_ACTIVE_DAYS days, ranked by their rating now; or, for a season, with a rated
    hand in the season, ranked by their rating at its end (now, while it runs)."""
    if season is None:
        rows = (
            Rating.objects.filter(
                variant_key=variant_key,
                user__is_bot=False,
                user__is_active=True,
                last_hand_at__gte=rating_active_since(),
            )
            .order_by("-ordinal", "user__username")
            .values_list("user_id", "user__username", "mu", "sigma", "hands")[:limit]
        )
        ranked = [(u, name, Skill(mu, sigma), hands) for u, name, mu, sigma, hands in rows]
    else:
        ranked = _season_ratings(variant_key=variant_key, season=season)[:limit]
    return [
        BoardRow(i + 1, user_id, name, rated.shown, hands, provisional=rated.provisional)
        for i, (user_id, name, rated, hands) in enumerate(ranked)
    ]


def _season_ratings(*, variant_key: str, season: Season) -> list[tuple[int, str, Skill, int]]:
    """(user id, name, rating at the season's end, rated hands in the season) of the players
    rated in the season, best first: each one's last change of the season, in sequence."""
    changes = (
        RatingChange.objects.filter(
            rating__variant_key=variant_key,
            rating__user__is_bot=False,
            rating__user__is_active=True,
            rated_hand__finished_at__gte=season.starts_at,
            rated_hand__finished_at__lt=season.ends_at,
        )
        .order_by("rated_hand_id")
        .values_list("rating__user_id", "rating__user__username", "mu_after", "sigma_after")
    )
    last: dict[int, tuple[str, Skill]] = {}
    hands: dict[int, int] = defaultdict(int)
    for user_id, name, mu, sigma in changes:
        last[user_id] = (name, Skill(mu, sigma))
        hands[user_id] += 1
    ranked = [(u, name, rated, hands[u]) for u, (name, rated) in last.items()]
    return sorted(ranked, key=lambda r: (-r[2].ordinal, r[1]))


# --------------------------------------------------------------------------- seasons


def season_running(*, now: datetime.datetime | None = None) -> Season | None:
    """The season under way: begun (its soft reset ran) and not over. A hand finishing now
    counts in it."""
    now = now or timezone.now()
    return (
        Season.objects.filter(begun_at__isnull=False, ends_at__gt=now)
        .order_by("-starts_at")
        .first()
    )


def seasons_due(*, now: datetime.datetime | None = None) -> list[int]:
    """Ids of the seasons whose start has come and whose soft reset has not run, oldest
    first (a season whose end has passed as well never begins)."""
    now = now or timezone.now()
    return list(
        Season.objects.filter(begun_at__isnull=True, starts_at__lte=now, ends_at__gt=now)
        .order_by("starts_at")
        .values_list("pk", flat=True)
    )


def seasons_begun() -> list[Season]:
    """The seasons the leaderboard offers: begun ones, newest first."""
    return list(Season.objects.filter(begun_at__isnull=False).order_by("-starts_at"))


def season_overlapping(
    *, starts_at: datetime.datetime, ends_at: datetime.datetime, exclude_id: int | None = None
) -> Season | None:
    qs = Season.objects.filter(starts_at__lt=ends_at, ends_at__gt=starts_at)
    if exclude_id is not None:
        qs = qs.exclude(pk=exclude_id)
    return qs.order_by("starts_at").first()


def leaderboard_season_score(*, season: Season, limit: int = 50) -> list[BoardRow]:
    """The season's title ladder: players who played in it by their score (where the soft
    reset put them, plus the season's hands), with their highest title of the season."""
    rows = (
        SeasonStanding.objects.filter(
            season=season, hands__gt=0, user__is_bot=False, user__is_active=True
        )
        .select_related("user", "peak_title")
        .order_by("-score", "user__username")[:limit]
    )
    return [
        BoardRow(
            i + 1,
            row.user_id,
            row.user.username,
            row.score,
            row.hands,
            title_for(row.score),
            badge=row.peak_title,
        )
        for i, row in enumerate(rows)
    ]


def profile_badges(*, user: User, now: datetime.datetime | None = None) -> list[SeasonStanding]:
    """His badges: the highest title of each past season he played in, newest first."""
    now = now or timezone.now()
    return list(
        SeasonStanding.objects.filter(user=user, hands__gt=0, season__ends_at__lte=now)
        .select_related("season", "peak_title")
        .order_by("-season__starts_at")
    )


def profile_season(*, user: User) -> SeasonStanding | None:
    """His standing in the season under way (None: no season, or he has no row in it)."""
    season = season_running()
    if season is None:
        return None
    return (
        SeasonStanding.objects.filter(season=season, user=user)
        .select_related("season", "peak_title")
        .first()
    )
