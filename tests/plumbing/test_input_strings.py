"""Strings no column can store, keys given twice, date-times outside what a date-time can hold: each a 400 naming
where it is, on every body and every query string, never a 500 (PostgreSQL refuses a NUL in `text` and `jsonb`).

Run on SQLite and on PostgreSQL (`DATABASE_URL`): the `postgres` tests reach the database that refuses NULs.
"""

import io
import json

import pytest
from django.core.management import call_command

from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from payments.rest.models import IdempotencyRecord
from payments.tests.assertions import assert_error
from transactions.api.filters import TransactionFilter
from transactions.models import Transaction
from transactions.tests.conftest import CARD
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

NUL = "\x00"


@pytest.fixture
def client(api_client, merchant_account):
    # Every list: each date-time filter of the API document is tried (below).
    return api_client(scopes=["*.read", "transactions.write", "checkout-sessions.write"])


def _schema() -> dict:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())


# --- NUL in a query string ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*sorted(TransactionFilter.base_filters), "limit", "cursor"])
def test_a_nul_in_any_transactions_filter_is_a_400_naming_it(client, name):
    response = client.get("/transactions", {name: f"a{NUL}b"})

    body = assert_error(response, 400, f"/{name}", location="query")
    assert body["details"][0]["type"] == "null_character"


@pytest.mark.postgres
@pytest.mark.parametrize(
    "query",
    [
        {"metadata": json.dumps({"k": f"v{NUL}"})},
        {"metadata": json.dumps({f"k{NUL}": "v"})},
        {"payment_method_fingerprint": NUL},
        {"buyer_search": NUL},
        {"method": NUL},
        {"payment_method_scheme": NUL},
        {"search": NUL},
    ],
    ids=["metadata-value", "metadata-key", "fingerprint", "buyer-search", "method", "scheme", "search"],
)
def test_a_nul_in_a_filter_never_reaches_postgresql(client, query):
    (name,) = query

    assert_error(client.get("/transactions", query), 400, f"/{name}", location="query")


def test_a_nul_in_a_parameter_name_is_named(client):
    response = client.get(f"/transactions?me{NUL}thod=card")

    assert_error(response, 400, f"/me{NUL}thod", location="query")


def test_a_nul_in_the_query_of_any_path_is_a_400_before_the_view(anonymous_client, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account)

    # Secure Fields takes no token, and reads no query: the NUL is still named, not ignored.
    response = anonymous_client.get(f"/checkout/sessions/{session.id}/fields?x=%00")

    assert_error(response, 400, "/x", location="query")


# --- NUL in a body -------------------------------------------------------------------------------------------


def _transaction_body(**fields):
    return {"amount": 1299, "currency": "USD", "payment_method": CARD, **fields}


def _writes() -> tuple[int, ...]:
    return Transaction.objects.count(), CheckoutSession.objects.count(), IdempotencyRecord.objects.count()


BODIES = [
    ("post", "transactions", {"metadata": {"k": f"v{NUL}"}}, "/metadata/k"),
    ("post", "transactions", {"metadata": {f"k{NUL}": "v"}}, f"/metadata/k{NUL}"),
    ("post", "transactions", {"external_identifier": f"a{NUL}"}, "/external_identifier"),
    ("put", "transaction", {"metadata": {"k": f"v{NUL}"}}, "/metadata/k"),
    ("put", "transaction", {"metadata": {f"k{NUL}": "v"}}, f"/metadata/k{NUL}"),
    ("post", "sessions", {"metadata": {"k": f"v{NUL}"}}, "/metadata/k"),
    ("post", "sessions", {"metadata": {f"k{NUL}": "v"}}, f"/metadata/k{NUL}"),
    ("put", "session", {"metadata": {"k": f"v{NUL}"}}, "/metadata/k"),
    ("put", "session", {"metadata": {f"k{NUL}": "v"}}, f"/metadata/k{NUL}"),
    ("put", "session", {"cart_items": [{"name": f"x{NUL}"}]}, "/cart_items/0/name"),
    ("post", "sessions", {"a/b~c": {"d": NUL}}, "/a~1b~0c/d"),
]


def _url(kind: str, merchant_account) -> tuple[str, dict]:
    if kind == "transactions":
        return "/transactions", {}
    if kind == "transaction":
        return f"/transactions/{TransactionFactory(merchant_account=merchant_account).id}", {}
    if kind == "sessions":
        return "/checkout/sessions", {}
    return f"/checkout/sessions/{CheckoutSessionFactory(merchant_account=merchant_account).id}", {}


@pytest.mark.parametrize("database", [pytest.param("any"), pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize(
    ("method", "kind", "fields", "pointer"), BODIES, ids=[f"{m} {k} {p!r}" for m, k, _, p in BODIES]
)
def test_a_nul_anywhere_in_a_body_is_a_400_naming_it(client, merchant_account, method, kind, fields, pointer, database):
    url, _ = _url(kind, merchant_account)
    payload = _transaction_body(**fields) if kind == "transactions" else fields
    before = _writes()

    response = getattr(client, method)(url, json.dumps(payload), content_type="application/json")

    body = assert_error(response, 400, pointer, location="body")
    assert [d["type"] for d in body["details"]] == ["null_character"]
    assert _writes() == before


def test_a_nul_with_an_idempotency_key_stores_nothing(client):
    payload = _transaction_body(metadata={"k": NUL})

    response = client.post(
        "/transactions", json.dumps(payload), content_type="application/json", HTTP_IDEMPOTENCY_KEY="nul-1"
    )

    assert_error(response, 400, "/metadata/k")
    assert not IdempotencyRecord.objects.exists()


def test_a_raw_nul_byte_in_a_body_is_a_parse_error(client):
    # Strict JSON refuses control characters inside strings; only the `\u0000` escape reaches the walk above.
    response = client.post("/checkout/sessions", b'{"metadata": {"k": "a\x00b"}}', content_type="application/json")

    assert_error(response, 400, "/", location="body")
    assert not CheckoutSession.objects.exists()


# --- keys given twice ------------------------------------------------------------------------------------------

DUPLICATES = [
    ('{"amount": 1, "amount": 1299}', "/amount"),
    ('{"metadata": {"k": "a", "k": "b"}}', "/metadata/k"),
    ('{"cart_items": [{"name": "a", "quantity": 1, "unit_amount": 1, "name": "b"}]}', "/cart_items/0/name"),
    ('{"metadata": {"a/b": "1", "a/b": "2"}}', "/metadata/a~1b"),
]


@pytest.mark.parametrize(("text", "pointer"), DUPLICATES, ids=["top", "nested", "in-a-list", "escaped"])
def test_a_key_given_twice_is_a_400_naming_it(client, text, pointer):
    before = _writes()

    response = client.post("/checkout/sessions", text, content_type="application/json")

    body = assert_error(response, 400, pointer, location="body")
    assert [d["type"] for d in body["details"]] == ["duplicate_key"]
    assert _writes() == before


def test_a_key_given_twice_on_a_payment_stores_nothing(client):
    text = json.dumps(_transaction_body())[:-1] + ', "amount": 1}'

    response = client.post("/transactions", text, content_type="application/json", HTTP_IDEMPOTENCY_KEY="dup-1")

    assert_error(response, 400, "/amount", location="body")
    assert _writes() == (0, 0, 0)


def test_the_same_key_in_different_objects_is_fine(client):
    text = '{"metadata": {"name": "x"}, "cart_items": [{"name": "a", "quantity": 1, "unit_amount": 1}]}'

    response = client.post("/checkout/sessions", text, content_type="application/json")

    assert response.status_code == 201, response.content
    assert response.json()["metadata"] == {"name": "x"}


# --- date-times no datetime can hold -----------------------------------------------------------------------

OUT_OF_RANGE = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "0001-01-01T00:59:59.999999+01:00"]


def _date_time_filters() -> list[tuple[str, str]]:
    """(path, parameter) of every date-time query parameter the app's own API document shows."""
    return sorted(
        (path, parameter["name"])
        for path, operations in _schema()["paths"].items()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query" and parameter.get("schema", {}).get("format") == "date-time"
    )


DATE_TIME_FILTERS = _date_time_filters()


def test_there_are_date_time_filters_to_check():
    assert ("/transactions", "created_at_gte") in DATE_TIME_FILTERS


@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize(("path", "name"), DATE_TIME_FILTERS, ids=[f"{p} {n}" for p, n in DATE_TIME_FILTERS])
def test_a_date_time_outside_what_utc_can_hold_is_a_400_naming_it(client, path, name, value):
    response = client.get(path, {name: value})

    body = assert_error(response, 400, f"/{name}", location="query")
    assert "between" in body["details"][0]["message"]


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00Z", "0001-01-01T01:00:00+01:00", "9999-12-31T23:59:59Z"])
def test_the_edges_utc_can_hold_filter(client, merchant_account, value):
    TransactionFactory(merchant_account=merchant_account)

    response = client.get("/transactions", {"created_at_gte": value})

    assert response.status_code == 200, response.content


@pytest.mark.parametrize("database", [pytest.param("any"), pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("where", ["value", "key"])
def test_a_lone_surrogate_in_a_body_is_a_400_naming_it(client, merchant_account, where, database):
    """`\\ud800` with no partner decodes to half a character: no column or log line can hold it (a fuzzer's 500)."""
    metadata = '{"k": "a\\ud800b"}' if where == "value" else '{"a\\udc00": "v"}'
    payload = json.dumps(_transaction_body())[:-1] + f', "metadata": {metadata}}}'
    before = _writes()

    response = client.post("/transactions", payload, content_type="application/json")

    body = assert_error(response, 400, "/metadata/k" if where == "value" else "/metadata/a\\udc00", location="body")
    assert [d["type"] for d in body["details"]] == ["lone_surrogate"]
    assert _writes() == before
