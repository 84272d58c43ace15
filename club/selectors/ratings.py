"""Skill ratings: the games finished hands rate, each player's rating (kept in memory for the
seats of a table for a while), the rating boards."""

from __future__ import annotations

import datetime
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from club import skill
from club.models import Rating, RatingChange, Season
from club.selectors.leaderboards import BoardRow
from club.skill import Game, SeatRecord, Skill
from games.api import HandAction, HandPlayer

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
