"""The client's address of a request or a table socket (fair-play review, the invite-code
throttle)."""

from __future__ import annotations

from django.conf import settings


def client_address(*, forwarded_for: str | None, peer: str | None) -> str | None:
    """Behind the club's proxy (DDZ_TRUST_FORWARDED_FOR), the last X-Forwarded-For entry:
    deploy/nginx.conf appends the address it saw ($proxy_add_x_forwarded_for), while earlier
    entries (and daphne's --proxy-headers client, which takes the first) are whatever the
    browser sent. Else the peer's address."""
    if settings.DDZ_TRUST_FORWARDED_FOR:
        forwarded = (forwarded_for or "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return peer or None
