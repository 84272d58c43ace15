"""Settings of the ddz club: one file, production differences come from the environment.

Without any environment variable the site runs for development: DEBUG on, SQLite next to the
code and the in-memory channel layer. A club deployment sets at least SECRET_KEY, DEBUG=0,
ALLOWED_HOSTS, DATABASE_URL (PostgreSQL) and REDIS_URL (see README.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",  # first: its runserver serves HTTP and websockets
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "template_partials",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "club",
    "competitions",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "site_kit.logs.request_context_middleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "club.middleware.PreferredLanguageMiddleware",
]

ROOT_URLCONF = "ddz_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "ddz_site.asgi.application"

# Database: DATABASE_URL (PostgreSQL in a club), SQLite file by default.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", "") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
    )
}
# PostgreSQL: a connection pool per process (psycopg_pool, Django 5.1+). Under ASGI each
# database call otherwise opens and closes a connection (persistent connections are not safe
# there); with the pool, closing hands the connection back.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_POOL", True):
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env_int("DB_POOL_MAX_SIZE", 8),
        "timeout": 10,
    }
# The channels live server (browser tests) needs a test database every process can open: on
# SQLite that means a file, not the default in-memory database.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test-db.sqlite3")}
    # A transaction takes SQLite's write lock when it begins, not at its first write: a
    # deferred one that read first and then wrote while another thread wrote was refused at
    # once ("database is locked", no waiting), and a quick-join so refused opened a new table.
    # Writers now queue for up to the timeout, as they do on PostgreSQL's row lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE", timeout=env_int("DB_SQLITE_TIMEOUT", 20)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channel layer: Redis when REDIS_URL is set (several daphne processes), in-memory otherwise.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # pub/sub: no per-socket queue to overrun (ddz_site/layers.py, bench/README.md)
            "BACKEND": "ddz_site.layers.BatchingRedisPubSubChannelLayer",
            "CONFIG": {
                # redis-py 8 defaults socket_timeout to 5 s, which kills idle consumers
                # (docs/conventions.md §9)
                "hosts": [{"address": REDIS_URL, "socket_timeout": None}],
                # Redis's pub/sub channels belong to no database: the database's number in
                # the names keeps apart the sites (and test runs) that share one Redis, and
                # so does the worker's name in a parallel test run (pytest-xdist sets it, and
                # the servers a worker starts inherit it)
                "prefix": f"asgi{urlparse(REDIS_URL).path.strip('/') or '0'}"
                + os.environ.get("PYTEST_XDIST_WORKER", ""),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "ddz_site.layers.SweepingInMemoryChannelLayer"}}

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

# allauth: username + password, email optional; verification switchable by env.
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "none")
ACCOUNT_RATE_LIMITS = {
    # allauth's defaults, spelled out so they stay on: failed logins per IP and per account.
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "change_password": "5/m/user",
    "reset_password": "20/m/ip,5/m/key",
}
ACCOUNT_ADAPTER = "accounts.adapters.AccountAdapter"
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False

# The club's name in the admin's header and title; empty: "Dou Dizhu Club" in the reader's language.
DDZ_CLUB_NAME = os.environ.get("DDZ_CLUB_NAME", "")

# Table sockets: per-socket flood guard (games/live/consumers.py), frames in a burst and per second.
DDZ_WS_RATE_BURST = env_int("DDZ_WS_RATE_BURST", 30)
DDZ_WS_RATE_PER_SECOND = env_int("DDZ_WS_RATE_PER_SECOND", 10)
# No one user can starve a process (issue #17): table sockets one user may hold across the
# cluster (counted by their leases), full renderings a socket's resync requests get per second
# (the others are answered by the one in flight or waiting), and the largest frame a socket may
# send, and be sent, before it is closed with 4009 (daphne closes with 1009 for a frame past
# its own limit of 1 MiB, which never reaches the consumer: ddz_site/asgi.py).
DDZ_WS_MAX_SOCKETS_PER_USER = env_int("DDZ_WS_MAX_SOCKETS_PER_USER", 6)
DDZ_WS_RESYNC_PER_SECOND = float(os.environ.get("DDZ_WS_RESYNC_PER_SECOND", "3"))
DDZ_WS_MAX_FRAME_BYTES = env_int("DDZ_WS_MAX_FRAME_BYTES", 64 * 1024)
DDZ_WS_MAX_SEND_BYTES = env_int("DDZ_WS_MAX_SEND_BYTES", 1024 * 1024)
# A file the served process appends each player action's server-side latency to (from its
# frame's arrival to the last frame of its push written to a socket; games/live/latency.py):
# for bench/load_tables.py. Empty: not measured.
DDZ_LATENCY_LOG = os.environ.get("DDZ_LATENCY_LOG", "")
# The served process's interpreter switch interval, in milliseconds (ddz_site/asgi.py).
DDZ_SWITCH_INTERVAL_MS = float(os.environ.get("DDZ_SWITCH_INTERVAL_MS", "0.5"))

# Tables: deadline runner (thread inside the serving process, or off when `run_deadlines` runs
# as its own service), its poll interval, the grace before a disconnected player is auto-played,
# how long a waiting table waits before house bots fill it (0 = never), and how many recent
# hands a regrouping room remembers when it seats people apart.
DDZ_DEADLINE_RUNNER = os.environ.get("DDZ_DEADLINE_RUNNER", "thread")
DDZ_DEADLINE_POLL_SECONDS = float(os.environ.get("DDZ_DEADLINE_POLL_SECONDS", "1.0"))
DDZ_DISCONNECT_GRACE_SECONDS = env_int("DDZ_DISCONNECT_GRACE_SECONDS", 20)
DDZ_BOT_FILL_SECONDS = env_int("DDZ_BOT_FILL_SECONDS", 60)
# The wall time a bot's search may spend on a move, in seconds (games.engine.bot's own budget
# when unset). It runs in the deadline runner, off every player's request and table lock.
DDZ_BOT_THINK_SECONDS = (
    float(os.environ["DDZ_BOT_THINK_SECONDS"]) if os.environ.get("DDZ_BOT_THINK_SECONDS") else None
)
# Presence across processes (games/services/presence.py): each served process renews the
# leases of its open table sockets every DDZ_SOCKET_RENEW_SECONDS; a lease not renewed for
# DDZ_SOCKET_LEASE_SECONDS is dead (its process stopped or died) and its user's seat goes
# offline as of then, which starts the disconnect grace.
DDZ_SOCKET_LEASE_SECONDS = env_int("DDZ_SOCKET_LEASE_SECONDS", 30)
DDZ_SOCKET_RENEW_SECONDS = float(os.environ.get("DDZ_SOCKET_RENEW_SECONDS", "10"))
DDZ_REGROUP_MEMORY_HANDS = env_int("DDZ_REGROUP_MEMORY_HANDS", 5)
# Private tables' invite codes (games/services/private.py): past DDZ_INVITE_TRIES wrong codes in
# DDZ_INVITE_TRIES_SECONDS from one browser session or one address, every code it tries is
# refused until the oldest of them is that old.
DDZ_INVITE_TRIES = env_int("DDZ_INVITE_TRIES", 10)
DDZ_INVITE_TRIES_SECONDS = env_int("DDZ_INVITE_TRIES_SECONDS", 60)

# Club life (issue #7). Quick chat: fixed phrases only unless DDZ_CHAT_FREE_TEXT (escaped, at
# most DDZ_CHAT_MAX_CHARS); each user at most DDZ_CHAT_RATE_COUNT messages per
# DDZ_CHAT_RATE_SECONDS. Fair-play signals look back DDZ_FAIRPLAY_DAYS; a table socket's address
# is taken from X-Forwarded-For / X-Real-IP only behind the club's proxy.
DDZ_CHAT_FREE_TEXT = env_bool("DDZ_CHAT_FREE_TEXT", False)
DDZ_CHAT_MAX_CHARS = env_int("DDZ_CHAT_MAX_CHARS", 40)
DDZ_CHAT_RATE_COUNT = env_int("DDZ_CHAT_RATE_COUNT", 3)
DDZ_CHAT_RATE_SECONDS = env_int("DDZ_CHAT_RATE_SECONDS", 10)
DDZ_TRUST_FORWARDED_FOR = env_bool("DDZ_TRUST_FORWARDED_FOR", not DEBUG)
DDZ_FAIRPLAY_DAYS = env_int("DDZ_FAIRPLAY_DAYS", 30)
DDZ_FAIRPLAY_PAIR_MIN_HANDS = env_int("DDZ_FAIRPLAY_PAIR_MIN_HANDS", 30)
DDZ_FAIRPLAY_PAIR_SHARE = float(os.environ.get("DDZ_FAIRPLAY_PAIR_SHARE", "0.6"))
DDZ_FAIRPLAY_FLOW_MIN_HANDS = env_int("DDZ_FAIRPLAY_FLOW_MIN_HANDS", 10)
DDZ_FAIRPLAY_FLOW_MIN_BEANS = env_int("DDZ_FAIRPLAY_FLOW_MIN_BEANS", 5_000)
DDZ_FAIRPLAY_FLOW_SHARE = float(os.environ.get("DDZ_FAIRPLAY_FLOW_SHARE", "0.8"))
DDZ_FAIRPLAY_ABANDON_MIN_HANDS = env_int("DDZ_FAIRPLAY_ABANDON_MIN_HANDS", 10)
DDZ_FAIRPLAY_ABANDON_SHARE = float(os.environ.get("DDZ_FAIRPLAY_ABANDON_SHARE", "0.25"))
# Competition (issue #27): the rating boards list players with a rated hand in the last
# DDZ_RATING_ACTIVE_DAYS days; a season's soft reset keeps DDZ_SEASON_CARRY_PERCENT of each
# score's height above the title ladder's base.
DDZ_RATING_ACTIVE_DAYS = env_int("DDZ_RATING_ACTIVE_DAYS", 30)
DDZ_SEASON_CARRY_PERCENT = env_int("DDZ_SEASON_CARRY_PERCENT", 50)

# Beans (docs/rules.md §7) and daily relief.
DDZ_SIGNUP_GRANT = env_int("DDZ_SIGNUP_GRANT", 10_000)
DDZ_RELIEF_FLOOR = env_int("DDZ_RELIEF_FLOOR", 1_000)
DDZ_RELIEF_GRANT = env_int("DDZ_RELIEF_GRANT", 2_000)

# Internationalisation: simplified Chinese first, traditional Chinese, English.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [
    ("zh-hans", _("Simplified Chinese")),
    ("zh-hant", _("Traditional Chinese")),
    ("en", _("English")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Security: driven by the environment so `manage.py check --deploy` is clean in production.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("SECURE_PROXY_SSL_HEADER", not DEBUG):
    # nginx terminates TLS and sets X-Forwarded-Proto (deploy/nginx.conf).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Logs (site_kit/logs.py): plain lines, or one JSON object a line with LOG_FORMAT=json; every
# record is scrubbed (no card of a live hand, session key or password) and carries the request,
# user, table and hand it concerns where known. Errors also go to the operators' live view.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")


def logging_config(*, level: str, json_lines: bool) -> dict[str, object]:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"scrub": {"()": "site_kit.logs.ScrubFilter"}},
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
                "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            },
            "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["scrub"],
                "formatter": "json" if json_lines else "text",
            },
            "recent_errors": {"()": "site_kit.logs.RecentErrors"},
        },
        "root": {"handlers": ["console", "recent_errors"], "level": level},
        # Django's own handlers for its loggers (a console one when DEBUG) would print records
        # before the scrubbing handlers above see them: its records go to those alone
        "loggers": {"django": {"handlers": [], "level": level, "propagate": True}},
    }


LOGGING = logging_config(level=LOG_LEVEL, json_lines=LOG_FORMAT == "json")

# Errors to Sentry when SENTRY_DSN is set (off by default), scrubbed as the logs are.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from site_kit.logs import sentry_init

    sentry_init(SENTRY_DSN, environment=os.environ.get("SENTRY_ENVIRONMENT", ""))

# Health and metrics (ddz_site/health.py, README "Running it"): /readyz fails when this process's
# deadline runner has not finished a round for DDZ_READY_RUNNER_SECONDS; /metrics answers only
# the addresses of DDZ_METRICS_ALLOWED (comma-separated addresses or networks).
DDZ_READY_RUNNER_SECONDS = float(os.environ.get("DDZ_READY_RUNNER_SECONDS", "30"))
DDZ_METRICS_ALLOWED = env_list("DDZ_METRICS_ALLOWED", ["127.0.0.1/32", "::1/128"])
