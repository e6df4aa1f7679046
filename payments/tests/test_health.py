"""Liveness and readiness endpoints."""

import threading

import pytest
from django.db import connection, connections

from payments.ops import health
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

DEAD_REDIS = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1: the connection is refused at once
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5},
}
LOCMEM = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}


def _assert_not_ready(response, dependency: str) -> None:
    assert response.status_code == 503
    body = response.json()
    assert body["type"] == "error"
    assert body["code"] == "service_unavailable"
    assert body["status"] == 503
    assert dependency in body["message"]


def test_healthz_answers_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_reports_each_dependency(client):
    response = client.get("/readyz")

    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "ratelimit_cache": "ok", "vault": "ok"},
    }


@pytest.mark.parametrize("alias", ["default", "ratelimit"])
def test_readyz_names_a_cache_that_refuses_connections(client, settings, alias):
    settings.CACHES = {"default": LOCMEM, "ratelimit": LOCMEM, alias: DEAD_REDIS}

    response = client.get("/readyz")

    _assert_not_ready(response, "cache" if alias == "default" else "ratelimit_cache")
    assert "database" not in response.json()["message"]


def test_readyz_names_a_database_that_cannot_be_reached(client, monkeypatch):
    # The probe opens a connection of its own, so pointing the settings at nowhere makes it fail to connect.
    db_settings = connections.settings["default"]
    if connection.vendor == "sqlite":
        monkeypatch.setitem(db_settings, "NAME", "/nonexistent-directory/readyz.sqlite3")
    else:
        monkeypatch.setitem(db_settings, "HOST", "127.0.0.1")
        monkeypatch.setitem(db_settings, "PORT", "1")

    response = client.get("/readyz")

    _assert_not_ready(response, "database")
    assert "cache" not in response.json()["message"]


def test_readyz_does_not_wait_for_a_dependency_that_hangs(client, settings, monkeypatch):
    settings.READYZ_TIMEOUT_SECONDS = 0.05
    release = threading.Event()
    checks = health.default_checks(settings.READYZ_TIMEOUT_SECONDS)
    checks["cache"] = release.wait  # blocks until released: the answer must not wait for it
    monkeypatch.setattr("payments.ops.views.default_checks", lambda timeout: checks)
    try:
        response = client.get("/readyz")
    finally:
        release.set()

    _assert_not_ready(response, "cache")
    assert "database" not in response.json()["message"]


def test_readyz_envelope_for_wrong_method(client):
    response = client.post("/readyz")

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/buyers"])
def test_a_host_not_allowed_is_refused_by_name(client, settings, debug, path):
    """A probe at an address DJANGO_ALLOWED_HOSTS leaves out reads why, not only that the request was bad."""
    settings.DEBUG = debug
    settings.ALLOWED_HOSTS = ["payments.example.com"]

    response = client.get(path, HTTP_HOST="10.0.0.7:8000")

    body = assert_error(response, 400)
    reason = "Host '10.0.0.7:8000' is not in DJANGO_ALLOWED_HOSTS"
    assert body["message"] == f"Request failed validation: {reason}"  # upstream's words first, as every 400
    assert body["details"] == [{"location": "header", "pointer": "/host", "message": reason, "type": "disallowed_host"}]
