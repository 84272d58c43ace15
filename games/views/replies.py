"""What a table's POST answers: nothing for htmx (the push after commit already changed every
screen) or a redirect to the table, and a refusal as the #table-error partial or a flash
message."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from games.screen import regions
from games.table.errors import ActionRejected


def is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def refused(request: HttpRequest, table_id: int, error: ActionRejected) -> HttpResponse:
    if is_htmx(request):
        # 200 so htmx swaps it; the partial carries hx-swap-oob and lands in #table-error
        response = HttpResponse(regions.render_error(message=error.message))
        response["HX-Reswap"] = "none"
        return response
    messages.error(request, error.message)
    return redirect("table", table_id=table_id)


def done(request: HttpRequest, table_id: int, *, reload: bool = False) -> HttpResponse:
    """Success. The service's broadcast (after commit) already pushed the new regions to every
    socket of the table, usually before this response arrives and after replacing the very form
    that posted; so htmx gets no content (or a reload when the audience changed: sit/leave)."""
    if is_htmx(request):
        response = HttpResponse(status=204)
        if reload:
            response["HX-Redirect"] = reverse("table", kwargs={"table_id": table_id})
        return response
    return redirect("table", table_id=table_id)
