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
