"""Writes of club life (issue #7): hand outcomes, chat, spectator presence, connection
addresses, suspensions and player settings. Keyword-only, one transaction each."""

from __future__ import annotations

import datetime
import logging
import unicodedata
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from accounts.models import User
from club.models import (
    ChatMessage,
    ConnectionRecord,
    HandOutcome,
    PlayerSettings,
    SpectatorPresence,
    Suspension,
)
from club.phrases import phrase_text
from games.table.errors import ActionRejected, ErrorCode

logger = logging.getLogger(__name__)


class ChatRefused(ActionRejected):
    """A chat message the club refuses (rate limit, unknown phrase, free text off)."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(ErrorCode.BAD_VALUE, message, detail=detail)


# --------------------------------------------------------------------------- hand outcomes


def hand_outcomes_record(*, hand: Any) -> int:
    """One HandOutcome per human seat of a finished, settled hand (idempotent); returns how
    many rows exist for it. Hands without a settlement (a classic3 redeal) get none."""
    from games.models import HandPlayer

    result = hand.result if isinstance(hand.result, dict) else {}
    beans = result.get("beans")
    if hand.status != "finished" or not isinstance(beans, list) or not beans:
        return 0
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
            )
        )
    HandOutcome.objects.bulk_create(rows, ignore_conflicts=True)
    return HandOutcome.objects.filter(hand_id=hand.pk).count()


def hand_outcomes_backfill() -> int:
    """Outcome rows for every finished hand that has none yet (after installing the app)."""
    from games.models import Hand

    done = HandOutcome.objects.values("hand_id")
    count = 0
    for hand in Hand.objects.filter(status="finished").exclude(pk__in=done).iterator():
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


# --------------------------------------------------------------------------- presence, addresses


def client_ip(scope: dict[str, Any]) -> str | None:
    """The socket's client address. Behind the club's proxy (DDZ_TRUST_FORWARDED_FOR) it is the
    last X-Forwarded-For entry: deploy/nginx.conf appends the address it saw
    ($proxy_add_x_forwarded_for), while earlier entries (and daphne's --proxy-headers client,
    which takes the first) are whatever the browser sent."""
    headers = {
        k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
    }
    if settings.DDZ_TRUST_FORWARDED_FOR:
        forwarded = headers.get("x-forwarded-for", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    client = scope.get("client")
    if client:
        return str(client[0])
    return None


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


def presence_open(*, table_id: int, user: Any, channel_name: str) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        return
    # one statement (an upsert): a socket's channel name is new, a stale row of a dead
    # process with the same name is taken over
    SpectatorPresence.objects.bulk_create(
        [SpectatorPresence(table_id=table_id, user_id=user.pk, channel_name=channel_name)],
        update_conflicts=True,
        unique_fields=["channel_name"],
        update_fields=["table", "user", "connected_at"],
    )


def presence_close(*, channel_name: str) -> None:
    SpectatorPresence.objects.filter(channel_name=channel_name).delete()


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
