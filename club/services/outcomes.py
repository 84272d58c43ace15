"""What the club keeps of a finished hand (issue #7): its outcome rows, and through them the
season standings and the skill rating."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from club.models import HandOutcome, Season
from club.selectors.seasons import season_running
from club.services.ratings import rating_hand_record
from club.services.seasons import season_standings_record
from games.api import Hand, HandPlayer, hooks


def hand_finished_record(*, hand: Any) -> None:
    """What the club keeps of a finished hand, written in the transaction that finishes it
    (games.table.hooks ``hand_finished``): the outcome rows, the season standings and the
    skill rating. Once per hand: a second call finds the outcome rows and writes nothing.
    Nothing while an app hides the hand from its readers (games.table.hooks ``hidden_hands``:
    a duplicate board still in play at another table), since profiles, leaderboards and
    ratings would tell its result: the app calls this again when the hand opens."""
    if hooks.hidden_hands(hand_ids=[hand.pk], user=None):
        return
    season = season_running(now=hand.finished_at)
    outcomes = hand_outcomes_record(hand=hand, season=season)
    if not outcomes:
        return
    if season is not None:
        season_standings_record(season=season, hand=hand, outcomes=outcomes)
    rating_hand_record(hand=hand)


def hand_outcomes_record(*, hand: Any, season: Season | None = None) -> list[HandOutcome]:
    """One HandOutcome per human seat of a finished, settled hand, counted in ``season``;
    returns the rows written (none when the hand has them already). Hands without a
    settlement (a classic3 redeal) get none."""
    result = hand.result if isinstance(hand.result, dict) else {}
    beans = result.get("beans")
    if hand.status != "finished" or not isinstance(beans, list) or not beans:
        return []
    if HandOutcome.objects.filter(hand_id=hand.pk).exists():
        return []
    summary = result.get("summary") or {}
    teams = summary.get("teams") or {}
    landlord_side = set(teams.get("landlord") or [])
    winner = summary.get("winner_side")
    scores = result.get("scores") or [0] * len(beans)
    multiplier = int(result.get("multiplier") or summary.get("multiplier") or 1)
    finished = hand.finished_at or timezone.now()
    rows = []
    players = HandPlayer.objects.filter(hand_id=hand.pk, user__isnull=False, is_bot=False)
    for player in players.select_related("user"):
        if player.user.is_bot or player.seat >= len(beans):
            continue
        side = (
            HandOutcome.Side.LANDLORD if player.seat in landlord_side else HandOutcome.Side.FARMER
        )
        sprung = (
            bool(result.get("spring")) if side == "landlord" else bool(result.get("anti_spring"))
        )
        rows.append(
            HandOutcome(
                hand_id=hand.pk,
                user_id=player.user_id,
                seat=player.seat,
                variant_key=hand.variant_key,
                side=side,
                won=winner == side,
                beans=int(beans[player.seat]),
                score=int(scores[player.seat] if player.seat < len(scores) else 0),
                multiplier=max(1, multiplier),
                spring=sprung,
                finished_at=finished,
                season=season,
            )
        )
    HandOutcome.objects.bulk_create(rows)
    return rows


def hand_outcomes_backfill() -> int:
    """Outcome rows for every finished hand that has none yet (after installing the app)."""
    done = HandOutcome.objects.values("hand_id")
    waiting = Hand.objects.filter(status="finished").exclude(pk__in=done)
    hidden = hooks.hidden_hands(hand_ids=waiting.values_list("pk", flat=True), user=None)
    count = 0
    for hand in waiting.exclude(pk__in=hidden).iterator():
        # counted in no season: a season's standings are what its live hands moved
        count += 1 if hand_outcomes_record(hand=hand) else 0
    return count
