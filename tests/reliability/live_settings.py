"""Settings of the daphne subprocesses started by the reliability tests and the load bench:
the site's settings (DATABASE_URL, REDIS_URL from the environment) with quicker deadline polling
and quiet logs. Never used by a club."""

import os

from ddz_site.settings import *  # noqa: F403

DDZ_DEADLINE_POLL_SECONDS = float(os.environ.get("DDZ_DEADLINE_POLL_SECONDS", "0.25"))
DDZ_DISCONNECT_GRACE_SECONDS = int(os.environ.get("DDZ_DISCONNECT_GRACE_SECONDS", "20"))
LOGGING = logging_config(  # noqa: F405
    level=os.environ.get("LOG_LEVEL", "WARNING"),
    json_lines=LOG_FORMAT == "json",  # noqa: F405
)
# DEBUG=0 runs (the load bench) serve no static files and have no collectstatic manifest.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if os.environ.get("DDZ_WS_RATE_PER_SECOND"):
    DDZ_WS_RATE_PER_SECOND = float(os.environ["DDZ_WS_RATE_PER_SECOND"])
