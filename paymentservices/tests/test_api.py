"""`/payment-services` and `/payment-service-definitions` through the real authentication."""

from __future__ import annotations

import uuid

import pytest

from payments.tests.assertions import assert_error
from paymentservices import definitions
from paymentservices.models import PaymentService
from paymentservices.processors.paypal import PROCESSOR as PAYPAL
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.services import payment_service_credentials
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db

SECRET = "sk_test_api_secret_0123456789"
STRIPE = {
    "display_name": "Stripe US",
    "payment_service_definition_id": "stripe-card",
    "fields": [{"key": "secret_key", "value": SECRET}],
    "accepted_currencies": ["USD"],
    "accepted_countries": ["US"],
}
# Upstream's simulator field, as the official SDK's own end-to-end suite sends it.
MOCK_MERCHANT_ID = {"key": "merchant_id", "value": "test"}
# What the official SDK adds to every create.
SDK_DEFAULTS = {"active": True, "three_d_secure_enabled": False, "settlement_reporting_enabled": False}


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["payment-services.read", "payment-services.write"])


def _services(account) -> list[tuple[str, int]]:
    return list(
        PaymentService.objects.filter(merchant_account=account, is_deleted=False)
        .order_by("position")
        .values_list("display_name", "position")
    )


def test_a_new_account_starts_with_an_active_sandbox_service(merchant_account):
    (service,) = PaymentService.objects.filter(merchant_account=merchant_account)

    assert (service.definition_id, service.active, service.position) == ("mock-card", True, 1)
    assert {"USD", "EUR", "JPY"} <= set(service.accepted_currencies)
    assert {"US", "GB", "JP"} <= set(service.accepted_countries)


def test_a_stripe_service_is_created_last_with_its_secret_sealed_and_never_shown(writer, merchant_account):
    response = writer.post("/payment-services", {**STRIPE, **SDK_DEFAULTS}, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["type"], body["payment_service_definition_id"], body["method"]) == (
        "payment-service",
        "stripe-card",
        "card",
    )
    assert (body["position"], body["active"], body["is_deleted"], body["fields"]) == (2, True, False, [])
    assert body["webhook_url"] == f"http://testserver/inbound/payment-services/{body['id']}/notifications"
    assert SECRET not in response.content.decode()
    service = PaymentService.objects.get(pk=body["id"])
    assert SECRET not in str(service.sealed_fields) + str(service.fields)
    assert payment_service_credentials(service=service) == {"secret_key": SECRET}
    assert SECRET not in writer.get(f"/payment-services/{body['id']}").content.decode()
    assert SECRET not in writer.get("/payment-services").content.decode()


@pytest.mark.parametrize("definition", ["stripe-card", "adyen-card", "mock-card"])
def test_settlement_reporting_is_taken_where_the_processors_reports_are_fetched(writer, definition):
    service = PaymentServiceFactory(
        **{"stripe-card": {}, "mock-card": {"mock_card": True}, "adyen-card": {"adyen": True}}[definition]
    )
    assert service.definition_id == definition

    response = writer.put(f"/payment-services/{service.pk}", {"settlement_reporting_enabled": True}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["settlement_reporting_enabled"] is True
    created = writer.post("/payment-services", {**STRIPE, "settlement_reporting_enabled": True}, format="json")
    assert created.json()["settlement_reporting_enabled"] is True


def test_settlement_reporting_is_refused_by_name_where_reports_are_not_fetched(writer, merchant_account, monkeypatch):
    # Every processor of the registry reads its settlements: PayPal stands for one whose reports are not fetched.
    monkeypatch.setattr(definitions, "_SETTLEMENT_REPORTS", definitions._SETTLEMENT_REPORTS - {PAYPAL.id})
    paypal = PaymentServiceFactory(paypal=True, accepted_countries=["US"], accepted_currencies=["USD"])
    payload = {
        "display_name": "PayPal",
        "payment_service_definition_id": "paypal-paypal",
        "fields": [{"key": "client_id", "value": "AeA1QIZXiflr1"}, {"key": "client_secret", "value": "ECYYrrSH"}],
        "accepted_currencies": ["USD"],
        "accepted_countries": ["US"],
        "settlement_reporting_enabled": True,
    }

    created = assert_error(
        writer.post("/payment-services", payload, format="json"), 400, "/settlement_reporting_enabled"
    )
    updated = writer.put(f"/payment-services/{paypal.pk}", {"settlement_reporting_enabled": True}, format="json")

    assert_error(updated, 400, "/settlement_reporting_enabled")
    assert "paypal-paypal" in str(created)
    assert PaymentService.objects.filter(definition_id="paypal-paypal").count() == 1
    paypal.refresh_from_db()
    assert paypal.settlement_reporting_enabled is False
    kept = writer.put(f"/payment-services/{paypal.pk}", {"settlement_reporting_enabled": False}, format="json")
    assert kept.status_code == 200


def test_create_at_a_position_moves_the_later_services_down(writer, merchant_account):
    PaymentServiceFactory(display_name="second")

    response = writer.post("/payment-services", {**STRIPE, "display_name": "first", "position": 1}, format="json")

    assert response.status_code == 201
    assert _services(merchant_account) == [("first", 1), ("Sandbox", 2), ("second", 3)]


def test_update_moves_renames_and_replaces_a_credential(writer, merchant_account):
    service = PaymentServiceFactory(display_name="stripe")

    response = writer.put(
        f"/payment-services/{service.pk}",
        {"position": 1, "display_name": "Stripe EU", "fields": [{"key": "webhook_secret", "value": "whsec_abc"}]},
        format="json",
    )

    assert response.status_code == 200, response.content
    assert _services(merchant_account) == [("Stripe EU", 1), ("Sandbox", 2)]
    service.refresh_from_db()
    assert payment_service_credentials(service=service) == {
        "secret_key": "sk_test_factory_0123456789",
        "webhook_secret": "whsec_abc",
    }


def test_an_empty_value_clears_an_optional_credential(writer):
    service = PaymentServiceFactory(
        fields=[{"key": "secret_key", "value": SECRET}, {"key": "webhook_secret", "value": "whsec_1"}]
    )

    response = writer.put(
        f"/payment-services/{service.pk}", {"fields": [{"key": "webhook_secret", "value": ""}]}, format="json"
    )

    assert response.status_code == 200
    service.refresh_from_db()
    assert payment_service_credentials(service=service) == {"secret_key": SECRET}


def test_delete_takes_the_service_out_of_the_list_and_the_order(writer, merchant_account):
    service = PaymentServiceFactory(display_name="stripe", position=1)

    response = writer.delete(f"/payment-services/{service.pk}")

    assert response.status_code == 204
    assert _services(merchant_account) == [("Sandbox", 1)]
    listed = writer.get("/payment-services").json()["items"]
    assert [item["display_name"] for item in listed] == ["Sandbox"]
    deleted = writer.get("/payment-services", {"deleted": "true"}).json()["items"]
    assert [(item["id"], item["is_deleted"]) for item in deleted] == [(str(service.pk), True)]


def test_a_deleted_service_is_gone_to_the_api(writer, merchant_account):
    service = PaymentServiceFactory(display_name="gone")
    assert writer.delete(f"/payment-services/{service.pk}").status_code == 204

    assert_error(writer.get(f"/payment-services/{service.pk}"), 404)
    assert_error(writer.put(f"/payment-services/{service.pk}", {"position": 1}, format="json"), 404)
    assert_error(writer.delete(f"/payment-services/{service.pk}"), 404)
    verify = {"payment_service_definition_id": "stripe-card", "payment_service_id": str(service.pk), "fields": []}
    assert_error(writer.post("/payment-services/verify", verify, format="json"), 404)
    assert str(service.pk) not in [item["id"] for item in writer.get("/payment-services").json()["items"]]
    service.refresh_from_db()
    assert (service.is_deleted, service.display_name) == (True, "gone")  # kept for the payments that name it


def test_list_filters_by_method_and_pages(writer):
    PaymentServiceFactory.create_batch(2)

    first = writer.get("/payment-services", {"limit": 2}).json()
    assert first["next_cursor"] is not None
    second = writer.get("/payment-services", {"limit": 2, "cursor": first["next_cursor"]}).json()

    assert len(first["items"]) == 2
    assert [len(second["items"]), second["next_cursor"]] == [1, None]
    assert writer.get("/payment-services", {"method": "paypal"}).json()["items"] == []
    assert len(writer.get("/payment-services", {"method": "card"}).json()["items"]) == 3


def test_a_service_answers_and_is_listed_by_its_definitions_method(writer):
    paypal = PaymentServiceFactory(paypal=True, accepted_countries=["US"], accepted_currencies=["USD"])

    assert writer.get(f"/payment-services/{paypal.pk}").json()["method"] == "paypal"
    by_method = {
        method: [item["id"] for item in writer.get("/payment-services", {"method": method}).json()["items"]]
        for method in ("paypal", "card")
    }
    assert by_method["paypal"] == [str(paypal.pk)]
    assert str(paypal.pk) not in by_method["card"]
    assert len(by_method["card"]) == 1  # the sandbox


def test_another_accounts_service_is_not_found(writer, other_merchant_account):
    theirs = PaymentServiceFactory(merchant_account=other_merchant_account)

    for response in (
        writer.get(f"/payment-services/{theirs.pk}"),
        writer.put(f"/payment-services/{theirs.pk}", {"display_name": "mine"}, format="json"),
        writer.delete(f"/payment-services/{theirs.pk}"),
    ):
        assert_error(response, 404)
    theirs.refresh_from_db()
    assert (theirs.display_name, theirs.is_deleted) == (theirs.display_name, False)
    assert PaymentService.objects.get(pk=theirs.pk).display_name != "mine"


def _without(name):
    return {key: value for key, value in STRIPE.items() if key != name}


def test_three_d_secure_is_switched_on_and_off(writer, merchant_account):
    sandbox = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")

    on = writer.put(f"/payment-services/{sandbox.pk}", {"three_d_secure_enabled": True}, format="json")
    kept = writer.put(f"/payment-services/{sandbox.pk}", {"three_d_secure_enabled": None}, format="json")

    assert (on.status_code, on.json()["three_d_secure_enabled"]) == (200, True)
    assert kept.json()["three_d_secure_enabled"] is True
    off = writer.put(f"/payment-services/{sandbox.pk}", {"three_d_secure_enabled": False}, format="json")
    assert off.json()["three_d_secure_enabled"] is False
    created = writer.post("/payment-services", {**STRIPE, "three_d_secure_enabled": True}, format="json")
    assert (created.status_code, created.json()["three_d_secure_enabled"]) == (201, True)


def test_three_d_secure_is_refused_on_a_production_server_without_sandbox_payments(writer, merchant_account, settings):
    # The 3-D Secure this server runs is the sandbox's: its results are no real authentication.
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False
    sandbox = PaymentService.objects.get(merchant_account=merchant_account, definition_id="mock-card")

    update = writer.put(f"/payment-services/{sandbox.pk}", {"three_d_secure_enabled": True}, format="json")
    create = writer.post("/payment-services", {**STRIPE, "three_d_secure_enabled": True}, format="json")

    for response in (update, create):
        body = assert_error(response, 400, "/three_d_secure_enabled")
        assert "SANDBOX_PAYMENTS" in body["message"]
    assert not PaymentService.objects.filter(three_d_secure_enabled=True).exists()
    assert PaymentService.objects.count() == 1


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({**STRIPE, "payment_service_definition_id": "worldpay-card"}, "/payment_service_definition_id"),
        ({**STRIPE, "fields": []}, "/fields"),
        ({**STRIPE, "fields": [{"key": "api_key", "value": "x"}]}, "/fields/0/key"),
        (
            {**STRIPE, "fields": [{"key": "secret_key", "value": SECRET}, {"key": "secret_key", "value": SECRET}]},
            "/fields/1/key",
        ),
        ({**STRIPE, "fields": [{"key": "secret_key", "value": ""}]}, "/fields/0/value"),
        ({**STRIPE, "fields": [{"key": "secret_key"}]}, "/fields/0/value"),
        ({**STRIPE, "accepted_currencies": ["XYZ"]}, "/accepted_currencies/0"),
        ({**STRIPE, "accepted_currencies": []}, "/accepted_currencies"),
        ({**STRIPE, "accepted_countries": ["US", "ZZ"]}, "/accepted_countries/1"),
        (_without("accepted_countries"), "/accepted_countries"),
        (_without("display_name"), "/display_name"),
        ({**STRIPE, "colour": "blue"}, "/colour"),
        ({**STRIPE, "position": 0}, "/position"),
        ({**STRIPE, "three_d_secure_enabled": "yes"}, "/three_d_secure_enabled"),
        ({**STRIPE, "merchant_profile": {"visa": None}}, "/merchant_profile"),
        ({**STRIPE, "active": "yes"}, "/active"),
    ],
    ids=[
        "unknown-definition",
        "missing-required-credential",
        "unknown-credential-field",
        "repeated-credential-field",
        "empty-credential",
        "credential-without-value",
        "unknown-currency",
        "no-currencies",
        "unknown-country",
        "countries-left-out",
        "display-name-left-out",
        "unknown-field",
        "position-zero",
        "three-d-secure",
        "merchant-profile",
        "active-not-a-boolean",
    ],
)
def test_bad_creates_are_refused_by_name_and_write_nothing(writer, merchant_account, payload, pointer):
    response = writer.post("/payment-services", payload, format="json")

    body = assert_error(response, 400, pointer)
    assert SECRET not in response.content.decode()
    assert SECRET not in body["message"]
    assert PaymentService.objects.count() == 1  # the account's sandbox, nothing more


def test_mock_card_is_refused_on_a_production_server_without_sandbox_payments(writer, merchant_account, settings):
    settings.DEBUG, settings.SANDBOX_PAYMENTS = False, False
    payload = {**STRIPE, "payment_service_definition_id": "mock-card", "fields": [MOCK_MERCHANT_ID]}

    body = assert_error(writer.post("/payment-services", payload, format="json"), 400, "/payment_service_definition_id")

    assert "SANDBOX_PAYMENTS" in body["message"]
    assert PaymentService.objects.count() == 1
    settings.SANDBOX_PAYMENTS = True
    assert writer.post("/payment-services", payload, format="json").status_code == 201


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"accepted_currencies": ["usd"]}, "/accepted_currencies/0"),
        ({"fields": [{"key": "secret_key", "value": ""}]}, "/fields/0/value"),
        ({"fields": [{"key": "nope", "value": "x"}]}, "/fields/0/key"),
        ({"display_name": ""}, "/display_name"),
        ({"unknown": 1}, "/unknown"),
    ],
    ids=["bad-currency", "clearing-a-required-credential", "unknown-credential", "empty-name", "unknown-field"],
)
def test_bad_updates_are_refused_by_name_and_change_nothing(writer, payload, pointer):
    service = PaymentServiceFactory(display_name="unchanged")
    before = PaymentService.objects.values().get(pk=service.pk)

    assert_error(writer.put(f"/payment-services/{service.pk}", payload, format="json"), 400, pointer)

    assert PaymentService.objects.values().get(pk=service.pk) == before


def test_verify_checks_credentials_with_stripe_and_names_the_field(writer, stripe_api):
    good = {"payment_service_definition_id": "stripe-card", "fields": [{"key": "secret_key", "value": SECRET}]}
    bad = {"payment_service_definition_id": "stripe-card", "fields": [{"key": "secret_key", "value": "sk_"}]}

    assert writer.post("/payment-services/verify", good, format="json").status_code == 200
    body = assert_error(writer.post("/payment-services/verify", bad, format="json"), 400, "/fields/0/value")
    assert "secret_key" in body["message"]
    assert PaymentService.objects.count() == 1


def test_verify_refuses_a_publishable_key_that_is_not_one(writer, stripe_api):
    fields = [{"key": "secret_key", "value": SECRET}, {"key": "publishable_key", "value": SECRET}]
    payload = {"payment_service_definition_id": "stripe-card", "fields": fields}

    body = assert_error(writer.post("/payment-services/verify", payload, format="json"), 400, "/fields/1/value")

    assert "publishable_key" in body["message"]
    assert SECRET not in body["message"]


def test_verify_uses_a_services_own_credentials_for_fields_not_sent(writer, stripe_api):
    service = PaymentServiceFactory()
    payload = {"payment_service_definition_id": "stripe-card", "payment_service_id": str(service.pk), "fields": []}

    assert writer.post("/payment-services/verify", payload, format="json").status_code == 200


def test_verify_of_an_unreachable_processor_is_a_502(writer, settings):
    from tests.servers import free_port

    override_processor(settings, "stripe", API_BASE=f"http://127.0.0.1:{free_port()}")
    payload = {"payment_service_definition_id": "stripe-card", "fields": [{"key": "secret_key", "value": SECRET}]}

    response = writer.post("/payment-services/verify", payload, format="json")

    assert_error(response, 502)
    assert SECRET not in response.content.decode()


@pytest.mark.parametrize(
    ("payload", "status", "pointer"),
    [
        ({"payment_service_definition_id": "nope", "fields": []}, 400, "/payment_service_definition_id"),
        ({"payment_service_definition_id": "stripe-card", "fields": []}, 400, "/fields"),
        ({"payment_service_definition_id": "stripe-card"}, 400, "/fields"),
        (
            {"payment_service_definition_id": "stripe-card", "payment_service_id": str(uuid.uuid4()), "fields": []},
            404,
            None,
        ),
    ],
    ids=["unknown-definition", "missing-credential", "fields-left-out", "unknown-service"],
)
def test_bad_verifies_are_refused(writer, payload, status, pointer):
    assert_error(writer.post("/payment-services/verify", payload, format="json"), status, pointer)


def test_sessions_are_refused_by_name(api_client):
    client = api_client(scopes=["transactions.write"])
    service = PaymentServiceFactory()

    for path in (f"/payment-services/{service.pk}/sessions", "/payment-service-definitions/stripe-card/sessions"):
        body = assert_error(client.post(path, {"any": "thing"}, format="json"), 400)
        assert "/sessions is not supported" in body["message"]
    assert_error(client.post("/payment-service-definitions/nope/sessions", {}, format="json"), 404)


def test_mock_card_takes_upstreams_merchant_id_shown_and_required(writer, merchant_account, api_client):
    mock = {**STRIPE, **SDK_DEFAULTS, "display_name": "Simulator", "payment_service_definition_id": "mock-card"}

    created = writer.post("/payment-services", {**mock, "fields": [MOCK_MERCHANT_ID]}, format="json")
    definition = api_client(scopes=["payment-service-definitions.read"]).get("/payment-service-definitions/mock-card")

    assert created.status_code == 201, created.content
    assert created.json()["fields"] == [MOCK_MERCHANT_ID]  # not secret: shown as given
    assert payment_service_credentials(service=PaymentService.objects.get(pk=created.json()["id"])) == {
        "merchant_id": "test"
    }
    assert [
        (f["key"], f["display_name"], f["required"], f["secret"], f["format"]) for f in definition.json()["fields"]
    ] == [("merchant_id", "Merchant ID", True, False, "text")]
    assert_error(writer.post("/payment-services", {**mock, "fields": []}, format="json"), 400, "/fields")
    assert_error(
        writer.post("/payment-services", {**mock, "fields": [{"key": "merchant_id", "value": ""}]}, format="json"),
        400,
        "/fields/0/value",
    )
    assert PaymentService.objects.filter(merchant_account=merchant_account).count() == 2  # the sandbox and one more


def test_a_new_accounts_sandbox_has_a_merchant_id_so_it_updates_like_any_mock_card(writer, merchant_account):
    (sandbox,) = PaymentService.objects.filter(merchant_account=merchant_account)

    renamed = writer.put(f"/payment-services/{sandbox.pk}", {"display_name": "Sandbox 2"}, format="json")
    changed = writer.put(
        f"/payment-services/{sandbox.pk}", {"fields": [{"key": "merchant_id", "value": "mine"}]}, format="json"
    )

    assert renamed.status_code == 200, renamed.content
    assert renamed.json()["fields"] == [{"key": "merchant_id", "value": "sandbox"}]
    assert changed.json()["fields"] == [{"key": "merchant_id", "value": "mine"}]


def test_definitions_are_listed_paged_and_fetched(api_client):
    client = api_client(scopes=["payment-service-definitions.read"])

    page = client.get("/payment-service-definitions").json()
    first = client.get("/payment-service-definitions", {"limit": 2}).json()
    second = client.get("/payment-service-definitions", {"limit": 2, "cursor": first["next_cursor"]}).json()
    stripe_card = client.get("/payment-service-definitions/stripe-card").json()

    assert [item["id"] for item in page["items"]] == ["adyen-card", "mock-card", "paypal-paypal", "stripe-card"]
    assert (page["next_cursor"], page["previous_cursor"]) == (None, None)
    assert [item["id"] for item in first["items"] + second["items"]] == [
        "adyen-card",
        "mock-card",
        "paypal-paypal",
        "stripe-card",
    ]
    assert (second["next_cursor"], second["previous_cursor"] is not None) == (None, True)
    assert [(f["key"], f["required"], f["secret"]) for f in stripe_card["fields"]] == [
        ("secret_key", True, True),
        ("webhook_secret", False, True),
        ("publishable_key", False, False),  # public by design: Stripe.js is loaded with it
    ]
    assert_error(client.get("/payment-service-definitions/worldpay-card"), 404)
    assert_error(client.get("/payment-service-definitions", {"limit": 0}), 400, "/limit")
    assert_error(client.get("/payment-service-definitions", {"cursor": "forged"}), 400, "/cursor")


@pytest.mark.parametrize(
    ("scopes", "method", "path", "allowed"),
    [
        (["payment-services.read"], "get", "/payment-services", True),
        (["payment-services.read"], "post", "/payment-services", False),
        (["payment-services.read"], "post", "/payment-services/verify", False),
        (["payment-services.write"], "get", "/payment-services", False),
        (["payment-services.write"], "post", "/payment-services/verify", True),
        (["payment-service-definitions.read"], "get", "/payment-service-definitions", True),
        (["payment-services.read"], "get", "/payment-service-definitions", False),
        (["payment-services.write"], "post", "/payment-service-definitions/mock-card/sessions", False),
        (["transactions.write"], "post", "/payment-service-definitions/mock-card/sessions", True),
        (["*.read"], "get", "/payment-service-definitions/mock-card", True),
        (["embed"], "get", "/payment-services", False),
    ],
)
def test_scopes_as_upstream(api_client, merchant_account, scopes, method, path, allowed):
    response = (
        getattr(api_client(scopes=scopes), method)(path, {}, format="json")
        if method == "post"
        else (api_client(scopes=scopes).get(path))
    )

    if allowed:
        assert response.status_code != 403, response.content
    else:
        assert_error(response, 403)


def test_list_and_detail_cost_fixed_queries(writer, django_assert_max_num_queries):
    PaymentServiceFactory.create_batch(3)
    service = PaymentServiceFactory()

    with django_assert_max_num_queries(6):
        assert len(writer.get("/payment-services").json()["items"]) == 5
    with django_assert_max_num_queries(6):
        assert writer.get(f"/payment-services/{service.pk}").status_code == 200


def test_non_secret_fields_are_left_out_when_asked(writer):
    PaymentServiceFactory()

    with_fields = writer.get("/payment-services", {"include_fields": "true"}).json()["items"]
    without = writer.get("/payment-services", {"include_fields": "false"}).json()["items"]

    # The account's sandbox shows its merchant id; the factory's Stripe service shows no secret.
    assert {item["payment_service_definition_id"]: item["fields"] for item in with_fields} == {
        "mock-card": [{"key": "merchant_id", "value": "sandbox"}],
        "stripe-card": [],
    }
    assert [item["fields"] for item in without] == [None, None]
    assert_error(writer.get("/payment-services", {"include_fields": "no"}), 400, "/include_fields")


def test_a_deleted_service_cannot_be_updated(writer, merchant_account):
    service = PaymentServiceFactory(display_name="gone")
    writer.delete(f"/payment-services/{service.pk}")

    assert_error(writer.put(f"/payment-services/{service.pk}", {"position": 1}, format="json"), 404)

    assert _services(merchant_account) == [("Sandbox", 1)]


def test_verify_of_credentials_sealed_with_a_removed_key_asks_for_them_again(writer, settings):
    service = PaymentServiceFactory()
    settings.CARD_ENCRYPTION_KEYS = ["k2:" + "A" * 43]  # the key the service was sealed with is gone
    payload = {"payment_service_definition_id": "stripe-card", "payment_service_id": str(service.pk), "fields": []}

    body = assert_error(writer.post("/payment-services/verify", payload, format="json"), 400, "/fields")

    assert "enter them again" in body["message"]
