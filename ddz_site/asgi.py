"""ASGI entry point: HTTP through Django, websockets through channels (daphne serves both)."""

from __future__ import annotations

import asyncio
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ddz_site.settings")
# Django must be set up before anything imports models (consumers in the routing module).
django_asgi_app = get_asgi_application()

from django.conf import settings  # noqa: E402

# The event loop and the database thread share one interpreter lock. Each socket write of the
# loop lets go of it, and getting it back from a database thread that is rendering a push
# takes up to the switch interval (5 ms by default): at a club's busiest, the loop's writes
# queued behind the renderings. A shorter interval lets them through sooner (bench/README.md,
# "Seventh round").
sys.setswitchinterval(settings.DDZ_SWITCH_INTERVAL_MS / 1000)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402

from ddz_site.health import ReadinessGate  # noqa: E402
from ddz_site.routing import websocket_urlpatterns  # noqa: E402
from games.runner.collector import settle_collector  # noqa: E402

# a process that is not ready takes no new page or socket (ddz_site/health.py)
application = ReadinessGate(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # the session is read lazily; the table consumer finds its user after accepting
            # the handshake (games/live/consumers.py)
            "websocket": AllowedHostsOriginValidator(
                SessionMiddlewareStack(URLRouter(websocket_urlpatterns))
            ),
        }
    )
)


def _close_oversized_frames_with_1009() -> None:
    """daphne (autobahn) fails a socket whose frame passes its size limit (1 MiB) by dropping
    the TCP connection: the page saw 1006 and could not tell it from a network fault. Failing
    with the closing handshake sends 1009 (the library sends it for itself; an application may
    not, so the consumer's own, smaller limit closes with 4009: games/live/consumers.py).
    daphne reads its factory class from ``daphne.server`` when it starts serving, after it
    has imported this module."""
    try:
        import daphne.server
    except ImportError:  # served by another ASGI server
        return
    factory = daphne.server.WebSocketFactory
    if getattr(factory, "closes_with_a_code", False):
        return

    class ClosingWebSocketFactory(daphne.server.WebSocketFactory):
        closes_with_a_code = True

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.setProtocolOptions(failByDrop=False)

    daphne.server.WebSocketFactory = ClosingWebSocketFactory


_close_oversized_frames_with_1009()


def _cancel_every_application_on_stop() -> None:
    """As the process stops (SIGTERM), daphne cancels every connection's application and waits
    for them: a table socket's releases its lease then (games/live/consumers.py). But daphne's loop
    over the connections reads an application from each, and an HTTP request that upgraded to
    a websocket in the last second (until daphne's checker drops it) has none: the KeyError
    ended the loop, no application was cancelled, and the process exited with its sockets'
    leases in place. This loop skips what has no application."""
    try:
        import daphne.server
        from twisted.internet import defer
    except ImportError:  # served by another ASGI server
        return

    def kill_all_applications(server: daphne.server.Server) -> defer.Deferred:
        running = [
            details["application_instance"]
            for details in server.connections.values()
            if "application_instance" in details and not details["application_instance"].done()
        ]
        for application in running:
            application.cancel()
        return defer.Deferred.fromFuture(asyncio.gather(*running, return_exceptions=True))

    daphne.server.Server.kill_all_applications = kill_all_applications


_cancel_every_application_on_stop()

# What is loaded by now lives as long as the process: frozen out of the collector's passes.
settle_collector()
