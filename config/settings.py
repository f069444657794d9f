"""Django settings. Values from the environment come from `config.env` alone.

Two modes share this one file:
- embedded (no REDIS_URL): SQLite under var/, local-memory cache, Celery tasks run eagerly;
- scaled (DATABASE_URL and REDIS_URL set): PostgreSQL, django-redis, Celery workers on Redis.
"""

from __future__ import annotations

import dj_database_url

from config import env

BASE_DIR = env.BASE_DIR
DEBUG = env.DEBUG
SECRET_KEY = env.SECRET_KEY
ALLOWED_HOSTS = env.ALLOWED_HOSTS
CSRF_TRUSTED_ORIGINS = env.CSRF_TRUSTED_ORIGINS

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.browser.BrowserIdMiddleware",
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
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
if env.DATABASE_URL:
    DATABASES = {
        # Persistent connections, without the per-request health check: that check is a
        # `SELECT 1` round trip before every request's first query, a sixth of a move's
        # database work. After a database restart, a stale connection fails one request and
        # is then closed and replaced (Django closes a connection that saw an error).
        "default": dj_database_url.parse(
            env.DATABASE_URL, conn_max_age=60, conn_health_checks=False
        )
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Statements sent with server-side binding are prepared on their first use on a
        # connection. Only the move's hot path sends such statements (games.services); Django's
        # own cursors bind on the client and never prepare. (A transaction-mode PgBouncer
        # could not keep prepared statements; this stack connects to PostgreSQL directly.)
        DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 0
else:
    env.VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env.VAR_DIR / "klondike.sqlite3",
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
            "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
        }
    }
    CELERY_BROKER_URL = env.REDIS_URL
    CELERY_RESULT_BACKEND = env.REDIS_URL

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 90
CELERY_RESULT_EXPIRES = 3600
# With Redis as broker, an unacknowledged task is redelivered after this; it must outlast
# every countdown and ETA we use.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_ACKS_LATE = False  # idempotent tasks opt in with acks_late=True
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "ensure-daily-deals": {"task": "games.tasks.ensure_daily_deals", "schedule": 600.0},
    "rank-open-boards": {"task": "games.tasks.rank_open_boards", "schedule": 60.0},
    "close-due-boards": {"task": "games.tasks.close_due_boards", "schedule": 60.0},
}

# --- Auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/signin"

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "config.api.PagePagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "login": env.THROTTLE_LOGIN,
        "register": env.THROTTLE_REGISTER,
        "moves": env.THROTTLE_MOVES,
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
}

# --- Internationalisation, static files ----------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
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
CSRF_FAILURE_VIEW = "config.api.csrf_failure"
