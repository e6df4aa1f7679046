"""Operational endpoints: liveness and readiness."""

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

from payments.ops.health import default_checks, failing_dependencies
from payments.rest.envelope import error_response


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up; touches nothing else, so a slow database never restarts healthy workers."""
    return JsonResponse({"status": "ok"})


@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """Database and caches answer and the vault seals within READYZ_TIMEOUT_SECONDS; else a 503 naming what failed."""
    timeout = settings.READYZ_TIMEOUT_SECONDS
    checks = default_checks(timeout)
    failing = failing_dependencies(checks, timeout)
    if failing:
        return error_response(503, f"Not ready: {', '.join(failing)} unavailable.")
    return JsonResponse({"status": "ok", "checks": dict.fromkeys(checks, "ok")})
