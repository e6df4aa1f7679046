"""Operational endpoints: liveness and readiness."""

import logging

from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from payments.errors import error_response

logger = logging.getLogger("payments.health")


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up; touches nothing else, so a slow database never restarts healthy workers."""
    return JsonResponse({"status": "ok"})


def _database_ok() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone() == (1,)


def _cache_ok(alias: str) -> bool:
    cache = caches[alias]
    cache.set("readyz", "1", timeout=5)
    return cache.get("readyz") == "1"


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Database and caches answer; otherwise a 503 envelope naming what failed."""
    checks = {
        "database": _database_ok,
        "cache": lambda: _cache_ok("default"),
        "ratelimit_cache": lambda: _cache_ok("ratelimit"),
    }
    failing = []
    for name, check in checks.items():
        try:
            if not check():
                failing.append(name)
        except Exception:  # any failure of a dependency means not ready
            logger.warning("Readiness check failed: %s", name, exc_info=True)
            failing.append(name)
    if failing:
        return error_response(503, f"Not ready: {', '.join(failing)} unavailable.")
    return JsonResponse({"status": "ok", "checks": dict.fromkeys(checks, "ok")})
