"""Enumeration limits in one process: who is counted, the 429 and its headers, fail modes, the record.

These run on both configurations (locmem and Redis); each test counts under its own cache key prefix,
so budgets never leak between tests or between parallel runs sharing a Redis database. The tests with
several gunicorn processes are in tests/test_rate_limits_concurrency.py.
"""

import logging
import time
import uuid

import pytest
from django.core.management import call_command
from django.test import override_settings

from payments.accounts.models import MerchantAccount
from payments.ops.checks import ratelimit_cache_is_shared
from payments.ratelimits.counters import outage, parse_rate
from payments.ratelimits.models import RateLimitEvent
from payments.tests.throttling_urls import WRITTEN_PREFIX

pytestmark = [pytest.mark.django_db, pytest.mark.urls("payments.tests.throttling_urls")]

LIMIT = 3
# Day-long windows: a window edge falls inside a test's few milliseconds about once in ten million runs.
RATE = f"{LIMIT}/d"
DEAD_REDIS = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
}
NOTE = {"display_name": "Ada"}


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.RATELIMIT_CACHE_PREFIX = f"rl-test-{uuid.uuid4().hex}:"
    settings.RATELIMIT_EMBED = RATE
    settings.RATELIMIT_CHECKOUT_FIELDS = RATE
    settings.RATELIMIT_GIFTCARD_PIN_FAILURES = RATE
    settings.RATELIMIT_FAIL_OPEN = False
    yield
    outage.answered()  # a test that broke the cache must not leave the next one "in an outage"


@pytest.fixture
def embed_client(api_client, merchant_account):
    return lambda: api_client(scopes=["embed"])


@pytest.fixture
def server_client(api_client, merchant_account):
    return lambda: api_client(scopes=["notes.write"])


@pytest.fixture
def dead_cache(settings):
    settings.CACHES = {**settings.CACHES, "ratelimit": DEAD_REDIS}


def _fields_url(session_id: str) -> str:
    return f"/limited/sessions/{session_id}/fields"


def _assert_rate_headers(response, *, remaining: int) -> None:
    assert response["RateLimit-Limit"] == str(LIMIT)
    assert response["RateLimit-Remaining"] == str(remaining)
    assert 1 <= int(response["RateLimit-Reset"]) <= 86_400


def _assert_too_many(response, *, names: str) -> None:
    assert response.status_code == 429
    body = response.json()
    assert (body["type"], body["code"], body["status"]) == ("error", "too_many_requests", 429)
    assert names in body["message"]
    assert response["Retry-After"] == response["RateLimit-Reset"]
    _assert_rate_headers(response, remaining=0)


# --- embed tokens ---------------------------------------------------------------------------------------


def test_an_embed_token_gets_its_budget_then_429_with_headers_and_nothing_written(embed_client):
    client = embed_client()

    admitted = [client.post("/limited/notes", NOTE, format="json") for _ in range(LIMIT)]
    refused = [client.post("/limited/notes", NOTE, format="json") for _ in range(3)]

    for index, response in enumerate(admitted):
        assert response.status_code == 201
        _assert_rate_headers(response, remaining=LIMIT - index - 1)
    for response in refused:
        _assert_too_many(response, names="embed token on POST /limited/notes")
    assert _written() == LIMIT


def test_requests_refused_for_bad_input_use_the_budget_too(embed_client):
    client = embed_client()

    statuses = [client.post("/limited/notes", {"display_name": 5}, format="json").status_code for _ in range(LIMIT)]

    assert statuses == [400] * LIMIT
    assert client.post("/limited/notes", NOTE, format="json").status_code == 429
    assert _written() == 0


def test_the_first_refusal_in_a_window_is_recorded_once(embed_client):
    client = embed_client()
    token_id = _token_id(client)
    for _ in range(LIMIT + 4):
        client.post("/limited/notes", NOTE, format="json")

    event = RateLimitEvent.objects.get()
    assert (event.subject_kind, event.subject_label) == ("embed_token", token_id)
    assert event.merchant_account_id == "default"
    assert event.endpoint == "POST /limited/notes"
    assert event.rate == RATE
    assert (event.window_end - event.window_start).total_seconds() == 86_400


def test_two_embed_tokens_have_independent_budgets(embed_client):
    first, second = embed_client(), embed_client()
    for _ in range(LIMIT):
        assert first.post("/limited/notes", NOTE, format="json").status_code == 201

    assert first.post("/limited/notes", NOTE, format="json").status_code == 429
    assert second.post("/limited/notes", NOTE, format="json").status_code == 201


def test_each_endpoint_has_its_own_budget_for_the_same_token(embed_client):
    client = embed_client()
    for _ in range(LIMIT):
        client.post("/limited/notes", NOTE, format="json")

    assert client.post("/limited/notes", NOTE, format="json").status_code == 429
    response = client.post("/limited/other-notes", NOTE, format="json")
    assert response.status_code == 201
    _assert_rate_headers(response, remaining=LIMIT - 1)


def test_tokens_without_a_jti_are_limited_by_a_hash_of_the_token(api_client, merchant_account, private_key_pem):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {_token_without_jti(private_key_pem)}")
    statuses = [client.post("/limited/notes", NOTE, format="json").status_code for _ in range(LIMIT + 1)]

    assert statuses == [201] * LIMIT + [429]
    assert len(RateLimitEvent.objects.get().subject_label) == 64


def test_a_server_token_is_never_limited(server_client):
    client = server_client()

    responses = [client.post("/limited/notes", NOTE, format="json") for _ in range(10 * LIMIT)]

    assert {response.status_code for response in responses} == {201}
    assert not any(response.has_header("RateLimit-Limit") for response in responses)
    assert not RateLimitEvent.objects.exists()


def test_an_embed_token_on_an_unlimited_endpoint_is_not_limited(api_client, merchant_account):
    client = api_client(scopes=["embed", "notes.write"])

    statuses = {client.post("/unlimited/notes", NOTE, format="json").status_code for _ in range(10 * LIMIT)}

    assert statuses == {201}


def test_requests_refused_before_the_throttle_use_no_budget(api_client, merchant_account):
    client = api_client(scopes=["embed"], merchant_account_id="nope")

    statuses = {client.post("/limited/notes", NOTE, format="json").status_code for _ in range(LIMIT + 1)}

    assert statuses == {403}


# --- a URL parameter (sessions) ------------------------------------------------------------------------------------


def test_a_session_gets_its_budget_whatever_token_or_none_is_sent(anonymous_client, api_client, merchant_account):
    session_id = "6b1d0f3e-2a9c-4c7e-8f5a-b4c3d2e1f0a9"  # fixed: a last group of 12 digits would be masked as a card
    embed = api_client(scopes=["embed"])
    pinned = api_client(scopes=["embed"], checkout_session_id=session_id)

    admitted = [
        anonymous_client.put(_fields_url(session_id), {}, format="json"),
        embed.post(_fields_url(session_id), {}, format="json"),
        pinned.put(_fields_url(session_id), {}, format="json"),
    ]
    refused = anonymous_client.post(_fields_url(session_id), {}, format="json")

    assert [response.status_code for response in admitted] == [204] * LIMIT
    _assert_rate_headers(admitted[-1], remaining=0)
    _assert_too_many(refused, names="session on PUT/POST /limited/sessions/{session_id}/fields")
    event = RateLimitEvent.objects.get()
    assert (event.subject_kind, event.subject_label) == ("session", session_id)


def test_a_view_without_an_account_names_it_for_the_record(anonymous_client, merchant_account):
    # Fixed ids: a random UUID whose last group is 12 digits would be masked as a card number in the record.
    known, unknown = "known-8e2f4c1a-5b7d-4e9f-a3c6-d1e2f3a4b5c6", "3c9a7e51-0d4b-4f8a-b2e6-f7a8b9c0d1e2"
    for session_id in (known, unknown):
        for _ in range(LIMIT + 1):
            anonymous_client.put(_fields_url(session_id), {}, format="json")

    recorded = dict(RateLimitEvent.objects.values_list("subject_label", "merchant_account_id"))
    assert recorded == {known: "default", unknown: None}


def test_two_sessions_have_independent_budgets(anonymous_client):
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    for _ in range(LIMIT):
        anonymous_client.put(_fields_url(first), {}, format="json")

    assert anonymous_client.put(_fields_url(first), {}, format="json").status_code == 429
    assert anonymous_client.put(_fields_url(second), {}, format="json").status_code == 204


def test_a_server_token_on_a_url_credential_endpoint_is_not_limited(api_client, merchant_account):
    client = api_client(scopes=["notes.write"])
    session_id = str(uuid.uuid4())

    responses = [client.put(_fields_url(session_id), {}, format="json") for _ in range(10 * LIMIT)]

    assert {response.status_code for response in responses} == {204}
    assert not responses[-1].has_header("RateLimit-Limit")


def test_an_invalid_bearer_token_on_a_url_credential_endpoint_counts_as_none(anonymous_client):
    session_id = str(uuid.uuid4())
    anonymous_client.credentials(HTTP_AUTHORIZATION="Bearer not-a-token")

    statuses = [anonymous_client.put(_fields_url(session_id), {}, format="json").status_code for _ in range(LIMIT + 1)]

    assert statuses == [204] * LIMIT + [429]


# --- windows -------------------------------------------------------------------------------------------


def test_the_budget_comes_back_when_the_window_ends(settings, embed_client):
    settings.RATELIMIT_EMBED = f"{LIMIT}/2s"
    client = embed_client()
    # Start at a window edge so the whole budget is spent inside one window, whatever the jitter.
    time.sleep(int(client.post("/limited/notes", NOTE, format="json")["RateLimit-Reset"]))

    spent = [client.post("/limited/notes", NOTE, format="json") for _ in range(LIMIT + 1)]
    time.sleep(int(spent[-1]["Retry-After"]))
    after = client.post("/limited/notes", NOTE, format="json")

    assert [response.status_code for response in spent] == [201] * LIMIT + [429]
    assert after.status_code == 201
    assert after["RateLimit-Remaining"] == str(LIMIT - 1)


@pytest.mark.parametrize(
    ("rate", "expected"),
    [("50/m", (50, 60)), ("20/10s", (20, 10)), ("5/h", (5, 3600)), ("1/2d", (1, 172_800)), ("7/s", (7, 1))],
    ids=["per-minute", "ten-seconds", "per-hour", "two-days", "per-second"],
)
def test_rates_use_the_django_ratelimit_syntax(rate, expected):
    assert parse_rate(rate) == expected


@pytest.mark.parametrize("rate", ["", "50", "50/", "0/m", "50/x", "-1/m", "50/m/s", "50 / m"])
def test_malformed_rates_are_refused(rate):
    with pytest.raises(ValueError, match="Not a rate"):
        parse_rate(rate)


# --- the cache unreachable ------------------------------------------------------------------------------


def test_failing_closed_refuses_limited_requests_with_503_and_writes_nothing(
    dead_cache, embed_client, server_client, anonymous_client
):
    response = embed_client().post("/limited/notes", NOTE, format="json")
    fields = anonymous_client.put(_fields_url(str(uuid.uuid4())), {}, format="json")
    server = server_client().post("/limited/notes", NOTE, format="json")

    for refused in (response, fields):
        assert refused.status_code == 503
        body = refused.json()
        assert (body["code"], body["status"]) == ("service_unavailable", 503)
        assert "Rate limiting is temporarily unavailable" in body["message"]
        assert not refused.has_header("RateLimit-Limit")
    assert server.status_code == 201
    assert _written() == 1  # the server's
    assert not RateLimitEvent.objects.exists()


def test_failing_open_admits_limited_requests_uncounted(settings, dead_cache, embed_client, server_client):
    settings.RATELIMIT_FAIL_OPEN = True
    client = embed_client()

    responses = [client.post("/limited/notes", NOTE, format="json") for _ in range(LIMIT + 2)]
    server = server_client().post("/limited/notes", NOTE, format="json")

    assert {response.status_code for response in responses} == {201}
    assert not any(response.has_header("RateLimit-Limit") for response in responses)
    assert server.status_code == 201


def test_an_outage_is_logged_once_and_so_is_the_recovery(settings, caplog, embed_client):
    client = embed_client()
    working = settings.CACHES
    caplog.set_level(logging.WARNING, logger="payments.ratelimits")

    settings.CACHES = {**working, "ratelimit": DEAD_REDIS}
    for _ in range(4):
        client.post("/limited/notes", NOTE, format="json")
    settings.CACHES = working
    for _ in range(2):
        client.post("/limited/notes", NOTE, format="json")
    settings.CACHES = {**working, "ratelimit": DEAD_REDIS}
    client.post("/limited/notes", NOTE, format="json")

    messages = [record.getMessage() for record in caplog.records if record.name == "payments.ratelimits"]
    assert len(messages) == 3
    assert "unreachable" in messages[0]
    assert "refused with 503" in messages[0]
    assert "answers again" in messages[1]
    assert "unreachable" in messages[2]


# --- deployment and admin ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("backend", "warned"),
    [("django.core.cache.backends.locmem.LocMemCache", True), ("django_redis.cache.RedisCache", False)],
    ids=["in-process", "redis"],
)
def test_check_deploy_warns_when_limits_are_counted_per_process(backend, warned):
    caches = {"default": {"BACKEND": backend}, "ratelimit": {"BACKEND": backend}}
    with override_settings(CACHES=caches):
        messages = ratelimit_cache_is_shared(None)

    assert [message.id for message in messages] == (["payments.W001"] if warned else [])


def test_the_deploy_check_is_registered(capsys):
    locmem = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    with override_settings(CACHES={"default": locmem, "ratelimit": locmem}):
        call_command("check", "--deploy", "--tag", "caches")

    assert "payments.W001" in capsys.readouterr().err


def test_support_sees_a_read_only_list_filterable_by_account_and_date(admin_client, embed_client):
    client = embed_client()
    for _ in range(LIMIT + 1):
        client.post("/limited/notes", NOTE, format="json")

    listing = admin_client.get("/admin/payments/ratelimitevent/", {"merchant_account__id__exact": "default"})
    dated = admin_client.get("/admin/payments/ratelimitevent/", {"created_at__gte": "2000-01-01T00:00:00+00:00"})
    event = RateLimitEvent.objects.get()
    detail = admin_client.get(f"/admin/payments/ratelimitevent/{event.pk}/change/")
    add = admin_client.get("/admin/payments/ratelimitevent/add/")

    assert listing.status_code == dated.status_code == detail.status_code == 200
    assert _token_id(client) in listing.content.decode()
    assert event.subject_key not in detail.content.decode()
    assert b"Save" not in detail.content
    assert add.status_code == 403


def _written() -> int:
    return MerchantAccount.objects.filter(id__startswith=WRITTEN_PREFIX).count()


def _token_id(client) -> str:
    import jwt

    token = client._credentials["HTTP_AUTHORIZATION"].split()[1]
    return jwt.decode(token, options={"verify_signature": False})["jti"]


def _token_without_jti(private_key_pem: str) -> str:
    from datetime import UTC, datetime, timedelta

    import jwt

    from payments.accounts.keys import load_private_pem, thumbprint

    key = load_private_pem(private_key_pem)
    now = datetime.now(tz=UTC)
    claims = {"scopes": ["embed"], "iat": now, "nbf": now, "exp": now + timedelta(hours=1)}
    return jwt.encode(claims, key, algorithm="ES512", headers={"kid": thumbprint(key.public_key())})
