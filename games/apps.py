import os
import sys

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


def serving() -> bool:
    """Whether this process serves the site (runserver's serving child, daphne, uvicorn)."""
    argv = sys.argv
    program = os.path.basename(argv[0]) if argv else ""
    if program == "__main__.py":  # ``python -m daphne``: the package's directory names it
        program = os.path.basename(os.path.dirname(argv[0]))
    if program in {"daphne", "uvicorn", "gunicorn", "hypercorn"}:
        return True
    if len(argv) > 1 and argv[1] == "runserver":
        # the autoreloader's parent only watches files; its child (RUN_MAIN) serves
        return os.environ.get("RUN_MAIN") == "true" or "--noreload" in argv
    return False


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        if not serving():
            return
        from games.runner.deadlines import renew_forever, start_daemon, start_thread
        from site_kit.metrics import forget_dead_processes

        forget_dead_processes()
        # the sockets live in the served process: it renews their leases whoever runs deadlines
        start_daemon("ddz-socket-leases", renew_forever)
        if settings.DDZ_DEADLINE_RUNNER == "thread":
            start_thread()
