"""`/payment-links`: upstream's four operations, in upstream's shapes, scoped to the request's merchant account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from paymentlinks.models import PaymentLink
from paymentlinks.tests.factories import PaymentLinkFactory
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"
MINIMAL = {"amount": 1299, "currency": "USD", "country": "US"}
FULL = {
    **MINIMAL,
    "intent": "capture",
    "external_identifier": "invoice-42",
    "statement_descriptor": {"name": "ACME SHOP", "description": "Invoice 42"},
    "locale": "en-GB",
    "merchant_name": "ACME Inc.",
    "merchant_url": "https://acme.example.com",
    "merchant_banner_url": "https://cdn.acme.example.com/banner.png",
    "merchant_color": "#FF5733",
    "merchant_message": "Thank you for your order!\nSee you soon.",
    "merchant_terms_and_conditions_url": "https://acme.example.com/terms",
    "merchant_favicon_url": "https://cdn.acme.example.com/favicon.ico",
    "return_url": "https://acme.example.com/thanks",
    "cart_items": [
        {"name": "Widget", "quantity": 2, "unit_amount": 500},
        {"name": "Gadget", "quantity": 1, "unit_amount": 299},
    ],
    "metadata": {"order_id": "ORD-12345"},
    "buyer": {
        "display_name": "Ada Lovelace",
        "billing_details": {"email_address": "ada@example.com"},
        "shipping_details": {"first_name": "Ada", "address": {"city": "London", "country": "GB"}},
    },
    "payment_source": "ecommerce",
    "store": False,
}


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["payment-links.read", "payment-links.write"])


def _create(client, body):
    return client.post("/payment-links", body, format="json")


# --- create ----------------------------------------------------------------------------------------------------


def test_create_answers_upstreams_shape(writer, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.com"
    expires_at = (timezone.now() + timedelta(days=7)).isoformat()

    response = _create(writer, {**FULL, "expires_at": expires_at})

    assert response.status_code == 201, response.content
    body = response.json()
    link = PaymentLink.objects.get(pk=body["id"])
    assert body["type"] == "payment-link"
    assert body["url"] == f"https://pay.example.com/l/{link.pk}"
    assert body["status"] == "active"
    assert (body["amount"], body["currency"], body["country"], body["intent"]) == (1299, "USD", "US", "capture")
    assert body["merchant_color"] == "#ff5733"
    assert body["merchant_message"] == FULL["merchant_message"]
    assert body["cart_items"][0]["name"] == "Widget"
    assert body["buyer"]["display_name"] == "Ada Lovelace"
    assert body["buyer"]["type"] == "buyer"
    assert body["shipping_details"]["address"]["city"] == "London"
    assert body["shipping_details"]["type"] == "shipping-details"
    assert body["statement_descriptor"]["name"] == "ACME SHOP"
    assert (body["store"], body["buyer_id"], body["installment_count"]) == (False, None, None)
    assert link.merchant_account_id == "default"


def test_create_with_the_required_fields_only_takes_upstreams_defaults(writer):
    response = _create(writer, MINIMAL)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["intent"], body["payment_source"], body["cart_items"], body["expires_at"]) == (
        "authorize",
        "ecommerce",
        None,
        None,
    )
    # No PUBLIC_BASE_URL: the request's own host.
    assert body["url"] == f"http://testserver/l/{body['id']}"


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"amount": -1}, "/amount"),
        ({"amount": 12.5}, "/amount"),
        ({"amount": None}, "/amount"),
        ({"currency": "usd"}, "/currency"),
        ({"currency": "XTS"}, "/currency"),
        ({"country": "XX"}, "/country"),
        ({"intent": "sell"}, "/intent"),
        ({"payment_source": "moto"}, "/payment_source"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "/expires_at"),
        ({"expires_at": "tomorrow"}, "/expires_at"),
        ({"merchant_color": "red"}, "/merchant_color"),
        ({"merchant_color": "#12345"}, "/merchant_color"),
        ({"merchant_color": "#fff;background:url(x)"}, "/merchant_color"),
        ({"merchant_url": "http://acme.example.com"}, "/merchant_url"),
        ({"merchant_banner_url": "javascript:alert(1)"}, "/merchant_banner_url"),
        ({"merchant_favicon_url": "https://127.0.0.1/favicon.ico"}, "/merchant_favicon_url"),
        (
            {"merchant_terms_and_conditions_url": "https://user:pw@acme.example.com/"},
            "/merchant_terms_and_conditions_url",
        ),
        ({"return_url": "https://localhost/return"}, "/return_url"),
        ({"return_url": "https://acme.example.com/a b"}, "/return_url"),
        ({"merchant_message": "hello\x07"}, "/merchant_message"),
        ({"merchant_message": "x" * 256}, "/merchant_message"),
        ({"merchant_name": ""}, "/merchant_name"),
        ({"locale": "<script>"}, "/locale"),
        ({"cart_items": [{"name": "Widget"}]}, "/cart_items/0/quantity"),
        ({"buyer": {"nickname": "Ada"}}, "/buyer/nickname"),
        ({"buyer_id": "a1b2c3d4-5678-90ab-cdef-1234567890ab"}, "/buyer_id"),
        ({"store": True}, "/store"),
        ({"installment_count": 3}, "/installment_count"),
        ({"surprise": 1}, "/surprise"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(writer, change, pointer):
    response = _create(writer, {**MINIMAL, **change})

    assert_error(response, 400, pointer)
    assert not PaymentLink.objects.exists()


@pytest.mark.parametrize("missing", ["amount", "currency", "country"])
def test_required_fields(writer, missing):
    body = {key: value for key, value in MINIMAL.items() if key != missing}

    assert_error(_create(writer, body), 400, f"/{missing}")


def test_creating_and_expiring_are_in_the_audit_log(writer):
    from payments.audit.models import AuditLogEntry

    link_id = _create(writer, MINIMAL).json()["id"]
    writer.post(f"/payment-links/{link_id}/expire")

    entries = AuditLogEntry.objects.filter(resource_id=link_id).order_by("created_at")
    assert [(entry.resource_type, entry.action) for entry in entries] == [
        ("payment-link", "created"),
        ("payment-link", "updated"),
    ]


def test_a_short_colour_is_spelled_out(writer):
    assert _create(writer, {**MINIMAL, "merchant_color": "#AbC"}).json()["merchant_color"] == "#aabbcc"


# --- get, list -------------------------------------------------------------------------------------------------


def test_get_one(writer):
    link = PaymentLinkFactory()

    response = writer.get(f"/payment-links/{link.pk}")

    assert response.status_code == 200
    assert response.json()["id"] == str(link.pk)


def test_another_accounts_link_is_not_found(writer, other_merchant_account):
    link = PaymentLinkFactory(merchant_account=other_merchant_account)

    assert_error(writer.get(f"/payment-links/{link.pk}"), 404)
    assert_error(writer.post(f"/payment-links/{link.pk}/expire"), 404)
    assert writer.get("/payment-links").json()["items"] == []


def test_missing_link_is_a_404(writer):
    assert_error(writer.get(f"/payment-links/{UNKNOWN_ID}"), 404)


def test_a_link_past_its_deadline_shows_expired(writer):
    link = PaymentLinkFactory(lapsed=True)

    assert writer.get(f"/payment-links/{link.pk}").json()["status"] == "expired"


def test_list_pages_newest_first(writer):
    links = [PaymentLinkFactory() for _ in range(3)]

    first = writer.get("/payment-links", {"limit": 2}).json()
    second = writer.get("/payment-links", {"limit": 2, "cursor": first["next_cursor"]}).json()

    assert [item["id"] for item in first["items"] + second["items"]] == [str(link.pk) for link in reversed(links)]
    assert second["next_cursor"] is None
    assert first["previous_cursor"] is None


def test_list_is_a_fixed_number_of_queries(writer, django_assert_num_queries):
    for _ in range(5):
        PaymentLinkFactory()
    writer.get("/payment-links")  # warm the key and account caches

    with django_assert_num_queries(1):
        assert len(writer.get("/payment-links").json()["items"]) == 5


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"status": "active"}, {"open", "euros"}),
        ({"status": "expired"}, {"expired", "lapsed"}),
        ({"status": ["completed", "processing"]}, {"paid", "paying"}),
        ({"currency": "EUR"}, {"euros"}),
        ({"amount_eq": 700}, {"euros"}),
        ({"amount_gte": 1000}, {"open", "expired", "lapsed", "paid", "paying"}),
        ({"amount_lte": 700}, {"euros"}),
        ({"buyer_search": "ada@example"}, {"open"}),
        ({"buyer_search": ["nobody", "Grace"]}, {"paid"}),
    ],
    ids=lambda value: str(value) if isinstance(value, dict) else None,  # a set has no stable order
)
def test_list_filters(writer, query, expected):
    made = {
        "open": PaymentLinkFactory(buyer={"billing_details": {"email_address": "ada@example.com"}}),
        "expired": PaymentLinkFactory(expired=True),
        "lapsed": PaymentLinkFactory(lapsed=True),
        "paid": PaymentLinkFactory(completed=True, buyer={"display_name": "Grace Hopper"}),
        "paying": PaymentLinkFactory(processing=True),
        "euros": PaymentLinkFactory(currency="EUR", amount=700),
    }
    names = {str(link.pk): name for name, link in made.items()}

    response = writer.get("/payment-links", query)

    assert response.status_code == 200, response.content
    assert {names[item["id"]] for item in response.json()["items"]} == expected


def test_date_filters(writer):
    link = PaymentLinkFactory()
    after = (link.created_at + timedelta(seconds=1)).isoformat()

    assert writer.get("/payment-links", {"created_at_gte": after}).json()["items"] == []
    assert len(writer.get("/payment-links", {"created_at_lte": after}).json()["items"]) == 1
    assert len(writer.get("/payment-links", {"updated_at_lte": after}).json()["items"]) == 1


@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ({"status": "paid"}, "/status"),
        ({"currency": "usd"}, "/currency"),
        ({"amount_eq": "12.5"}, "/amount_eq"),
        ({"amount_gte": -1}, "/amount_gte"),
        ({"created_at_gte": "yesterday"}, "/created_at_gte"),
        ({"limit": 0}, "/limit"),
        ({"cursor": "forged"}, "/cursor"),
        ({"search": "x"}, "/search"),
    ],
    ids=str,
)
def test_bad_filters_are_a_400_naming_them(writer, query, pointer):
    assert_error(writer.get("/payment-links", query), 400, pointer)


# --- expire ----------------------------------------------------------------------------------------------------


def test_expire_answers_204_and_the_link_shows_expired(writer):
    link = PaymentLinkFactory(expires_at=timezone.now() + timedelta(days=1))

    response = writer.post(f"/payment-links/{link.pk}/expire")

    assert response.status_code == 204
    assert response.content == b""
    link.refresh_from_db()
    assert link.status == "expired"
    assert link.expires_at <= timezone.now()
    assert writer.get(f"/payment-links/{link.pk}").json()["status"] == "expired"


def test_expiring_an_expired_link_changes_nothing(writer):
    link = PaymentLinkFactory(expired=True)

    assert writer.post(f"/payment-links/{link.pk}/expire").status_code == 204


@pytest.mark.parametrize("trait", ["completed", "processing"])
def test_a_paid_link_cannot_be_expired(writer, trait):
    link = PaymentLinkFactory(**{trait: True})

    assert_error(writer.post(f"/payment-links/{link.pk}/expire"), 409)
    link.refresh_from_db()
    assert link.status == trait


# --- scopes ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["payment-links.read"], {"list", "get"}),
        (["payment-links.write"], {"create", "expire"}),
        (["payment-links.read", "payment-links.write"], {"list", "get", "create", "expire"}),
        (["*.read"], {"list", "get"}),
        (["*.write"], {"create", "expire"}),
        (["transactions.read", "transactions.write"], set()),
        (["embed"], set()),
    ],
    ids=lambda value: "+".join(value) if isinstance(value, list) else None,
)
def test_scope_matrix(api_client, merchant_account, scopes, allowed):
    client = api_client(
        scopes=scopes, **({"embed": {"amount": 1299, "currency": "USD"}} if scopes == ["embed"] else {})
    )
    link = PaymentLinkFactory()
    calls = {
        "list": lambda: client.get("/payment-links"),
        "get": lambda: client.get(f"/payment-links/{link.pk}"),
        "create": lambda: _create(client, MINIMAL),
        "expire": lambda: client.post(f"/payment-links/{link.pk}/expire"),
    }

    for name, call in calls.items():
        response = call()
        if name in allowed:
            assert response.status_code in (200, 201, 204), (name, response.content)
        else:
            assert_error(response, 403)


def test_no_token_is_a_401(client):
    response = client.get("/payment-links")

    assert_error(response, 401)
