"""System checks for settings that are valid Django but wrong for a payments deployment."""

from collections.abc import Sequence

from django.apps import AppConfig
from django.conf import settings
from django.core import checks

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
