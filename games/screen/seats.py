"""The seat panels of the table screen and who sits where (from a snapshot's seat rows), with
each seat's roles and decisions as one audience knows them: pure, it reads no database. A panel's
HTML is written from its row by the ``seat_panel`` tag (games/templatetags/seat_panel.py) inside
the partial templates/games/table/seat.html."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.selectors import title_among
from games.models import BOT_LEVEL_LABELS
from games.reads.snapshot import TableSnapshot
from games.screen.labels import card_faces, cards_short, role_label
from games.table.hooks import ShownRating
from games.table.stakes import table_bot_level


@dataclass(frozen=True)
class SeatInfo:
    """Who sits where (from the Seat rows; nothing about cards)."""

    index: int
    name: str | None = None  # None for an empty seat
    title: str = ""
    is_bot: bool = False
    bot_level: str = ""  # a house bot's level, in words (games.models.BOT_LEVEL_LABELS)
    connected: bool = True
    leaving: bool = False
    rating: ShownRating | None = None  # the club's skill rating (games.table.hooks ratings_of)


def seat_roles(view: dict[str, Any], seat: int) -> tuple[str | None, list[str]]:
    """(role key, role badges) of ``seat`` as the view's audience knows the others' roles. A
    role only its holder knows (a farmer of a hand whose partner is hidden) is not on his
    panel, which every audience that knows the same is sent alike, but in his hand region
    (``own_role``)."""
    landlord = view.get("landlord")
    partner = view.get("partner")
    teams = view.get("teams") or {}
    role: str | None = None
    if landlord is None:
        return None, []
    if seat == landlord:
        role = "landlord"
    elif partner is not None and seat == partner:
        role = "partner"
    elif teams.get("complete") and seat in teams.get("farmer", []):
        role = "farmer"
    return role, _role_badges(view, role)


def own_role(view: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The role the view's seat knows it holds, with its badges."""
    role = view.get("role")
    return role, _role_badges(view, role)


def _role_badges(view: dict[str, Any], role: str | None) -> list[str]:
    if role is None:
        return []
    badges = [role_label(view["variant"], role)]
    if role == "landlord" and view.get("solo"):
        badges.append(str(_("Solo landlord")))  # 独地主
    return badges


def seat_decisions(view: dict[str, Any], seat: int) -> list[str]:
    """Public decisions already made by ``seat`` in the steps before play."""
    notes: list[str] = []
    bids = view.get("bids")
    if bids and seat < len(bids) and bids[seat] is not None:
        notes.append(_("No bid") if bids[seat] == 0 else _("Bid %(n)s") % {"n": bids[seat]})
    if seat in (view.get("reveals") or []):
        notes.append(str(_("Revealed")))
    doubles = view.get("doubles")
    if doubles and seat < len(doubles) and doubles[seat]:
        notes.append(str(_("Doubled")))
    for grab in view.get("grabs") or []:
        if grab["seat"] == seat:
            notes.append(_("Grab %(card)s") % {"card": cards_short(grab["card"])})
    return notes


# what a move changes of a taken seat's panel, its play part (the seat_panel tag's
# ``_play_part``): sent alone when nothing else of the panel changed
PLAY_KEYS = frozenset(("count", "last", "is_top", "waiting", "deadline"))


def seat_panels(
    view: dict[str, Any], seats: Sequence[SeatInfo], *, deadline: str
) -> list[dict[str, Any]]:
    """Each seat's panel as ``view``'s audience sees it in a hand: its occupant, cards left,
    roles, decisions, last play, and ``deadline`` (an ISO time or "") on the seats to act."""
    n = view["seats"]
    waiting = set(view.get("waiting") or [])
    autoplay = view.get("autoplay") or [False] * n
    reports = view.get("reports") or {}
    shown = card_faces(view.get("shown_hand"))  # 明牌: the landlord's hand, face up to all
    counts = view.get("hand_counts") or [0] * n
    face_up = view.get("face_up")
    trick_by_seat = {entry["seat"]: entry for entry in view.get("trick") or []}
    top = view.get("top")

    def in_play(seat: int) -> dict[str, Any]:
        role, badges = seat_roles(view, seat)
        last = trick_by_seat.get(seat)
        return {
            "count": counts[seat] if seat < len(counts) else 0,
            "role": role,
            "role_badges": badges,
            "landlord_side": role in ("landlord", "partner"),
            "autoplay": bool(autoplay[seat]) if seat < len(autoplay) else False,
            "report": reports.get(str(seat)),
            "shown": shown if seat == view.get("landlord") else [],
            "waiting": seat in waiting and not view.get("finished"),
            # the clock shows on the seats to act only; the others' panels stay the same
            "deadline": deadline if seat in waiting else "",
            "decisions": seat_decisions(view, seat),
            "face_up_holder": face_up is not None and face_up.get("seat") == seat,
            "last": None
            if last is None
            else {"passed": last["cards"] is None, "cards": card_faces(last["cards"])},
            "is_top": top is not None and top["seat"] == seat,
        }

    return seat_rows(seats, n, in_play)


def seat_rows(
    seats: Sequence[SeatInfo],
    n: int,
    in_play: Callable[[int], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Each seat's panel, in seat order whoever looks: the page places them (the viewer's at
    the bottom) from the hand region's ``data-pov``, so every audience that knows the same of
    the seats is sent the same panels. ``in_play(seat)``: what a hand in play adds (cards left,
    roles, last play, the clock). Every row holds every key: the ``seat_panel`` tag reads them
    all."""
    infos = {s.index: s for s in seats}
    rows = []
    for seat in range(n):
        info = infos.get(seat, SeatInfo(index=seat))
        rows.append(
            {
                "index": seat,
                "number": seat + 1,
                # its fields as a plain dict: the rendering memo serialises a dict in about
                # 60 % of the time it takes for the dataclass (it keys every seat panel by it)
                "info": vars(info),
                "empty": info.name is None,
                "count": None,
                "role": None,
                "role_badges": [],
                "landlord_side": False,
                "autoplay": False,
                "report": None,
                "shown": [],
                "waiting": False,
                "deadline": "",
                "decisions": [],
                "face_up_holder": False,
                "last": None,
                "is_top": False,
                **(in_play(seat) if in_play is not None else {}),
            }
        )
    return rows


def seat_infos(snapshot: TableSnapshot) -> tuple[list[SeatInfo], int]:
    """Who sits where, in the active language, and how many seats the table has (built once
    per language and snapshot: a push renders one snapshot for every audience)."""
    key = ("seat_infos", get_language())
    return snapshot.remembered(
        key,
        lambda: _seat_infos(
            snapshot.seats,
            snapshot.titles,
            snapshot.ratings,
            bot_level=str(BOT_LEVEL_LABELS[table_bot_level(snapshot.table)]),
        ),
    )


def _seat_infos(
    rows: Sequence[Any],
    titles: Sequence[Any],
    ratings: Mapping[int, ShownRating],
    *,
    bot_level: str,
) -> tuple[list[SeatInfo], int]:
    """``bot_level``: the table's level in words, shown on its house bots' panels (a bot
    user, which the house does not play, shows none)."""
    infos = []
    for row in rows:
        u = row.user
        bot = bool(row.is_bot or (u is not None and getattr(u, "is_bot", False)))
        if u is None and not bot:
            infos.append(SeatInfo(index=row.index))
            continue
        if bot:
            name = u.username if u is not None else _("Bot %(n)s") % {"n": row.index + 1}
            title = ""
        else:
            name = u.username
            title = title_name(titles, u.score)
        infos.append(
            SeatInfo(
                index=row.index,
                name=name,
                title=title,
                is_bot=bot,
                bot_level=bot_level if row.is_bot else "",
                rating=None if bot else ratings.get(u.pk),
                connected=row.disconnected_at is None or bot
                if hasattr(row, "disconnected_at")
                else True,
                leaving=bool(getattr(row, "sit_out_after_hand", False)),
            )
        )
    return infos, len(rows)


def title_name(titles: Sequence[Any], score: int) -> str:
    title = title_among(titles, score)
    return str(title) if title is not None else ""


def player_infos(snapshot: TableSnapshot) -> list[SeatInfo]:
    """Who played each seat of the hand, under the name he played it (empty when the hand has
    no player record): a seat's occupant now may be someone else, or nobody. Built once per
    language and snapshot, as ``seat_infos``."""
    key = ("player_infos", get_language())
    return snapshot.remembered(key, lambda: _player_infos(snapshot))


def _player_infos(snapshot: TableSnapshot) -> list[SeatInfo]:
    seated = {
        s.user_id: (s.user.username, bool(s.user.is_bot))
        for s in snapshot.seats
        if s.user is not None
    }
    out = []
    for seat, user_id in sorted(snapshot.holders.items()):
        if user_id is None:
            out.append(SeatInfo(index=seat, name=_("Bot %(n)s") % {"n": seat + 1}, is_bot=True))
            continue
        name, is_bot = seated.get(user_id) or snapshot.departed.get(user_id) or ("", False)
        out.append(SeatInfo(index=seat, name=name or None, is_bot=is_bot))
    return out


def held_seat(holders: dict[int, int | None], seat_index: int, user: Any) -> bool:
    """Whether ``user`` held ``seat_index`` in the hand (True when there is no player record,
    e.g. a hand built outside the services)."""
    if seat_index not in holders:
        return True
    holder = holders[seat_index]
    return user is not None and holder is not None and holder == getattr(user, "pk", None)
