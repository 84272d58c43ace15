"""The bean audit behind ``manage.py audit_beans``: recompute everything from the ledger.

The ledger (``BeanEntry``) is the truth; ``User.beans``, ``balance_after`` and the
``HandSettlement`` rows are derived from it and must agree with it. Read-only: the audit reports,
it never repairs (an operator adjustment is the way to correct a balance).

Checks:
  * every player's cached balance equals the sum of his entries;
  * walking each player's entries in the order they were written (id order; the writers lock
    the player's row, so ids follow the application order), every ``balance_after`` equals the
    running sum and the running sum never drops below zero;
  * bots and the house: bots hold no entries, house rows carry no running balance;
  * every settled hand's entries (players and house) sum to zero, the house's rows match the
    settlement's ``house``, each player's rows match the settlement's recorded delta;
  * no hand settled twice: one entry per (hand, account, reason), no hand entries without a
    settlement, and every finished hand with a result has exactly its one settlement;
  * every event's entries (``event_ref``: fees, refunds, prizes and the house's counter-rows)
    sum to zero;
  * the checks other apps register (``register_check``: an event's settlement against its rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db.models import Count, Sum

from accounts.models import BeanEntry, HandSettlement, User


@dataclass(frozen=True)
class Finding:
    kind: str  # balance | balance_after | negative | bot | house | hand_sum | hand_house |
    #            hand_player | duplicate | orphan | unsettled | event_sum | event_*
    message: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.message}"


@dataclass(frozen=True)
class AuditReport:
    findings: tuple[Finding, ...]
    players: int
    entries: int
    settlements: int

    @property
    def clean(self) -> bool:
        return not self.findings


def _walk_players(findings: list[Finding]) -> tuple[int, int]:
    cached = dict(User.objects.values_list("pk", "beans"))
    names = dict(User.objects.values_list("pk", "username"))
    bots = set(User.objects.filter(is_bot=True).values_list("pk", flat=True))
    running: dict[int, int] = defaultdict(int)
    negative_reported: set[int] = set()
    entries = 0
    rows = (
        BeanEntry.objects.filter(user__isnull=False)
        .order_by("user_id", "id")
        .values_list("id", "user_id", "delta", "balance_after")
    )
    for entry_id, user_id, delta, balance_after in rows.iterator(chunk_size=5000):
        entries += 1
        balance = running[user_id] + delta
        running[user_id] = balance
        who = names.get(user_id, f"user {user_id}")
        if user_id in bots:
            findings.append(Finding("bot", f"bot {who} holds ledger entry {entry_id}"))
        if balance < 0 and user_id not in negative_reported:
            negative_reported.add(user_id)
            findings.append(
                Finding(
                    "negative",
                    f"{who}: balance {balance} after entry {entry_id} "
                    f"(delta {delta:+d}); a balance may never go below zero",
                )
            )
        if balance_after != balance:
            findings.append(
                Finding(
                    "balance_after",
                    f"{who}: entry {entry_id} records balance_after {balance_after}, "
                    f"the ledger sums to {balance}",
                )
            )
    for user_id, beans in cached.items():
        total = running.get(user_id, 0)
        if beans != total:
            findings.append(
                Finding(
                    "balance",
                    f"{names[user_id]}: cached balance {beans}, the ledger sums to {total} "
                    f"(difference {beans - total:+d})",
                )
            )
    house_with_balance = BeanEntry.objects.filter(
        user__isnull=True, balance_after__isnull=False
    ).values_list("id", flat=True)
    for entry_id in house_with_balance:
        findings.append(Finding("house", f"house entry {entry_id} carries a running balance"))
    return len(cached), entries + BeanEntry.objects.filter(user__isnull=True).count()


def _check_hands(findings: list[Finding]) -> int:
    duplicates = (
        BeanEntry.objects.filter(hand_ref__isnull=False)
        .values("hand_ref", "user_id", "reason")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .order_by("hand_ref", "user_id", "reason")
    )
    for row in duplicates:
        who = f"user {row['user_id']}" if row["user_id"] is not None else "the house"
        findings.append(
            Finding(
                "duplicate",
                f"hand {row['hand_ref']}: {row['n']} '{row['reason']}' entries for {who} "
                "(settled more than once)",
            )
        )
    # per hand: the total, the house's part and each player's part
    totals: dict[str, int] = {}
    house: dict[str, int] = defaultdict(int)
    per_player: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    rows = (
        BeanEntry.objects.filter(hand_ref__isnull=False)
        .values("hand_ref", "user_id")
        .annotate(total=Sum("delta"))
        .order_by()
    )
    for row in rows:
        ref, user_id, total = row["hand_ref"], row["user_id"], row["total"]
        totals[ref] = totals.get(ref, 0) + total
        if user_id is None:
            house[ref] += total
        else:
            per_player[ref][user_id] += total
    settlements = {s.hand_ref: s for s in HandSettlement.objects.all()}
    for ref in sorted(set(totals) - set(settlements)):
        findings.append(Finding("orphan", f"hand {ref}: ledger entries but no settlement record"))
    for ref, settlement in sorted(settlements.items()):
        total = totals.get(ref, 0)
        if total != 0:
            findings.append(
                Finding(
                    "hand_sum",
                    f"hand {ref}: players and house sum to {total:+d}, not zero",
                )
            )
        if house.get(ref, 0) != settlement.house:
            findings.append(
                Finding(
                    "hand_house",
                    f"hand {ref}: house entries sum to {house.get(ref, 0):+d}, "
                    f"the settlement says {settlement.house:+d}",
                )
            )
        detail = settlement.detail or {}
        expected: dict[int, int] = defaultdict(int)
        for player, delta in zip(
            detail.get("players") or [], detail.get("deltas") or [], strict=False
        ):
            if player is not None:
                expected[int(player)] += int(delta)
        got = per_player.get(ref, {})
        for user_id in sorted(set(expected) | set(got)):
            if expected.get(user_id, 0) != got.get(user_id, 0):
                findings.append(
                    Finding(
                        "hand_player",
                        f"hand {ref}: user {user_id} has {got.get(user_id, 0):+d} in the "
                        f"ledger, the settlement says {expected.get(user_id, 0):+d}",
                    )
                )
    _check_finished_hands(findings, set(settlements))
    return len(settlements)


def _check_finished_hands(findings: list[Finding], settled_refs: set[str]) -> None:
    """Finished game hands with a result settle exactly once (games may not be installed)."""
    try:
        hand_model = apps.get_model("games", "Hand")
    except LookupError:  # pragma: no cover - the ledger alone
        return
    finished = hand_model.objects.filter(status="finished").values_list("pk", "result")
    for pk, result in finished.iterator(chunk_size=5000):
        if result and "units" in result and str(pk) not in settled_refs:
            findings.append(
                Finding("unsettled", f"hand {pk}: finished with a result but never settled")
            )


def _check_events(findings: list[Finding]) -> None:
    rows = (
        BeanEntry.objects.filter(event_ref__isnull=False)
        .values("event_ref")
        .annotate(total=Sum("delta"))
        .exclude(total=0)
        .order_by("event_ref")
    )
    for row in rows:
        findings.append(
            Finding("event_sum", f"{row['event_ref']}: entries sum to {row['total']:+d}, not zero")
        )


# other apps' checks (read-only), each returning its findings
_checks: list[Callable[[], list[Finding]]] = []


def register_check(check: Callable[[], list[Finding]]) -> None:
    if check not in _checks:
        _checks.append(check)


def audit_beans() -> AuditReport:
    """Every finding of the ledger as it stands (read-only)."""
    findings: list[Finding] = []
    players, entries = _walk_players(findings)
    settlements = _check_hands(findings)
    _check_events(findings)
    for check in _checks:
        findings.extend(check())
    return AuditReport(
        findings=tuple(findings), players=players, entries=entries, settlements=settlements
    )
