"""Writes of club life (issue #7): hand outcomes, chat, connection addresses, suspensions and
player settings; of competition (issue #27): skill ratings and seasons. Keyword-only, one
transaction each."""

from __future__ import annotations

import datetime
import logging
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import formats, timezone, translation

from accounts.models import User
from accounts.selectors import title_for, title_ladder
from club import skill
from club.models import (
    ChatMessage,
    ConnectionRecord,
    HandOutcome,
    PlayerSettings,
    RatedHand,
    Rating,
    RatingChange,
    Season,
    SeasonReset,
    SeasonStanding,
    Suspension,
)
from club.phrases import phrase_text
from club.selectors.ratings import rated_games, seat_ratings_forget
from club.selectors.seasons import season_overlapping, season_running, seasons_due
from club.skill import Game, Shape, Skill
from ddz_site.addresses import client_address
from games.table.errors import ActionRejected, ErrorCode
from games.table.hooks import hooks

logger = logging.getLogger(__name__)


class ChatRefused(ActionRejected):
    """A chat message the club refuses (rate limit, unknown phrase, free text off)."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(ErrorCode.BAD_VALUE, message, detail=detail)


# --------------------------------------------------------------------------- hand outcomes


def hand_finished_record(*, hand: Any) -> None:
    """What the club keeps of a finished hand, written in the transaction that finishes it
    (club.signals): the outcome rows, the season standings and the skill rating. Once per
    hand: a second call finds the outcome rows and writes nothing. Nothing while an app hides
    the hand from its readers (games.hooks ``hidden_hands``: a duplicate board still in play
    at another table), since profiles, leaderboards and ratings would tell its result: the app
    calls this again when the hand opens."""
    if hooks.hidden_hands(hand_ids=[hand.pk], user=None):
        return
    season = season_running(now=hand.finished_at)
    outcomes = hand_outcomes_record(hand=hand, season=season)
    if not outcomes:
        return
    if season is not None:
        _season_standings_record(season=season, hand=hand, outcomes=outcomes)
    rating_hand_record(hand=hand)


def hand_outcomes_record(*, hand: Any, season: Season | None = None) -> list[HandOutcome]:
    """One HandOutcome per human seat of a finished, settled hand, counted in ``season``;
    returns the rows written (none when the hand has them already). Hands without a
    settlement (a classic3 redeal) get none."""
    from games.models import HandPlayer

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
    from games.models import Hand

    done = HandOutcome.objects.values("hand_id")
    waiting = Hand.objects.filter(status="finished").exclude(pk__in=done)
    hidden = hooks.hidden_hands(hand_ids=waiting.values_list("pk", flat=True), user=None)
    count = 0
    for hand in waiting.exclude(pk__in=hidden).iterator():
        # counted in no season: a season's standings are what its live hands moved
        count += 1 if hand_outcomes_record(hand=hand) else 0
    return count


# --------------------------------------------------------------------------- suspensions


def user_is_suspended(*, user: Any) -> bool:
    if user is None or not getattr(user, "pk", None):
        return False
    return Suspension.objects.filter(user_id=user.pk).exists()


@transaction.atomic
def user_suspend(*, user: User, reason: str, actor: User | None) -> Suspension:
    """Suspend ``user``: he can no longer sit down. He is stood up at every table (mid-hand:
    托管 until the hand ends, as when leaving). His ledger and history stay as they are."""
    if not reason or not reason.strip():
        raise ValueError("a suspension needs a reason")
    suspension, _created = Suspension.objects.update_or_create(
        user=user, defaults={"reason": reason.strip(), "actor": actor}
    )
    table_ids = list(user.seats.values_list("table_id", flat=True))

    def stand_up() -> None:
        from games import services as game_services

        for table_id in table_ids:
            try:
                game_services.table_leave(table_id=table_id, user=user)
            except ActionRejected as error:
                logger.info("suspension of %s at table %s: %s", user, table_id, error)

    transaction.on_commit(stand_up)
    return suspension


def user_unsuspend(*, user: User) -> None:
    Suspension.objects.filter(user=user).delete()


# --------------------------------------------------------------------------- addresses


def client_ip(scope: dict[str, Any]) -> str | None:
    """The socket's client address (ddz_site.addresses)."""
    headers = {
        k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
    }
    client = scope.get("client")
    return client_address(
        forwarded_for=headers.get("x-forwarded-for"), peer=str(client[0]) if client else None
    )


def connection_record(
    *, table_id: int, user: Any, ip: str | None, seated: bool | None = None
) -> None:
    """Remember that ``user`` opened a socket of the table from ``ip``; ``seated``: whether he
    holds a seat there (read here when not given)."""
    if not ip or user is None or not getattr(user, "is_authenticated", False):
        return
    if seated is None:
        from games.models import Seat

        seated = Seat.objects.filter(table_id=table_id, user_id=user.pk).exists()
    try:
        with transaction.atomic():
            record, created = ConnectionRecord.objects.get_or_create(
                table_id=table_id, user_id=user.pk, ip=ip, defaults={"seated": seated}
            )
            if not created:
                ConnectionRecord.objects.filter(pk=record.pk).update(
                    seen_at=timezone.now(), seated=record.seated or seated
                )
    except (IntegrityError, ValueError) as error:  # a concurrent insert, an odd address
        logger.info("connection record of table %s: %s", table_id, error)


# --------------------------------------------------------------------------- chat


def _seat_index(table_id: int, user: Any) -> int | None:
    from games.models import Seat

    return (
        Seat.objects.filter(table_id=table_id, user_id=user.pk)
        .values_list("index", flat=True)
        .first()
    )


def _check_rate(user: Any, now: datetime.datetime) -> None:
    from django.utils.translation import gettext as _

    window = datetime.timedelta(seconds=settings.DDZ_CHAT_RATE_SECONDS)
    recent = ChatMessage.objects.filter(user_id=user.pk, created_at__gt=now - window).count()
    if recent >= settings.DDZ_CHAT_RATE_COUNT:
        raise ChatRefused(
            _("You are chatting too fast: at most %(count)d messages in %(seconds)d seconds.")
            % {"count": settings.DDZ_CHAT_RATE_COUNT, "seconds": settings.DDZ_CHAT_RATE_SECONDS},
            detail="chat rate",
        )


def _unprintable(text: str) -> bool:
    """Control characters (NUL among them, which PostgreSQL refuses in text) and lone
    surrogates (which UTF-8 cannot encode) are not chat: a bubble is one printed line."""
    return any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def chat_send(*, table_id: int, user: Any, key: str = "", text: str = "") -> ChatMessage:
    """Post a quick-chat phrase (or, when the operator allows it, a short free text) at a
    table and push the bubble: a player's to everyone at the table, a spectator's to the other
    spectators only. Refusals are ChatRefused with a translated message."""
    from django.utils.translation import gettext as _

    from games.models import Table

    if user is None or not getattr(user, "is_authenticated", False):
        raise ActionRejected.of(ErrorCode.NOT_AUTHENTICATED)
    key = (key or "").strip()
    text = (text or "").strip()
    if key:
        if phrase_text(key) is None:
            raise ChatRefused(_("Unknown chat phrase."), detail=key[:32])
        text = ""
    elif text:
        if not settings.DDZ_CHAT_FREE_TEXT:
            raise ChatRefused(_("Free text chat is off at this club: pick a phrase."))
        limit = settings.DDZ_CHAT_MAX_CHARS
        if len(text) > limit:
            raise ChatRefused(
                _("A chat message has at most %(limit)d characters.") % {"limit": limit}
            )
        if _unprintable(text):
            raise ChatRefused(
                _("A chat message cannot hold control characters such as line breaks or tabs.")
            )
    else:
        raise ChatRefused(_("Pick a phrase to send."))
    if not Table.objects.filter(pk=table_id).exists():
        raise ActionRejected.of(ErrorCode.TABLE_NOT_FOUND)
    now = timezone.now()
    _check_rate(user, now)
    message = ChatMessage.objects.create(
        table_id=table_id,
        user_id=user.pk,
        key=key,
        text=text,
        seat=_seat_index(table_id, user),
        created_at=now,
    )
    message.user = user
    transaction.on_commit(lambda: _push_chat(message))
    return message


def _push_chat(message: ChatMessage) -> None:
    from club import broadcast

    try:
        broadcast.chat_pushed(message)
    except Exception:  # a failed push never fails the write
        logger.exception("chat push at table %s failed", message.table_id)


# --------------------------------------------------------------------------- settings


def player_settings_get(*, user: Any) -> PlayerSettings:
    if user is None or not getattr(user, "is_authenticated", False):
        return PlayerSettings()
    found = PlayerSettings.objects.filter(user_id=user.pk).first()
    return found or PlayerSettings(user_id=user.pk)


def player_settings_update(*, user: User, **fields: Any) -> PlayerSettings:
    prefs = player_settings_get(user=user)
    for name in ("card_size", "sound", "auto_pass", "language"):
        if name in fields:
            setattr(prefs, name, fields[name])
    prefs.full_clean(exclude=["user"])
    prefs.save()
    return prefs


def player_guide_seen(*, user: User) -> None:
    """The player closed the table's guide: it no longer opens by itself."""
    prefs = player_settings_get(user=user)
    if not prefs.guide_seen:
        prefs.guide_seen = True
        prefs.save()


def player_language_settle(*, user: User, cookie: str | None, accept_language: str) -> str:
    """The language a player's table sockets and pushes use: his stored one, else what his
    browser asks for (language cookie, then Accept-Language), which is then stored so the
    pushes rendered for his seat speak it too."""
    stored = player_settings_get(user=user)
    if stored.language in dict(settings.LANGUAGES):
        return stored.language
    wanted = [cookie] if cookie else []
    wanted += [code for code, _ in translation.trans_real.parse_accept_lang_header(accept_language)]
    for code in wanted:
        try:
            language = translation.get_supported_language_variant(code)
        except LookupError:
            continue
        stored.language = language
        stored.save()
        return language
    return settings.LANGUAGE_CODE


# --------------------------------------------------------------------------- skill ratings
# A rating is a player's (user id) or a role baseline's (its shape key, "1v2") in one variant.
RatingKey = int | str


def _rating_start(key: RatingKey) -> Skill:
    return Shape.from_key(key).baseline_start() if isinstance(key, str) else skill.default_skill()


def _rating_step(game: Game, skills: dict[RatingKey, Skill]) -> list[tuple[RatingKey, bool, Skill]]:
    """Rate ``game`` from ``skills`` (missing ones at their start), store the new skills in
    it and return (key, on the landlord side, skill before) of each rating it moved. The live
    update and the recompute both go through here, so they do the same arithmetic."""
    baseline_key = game.shape.key
    players = {p: skills.get(p) or _rating_start(p) for p in game.players}
    baseline = skills.get(baseline_key) or _rating_start(baseline_key)
    after, baseline_after = skill.rate(game, players=players, baseline=baseline)
    moved = [(p, p in game.landlords, players[p]) for p in game.players]
    moved.append((baseline_key, True, baseline))
    skills.update(after)
    skills[baseline_key] = baseline_after
    return moved


def _rating_filter(variant_key: str, keys: Iterable[RatingKey]) -> Q:
    keys = list(keys)
    users = [k for k in keys if isinstance(k, int)]
    shapes = [k for k in keys if isinstance(k, str)]
    return Q(variant_key=variant_key) & (
        Q(user_id__in=users) | Q(user__isnull=True, baseline__in=shapes)
    )


def _rating_key(row: Rating) -> RatingKey:
    return row.user_id if row.user_id is not None else row.baseline


def _ratings_create_missing(*, variant_key: str, keys: Iterable[RatingKey]) -> None:
    keys = set(keys)
    found = {_rating_key(r) for r in Rating.objects.filter(_rating_filter(variant_key, keys))}
    missing = []
    for key in keys - found:
        start = _rating_start(key)
        missing.append(
            Rating(
                variant_key=variant_key,
                user_id=key if isinstance(key, int) else None,
                baseline=key if isinstance(key, str) else "",
                mu=start.mu,
                sigma=start.sigma,
                ordinal=start.ordinal,
            )
        )
    # a concurrent hand may create the same row first: its row stands
    Rating.objects.bulk_create(missing, ignore_conflicts=True)


def _ratings_locked(
    *, variant_key: str, keys: Iterable[RatingKey] | None
) -> dict[RatingKey, Rating]:
    """The ratings of ``keys`` (None: all of the variant's) in the variant, locked in
    primary-key order (the one order everywhere, so two hands never deadlock)."""
    qs = Rating.objects.filter(variant_key=variant_key)
    if keys is not None:
        qs = qs.filter(_rating_filter(variant_key, keys))
    return {_rating_key(r): r for r in qs.select_for_update(no_key=True).order_by("pk")}


def _rating_set(row: Rating, rated: Skill, *, hands: int, last: datetime.datetime | None) -> bool:
    """Give ``row`` these values; returns whether any changed."""
    values = {
        "mu": rated.mu,
        "sigma": rated.sigma,
        "ordinal": rated.ordinal,
        "hands": hands,
        "last_hand_at": last,
    }
    changed = any(getattr(row, name) != value for name, value in values.items())
    for name, value in values.items():
        setattr(row, name, value)
    return changed


_RATING_FIELDS = ["mu", "sigma", "ordinal", "hands", "last_hand_at"]


def rating_hand_record(*, hand: Any) -> RatedHand | None:
    """Rate a finished hand (None: it is unrated, or rated already). Runs in the hand's
    finishing transaction: its players' and role baseline's ratings are locked in primary-key
    order, then the hand takes the next number of the rated hands' sequence, so a hand that
    shares a rating with another is numbered after it exactly when it was rated after it."""
    game = rated_games(hands=[hand])[hand.pk]
    if game is None:
        return None
    keys: list[RatingKey] = [*game.players, game.shape.key]
    with transaction.atomic():
        _ratings_create_missing(variant_key=hand.variant_key, keys=keys)
        rows = _ratings_locked(variant_key=hand.variant_key, keys=keys)
        if RatedHand.objects.filter(hand_id=hand.pk).exists():
            return None
        rated = RatedHand.objects.create(
            hand_id=hand.pk,
            variant_key=hand.variant_key,
            finished_at=hand.finished_at or timezone.now(),
        )
        skills = {key: Skill(row.mu, row.sigma) for key, row in rows.items()}
        changes = []
        for key, landlord_side, before in _rating_step(game, skills):
            row = rows[key]
            _rating_set(row, skills[key], hands=row.hands + 1, last=rated.finished_at)
            changes.append(_rating_change(rated.pk, row, landlord_side, before, skills[key]))
        RatingChange.objects.bulk_create(changes)
        Rating.objects.bulk_update(list(rows.values()), _RATING_FIELDS)
    # now, not at the commit: the hand's own push is sent at the commit, before this app's
    # callbacks, and shows the new numbers
    seat_ratings_forget(user_ids=game.players, variant_key=hand.variant_key)
    return rated


def _rating_change(
    rated_hand_id: int, row: Rating, landlord_side: bool, before: Skill, after: Skill
) -> RatingChange:
    return RatingChange(
        rated_hand_id=rated_hand_id,
        rating=row,
        landlord_side=landlord_side,
        mu_before=before.mu,
        sigma_before=before.sigma,
        mu_after=after.mu,
        sigma_after=after.sigma,
    )


@dataclass(frozen=True)
class RecomputeReport:
    variant_key: str
    rated_hands: int  # hands the replay rated
    appended: int  # finished hands added to the sequence (played before ratings existed)
    ratings_changed: int  # rating rows whose values the replay changed
    changes_rewritten: int  # rating change rows written, rewritten or removed


def _hands_for_rating(hand_ids: Sequence[int]) -> list[Any]:
    from games.models import Hand

    found = Hand.objects.filter(pk__in=hand_ids).only("id", "status", "result", "variant_key")
    by_id = {h.pk: h for h in found}
    return [by_id[h] for h in hand_ids if h in by_id]


def _rated_hands_append(*, variant_key: str) -> int:
    """Number the rateable finished hands of the variant that have no place in the sequence
    yet (played before ratings existed), in the order they finished; not a hidden one (its
    place is taken when it opens, as the live update does)."""
    from games.models import Hand

    waiting = list(
        Hand.objects.filter(variant_key=variant_key, status="finished", rated__isnull=True)
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at")
    )
    hidden = hooks.hidden_hands(hand_ids=[pk for pk, _ in waiting], user=None)
    waiting = [(pk, finished) for pk, finished in waiting if pk not in hidden]
    games = rated_games(hands=_hands_for_rating([pk for pk, _ in waiting]))
    rows = [
        RatedHand(hand_id=pk, variant_key=variant_key, finished_at=finished or timezone.now())
        for pk, finished in waiting
        if games.get(pk) is not None
    ]
    RatedHand.objects.bulk_create(rows)
    return len(rows)


@transaction.atomic
def ratings_recompute(*, variant_key: str) -> RecomputeReport:
    """Recompute the variant's ratings from the hand history: replay every rated hand in
    sequence from the starting ratings, and write what differs from the stored ratings and
    changes (nothing, when they came from the live updates: the same order and arithmetic).
    Idempotent. Locks all the variant's ratings meanwhile, so live hands of the variant wait
    and then carry on from the recomputed values."""
    _ratings_locked(variant_key=variant_key, keys=None)
    appended = _rated_hands_append(variant_key=variant_key)
    sequence = list(
        RatedHand.objects.filter(variant_key=variant_key)
        .order_by("pk")
        .values_list("pk", "hand_id", "finished_at")
    )
    games = rated_games(hands=_hands_for_rating([h for _, h, _ in sequence]))
    skills: dict[RatingKey, Skill] = {}
    hands: dict[RatingKey, int] = {}
    last: dict[RatingKey, datetime.datetime] = {}
    moves: list[tuple[int, RatingKey, bool, Skill, Skill]] = []
    rated = 0
    for rated_id, hand_id, finished in sequence:
        game = games.get(hand_id)
        if game is None:  # no longer rateable (a player since marked as a bot): skipped
            continue
        rated += 1
        for key, landlord_side, before in _rating_step(game, skills):
            hands[key] = hands.get(key, 0) + 1
            last[key] = finished
            moves.append((rated_id, key, landlord_side, before, skills[key]))
    _ratings_create_missing(variant_key=variant_key, keys=skills)
    rows = _ratings_locked(variant_key=variant_key, keys=None)
    changed = [
        row
        for key, row in rows.items()
        if _rating_set(
            row,
            skills.get(key) or _rating_start(key),
            hands=hands.get(key, 0),
            last=last.get(key),
        )
    ]
    Rating.objects.bulk_update(changed, _RATING_FIELDS)
    rewritten = _rating_changes_sync(
        variant_key=variant_key,
        wanted={
            (rated_id, rows[key].pk): _rating_change(rated_id, rows[key], side, before, after)
            for rated_id, key, side, before, after in moves
        },
    )
    seat_ratings_forget(user_ids=None, variant_key=variant_key)
    return RecomputeReport(variant_key, rated, appended, len(changed), rewritten)


_CHANGE_FIELDS = ["landlord_side", "mu_before", "sigma_before", "mu_after", "sigma_after"]


def _rating_changes_sync(*, variant_key: str, wanted: dict[tuple[int, int], RatingChange]) -> int:
    """Make the variant's rating change rows ``wanted``; returns how many rows it wrote."""
    stored = {
        (c.rated_hand_id, c.rating_id): c
        for c in RatingChange.objects.filter(rated_hand__variant_key=variant_key)
    }
    extra = [c.pk for k, c in stored.items() if k not in wanted]
    RatingChange.objects.filter(pk__in=extra).delete()
    missing = [c for k, c in wanted.items() if k not in stored]
    RatingChange.objects.bulk_create(missing)
    differing = []
    for k, change in wanted.items():
        old = stored.get(k)
        if old is not None and any(getattr(old, f) != getattr(change, f) for f in _CHANGE_FIELDS):
            for f in _CHANGE_FIELDS:
                setattr(old, f, getattr(change, f))
            differing.append(old)
    RatingChange.objects.bulk_update(differing, _CHANGE_FIELDS)
    return len(extra) + len(missing) + len(differing)


# --------------------------------------------------------------------------- seasons


def season_score_reset(score: int, *, base: int, carry_percent: int) -> int:
    """The soft reset: a score above the ladder's base keeps ``carry_percent`` of its height
    above it (rounded down); a score at or below the base starts the season at the base."""
    if score <= base:
        return base
    return base + (score - base) * carry_percent // 100


def _ladder_base() -> int:
    ladder = title_ladder()
    return ladder[0].threshold if ladder else 0


def season_validate(
    *, season_id: int | None, starts_at: datetime.datetime, ends_at: datetime.datetime
) -> None:
    """Refuse (ValidationError, translated) a season that ends before it starts, is over
    already or overlaps another; and a change to a season that is over (it stays as it was)
    or to the start of one that has begun (its soft reset ran then)."""
    from django.utils.translation import gettext as _

    stored = Season.objects.filter(pk=season_id).first() if season_id else None
    if stored is not None and stored.ends_at <= timezone.now():
        raise ValidationError(_("This season is over: it stays as it was."))
    if stored is not None and stored.begun_at is not None and starts_at != stored.starts_at:
        raise ValidationError({"starts_at": _("This season has begun: its start stays.")})
    if ends_at <= starts_at:
        raise ValidationError({"ends_at": _("A season ends after it starts.")})
    if ends_at <= timezone.now():
        raise ValidationError({"ends_at": _("This end has passed already.")})
    other = season_overlapping(starts_at=starts_at, ends_at=ends_at, exclude_id=season_id)
    if other is not None:
        raise ValidationError(
            _("Seasons cannot overlap: %(name)s runs from %(start)s to %(end)s.")
            % {
                "name": other.name,
                "start": formats.localize(timezone.localtime(other.starts_at)),
                "end": formats.localize(timezone.localtime(other.ends_at)),
            }
        )


def season_save(*, season: Season) -> Season:
    """Open a season or change one (name, dates) as an operator does in the admin; it begins
    as soon as its start has come (at once when it has: after this transaction commits)."""
    season_validate(season_id=season.pk, starts_at=season.starts_at, ends_at=season.ends_at)
    season.save()
    transaction.on_commit(seasons_begin_due)
    return season


def season_open(*, name: str, starts_at: datetime.datetime, ends_at: datetime.datetime) -> Season:
    return season_save(season=Season(name=name, starts_at=starts_at, ends_at=ends_at))


def seasons_begin_due(*, now: datetime.datetime | None = None) -> int:
    """Begin every season whose start has come (the deadline runner calls this on each of
    its rounds; so do the admin and ``manage.py season_begin``); returns how many began."""
    return sum(season_begin(season_id=pk, now=now) for pk in seasons_due(now=now))


@transaction.atomic
def season_begin(*, season_id: int, now: datetime.datetime | None = None) -> bool:
    """The season's soft reset, once (False: it had begun). Every player's row is locked, in
    primary-key order like a hand's settlement, so a hand settles either wholly before the
    reset (its score is then reset with the rest, and it counts in no season) or wholly
    after it (in this season). Each changed score is kept as a SeasonReset row, and every
    player gets his standing of the season."""
    season = Season.objects.select_for_update().filter(pk=season_id).first()
    if season is None or season.begun_at is not None:
        return False
    now = now or timezone.now()
    base = _ladder_base()
    carry = settings.DDZ_SEASON_CARRY_PERCENT
    players = list(User.objects.select_for_update().filter(is_bot=False).order_by("pk"))
    resets, standings, moved = [], [], []
    for player in players:
        score = season_score_reset(player.score, base=base, carry_percent=carry)
        if score != player.score:
            resets.append(
                SeasonReset(
                    season=season,
                    user=player,
                    score_before=player.score,
                    score_after=score,
                    created_at=now,
                )
            )
            player.score = score
            moved.append(player)
        standings.append(
            SeasonStanding(
                season=season,
                user=player,
                score_start=score,
                score=score,
                score_peak=score,
                peak_title=title_for(score),
            )
        )
    SeasonReset.objects.bulk_create(resets)
    User.objects.bulk_update(moved, ["score"], batch_size=500)
    SeasonStanding.objects.bulk_create(standings, batch_size=500)
    season.begun_at = now
    season.save(update_fields=["begun_at"])
    return True


def _season_standings_record(*, season: Season, hand: Any, outcomes: list[HandOutcome]) -> None:
    """Move the season standings of a hand's players: their score after it (read in its
    transaction, where the settlement holds their rows), their hands, their highest point."""
    after = (hand.result or {}).get("score_after") or []
    scores = {
        o.user_id: after[o.seat] if o.seat < len(after) and after[o.seat] is not None else None
        for o in outcomes
    }
    unknown = [u for u, score in scores.items() if score is None]
    if unknown:
        scores.update(User.objects.filter(pk__in=unknown).values_list("pk", "score"))
    found = {
        s.user_id: s for s in SeasonStanding.objects.filter(season=season, user_id__in=list(scores))
    }
    new, moved = [], []
    for outcome in outcomes:
        score = scores[outcome.user_id]
        standing = found.get(outcome.user_id)
        if standing is None:  # joined the club since the season began
            start = score - outcome.score
            standing = SeasonStanding(
                season=season,
                user_id=outcome.user_id,
                score_start=start,
                score=start,
                score_peak=start,
                peak_title=title_for(start),
            )
            new.append(standing)
        else:
            moved.append(standing)
        standing.score = score
        standing.hands += 1
        if score > standing.score_peak:
            standing.score_peak = score
            standing.peak_title = title_for(score)
    SeasonStanding.objects.bulk_create(new)
    SeasonStanding.objects.bulk_update(moved, ["score", "hands", "score_peak", "peak_title"])
