"""``manage.py audit_beans``: recompute every balance and every settled hand from the ledger.

Prints one line per finding and exits 1 when there is any (0 and a one-line summary on a clean
history). Read-only; see accounts/audit.py for the checks.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts.audit import audit_beans


class Command(BaseCommand):
    help = (
        "Recompute every balance from the bean ledger, check that every settled hand sums to "
        "zero with the house, that no hand settled twice and that no balance was ever negative. "
        "Exit status 1 on any finding."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = audit_beans()
        summary = (
            f"{report.players} players, {report.entries} ledger entries, "
            f"{report.settlements} settled hands"
        )
        if report.clean:
            self.stdout.write(f"audit_beans: clean ({summary})")
            return
        for finding in report.findings:
            self.stdout.write(str(finding))
        raise CommandError(
            f"audit_beans: {len(report.findings)} finding(s) ({summary})", returncode=1
        )
