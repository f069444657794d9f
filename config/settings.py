"""Django settings. Values from the environment come from `config.env` alone.

Two modes share this one file:
- embedded (no REDIS_URL): SQLite under var/, local-memory cache, Celery tasks run eagerly;
- scaled (DATABASE_URL and REDIS_URL set): PostgreSQL, django-redis, Celery workers on Redis.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import dj_database_url
from csp import constants as csp

from config import env

BASE_DIR = env.BASE_DIR
DEBUG = env.DEBUG
SECRET_KEY = env.SECRET_KEY
SECRET_KEY_FALLBACKS = env.SECRET_KEY_FALLBACKS
ALLOWED_HOSTS = env.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = env.CSRF_TRUSTED_ORIGINS
# The origin every link the service writes starts with (config/site.py), not the request's Host.
SITE_URL = env.SITE_URL

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    "accounts",
    "games",
    "frontend",
]

MIDDLEWARE = [
    # First, so that a request's latency includes every other middleware (config.metrics).
    "config.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.errors.MethodFirstMiddleware",  # 405 before DRF's 401, 403 and 429
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.browser.BrowserIdMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it replaces a locked-out login's answer (accounts.lockout).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context.language_names",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# PostgreSQL has two roles (docs/architecture.md): the service's (DATABASE_URL), which may only
# read and append to the move log, and the owner (DATABASE_MIGRATE_URL), which owns the tables.
# A process given the owner's URL (`manage.py migrate`, the test suite) connects as the owner,
# and SERVICE_DATABASE names the service's role: the migrations grant it its privileges, and
# tests connect as it. None: one role does everything (and can rewrite the log).
SERVICE_DATABASE: dict[str, object] | None = None
if env.DATABASE_URL:
    DATABASES = {
        # Persistent connections, without the per-request health check: that check is a
        # `SELECT 1` round trip before every request's first query, a sixth of a move's
        # database work. After a database restart, a stale connection fails one request and
        # is then closed and replaced (Django closes a connection that saw an error).
        "default": dj_database_url.parse(
            env.DATABASE_MIGRATE_URL or env.DATABASE_URL, conn_max_age=60, conn_health_checks=False
        )
    }
    if env.DATABASE_MIGRATE_URL:
        from django.core.exceptions import ImproperlyConfigured

        _owner, _service = DATABASES["default"], dj_database_url.parse(env.DATABASE_URL)
        if not (
            _owner["ENGINE"] == _service["ENGINE"] == "django.db.backends.postgresql"
            and _owner["NAME"] == _service["NAME"]
            and _owner["USER"] != _service["USER"]
        ):
            raise ImproperlyConfigured(
                "DATABASE_MIGRATE_URL must name the owner of DATABASE_URL's PostgreSQL database,"
                " a role other than DATABASE_URL's."
            )
        SERVICE_DATABASE = {key: _service[key] for key in ("USER", "PASSWORD", "HOST", "PORT")}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Statements sent with server-side binding are prepared on their first use on a
        # connection. Only the move's hot path sends such statements (games.services); Django's
        # own cursors bind on the client and never prepare. (A transaction-mode PgBouncer
        # could not keep prepared statements; this stack connects to PostgreSQL directly.)
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 0
        if env.DATABASE_POOL_SIZE:
            # Django's psycopg pool, one per process, shared by its threads; off unless set,
            # since a move costs more CPU with it than with a connection kept per thread
            # (docs/scaling.md, "Connections"). Django refuses persistent connections beside it
            # and opens it on first use, so in the process that uses it, after gunicorn's fork;
            # Celery closes a prefork child's pool around each task, so workers gain nothing.
            # The pool checks a connection before lending it (a round trip), so one that
            # PostgreSQL closed (a restart) is replaced before a request gets it.
            DATABASES["default"]["CONN_MAX_AGE"] = 0
            DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
            DATABASES["default"]["OPTIONS"]["pool"] = {
                "min_size": 1,
                "max_size": env.DATABASE_POOL_SIZE,
                "timeout": env.DATABASE_POOL_TIMEOUT_S,
            }
else:
    env.VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(env.VAR_DIR / "klondike.sqlite3"),
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so concurrent writers wait
                # (up to `timeout`) instead of failing with "database is locked" mid-transaction.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not memory, so tests with threads see one shared database.
            "TEST": {"NAME": str(env.VAR_DIR / "test.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

# --- Cache, Celery --------------------------------------------------------------------------
EMBEDDED = env.REDIS_URL is None
REDIS_URL = env.REDIS_URL
# A Redis that is down or hangs costs a call at most this long (redis-py waits 5 s by default),
# for the cache and the broker alike; then the caller goes on without it (config.cache).
REDIS_TIMEOUT_S = 0.25

CACHES: dict[str, dict[str, Any]]
CELERY_BROKER_URL: str | None
CELERY_RESULT_BACKEND: str | None
if EMBEDDED:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True
else:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": env.REDIS_URL,
            # No IGNORE_EXCEPTIONS: it would make a dead Redis look empty to callers that must
            # know (throttles, health, logout); they catch config.cache.CACHE_ERRORS themselves.
            "OPTIONS": {
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "SOCKET_CONNECT_TIMEOUT": REDIS_TIMEOUT_S,
                "SOCKET_TIMEOUT": REDIS_TIMEOUT_S,
            },
        }
    }
    CELERY_BROKER_URL = env.REDIS_URL
    CELERY_RESULT_BACKEND = env.REDIS_URL
    # No code reads a task's result. Sending a task that keeps one also subscribes to it on
    # Redis, which with Redis down retries for 19 s and then fails; so none is kept.
    CELERY_TASK_IGNORE_RESULT = True
    # A publish to a Redis that is down or hangs fails (kombu's OperationalError) within about
    # half a second: one retry, for a pooled connection that Redis closed on a restart, and
    # short socket timeouts (below).
    CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_TIMEOUT_S
    CELERY_TASK_PUBLISH_RETRY_POLICY = {
        "max_retries": 1,
        "interval_start": 0,
        "interval_step": 0.2,
        "interval_max": 0.2,
    }

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 90
CELERY_RESULT_EXPIRES = 3600
# With Redis as broker, an unacknowledged task is redelivered after this: a task that a killed
# worker held (acks_late) runs again this long after it was taken. It must outlast the longest
# task's time limit (rate_draw and ensure_daily_deals, 660 s), or a task still running would run
# twice, and every countdown and ETA we use (none); the rest is the wait after a crash
# (bench/soak.py kills the ranking worker mid-job). The socket timeouts bound a publish's wait
# on Redis; a worker's BRPOP is not bound by them (kombu reads it only once the socket is
# readable).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 900,
    "socket_timeout": REDIS_TIMEOUT_S,
    "socket_connect_timeout": REDIS_TIMEOUT_S,
}
CELERY_TASK_ACKS_LATE = False  # idempotent tasks opt in with acks_late=True
# Ranking (and the integrity check that may change a rank) on a queue of its own, so a pile of
# analyses (seconds of solver time each) never holds up a leaderboard; the analyses on theirs.
# A worker must consume all three (`-Q ranking,celery,analysis`); docker-compose runs one for
# ranking and the beat's tasks and one for analyses.
CELERY_TASK_ROUTES = {
    "games.tasks.rank_daily": {"queue": "ranking"},
    "games.tasks.check_game_integrity": {"queue": "ranking"},
    "games.tasks.rate_draw": {"queue": "ranking"},
    "games.tasks.analyse_game": {"queue": "analysis"},
    "games.tasks.fill_deal_pool": {"queue": "analysis"},
    "games.tasks.fill_deal_pools": {"queue": "analysis"},
    "games.tasks.search_hint_line": {"queue": "analysis"},
}
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "ensure-daily-deals": {"task": "games.tasks.ensure_daily_deals", "schedule": 600.0},
    "rank-open-boards": {"task": "games.tasks.rank_open_boards", "schedule": 60.0},
    "close-due-boards": {"task": "games.tasks.close_due_boards", "schedule": 60.0},
    "delete-expired-tokens": {"task": "accounts.tasks.delete_expired_tokens", "schedule": 86400.0},
    "purge-idle-guests": {"task": "accounts.tasks.purge_idle_guests", "schedule": 86400.0},
    "fill-deal-pools": {"task": "games.tasks.fill_deal_pools", "schedule": 300.0},
}

# --- Auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "accounts.validators.NotOnlySpacesValidator"},
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/signin"
# API tokens (accounts.tokens): django-rest-knox's model and hashing, one token per login (a
# device), expiring TOKEN_TTL_DAYS after its last use. Knox's own authentication class and
# views are not used: accounts.authentication finds a token by its digest and extends it at
# most once a day (knox's AUTO_REFRESH would write on every request past a minute).
TOKEN_TTL_DAYS = env.TOKEN_TTL_DAYS
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=TOKEN_TTL_DAYS),
    "AUTO_REFRESH": False,
    "AUTH_HEADER_PREFIX": "Token",
}
# A reset link works for an hour, and once (it is bound to the password it replaces).
PASSWORD_RESET_TIMEOUT = 3600
# An e-mail verification link works for two days (seconds), and once (accounts.services).
EMAIL_VERIFICATION_TIMEOUT = 2 * 24 * 3600

# Repeated failed logins, the API's and the admin's alike, lock out an account from one client
# address and, apart, the address (django-axes; accounts/lockout.py); never an account from
# everywhere, which anyone could do to anyone. Its backend comes first and refuses a locked
# login before any password is hashed.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failures are rows in the database: shared by every process, kept without Redis.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_FAILURE_LIMIT = env.LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = env.LOGIN_LOCKOUT_MINUTES / 60  # in hours, as django-axes reads a float
# An attempt while locked is refused without being counted: it neither extends the lock (an
# honest player retrying does not lock themselves out for longer) nor costs a write.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not wipe the failures: it would also wipe the address's count, which an
# attacker could then reset by logging in to an account of their own.
AXES_RESET_ON_SUCCESS = False
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "accounts.lockout.lockout_username"  # any letter case: one account
# The client as the throttles count it: REMOTE_ADDR, or with TRUSTED_PROXIES the address the
# farthest trusted proxy saw; never an X-Forwarded-For the client wrote (no django-ipware).
AXES_CLIENT_IP_CALLABLE = "config.throttles.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
# No row per successful login or logout (a table that would only grow); failures are kept
# until their cool-off has passed.
AXES_DISABLE_ACCESS_LOG = True
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "csrfmiddlewaretoken"]

# --- E-mail (password reset links) ---------------------------------------------------------
DEFAULT_FROM_EMAIL = env.DEFAULT_FROM_EMAIL
if env.EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env.EMAIL_HOST
    EMAIL_PORT = env.EMAIL_PORT
    EMAIL_HOST_USER = env.EMAIL_HOST_USER
    EMAIL_HOST_PASSWORD = env.EMAIL_HOST_PASSWORD
    EMAIL_USE_TLS = env.EMAIL_USE_TLS
    EMAIL_USE_SSL = env.EMAIL_USE_SSL
    EMAIL_TIMEOUT = 10  # seconds; a mail server that hangs must not hold a worker
else:
    # No mail server: each message is a file under VAR_DIR/mail, where a developer opens the
    # link. Not the console backend: that would print live reset links into the server's log.
    # `manage.py check --deploy` warns when the scaled stack runs like this (accounts.checks).
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = env.VAR_DIR / "mail"

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.CachedTokenAuthentication",
        "accounts.authentication.SessionTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.jsonio.FastJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.pagination.PagePagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "login": env.THROTTLE_LOGIN,
        "register": env.THROTTLE_REGISTER,
        "moves": env.THROTTLE_MOVES,
        "hints": env.THROTTLE_HINTS,
        "games": env.THROTTLE_GAMES,
        "export": env.THROTTLE_EXPORT,
        "share": env.THROTTLE_SHARE,
        "reports": env.THROTTLE_REPORTS,
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Throttles and the integrity check count the real client: X-Forwarded-For only as far
    # as the proxies trusted here wrote it.
    "NUM_PROXIES": env.TRUSTED_PROXIES,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Klondike Daily API",
    "DESCRIPTION": "Klondike solitaire: casual games, daily challenges, leaderboards, replays.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.closed_alternatives",
    ],
    "ENUM_NAME_OVERRIDES": {
        "ErrorCodeEnum": "config.schema.ERROR_CODE_CHOICES",
        "GameStatusEnum": "games.serializers.GAME_STATUSES",
        "AnalysisStatusEnum": "games.serializers.ANALYSIS_STATUSES",
        "PileEnum": "games.serializers.PILES",
        "TappedPileEnum": "games.serializers.TAPPED_PILES",
        "BadgeKindEnum": "games.models.BadgeKind.choices",
        "KindEnum": "games.serializers.GAME_KINDS",
    },
}

# --- Internationalisation, static files ----------------------------------------------------
# docs/i18n.md. The language is the player's choice (the cookie set by Django's set_language
# view, /i18n/setlang/), else the browser's Accept-Language, else English (LocaleMiddleware).
# A language is one line here and one catalog per domain under locale/.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("hr", "Hrvatski"),
    ("sk", "Slovenčina"),
    ("pl", "Polski"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
# WhiteNoise also serves the apps' own static files, by their plain names: what a page names
# before `collectstatic` has run (config.storage.StaticStorage).
WHITENOISE_USE_FINDERS = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "config.storage.StaticStorage"
        )
    },
}

# --- Security -------------------------------------------------------------------------------
# Content-Security-Policy on every answer (django-csp): scripts, styles, images, fonts and
# requests from this site only, no inline script or style markup (the pages load modules from
# static files; a script may still set an element's style properties), no plugins, no frames.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF],
        "img-src": [csp.SELF, "data:"],  # the favicon is a data: SVG
        "font-src": [csp.SELF],
        "connect-src": [csp.SELF],
        "object-src": [csp.NONE],
        "base-uri": [csp.NONE],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
    },
}
# API bodies are small JSON objects; a larger body is refused (413) before it is read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the page reads it to send X-CSRFToken
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if env.HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 31_536_000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "accounts": {"level": env.LOG_LEVEL},
        "games": {"level": env.LOG_LEVEL},
        "config": {"level": env.LOG_LEVEL},
    },
}

DAILY_MODES = env.DAILY_MODES
DAILY_SECRET = env.DAILY_SECRET
DAILY_SOLVE_BUDGET_S = env.DAILY_SOLVE_BUDGET_S
SOLVER_SEARCHES_AT_ONCE = env.SOLVER_SEARCHES_AT_ONCE
PASSWORD_HASHES_AT_ONCE = env.PASSWORD_HASHES_AT_ONCE
# "Winnable deals only" (games.pool): proven-winnable deals kept per mode, and the solver time
# the fill job gives each candidate.
DEAL_POOL_SIZE = 20
DEAL_POOL_SOLVE_BUDGET_S = 2.0
# A hint whose half-second search ran out of time is searched again outside the request for this
# long (games.hints.hint_line_search): a winnable position of a one-pass preset often needs 1-10 s.
HINT_BACKGROUND_BUDGET_S = 10.0
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"
# The scraper's bearer secret for /metrics (config.metrics); None: nobody reads them.
METRICS_TOKEN = env.METRICS_TOKEN
