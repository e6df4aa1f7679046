"""`/checkout/sessions`: create, read, update and delete, shaped exactly as the upstream `CheckoutSession`."""

import json
from datetime import timedelta

import pytest

from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from payments.vault.crypto import fingerprint
from payments.vault.models import VaultedCard

pytestmark = pytest.mark.django_db

URL = "/checkout/sessions"
READ = ["checkout-sessions.read"]
WRITE = ["checkout-sessions.write"]
SESSION_KEYS = {
    "type",
    "id",
    "expires_at",
    "cart_items",
    "metadata",
    "buyer",
    "airline",
    "amount",
    "currency",
    "payment_service_id",
    "payment_method",
}
CART_ITEM = {"name": "GoPro HD", "quantity": 2, "unit_amount": 1299}
FULL_BODY = {
    "amount": 2598,
    "currency": "USD",
    "cart_items": [{**CART_ITEM, "sku": "GPHD1078", "categories": ["camera"], "product_type": "physical"}],
    "metadata": {"order_id": "order-12345", "cohort": ""},
    "buyer": {
        "display_name": "John Doe",
        "external_identifier": "buyer-12345",
        "billing_details": {"email_address": "john@example.com", "address": {"country": "US", "postal_code": "94103"}},
        "shipping_details": {"first_name": "John", "phone_number": "+14155552671"},
    },
    "airline": {
        "booking_code": "X36Q9C",
        "issued_at": "2030-07-16T19:23:00Z",
        "legs": [{"departure_airport": "SFO", "arrival_airport": "JFK", "fare_amount": 20000, "stop_over": False}],
        "passengers": [{"first_name": "John", "date_of_birth": "1990-01-31", "age_group": "adult"}],
    },
    "payment_service_id": None,
    "expires_in": 7200.0,
}


def iso(value) -> str:
    return value.isoformat(timespec="microseconds")


def pointers(response) -> list[str]:
    body = response.json()
    assert body["type"] == "error"
    assert body["status"] == response.status_code
    return [detail["pointer"] for detail in body["details"]]


def post_json(client, path: str, payload) -> object:
    return client.post(path, data=json.dumps(payload), content_type="application/json")


def put_json(client, path: str, payload) -> object:
    return client.put(path, data=json.dumps(payload), content_type="application/json")


class TestCreate:
    def test_empty_create_without_body_uses_the_defaults(self, api_client, merchant_account, clock):
        # The SDK sends no body and no content type for an empty create.
        response = api_client(scopes=WRITE).post(URL)
        assert response.status_code == 201
        body = response.json()
        session = CheckoutSession.objects.get()
        assert body == {
            "type": "checkout-session",
            "id": str(session.id),
            "expires_at": iso(clock.now + timedelta(hours=1)),
            "cart_items": None,
            "metadata": None,
            "buyer": None,
            "airline": None,
            "amount": None,
            "currency": None,
            "payment_service_id": None,
            "payment_method": None,
        }
        assert session.merchant_account == merchant_account

    @pytest.mark.parametrize("body", [None, {}], ids=["json-null", "empty-object"])
    def test_null_or_empty_body_is_an_empty_create(self, api_client, merchant_account, body):
        response = post_json(api_client(scopes=WRITE), URL, body)
        assert response.status_code == 201
        assert CheckoutSession.objects.count() == 1

    def test_every_field_is_stored_and_echoed(self, api_client, merchant_account, clock):
        response = post_json(api_client(scopes=WRITE), URL, FULL_BODY)
        assert response.status_code == 201
        body = response.json()
        assert set(body) == SESSION_KEYS
        assert body["expires_at"] == iso(clock.now + timedelta(seconds=7200))
        assert body["amount"] == 2598
        assert body["currency"] == "USD"
        assert body["metadata"] == FULL_BODY["metadata"]
        assert body["payment_service_id"] == FULL_BODY["payment_service_id"]
        assert body["cart_items"] == [{**FULL_BODY["cart_items"][0], "discount_amount": 0, "tax_amount": 0}]
        assert body["buyer"] == FULL_BODY["buyer"]
        assert body["airline"]["issued_at"] == "2030-07-16T19:23:00.000000+00:00"
        assert body["airline"]["legs"] == FULL_BODY["airline"]["legs"]
        assert body["airline"]["passengers"] == FULL_BODY["airline"]["passengers"]
        assert body["airline"]["ticket_delivery_method"] == "electronic"
        assert api_client(scopes=READ).get(f"{URL}/{body['id']}").json() == body

    def test_fields_outside_the_response_are_kept_for_transactions(self, api_client, merchant_account):
        payload = {
            "country": "US",
            "intent": "capture",
            "payment_source": "recurring",
            "merchant_initiated": True,
            "is_subsequent_payment": False,
        }
        response = post_json(api_client(scopes=WRITE), URL, payload)
        assert response.status_code == 201
        assert set(response.json()) == SESSION_KEYS
        session = CheckoutSession.objects.get()
        assert (session.country, session.intent, session.payment_source) == ("US", "capture", "recurring")
        assert (session.merchant_initiated, session.is_subsequent_payment) == (True, False)

    @pytest.mark.parametrize(
        ("expires_in", "seconds"),
        [
            pytest.param(3600.0, 3600, id="sdk-float-minimum"),
            pytest.param(3600, 3600, id="integer-minimum"),
            pytest.param(86400.0, 86400, id="float-maximum"),
            pytest.param(43200, 43200, id="half-day"),
        ],
    )
    def test_expires_in_accepts_whole_seconds_in_range(self, api_client, merchant_account, clock, expires_in, seconds):
        response = post_json(api_client(scopes=WRITE), URL, {"expires_in": expires_in})
        assert response.status_code == 201
        assert response.json()["expires_at"] == iso(clock.now + timedelta(seconds=seconds))


BAD_SESSION_BODIES = [
    pytest.param({"expires_in": 3600.5}, "/expires_in", id="expires-in-fraction"),
    pytest.param({"expires_in": 3599}, "/expires_in", id="expires-in-too-short"),
    pytest.param({"expires_in": 86401.0}, "/expires_in", id="expires-in-too-long"),
    pytest.param({"expires_in": "3600"}, "/expires_in", id="expires-in-string"),
    pytest.param({"expires_in": True}, "/expires_in", id="expires-in-boolean"),
    pytest.param({"expires_in": None}, "/expires_in", id="expires-in-null"),
    pytest.param({"amount": -1}, "/amount", id="amount-negative"),
    pytest.param({"amount": 100000000}, "/amount", id="amount-too-large"),
    pytest.param({"amount": 12.5}, "/amount", id="amount-fraction"),
    pytest.param({"amount": "1299"}, "/amount", id="amount-string"),
    pytest.param({"currency": "usd"}, "/currency", id="currency-lower-case"),
    pytest.param({"currency": "ZZZ"}, "/currency", id="currency-unknown"),
    pytest.param({"country": "ZZ"}, "/country", id="country-unknown"),
    pytest.param({"cart_items": {}}, "/cart_items", id="cart-items-object"),
    pytest.param({"cart_items": [{}]}, "/cart_items/0/name", id="cart-item-without-name"),
    pytest.param({"cart_items": [{**CART_ITEM, "quantity": 0}]}, "/cart_items/0/quantity", id="cart-item-quantity-0"),
    pytest.param({"cart_items": [{**CART_ITEM, "colour": "red"}]}, "/cart_items/0/colour", id="cart-item-extra-field"),
    pytest.param(
        {"cart_items": [{**CART_ITEM, "product_type": "service"}]}, "/cart_items/0/product_type", id="product-type"
    ),
    pytest.param({"cart_items": [{**CART_ITEM, "tax_exempt": "no"}]}, "/cart_items/0/tax_exempt", id="tax-exempt"),
    pytest.param({"metadata": {"order_id": 12}}, "/metadata/order_id", id="metadata-number-value"),
    pytest.param({"metadata": ["order"]}, "/metadata", id="metadata-list"),
    pytest.param({"buyer": {"name": "John"}}, "/buyer/name", id="buyer-extra-field"),
    pytest.param(
        {"buyer": {"billing_details": {"email_address": "not-an-email"}}},
        "/buyer/billing_details/email_address",
        id="buyer-email",
    ),
    pytest.param(
        {"buyer": {"shipping_details": {"phone_number": "555"}}},
        "/buyer/shipping_details/phone_number",
        id="buyer-shipping-phone",
    ),
    pytest.param(
        {"airline": {"legs": [{"departure_airport": "SFOX"}]}}, "/airline/legs/0/departure_airport", id="iata"
    ),
    pytest.param({"airline": {"legs": [{}] * 21}}, "/airline/legs", id="airline-too-many-legs"),
    pytest.param({"airline": {"issued_at": "yesterday"}}, "/airline/issued_at", id="airline-issued-at"),
    pytest.param({"payment_service_id": "not-a-uuid"}, "/payment_service_id", id="payment-service-id"),
    pytest.param(
        {"payment_service_id": "4137b1cf-39ac-42a8-bad6-1c680d5dab6b"}, "/payment_service_id", id="no-payment-services"
    ),
    pytest.param({"intent": "sale"}, "/intent", id="intent"),
    pytest.param({"payment_source": "web"}, "/payment_source", id="payment-source"),
    pytest.param({"merchant_initiated": "yes"}, "/merchant_initiated", id="merchant-initiated"),
    pytest.param({"expires_at": "2030-01-01T00:00:00Z"}, "/expires_at", id="read-only-field"),
    pytest.param({"payment_method": {"method": "card"}}, "/payment_method", id="payment-method-not-here"),
    pytest.param([{"amount": 1}], "/", id="array-body"),
    pytest.param("amount", "/", id="string-body"),
]


class TestCreateBadInput:
    @pytest.mark.parametrize(("payload", "pointer"), BAD_SESSION_BODIES)
    def test_is_a_400_naming_the_field_and_writes_nothing(self, api_client, merchant_account, payload, pointer):
        response = post_json(api_client(scopes=WRITE), URL, payload)
        assert response.status_code == 400
        assert response.json()["code"] == "bad_request"
        assert pointer in pointers(response)
        assert not CheckoutSession.objects.exists()

    def test_non_json_body(self, api_client, merchant_account):
        response = api_client(scopes=WRITE).post(URL, data="{amount: 1}", content_type="application/json")
        assert response.status_code == 400
        assert pointers(response) == ["/"]
        assert not CheckoutSession.objects.exists()


class TestRead:
    def test_detail_is_one_query(self, api_client, merchant_account, django_assert_num_queries):
        session = CheckoutSessionFactory(with_card=True)
        client = api_client(scopes=READ)
        client.get(f"{URL}/{session.id}")  # warm the key and account caches
        with django_assert_num_queries(1):
            response = client.get(f"{URL}/{session.id}")
        assert response.status_code == 200

    def test_stored_card_shows_only_its_summary(self, api_client, merchant_account):
        session = CheckoutSessionFactory(with_card=True, card__number="378282246310005", card__security_code="1234")
        response = api_client(scopes=READ).get(f"{URL}/{session.id}")
        assert response.json()["payment_method"] == {
            "type": "payment-method",
            "id": None,
            "method": "card",
            "label": "0005",
            "scheme": "amex",
            "fingerprint": fingerprint("378282246310005"),
            "details": {"bin": "378282", "card_type": None, "card_country": None, "card_issuer_name": None},
        }
        assert "378282246310005" not in response.content.decode()
        assert "1234" not in response.content.decode()

    @pytest.mark.parametrize("session_id", ["not-a-uuid", "4137b1cf-39ac-42a8-bad6-1c680d5dab6b"])
    def test_unknown_session_is_404(self, api_client, merchant_account, session_id):
        response = api_client(scopes=READ).get(f"{URL}/{session_id}")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"

    def test_there_is_no_list(self, api_client, merchant_account):
        assert api_client(scopes=READ).get(URL).status_code == 405


class TestUpdate:
    def test_changes_only_the_given_fields_and_null_clears(self, api_client, merchant_account):
        session = CheckoutSessionFactory(amount=1000, currency="EUR", metadata={"a": "b"})
        response = put_json(api_client(scopes=WRITE), f"{URL}/{session.id}", {"amount": 2000, "metadata": None})
        assert response.status_code == 200
        body = response.json()
        assert (body["amount"], body["currency"], body["metadata"]) == (2000, "EUR", None)
        session.refresh_from_db()
        assert (session.amount, session.currency, session.metadata) == (2000, "EUR", None)

    def test_without_expires_in_the_expiry_stays(self, api_client, merchant_account):
        session = CheckoutSessionFactory()
        response = put_json(api_client(scopes=WRITE), f"{URL}/{session.id}", {"amount": 1})
        assert response.json()["expires_at"] == iso(session.expires_at)

    def test_expires_in_restarts_the_clock(self, api_client, merchant_account, clock):
        session = CheckoutSessionFactory()
        clock.advance(minutes=30)
        response = put_json(api_client(scopes=WRITE), f"{URL}/{session.id}", {"expires_in": 3600.0})
        assert response.json()["expires_at"] == iso(clock.now + timedelta(hours=1))

    def test_expires_in_never_extends_a_session_holding_a_card(self, api_client, merchant_account, clock):
        session = CheckoutSessionFactory(with_card=True)
        response = put_json(api_client(scopes=WRITE), f"{URL}/{session.id}", {"expires_in": 86400})
        assert response.json()["expires_at"] == iso(clock.now + timedelta(minutes=5))
        assert VaultedCard.objects.get().expires_at == clock.now + timedelta(minutes=5)

    @pytest.mark.parametrize(("payload", "pointer"), BAD_SESSION_BODIES)
    def test_bad_input_is_a_400_and_changes_nothing(self, api_client, merchant_account, payload, pointer):
        session = CheckoutSessionFactory()
        before = CheckoutSession.objects.values().get()
        response = put_json(api_client(scopes=WRITE), f"{URL}/{session.id}", payload)
        assert response.status_code == 400
        assert pointer in pointers(response)
        assert CheckoutSession.objects.values().get() == before


class TestDelete:
    def test_removes_the_session_and_its_card_at_once(self, api_client, merchant_account):
        session = CheckoutSessionFactory(with_card=True)
        client = api_client(scopes=["checkout-sessions.read", "checkout-sessions.write"])
        response = client.delete(f"{URL}/{session.id}")
        assert response.status_code == 204
        assert not CheckoutSession.objects.exists()
        assert not VaultedCard.objects.exists()
        assert client.get(f"{URL}/{session.id}").status_code == 404
        assert client.delete(f"{URL}/{session.id}").status_code == 404


class TestAccess:
    @pytest.mark.parametrize(
        ("method", "detail", "scopes", "status"),
        [
            ("post", False, WRITE, 201),
            ("post", False, ["*.write"], 201),
            ("post", False, READ, 403),
            ("post", False, ["embed"], 403),
            ("post", False, ["buyers.write"], 403),
            ("get", True, READ, 200),
            ("get", True, ["*.read"], 200),
            ("get", True, WRITE, 403),
            ("get", True, ["embed"], 403),
            ("put", True, WRITE, 200),
            ("put", True, READ, 403),
            ("delete", True, WRITE, 204),
            ("delete", True, READ, 403),
            ("delete", True, ["*.read"], 403),
        ],
    )
    def test_scope_matrix(self, api_client, merchant_account, method, detail, scopes, status):
        session = CheckoutSessionFactory()
        path = f"{URL}/{session.id}" if detail else URL
        response = getattr(api_client(scopes=scopes), method)(path, data={}, format="json")
        assert response.status_code == status
        if status == 403:
            assert response.json()["code"] == "forbidden"

    @pytest.mark.parametrize("method", ["get", "put", "delete"])
    def test_without_a_token_is_401(self, anonymous_client, merchant_account, method):
        session = CheckoutSessionFactory()
        response = getattr(anonymous_client, method)(f"{URL}/{session.id}", data={}, format="json")
        assert response.status_code == 401
        assert response["WWW-Authenticate"].startswith("Bearer")

    @pytest.mark.parametrize(("method", "status"), [("get", 404), ("put", 404), ("delete", 404)])
    def test_another_accounts_session_is_not_found(
        self, api_client, merchant_account, other_merchant_account, method, status
    ):
        theirs = CheckoutSessionFactory(merchant_account=other_merchant_account, with_card=True)
        client = api_client(scopes=["*.read", "*.write"])
        data = None if method == "get" else {"amount": 1}  # a GET's data would be its query string
        response = getattr(client, method)(f"{URL}/{theirs.id}", data=data, format="json")
        assert response.status_code == status
        theirs.refresh_from_db()
        assert theirs.amount == 1299
        assert theirs.card is not None
