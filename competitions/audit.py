"""The ledger audit's check of events (accounts.audit.register_check): what the house holds
for an event is the fees it has not refunded or paid out, and a settled event's rows match
its settlement (the house's cut, each prize)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Sum

from accounts.audit import Finding
from accounts.models import BeanEntry
from competitions.models import Entry, Event, Settlement

Reason = BeanEntry.Reason


def check_events() -> list[Finding]:
    findings: list[Finding] = []
    house = dict(
        BeanEntry.objects.filter(event_ref__isnull=False, user__isnull=True)
        .values("event_ref")
        .annotate(total=Sum("delta"))
        .values_list("event_ref", "total")
    )
    prizes: dict[str, dict[int, int]] = defaultdict(dict)
    for ref, user_id, delta in BeanEntry.objects.filter(
        reason=Reason.EVENT_PRIZE, user__isnull=False
    ).values_list("event_ref", "user_id", "delta"):
        prizes[ref][user_id] = delta
    held = dict(
        Entry.objects.values("event_id")
        .annotate(total=Sum("fee_paid"))
        .values_list("event_id", "total")
    )
    settlements = {s.event_id: s for s in Settlement.objects.all()}
    for event in Event.objects.all().only("pk", "status"):
        ref = event.ledger_ref
        kept = house.get(ref, 0)
        settlement = settlements.get(event.pk)
        if settlement is None:
            if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
                findings.append(Finding("event_unsettled", f"{ref}: over but never settled"))
            if kept != (held.get(event.pk) or 0):
                findings.append(
                    Finding(
                        "event_held",
                        f"{ref}: the house holds {kept}, the fees held say {held.get(event.pk)}",
                    )
                )
            if prizes.get(ref):
                findings.append(Finding("event_prize", f"{ref}: prizes paid before settlement"))
            continue
        if kept != settlement.house:
            findings.append(
                Finding(
                    "event_house",
                    f"{ref}: house entries sum to {kept:+d}, "
                    f"the settlement says {settlement.house:+d}",
                )
            )
        recorded = {int(k): v for k, v in (settlement.prizes or {}).items()}
        if prizes.get(ref, {}) != recorded:
            findings.append(
                Finding("event_prize", f"{ref}: prizes in the ledger differ from the settlement")
            )
    return findings
