"""One settings module, driven by the environment.

Defaults run on a fresh machine (SQLite file, in-process cache, DEBUG on). `DJANGO_DEBUG=false`
switches production strictness on: every secret and DATABASE_URL must then come from the environment
(`manage.py preflight` also asks for REDIS_URL).
"""

import os
import re
import urllib.parse
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

from config.processor_settings import processor_blocks

BASE_DIR = Path(__file__).resolve().parent.parent
LOCAL_DIR = BASE_DIR / ".local"

env = environ.Env()
# `make run` writes generated development secrets to .local/env; real environment variables win. LOCAL_ENV_FILE
# names another file, or none at all when empty (production hosts, and tests of production settings).
LOCAL_ENV_FILE = os.environ.get("LOCAL_ENV_FILE", str(LOCAL_DIR / "env"))
if LOCAL_ENV_FILE:
    environ.Env.read_env(LOCAL_ENV_FILE, overwrite=False)

BOOLEANS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}


def _bool(name: str, default: bool) -> bool:
    """A yes-or-no setting; anything else (`maybe`, empty) is refused by name, never read as false."""
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() not in BOOLEANS:
        raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}.")
    return BOOLEANS[value.strip().lower()]


DEBUG = _bool("DJANGO_DEBUG", default=True)


# How an operator makes every secret the production settings need (manage.py lets it run while they are missing).
MAKE_SECRETS = (
    "make it with `.venv/bin/python manage.py init_local_env --path prod.env` (every secret), "
    "then load that file (docs/deploy.md)"
)


def _required_in_production(name: str, dev_default: str) -> str:
    value = env.str(name, default="")
    if value:
        return value
    if DEBUG:
        return dev_default
    raise ImproperlyConfigured(f"{name} must be set when DJANGO_DEBUG is false: {MAKE_SECRETS}.")


SECRET_KEY = _required_in_production("DJANGO_SECRET_KEY", "insecure-development-key-never-use-in-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])

INSTALLED_APPS = [
    "payments.staff.apps.SupportDeskAdminConfig",  # django.contrib.admin with the support desk site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "payments",
    "buyers",
    "giftcards",
    "checkout",
    "paymentmethods",
    "paymentservices",
    "transactions",
    "webhooks",
    "threedsecure",
    "settlements",
    "disputes",
    "reports",
    "payouts",
    "paymentlinks",
    "digitalwallets",
    "django_tasks",
    "django_tasks_db",
]

MIDDLEWARE = [
    "payments.middleware.proxy.ProxyHeadersMiddleware",
    "payments.middleware.request_id.RequestIdMiddleware",
    "payments.middleware.access_log.AccessLogMiddleware",
    "payments.middleware.envelope.ErrorEnvelopeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "payments.middleware.body.BodySizeLimitMiddleware",
    "payments.middleware.query.NulQueryMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "payments.middleware.messages.LazyMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "payments.middleware.plans.PlannedForValuesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # The desk's own versions of the admin's pages (payments/staff/templates/admin/), found before the admin's
        # (an app's templates come after the admin app's, which is installed first); and each processor's own pages
        # (paymentservices/processors/<name>/templates/<name>/), e.g. the buyer's page of its own authentication
        # (`Processor.buyer_page`).
        "DIRS": [
            BASE_DIR / "payments" / "staff" / "templates",
            *sorted(BASE_DIR.glob("paymentservices/processors/*/templates")),
        ],
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

DATABASE_ENGINES = ("django.db.backends.postgresql", "django.db.backends.sqlite3")
# Django's PostgreSQL backend with what it pays on every request and need not taken out (payments/postgresql/).
POSTGRESQL_ENGINE = "payments.postgresql"
DATABASE_URL_FORM = "postgres://USER[:PASSWORD]@HOST[:PORT]/NAME or sqlite:////absolute/path.sqlite3"


def _database(url: str) -> dict:
    """The database DATABASE_URL names; a URL of another form is refused by name (never quoting a password)."""
    scheme = url.partition(":")[0]
    try:
        config = environ.Env.db_url_config(url)
    except (ValueError, KeyError) as error:
        raise ImproperlyConfigured(f"DATABASE_URL is not a database URL ({error}): use {DATABASE_URL_FORM}.") from None
    if config.get("ENGINE") not in DATABASE_ENGINES:
        raise ImproperlyConfigured(
            f"DATABASE_URL names a database this server does not run on ({scheme!r}): use {DATABASE_URL_FORM}."
        )
    if not config.get("NAME"):
        raise ImproperlyConfigured(f"DATABASE_URL names no database: use {DATABASE_URL_FORM}.")
    if config["ENGINE"] == "django.db.backends.postgresql":
        config["ENGINE"] = POSTGRESQL_ENGINE
    return config


def _database_url() -> str:
    """DATABASE_URL; unset, the development SQLite file, which a production server never starts on by default."""
    url = env.str("DATABASE_URL", default="")
    if url:
        return url
    if DEBUG:
        return f"sqlite:///{LOCAL_DIR / 'db.sqlite3'}"
    raise ImproperlyConfigured(
        f"DATABASE_URL must be set when DJANGO_DEBUG is false (the development SQLite file is never used by "
        f"default): use {DATABASE_URL_FORM}."
    )


DATABASES = {"default": _database(_database_url())}
# App servers keep connections open between requests; health checks drop broken ones.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0 if DEBUG else 60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == POSTGRESQL_ENGINE:
    options = DATABASES["default"].setdefault("OPTIONS", {})
    # A database host that does not answer fails a request in seconds instead of hanging a worker.
    options.setdefault("connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=5))
    # Values are sent beside a statement's text (server-side binding), and a statement a connection has run five
    # times is prepared, so PostgreSQL stops parsing and planning it on every run (docs/performance.md). Behind a
    # pooler that cannot carry prepared statements across its transactions, DATABASE_PREPARED_STATEMENTS=false
    # sends every statement unprepared (docs/deploy.md).
    options.setdefault("server_side_binding", _bool("DATABASE_SERVER_SIDE_BINDING", default=True))
    options.setdefault("prepare_threshold", 5 if _bool("DATABASE_PREPARED_STATEMENTS", default=True) else None)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default has two writers (the development server and the background worker `make run` starts
    # beside it). A transaction that reads first and writes later cannot wait for the other writer's lock
    # (SQLite answers "database is locked" at once, a 500), so every transaction takes the write lock when it
    # begins and waits up to `timeout` seconds for it; WAL lets reads go on meanwhile.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20, "init_command": "PRAGMA journal_mode=WAL;"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL_FORM = (
    "redis://HOST[:PORT][/DB] (redis://:PASSWORD@HOST... with a password, rediss:// for TLS) or unix:///PATH"
)


def _redis_url(url: str) -> str:
    """REDIS_URL, when set, in a form django-redis connects with; refused by name, never quoting a password."""
    if not url:
        return url
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - parses the port: out of range or not a number raises ValueError
    except ValueError:
        parts = None
    if parts is None or not (
        (parts.scheme in ("redis", "rediss") and parts.hostname and re.fullmatch(r"/?[0-9]*", parts.path))
        or (parts.scheme == "unix" and parts.path)
    ):
        raise ImproperlyConfigured(f"REDIS_URL is not a Redis URL: use {REDIS_URL_FORM}.")
    return url


REDIS_URL = _redis_url(env.str("REDIS_URL", default=""))


def _cache(location_suffix: str) -> dict:
    if REDIS_URL:
        return {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": location_suffix,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
        }
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": location_suffix}


CACHES = {"default": _cache("default"), "ratelimit": _cache("ratelimit")}

# Enumeration defence (docs/rate-limits.md). Counters are django-ratelimit's atomic increments in the
# `ratelimit` cache: shared Redis with REDIS_URL, per-process memory without (`check --deploy` warns).
RATELIMIT_USE_CACHE = "ratelimit"


def _rate(name: str, default: str) -> str:
    """A django-ratelimit rate, `<count>/<unit>` or `<count>/<n><unit>` with unit s, m, h or d: `50/m`, `20/10s`."""
    value = env.str(name, default=default)
    if not re.fullmatch(r"[1-9][0-9]*/([1-9][0-9]*)?[smhd]", value):
        raise ImproperlyConfigured(f"{name} must be a rate such as '50/m' or '20/10s', not {value!r}.")
    return value


# Per embed token, separately on each limited endpoint (POST /gift-cards, /gift-cards/balances, /transactions).
RATELIMIT_EMBED = _rate("RATELIMIT_EMBED", "50/m")
# Per checkout session on the Secure Fields endpoint (PUT and POST share one budget).
RATELIMIT_CHECKOUT_FIELDS = _rate("RATELIMIT_CHECKOUT_FIELDS", "20/m")
# Failed gift card checks per card number, across every token and session.
RATELIMIT_GIFTCARD_PIN_FAILURES = _rate("RATELIMIT_GIFTCARD_PIN_FAILURES", "5/h")
# Failed admin sign-ins per user name at one client address, and per client address (docs/admin.md); at the limit,
# sign-in from that address is refused, the right password included, until the window ends.
ADMIN_LOGIN_FAILURES_PER_USER = _rate("ADMIN_LOGIN_FAILURES_PER_USER", "5/15m")
ADMIN_LOGIN_FAILURES_PER_ADDRESS = _rate("ADMIN_LOGIN_FAILURES_PER_ADDRESS", "20/15m")
# With the cache unreachable: false refuses limited requests with 503, true admits them uncounted.
RATELIMIT_FAIL_OPEN = _bool("RATELIMIT_FAIL_OPEN", default=False)

# `/readyz` answers within this many seconds whatever its dependencies do.
READYZ_TIMEOUT_SECONDS = env.float("READYZ_TIMEOUT_SECONDS", default=2.0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# One way to write a date on every desk page, with its zone: payments/staff/formats/en/formats.py.
FORMAT_MODULE_PATH = ["payments.staff.formats"]

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Report files (docs/reports.md): a folder by default; any S3-compatible store through django-storages.
    "reports": {
        "BACKEND": env.str("REPORTS_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage"),
        "OPTIONS": env.json("REPORTS_STORAGE_OPTIONS", default={"location": str(BASE_DIR / ".local" / "reports")}),
    },
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Request bodies above this size are refused with 413 before any parsing.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("API_MAX_BODY_BYTES", default=1024 * 1024)
# Addresses (or CIDR ranges, comma separated; `*` for any) whose X-Forwarded-For the app believes: the proxy's
# (config/nginx.conf). gunicorn reads the same variable for X-Forwarded-Proto (config/gunicorn.conf.py).
FORWARDED_ALLOW_IPS = env.str("FORWARDED_ALLOW_IPS", default="127.0.0.1")
# JSON bodies nested deeper than this are refused with 400 before decoding (the decoder recurses per level).
# The deepest upstream body (a transaction's buyer address, cart items, airline legs) needs about 5.
API_MAX_JSON_DEPTH = env.int("API_MAX_JSON_DEPTH", default=32)
if not 1 <= API_MAX_JSON_DEPTH <= 200:
    raise ImproperlyConfigured(f"API_MAX_JSON_DEPTH must be between 1 and 200, not {API_MAX_JSON_DEPTH}.")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["payments.rest.authentication.ApiKeyJWTAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "payments.rest.permissions.MerchantAccountAccess",
        "payments.rest.permissions.ScopePermission",
        "payments.rest.query.KnownQueryParameters",
        "payments.audit.permissions.AuditedWrites",
    ],
    "DEFAULT_PAGINATION_CLASS": "payments.rest.pagination.KeysetCursorPagination",
    "DEFAULT_FILTER_BACKENDS": ["payments.rest.filters.QueryFilterBackend"],
    "DEFAULT_RENDERER_CLASSES": ["payments.rest.renderers.FastJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["payments.rest.parsers.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "payments.apidoc.autoschema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "payments.rest.envelope.api_exception_handler",
    "UNAUTHENTICATED_USER": None,
    "UNAUTHENTICATED_TOKEN": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Payments API",
    "DESCRIPTION": "Self-hosted payments API, wire-compatible with the Gr4vy API for the resources it implements.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    # Swagger UI would otherwise send the schema to an online validator: the docs stay fully offline.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "payments.apidoc.hooks.inline_constants",
        "payments.apidoc.hooks.add_examples",
        "payments.apidoc.hooks.add_links",
        "payments.apidoc.hooks.describe_api",
    ],
    # Choice sets that share a field name (`method`, `status`, `intent`...) across components: one name each.
    "ENUM_NAME_OVERRIDES": {
        "TransactionPaymentMethodEnum": "transactions.api.serializers.create.PAYMENT_METHODS",
        "PaymentIntentEnum": "payments.choices.PaymentIntent",
        "PaymentSourceEnum": "payments.choices.PaymentSource",
        "TransactionStatusEnum": "transactions.models.TransactionStatus",
        "RefundStatusEnum": "transactions.models.RefundStatus",
        # Upstream's CaptureStatus, and its VoidStatus of the same values: the capture, its wrapper and the void's.
        "CaptureStatusEnum": "transactions.models.CaptureStatus",
        "GiftCardRedemptionStatusEnum": "transactions.models.RedemptionStatus",
        "TransactionActionStatusEnum": "transactions.api.serializers.outputs.ACTION_STATUSES",
        "PaymentMethodCreateMethodEnum": "paymentmethods.api.serializers.STORE_METHODS",
        "CheckoutSessionFieldsMethodEnum": "checkout.api.serializers.SECURE_FIELDS_METHODS",
        "CardSchemeEnum": "payments.shapes.processor_data.CARD_SCHEMES",
        # A card payment's `method` and `mode`: the card, or the digital wallet whose device card paid.
        "CardMethodEnum": "transactions.models.CARD_METHODS",
        # What a dispute's evidence document shows (an extension: docs/disputes.md).
        "EvidenceKindEnum": "payments.choices.EvidenceKind",
    },
}

# simplejwt supplies the verification machinery; keys and algorithms come from each ApiKey row.
SIMPLE_JWT = {"AUTH_HEADER_TYPES": ("Bearer",), "LEEWAY": 0}
JWT_LEEWAY_SECONDS = env.int("JWT_LEEWAY_SECONDS", default=30)
# How long an API key's state lives in the shared cache before it is read again (every change to a key rewrites it
# when it commits, so a deleted key stops at once on every host), and a merchant account in a process.
API_KEY_CACHE_SECONDS = env.int("API_KEY_CACHE_SECONDS", default=10)
VERIFIED_TOKEN_CACHE_SIZE = env.int("VERIFIED_TOKEN_CACHE_SIZE", default=10_000)
# The longest an embed token (a browser's, so one that can leak) may live, from its `iat`: beyond it, 401.
EMBED_TOKEN_MAX_LIFETIME_SECONDS = env.int("EMBED_TOKEN_MAX_LIFETIME_SECONDS", default=86_400)

# Pagination cursors are signed with their own key so rotating the session secret does not break them.
CURSOR_SIGNING_KEY = env.str("CURSOR_SIGNING_KEY", default=SECRET_KEY)

CORS_ALLOW_HEADERS = [
    "authorization",
    "content-type",
    "idempotency-key",
    "x-gr4vy-merchant-account-id",
    "x-request-id",
]
CORS_EXPOSE_HEADERS = [
    "idempotent-replayed",
    "retry-after",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "x-request-id",
]

# The origin Secure Fields frames and the browser scripts are served from (docs/frontend.md); never a merchant
# page's origin. Empty: the origin each request arrived on (the demo page swaps localhost and 127.0.0.1).
SECURE_FIELDS_ORIGIN = env.str("SECURE_FIELDS_ORIGIN", default="").rstrip("/")
_ORIGIN = r"https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?"
if SECURE_FIELDS_ORIGIN and not re.fullmatch(_ORIGIN, SECURE_FIELDS_ORIGIN):
    raise ImproperlyConfigured(
        f"SECURE_FIELDS_ORIGIN must be an origin such as https://api.example.com, not {SECURE_FIELDS_ORIGIN!r}."
    )
# The demo page (/demo/checkout/, DEBUG only) signs its embed tokens with the key `make run` writes.
DEMO_CHECKOUT_PRIVATE_KEY = env.str("DEMO_CHECKOUT_PRIVATE_KEY", default=str(LOCAL_DIR / "default-api-key.pem"))

# JSON lines (one object per line, `payments.ops.logging.JsonFormatter`) for log collectors in production;
# readable lines under `make run`.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain" if DEBUG else "json")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be 'plain' or 'json', not {LOG_FORMAT!r}.")
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "card_data": {"()": "payments.ops.logging.CardDataMaskingFilter"},
        "database_detail": {"()": "payments.ops.logging.DatabaseDetailFilter"},
        "request_id": {"()": "payments.middleware.request_id.RequestIdLogFilter"},
        "request_path": {"()": "payments.ops.logging.RequestPathFilter"},
        "dev_server": {"()": "payments.ops.logging.DevServerRequestFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "payments.ops.logging.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            # `database_detail` before any filter that renders the message: it reads the exceptions among the
            # arguments.
            "filters": ["request_id", "request_path", "database_detail", "dev_server", "card_data"],
        },
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # Every handler must carry the `request_path`, `dev_server`, `database_detail` and `card_data` filters. Django's
    # default logging config gives `django` and `django.server` handlers of their own (console, mail_admins) that do
    # not; clearing them sends those records to the root's filtered handler instead of printing (or mailing) them
    # unmasked.
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.server": {"handlers": [], "level": "WARNING", "propagate": True},
        # The worker's clock logs every firing at INFO; its warnings and errors still show.
        "apscheduler": {"handlers": [], "level": "WARNING", "propagate": True},
        # HTTP client libraries log every URL they call at INFO, and a URL can carry a credential.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "urllib3": {"level": "WARNING"},
        # A processor's library that logs every call at INFO too is named in its settings block (`QUIET_LOGGERS`,
        # below `PROCESSORS`).
    },
}

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = _bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    # Load balancers probe app servers over plain HTTP on the private network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# How long a stored Idempotency-Key response is replayed; `purge_expired` deletes older ones.
IDEMPOTENCY_KEY_TTL_SECONDS = env.int("IDEMPOTENCY_KEY_TTL_SECONDS", default=24 * 60 * 60)
# gunicorn's worker timeout (config/gunicorn.conf.py reads the same variable). Its worker replaces itself when a
# request runs past it, so no request runs longer than twice this, plus a second or two (docs/reliability.md).
WEB_TIMEOUT_SECONDS = env.int("WEB_TIMEOUT_SECONDS", default=30)
# How long a request holds its Idempotency-Key: a request whose process died releases it after this, and the
# client's retry resumes it. Longer than any request may run (a system check holds it so).
IDEMPOTENCY_KEY_LEASE_SECONDS = env.int("IDEMPOTENCY_KEY_LEASE_SECONDS", default=90)
# A transaction pending this long has no request working on it any more: `recover_transactions` syncs it, and a
# sync that finds no record at the processor records that the operation never happened.
PENDING_TRANSACTION_RECOVERY_SECONDS = env.int("PENDING_TRANSACTION_RECOVERY_SECONDS", default=90)
# A production server (DJANGO_DEBUG=false) lets the `mock-card` sandbox answer only when this is true: without it
# a `mock-card` payment service cannot be created and no payment is routed to one (docs/payment-services.md).
SANDBOX_PAYMENTS = _bool("SANDBOX_PAYMENTS", default=False)
# How long one payment may spend with processors, every failover attempt included (docs/payment-services.md): no
# attempt starts once it is spent, and each processor call is cut to what is left of it. Under 15 s, so a payment
# that finds no processor answering still answers well inside the web timeout and the client's own.
PAYMENT_ROUTING_SECONDS = env.float("PAYMENT_ROUTING_SECONDS", default=12.0)

# Each processor's own settings, one block per processor folder (paymentservices/processors/<slug>/), which its
# folder's settings.py reads from environment variables named after it (docs/deploy.md). API_BASE: where its
# connector calls (the tests point it at the processor's double); TIMEOUT_SECONDS: how long one call may take, after
# which it is a "no answer" result, never a decline. Connectors read their block at each call
# (`paymentservices.processors.config.processor_settings`).
PROCESSORS = processor_blocks(BASE_DIR / "paymentservices" / "processors", env)
# The loggers of a processor's library that log every call at INFO, kept to their warnings as the HTTP clients' are:
# what they say, the transaction's events already say.
for _block in PROCESSORS.values():
    for _logger in _block.get("QUIET_LOGGERS", ()):
        LOGGING["loggers"][_logger] = {"level": "WARNING"}
# The public base URL of this server (scheme://host[:port]), from which each payment service's `webhook_url` is made
# for the processor to call; empty: the URL is made from the request that asks for the service.
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="")
# How long a buyer has to complete a 3-D Secure challenge (docs/three-d-secure.md): the transaction's
# `approval_expires_at`; the "expire-three-d-secure-challenges" job ends those left unanswered.
THREE_D_SECURE_CHALLENGE_SECONDS = env.int("THREE_D_SECURE_CHALLENGE_SECONDS", default=900)
if not 60 <= THREE_D_SECURE_CHALLENGE_SECONDS <= 86400:
    raise ImproperlyConfigured("THREE_D_SECURE_CHALLENGE_SECONDS must be between 60 and 86400.")
# How long the sandbox's slow test cards (4000000000000259, 4000000000000267) take to answer.
SANDBOX_SLOW_CARD_SECONDS = env.float("SANDBOX_SLOW_CARD_SECONDS", default=5.0)

# Wallet tokens (docs/wallet-tokens.md): a PEM bundle of Apple Pay roots and a file of Google Pay root signing keys in
# Google's published format, each replacing what payments/wallettokens/data/ pins (empty: the pinned ones).
WALLET_APPLE_PAY_ROOTS_FILE = env.str("WALLET_APPLE_PAY_ROOTS_FILE", default="")
WALLET_GOOGLE_PAY_ROOT_KEYS_FILE = env.str("WALLET_GOOGLE_PAY_ROOT_KEYS_FILE", default="")
# How far from now an Apple Pay token's signing time may be: an older one may be a replay (Apple: a few minutes).
WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS = env.int("WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS", default=300)
if not 30 <= WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS <= 3600:
    raise ImproperlyConfigured("WALLET_APPLE_PAY_SIGNING_WINDOW_SECONDS must be between 30 and 3600.")

# Card vault: "<key id>:<base64url 32-byte key>" entries; the first encrypts, all decrypt.
CARD_ENCRYPTION_KEYS = env.list("CARD_ENCRYPTION_KEYS", default=[])
# Keyed hashes (card fingerprints, gift card number and PIN lookups) use this separate key.
CARD_FINGERPRINT_KEY = env.str("CARD_FINGERPRINT_KEY", default="")
_MISSING_CARD_KEYS = [name for name in ("CARD_ENCRYPTION_KEYS", "CARD_FINGERPRINT_KEY") if not globals()[name]]
if not DEBUG and _MISSING_CARD_KEYS:
    raise ImproperlyConfigured(
        f"{' and '.join(_MISSING_CARD_KEYS)} must be set when DJANGO_DEBUG is false: {MAKE_SECRETS}."
    )

# Background work (docs/webhooks.md): django-tasks with its database backend, so the embedded default needs no
# broker and a task enqueued inside a database transaction commits with it. `manage.py run_worker` runs the
# tasks and the clock that enqueues SCHEDULED_JOBS; run one beside `make run`, several in production.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# How long an idle worker waits before looking for a task again (the floor of a webhook's delay).
WORKER_POLL_SECONDS = env.float("WORKER_POLL_SECONDS", default=0.2)
# Tasks one worker process runs at once, each on a thread and database connection of its own: a webhook delivery
# spends most of its time waiting on its receiver, so one process sends several meanwhile. SQLite takes one writer
# at a time, so the embedded default runs one.
WORKER_CONCURRENCY = env.int(
    "WORKER_CONCURRENCY", default=4 if DATABASES["default"]["ENGINE"] == POSTGRESQL_ENGINE else 1
)
# Periodic jobs: a dotted path to a plain function, its keyword arguments, and how often it runs. Adding a job is
# one entry; every worker's clock runs them all and each run happens once (payments.jobs).
SCHEDULED_JOBS: dict[str, dict] = {
    "purge-expired": {
        "call": "payments.ops.purge.purge_registered",
        "kwargs": {"exclude": ["idempotency-keys"]},
        "every_seconds": env.int("PURGE_EVERY_SECONDS", default=300),
    },
    "idempotency-cleanup": {
        "call": "payments.ops.purge.purge_registered",
        "kwargs": {"only": ["idempotency-keys"]},
        "every_seconds": env.int("IDEMPOTENCY_CLEANUP_EVERY_SECONDS", default=900),
    },
    # Transactions left pending by a request that died: synced with the processor's records (docs/transactions.md).
    "recover-pending-transactions": {
        "call": "transactions.services.recovery.transactions_recover_pending",
        "every_seconds": env.int("RECOVER_PENDING_EVERY_SECONDS", default=60),
    },
    # Payouts left pending (an answer lost, a request that died): asked again under the same reference, so each is
    # settled with nothing paid twice (docs/payouts.md).
    "recover-pending-payouts": {
        "call": "payouts.services.payouts_recover_pending",
        "every_seconds": env.int("RECOVER_PENDING_PAYOUTS_EVERY_SECONDS", default=60),
    },
    # 3-D Secure challenges nobody answered in time end as failed (docs/three-d-secure.md).
    "expire-three-d-secure-challenges": {
        "call": "transactions.services.challenges.challenges_expire",
        "every_seconds": env.int("EXPIRE_CHALLENGES_EVERY_SECONDS", default=60),
    },
    # Payment links past their deadline are recorded expired; links being paid record how their payment ended
    # (docs/payment-links.md).
    "tend-payment-links": {
        "call": "paymentlinks.services.payment_links_tend",
        "every_seconds": env.int("TEND_PAYMENT_LINKS_EVERY_SECONDS", default=60),
    },
    # Processors' settlement records into the ledger (docs/reconciliation.md); each run ingests only what is new.
    "ingest-settlements": {
        "call": "settlements.sources.settlements_ingest",
        "every_seconds": env.int("INGEST_SETTLEMENTS_EVERY_SECONDS", default=3600),
    },
    "webhook-sweep": {
        "call": "webhooks.tasks.webhooks_sweep",
        "every_seconds": env.float("WEBHOOK_SWEEP_SECONDS", default=30.0),
    },
    # Reports whose day, week or month has ended get their execution (docs/reports.md).
    "report-schedules": {
        "call": "reports.services.executions.reports_schedule_due",
        "every_seconds": env.int("REPORT_SCHEDULE_EVERY_SECONDS", default=60),
    },
    # Report executions whose worker died: tried again, or failed once out of attempts.
    "report-sweep": {
        "call": "reports.services.executions.report_executions_sweep",
        "every_seconds": env.int("REPORT_SWEEP_EVERY_SECONDS", default=60),
    },
    # The start page's daily totals: each day of the last 30 not counted yet, or with a transaction changed since its
    # count, counted again from the transactions (docs/admin.md, "Trends beyond 24 hours").
    "refresh-transaction-day-totals": {
        "call": "transactions.services.day_totals.day_totals_refresh",
        "every_seconds": env.int("DAY_TOTALS_REFRESH_EVERY_SECONDS", default=300),
    },
    "webhook-failure-report": {
        "call": "webhooks.services.deliveries.webhook_subscriptions_report_failing",
        "every_seconds": env.int("WEBHOOK_FAILURE_REPORT_EVERY_SECONDS", default=3600),
    },
}
# The sandbox settles each closed day's payments; a day this many days back or newer with no report yet gets one.
SANDBOX_SETTLEMENT_LOOKBACK_DAYS = env.int("SANDBOX_SETTLEMENT_LOOKBACK_DAYS", default=7)
# Reports (docs/reports.md). A file is kept this many days after its execution finished, then deleted by the purge.
REPORT_FILE_RETENTION_DAYS = env.int("REPORT_FILE_RETENTION_DAYS", default=30)
# A worker holds a running execution this long, renewed as it writes (each third of it); one that dies frees it.
REPORT_EXECUTION_LEASE_SECONDS = env.float("REPORT_EXECUTION_LEASE_SECONDS", default=300.0)
# Attempts an execution gets when its worker dies before it finishes; then it is failed.
REPORT_EXECUTION_MAX_ATTEMPTS = env.int("REPORT_EXECUTION_MAX_ATTEMPTS", default=3)
# A pending execution this old whose task never ran (lost with a worker) is queued again by the sweep.
REPORT_EXECUTION_SWEEP_GRACE_SECONDS = env.float("REPORT_EXECUTION_SWEEP_GRACE_SECONDS", default=120.0)
# Where a file is written before it is stored (the system's temporary folder when empty).
REPORTS_TEMP_DIR = env.str("REPORTS_TEMP_DIR", default="")
# Outbox events (and their webhook deliveries and attempts) are kept this long, then purged.
OUTBOX_RETENTION_DAYS = env.int("OUTBOX_RETENTION_DAYS", default=30)

# Webhook deliveries (docs/webhooks.md). An attempt counts when the receiver answers 2xx within the timeout;
# anything else is retried with exponential backoff and jitter until WEBHOOK_RETRY_FOR_SECONDS after the event.
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
WEBHOOK_RETRY_FOR_SECONDS = env.int("WEBHOOK_RETRY_FOR_SECONDS", default=7 * 24 * 60 * 60)
WEBHOOK_RETRY_BASE_SECONDS = env.float("WEBHOOK_RETRY_BASE_SECONDS", default=30.0)
WEBHOOK_RETRY_MAX_DELAY_SECONDS = env.float("WEBHOOK_RETRY_MAX_DELAY_SECONDS", default=12 * 60 * 60)
# Each delay is drawn from [delay x (1 - jitter), delay x (1 + jitter)], so retries of one outage spread out.
WEBHOOK_RETRY_JITTER = env.float("WEBHOOK_RETRY_JITTER", default=0.25)
# A worker holds a delivery this long while it sends; a worker that dies mid-send frees it when the lease ends.
# Must exceed the longest attempt (the timeout), or a slow attempt could be sent twice at once.
WEBHOOK_LEASE_SECONDS = env.float("WEBHOOK_LEASE_SECONDS", default=60.0)
# The sweep picks up deliveries and events this overdue: the ones whose own task was lost with a worker.
WEBHOOK_SWEEP_GRACE_SECONDS = env.float("WEBHOOK_SWEEP_GRACE_SECONDS", default=30.0)
# Bytes of a receiver's answer read (and kept with the attempt, for support); the rest is never read.
WEBHOOK_RESPONSE_MAX_BYTES = env.int("WEBHOOK_RESPONSE_MAX_BYTES", default=1024)
# Host names or addresses a subscription may use even where production refuses them (http, loopback,
# private addresses): for tests and local receivers. Link-local and cloud metadata addresses stay refused.
WEBHOOK_ALLOWED_HOSTS = env.list("WEBHOOK_ALLOWED_HOSTS", default=[])
# How long a process trusts what it read of the BIN table for one BIN (a refresh in the process forgets at once).
BIN_CACHE_SECONDS = env.float("BIN_CACHE_SECONDS", default=300.0)
# How long a process trusts its knowledge of which accounts have an active subscription.
WEBHOOK_SUBSCRIPTION_CACHE_SECONDS = env.float("WEBHOOK_SUBSCRIPTION_CACHE_SECONDS", default=5.0)
# A subscription whose deliveries have all failed for this long is reported (log, admin, `webhook_status`).
WEBHOOK_FAILING_REPORT_AFTER_SECONDS = env.int("WEBHOOK_FAILING_REPORT_AFTER_SECONDS", default=24 * 60 * 60)
# Sent in every notification body (`gr4vy_id`, `environment`) so one receiver can tell instances apart.
WEBHOOK_INSTANCE_ID = env.str("WEBHOOK_INSTANCE_ID", default="payments")
WEBHOOK_ENVIRONMENT = env.str("WEBHOOK_ENVIRONMENT", default="sandbox" if DEBUG or SANDBOX_PAYMENTS else "production")

# Payouts (docs/payouts.md). The largest payout a merchant account may make, in minor units: PAYOUT_MAX_AMOUNTS by
# currency (`{"JPY": 1000000}` as JSON), else PAYOUT_MAX_AMOUNT (10,000.00 in a two-decimal currency).
PAYOUT_MAX_AMOUNT = env.int("PAYOUT_MAX_AMOUNT", default=1_000_000)
PAYOUT_MAX_AMOUNTS: dict[str, int] = env.json("PAYOUT_MAX_AMOUNTS", default={})
# A payout pending this long (longer than any request runs) is asked again by the recovery job.
PAYOUT_RECOVER_AFTER_SECONDS = env.int("PAYOUT_RECOVER_AFTER_SECONDS", default=120)
# A card given for one payout stays sealed until the payout is decided, and never longer than this (the span over
# which processors answer a repeated idempotency key: Adyen keeps them at least 7 days).
PAYOUT_CARD_RETENTION_SECONDS = env.int("PAYOUT_CARD_RETENTION_SECONDS", default=7 * 24 * 3600)

# Digital wallets (docs/digital-wallets.md). Apple Pay merchant validation is sent only to the hosts Apple publishes
# for it (production, China, and the sandbox's), with the merchant identity certificate; nothing else is called.
APPLE_PAY_VALIDATION_HOSTS = env.list(
    "APPLE_PAY_VALIDATION_HOSTS",
    default=[
        "apple-pay-gateway.apple.com",
        "cn-apple-pay-gateway.apple.com",
        *(f"apple-pay-gateway-{site}-pod{n}.apple.com" for site in ("nc", "pr") for n in range(1, 6)),
        *(f"cn-apple-pay-gateway-{site}-pod{n}.apple.com" for site in ("sh", "tj") for n in range(1, 4)),
        "apple-pay-gateway-cert.apple.com",
        "cn-apple-pay-gateway-cert.apple.com",
    ],
)
APPLE_PAY_TIMEOUT_SECONDS = env.float("APPLE_PAY_TIMEOUT_SECONDS", default=10.0)
# The certificate authorities Apple's validation hosts are checked against: empty means the system's.
APPLE_PAY_CA_BUNDLE = env.str("APPLE_PAY_CA_BUNDLE", default="")
