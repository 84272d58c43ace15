"""A private table's sessions and their score sheets (page and CSV)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from games.models import TableSession
from games.reads import private as reads_private
from games.views.private_tables import invite_codes


@login_required
def session_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(reads_private.user_sessions(request.user), 25).get_page(
        request.GET.get("page")
    )
    items = []
    for session in page.object_list:
        sheet = reads_private.session_sheet(session)
        mine = f"u{request.user.pk}"
        total = sheet["totals"][sheet["keys"].index(mine)] if mine in sheet["keys"] else None
        items.append({"session": session, "hands": len(sheet["lines"]), "total": total})
    return render(request, "games/sessions/list.html", {"page": page, "items": items})


def _session_or_404(request: HttpRequest, session_id: int) -> TableSession:
    session = get_object_or_404(TableSession.objects.select_related("table__room"), pk=session_id)
    if not reads_private.may_see_session(session, request.user, invite_codes(request)):
        raise Http404(_("No such session."))
    return session


@login_required
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _session_or_404(request, session_id)
    return render(
        request,
        "games/sessions/detail.html",
        {
            "session": session,
            "sheet": reads_private.session_sheet(session),
            "room": session.table.room,
        },
    )


@login_required
def session_csv(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _session_or_404(request, session_id)
    response = HttpResponse(reads_private.session_sheet_csv(session), content_type="text/csv")
    name = f"ddz-table{session.table_id}-session{session.number}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
