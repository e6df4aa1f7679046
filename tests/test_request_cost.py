"""What a request costs once its token is warm: one query for a list page, no signature check, no work
repeated that could be done once."""

import datetime
import uuid

import pytest
from django.db.models.sql.query import Query
from rest_framework.fields import Field
from rest_framework_simplejwt.backends import TokenBackend

from buyers.tests.factories import BuyerFactory
from payments.ratelimits import counters
from payments.rest import authentication
from payments.rest.filters import QueryFilterBackend
from transactions.tests.test_create_cost import ROUTING_READ

pytestmark = pytest.mark.django_db


@pytest.fixture
def signature_checks(monkeypatch) -> list[str]:
    """Every JWT signature verification made during the test."""
    checks: list[str] = []
    decode = TokenBackend.decode

    def counting_decode(self, token, verify=True):
        checks.append(token)
        return decode(self, token, verify)

    monkeypatch.setattr(TokenBackend, "decode", counting_decode)
    return checks


@pytest.fixture
def warm_client(api_client, merchant_account):
    """A client whose token, key and merchant account are already cached by an earlier request."""
    BuyerFactory.create_batch(25, merchant_account=merchant_account)
    client = api_client(scopes=["buyers.read"])
    assert client.get("/buyers").status_code == 200
    return client


def test_a_list_page_with_a_warm_token_is_one_query(warm_client, django_assert_num_queries):
    with django_assert_num_queries(1):
        first = warm_client.get("/buyers", {"limit": 20})
    with django_assert_num_queries(1):
        second = warm_client.get("/buyers", {"limit": 20, "cursor": first.json()["next_cursor"]})

    assert first.status_code == second.status_code == 200
    assert len(first.json()["items"]) == 20
    assert len(second.json()["items"]) == 5


def test_a_detail_read_with_a_warm_token_is_one_query(warm_client, merchant_account, django_assert_num_queries):
    buyer = BuyerFactory(merchant_account=merchant_account)

    with django_assert_num_queries(1):
        response = warm_client.get(f"/buyers/{buyer.id}")

    assert response.status_code == 200


def test_a_token_is_verified_once_however_often_it_is_used(api_client, merchant_account, signature_checks):
    client = api_client(scopes=["buyers.read"])

    responses = [client.get("/buyers") for _ in range(5)]

    assert [r.status_code for r in responses] == [200] * 5
    assert len(signature_checks) == 1


def test_each_distinct_token_is_verified(api_client, merchant_account, signature_checks):
    for _ in range(3):
        assert api_client(scopes=["buyers.read"]).get("/buyers").status_code == 200

    assert len(signature_checks) == 3


def test_the_verified_token_cache_is_bounded(api_client, merchant_account, settings, signature_checks):
    settings.VERIFIED_TOKEN_CACHE_SIZE = 2
    clients = [api_client(scopes=["buyers.read"]) for _ in range(3)]

    for client in [*clients, clients[0]]:  # the first token was evicted by the third
        assert client.get("/buyers").status_code == 200

    assert len(signature_checks) == 4
    assert len(authentication.verified_tokens._entries) == 2


def test_an_expired_token_is_not_served_from_the_cache(api_client, merchant_account, monkeypatch):
    client = api_client(scopes=["buyers.read"])
    assert client.get("/buyers").status_code == 200
    [(expires_at, _)] = authentication.verified_tokens._entries.values()
    later = expires_at + 3600  # well past the expiry and any leeway

    monkeypatch.setattr(authentication.time, "time", lambda: later)
    monkeypatch.setattr("jwt.api_jwt.datetime", _FrozenDatetime.at(later))

    response = client.get("/buyers")

    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


class _FrozenDatetime:
    """Stands in for `datetime` inside PyJWT so its expiry check sees the same clock as the cache."""

    @staticmethod
    def at(timestamp: float) -> type[datetime.datetime]:
        class Frozen(datetime.datetime):
            @classmethod
            def now(cls, tz=None):
                return datetime.datetime.fromtimestamp(timestamp, tz=tz)

        return Frozen


def test_a_list_without_filters_builds_no_filterset(warm_client, monkeypatch):
    built = []
    original = QueryFilterBackend.get_filterset
    monkeypatch.setattr(QueryFilterBackend, "get_filterset", lambda *a: built.append(1) or original(*a))

    unfiltered = warm_client.get("/buyers", {"limit": 5})
    filtered = warm_client.get("/buyers", {"limit": 5, "external_identifier": "nobody"})

    assert unfiltered.status_code == filtered.status_code == 200
    assert len(unfiltered.json()["items"]) == 5
    assert filtered.json()["items"] == []
    assert len(built) == 1


@pytest.fixture
def cache_calls(monkeypatch) -> list[str]:
    """Every call the rate limiter makes to its cache (each one a round trip to Redis in production)."""
    from django.core.cache import caches

    calls: list[str] = []
    cache = caches["ratelimit"]
    for name in ("add", "incr", "get"):
        original = getattr(cache, name)
        monkeypatch.setattr(cache, name, lambda *a, _n=name, _f=original, **k: calls.append(_n) or _f(*a, **k))
    return calls


def test_a_rate_limit_count_is_one_cache_round_trip_once_its_window_started(cache_calls):
    subject = uuid.uuid4().hex  # a counter no earlier run left in a shared Redis
    first = counters.count(group="cost", subject=subject, rate="100/m")
    started = len(cache_calls)
    second = counters.count(group="cost", subject=subject, rate="100/m")
    read = counters.count(group="cost", subject=subject, rate="100/m", increment=False)

    assert (first.count, second.count, read.count) == (1, 2, 2)
    assert cache_calls[:started] == ["incr", "add"]  # the window's first request creates the counter
    assert cache_calls[started:] == ["incr", "get"]


# A card authorization as the SDK sends it; 4111... is approved by the sandbox.
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}
CREATE = {"amount": 1299, "currency": "USD", "payment_method": CARD}
# Statements of a warm create inside the test's own transaction, where each of the create's transactions is a
# savepoint (SAVEPOINT and RELEASE counted); transactions/tests/test_create_cost.py counts them as a server sends
# them, with real transactions: 14 (the card's BIN read by the warm-up, docs/card-details.md), one fewer where the
# process holds the account's routable services (`ROUTING_READ` there).
CREATE_QUERIES = 17 + ROUTING_READ


@pytest.fixture
def warm_creator(api_client, merchant_account):
    """A client whose token, key, account and every serializer class of a create are warm."""
    client = api_client(scopes=["transactions.write", "transactions.read"])
    response = client.post("/transactions", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="warm-up")
    assert response.status_code == 201, response.content
    return client


def test_a_warm_create_costs_a_fixed_number_of_queries_and_no_signature_check(
    warm_creator, django_assert_num_queries, signature_checks
):
    with django_assert_num_queries(CREATE_QUERIES):
        response = warm_creator.post("/transactions", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="order-1")

    assert response.status_code == 201
    assert response.json()["status"] == "authorization_succeeded"
    assert signature_checks == []


def test_a_warm_create_builds_no_serializer_field(warm_creator, monkeypatch):
    """Input and output serializers build their fields once per class (payments/rest/fields.py, outputs.py): DRF
    would deep-copy every declared field of every nested serializer on every request."""
    rebuilt: list[str] = []
    deepcopy = Field.__deepcopy__
    monkeypatch.setattr(
        Field, "__deepcopy__", lambda self, memo: rebuilt.append(type(self).__name__) or deepcopy(self, memo)
    )

    response = warm_creator.post("/transactions", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="order-2")
    replayed = warm_creator.get(f"/transactions/{response.json()['id']}")

    assert (response.status_code, replayed.status_code) == (201, 200)
    assert rebuilt == []


def test_a_warm_digital_wallets_list_is_two_queries_whatever_their_number(
    api_client, merchant_account, django_assert_num_queries
):
    from digitalwallets.tests.factories import register

    client = api_client(scopes=["digital-wallets.read"])
    register(merchant_account)
    assert client.get("/digital-wallets").status_code == 200
    register(merchant_account, provider="google")

    with django_assert_num_queries(2):  # the wallets, then every wallet's key pairs at once
        response = client.get("/digital-wallets")

    assert len(response.json()["items"]) == 2


def test_a_warm_list_page_builds_no_lookup(warm_client, monkeypatch):
    """The account's scope is built once per model and account (payments/accounts/scope.py), not per request."""
    built = []
    original = Query.build_filter
    monkeypatch.setattr(Query, "build_filter", lambda *a, **k: built.append(1) or original(*a, **k))

    response = warm_client.get("/buyers", {"limit": 5})

    assert response.status_code == 200
    assert len(response.json()["items"]) == 5
    assert built == []
