"""System checks for settings that are valid Django but wrong for a payments deployment."""

from collections.abc import Sequence

from django.apps import AppConfig
from django.conf import settings
from django.core import checks

from payments.vault import crypto

PROCESS_LOCAL_CACHES = ("django.core.cache.backends.locmem.LocMemCache",)


@checks.register(checks.Tags.caches, deploy=True)
def ratelimit_cache_is_shared(app_configs: Sequence[AppConfig] | None, **kwargs: object) -> list[checks.CheckMessage]:
    """Counters in process memory give every worker its own budget: N workers admit N times the limit."""
    alias = settings.RATELIMIT_USE_CACHE
    backend = settings.CACHES.get(alias, {}).get("BACKEND")
    if backend not in PROCESS_LOCAL_CACHES:
        return []
    return [
        checks.Warning(
            f"Rate limits are counted per process: the {alias!r} cache is in-process memory ({backend}).",
            hint="Set REDIS_URL so every process and host shares one count (docs/rate-limits.md).",
            id="payments.W001",
        )
    ]


# gunicorn replaces a worker whose request runs past its timeout; allow for its poll interval on top.
_REPLACEMENT_SLACK_SECONDS = 5


@checks.register()
def idempotency_lease_outlasts_requests(
    app_configs: Sequence[AppConfig] | None, **kwargs: object
) -> list[checks.CheckMessage]:
    """A lease shorter than a request could let a retry resume a request that is still running."""
    longest = 2 * settings.WEB_TIMEOUT_SECONDS + _REPLACEMENT_SLACK_SECONDS
    messages: list[checks.CheckMessage] = []
    for name in ("IDEMPOTENCY_KEY_LEASE_SECONDS", "PENDING_TRANSACTION_RECOVERY_SECONDS"):
        if getattr(settings, name) <= longest:
            messages.append(
                checks.Error(
                    f"{name} ({getattr(settings, name)}) must be longer than the longest a request may run "
                    f"({longest} seconds: twice WEB_TIMEOUT_SECONDS, plus {_REPLACEMENT_SLACK_SECONDS}).",
                    hint="Raise it, or lower WEB_TIMEOUT_SECONDS (docs/reliability.md).",
                    id="payments.E001" if name.startswith("IDEMPOTENCY") else "payments.E002",
                )
            )
    return messages


# The tag of the checks on secrets' form; config/wsgi.py runs them where no management command does (gunicorn).
SECRETS = "secrets"
_KEYS_HINT = (
    "Generate well-formed keys with `manage.py init_local_env --path <file>` (docs/card-data.md, 'Keys'). "
    "The message never quotes a key."
)


@checks.register(SECRETS)
def card_keys_are_well_formed(app_configs: Sequence[AppConfig] | None, **kwargs: object) -> list[checks.CheckMessage]:
    """A malformed key lets the server start and answer ready, then fails every card payment, gift card and
    Idempotency-Key request with a 500: refuse it before the server takes any request."""
    messages: list[checks.CheckMessage] = []
    for name, problem, error_id in (
        (crypto.ENCRYPTION_KEYS_SETTING, crypto.encryption_keys_problem, "payments.E003"),
        (crypto.FINGERPRINT_KEY_SETTING, crypto.fingerprint_key_problem, "payments.E004"),
    ):
        if not getattr(settings, name, None):
            # Without debug the settings refuse to load at all; a development server may run without card data.
            messages.append(
                checks.Warning(
                    f"{name} is not set: card payments, gift cards and Idempotency-Key requests fail until it is.",
                    hint=_KEYS_HINT,
                    id="payments.W002",
                )
            )
            continue
        found = problem()
        if found is not None:
            messages.append(checks.Error(found, hint=_KEYS_HINT, id=error_id))
    return messages


@checks.register(SECRETS)
def cursor_signing_key_is_set(app_configs: Sequence[AppConfig] | None, **kwargs: object) -> list[checks.CheckMessage]:
    """An empty signing key signs cursors anyone can forge."""
    if settings.CURSOR_SIGNING_KEY:
        return []
    return [
        checks.Error(
            "CURSOR_SIGNING_KEY is set but empty.",
            hint="Unset it to sign cursors with DJANGO_SECRET_KEY, or set a long random value (docs/deploy.md).",
            id="payments.E005",
        )
    ]


def secrets_problems() -> list[str]:
    """The errors the secrets' checks find, as one line each: what refuses to start the WSGI application."""
    found = checks.run_checks(tags=[SECRETS])
    return [
        f"{message.id}: {message.msg}" + (f" {message.hint}" if message.hint else "")
        for message in found
        if message.is_serious()
    ]


@checks.register(SECRETS)
def forwarded_allow_ips_is_well_formed(
    app_configs: Sequence[AppConfig] | None, **kwargs: object
) -> list[checks.CheckMessage]:
    """A mistyped proxy address would fail every request that carries X-Forwarded-For: refuse it at start."""
    from payments.middleware.proxy import trusted_proxies

    try:
        trusted_proxies(settings.FORWARDED_ALLOW_IPS)
    except ValueError as exc:
        return [
            checks.Error(
                f"FORWARDED_ALLOW_IPS is not a list of addresses: {exc}.",
                hint="Comma-separated addresses or CIDR ranges of the proxy in front (docs/deploy.md), or `*`.",
                id="payments.E006",
            )
        ]
    return []
