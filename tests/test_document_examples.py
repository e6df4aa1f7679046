"""Every example the app's own API document (`/openapi.json`) shows is accepted: a client who copies one gets no
400 because of it. Each operation is sent its request body built from the document's examples (through nested
components) and each query parameter's example on its own, with the header examples; a 400 that names a field or
parameter the example filled fails the test. Other answers (a 409 for a state, a 404, a 400 for a required field
that has no example) are not about the examples and pass."""

import pytest
from rest_framework.test import APIClient

from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from checkout.tests.factories import CheckoutSessionFactory
from digitalwallets.tests.factories import DigitalWalletFactory
from disputes.tests.factories import DisputeFactory
from giftcards.tests.factories import GiftCardFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.accounts.keys import generate_private_key, public_pem
from payments.accounts.services import api_key_register
from payments.choices import DisputeState
from paymentservices.models import PaymentService
from reports.tests.factories import ReportExecutionFactory
from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for
from transactions.tests.factories import RefundFactory, TransactionFactory
from webhooks import outbound
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

_SKIP = object()


@pytest.fixture(scope="module")
def document(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = APIClient().get("/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def path_values(merchant_account, settings, monkeypatch) -> dict[str, str]:
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    # The webhook example's host stands for the merchant's own: here it resolves to a public address (documentation
    # range addresses are refused as reserved), as a real merchant's would; the suite has no outside DNS.
    real_resolve = outbound.resolve
    monkeypatch.setattr(
        outbound,
        "resolve",
        lambda host, port: ["93.184.216.34"] if host.endswith(".example.com") else real_resolve(host, port),
    )
    buyer = BuyerFactory(merchant_account=merchant_account)
    txn = TransactionFactory(merchant_account=merchant_account, captured=True)
    return {
        "buyer_id": str(buyer.id),
        "shipping_details_id": str(ShippingDetailsFactory(buyer=buyer).id),
        "session_id": str(CheckoutSessionFactory(merchant_account=merchant_account).id),
        "transaction_id": str(txn.id),
        # Closed: an answer built from the examples is checked, then refused (409) before any processor is asked.
        "dispute_id": str(DisputeFactory(transaction=txn, state=DisputeState.WON).id),
        "refund_id": str(RefundFactory(transaction=txn).id),
        "gift_card_id": str(GiftCardFactory(merchant_account=merchant_account).id),
        "payment_method_id": str(PaymentMethodFactory(merchant_account=merchant_account).id),
        "subscription_id": str(subscription_for(merchant_account, "http://127.0.0.1:9/hooks").id),
        "merchant_account_id": merchant_account.id,
        "three_ds_configuration_id": str(ThreeDSConfigurationFactory(merchant_account=merchant_account).id),
        "three_ds_scenario_id": str(scenario_for(merchant_account, amount=1).id),
        "payment_service_id": str(PaymentService.objects.get(merchant_account=merchant_account).id),
        "payment_service_definition_id": "stripe-card",
        # Another key of the account's: the examples' update must not change the key that signs the requests.
        "api_key_pair_id": str(
            api_key_register(public_key_pem=public_pem(generate_private_key()[0]), merchant_account=merchant_account).id
        ),
        "digital_wallet_id": str(DigitalWalletFactory(merchant_account=merchant_account).id),
        **_report_values(merchant_account),
    }


def _another_key(merchant_account):
    private_key, _ = generate_private_key()
    return api_key_register(public_key_pem=public_pem(private_key), merchant_account=merchant_account)


def _report_values(merchant_account) -> dict[str, str]:
    execution = ReportExecutionFactory(report__merchant_account=merchant_account)
    return {"report_id": str(execution.report_id), "report_execution_id": str(execution.id)}


def _resolve(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if len(schema.get("allOf", [])) == 1:
        return _resolve(document, schema["allOf"][0])
    return schema


def example_of(document: dict, schema: dict, depth: int = 0) -> object:
    """The value the document's examples make for `schema`: its own example, else an object of its properties'
    examples, else a list of one such item; `_SKIP` when the document shows none."""
    if "example" in schema:
        return schema["example"]
    schema = _resolve(document, schema)
    if "example" in schema:
        return schema["example"]
    if depth > 6:
        return _SKIP
    if schema.get("type") == "object" or "properties" in schema:
        built = {}
        for name, child in (schema.get("properties") or {}).items():
            if child.get("readOnly"):
                continue
            value = example_of(document, child, depth + 1)
            if value is not _SKIP:
                built[name] = value
        return built or _SKIP
    if schema.get("type") == "array" and "items" in schema:
        item = example_of(document, schema["items"], depth + 1)
        return _SKIP if item is _SKIP else [item]
    return _SKIP


def _operations(document: dict) -> list[tuple[str, str, dict]]:
    return [
        (method, path, operation)
        for path, operations in sorted(document["paths"].items())
        for method, operation in operations.items()
        if method in {"get", "post", "put", "delete"}
    ]


def _headers(operation: dict) -> dict[str, str]:
    return {
        "HTTP_" + parameter["name"].upper().replace("-", "_"): parameter["example"]
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "header" and "example" in parameter
    }


def _filled(sent: object, pointer: str) -> bool:
    """Whether `pointer` names a value the request sent (not a field left out for want of an example)."""
    value = sent
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False
    return True


def _refused(response, location: str, sent: dict) -> list[dict]:
    """The details of a 400 that point at something the examples filled."""
    if response.status_code != 400:
        return []
    return [
        entry
        for entry in response.json()["details"]
        if entry["location"] == location and entry["pointer"] != "/" and _filled(sent, entry["pointer"])
    ]


def test_the_document_shows_examples_of_both_kinds(document):
    bodies = [op for _, _, op in _operations(document) if "requestBody" in op]
    queries = [p for _, _, op in _operations(document) for p in op.get("parameters", []) if "example" in p]
    assert bodies
    assert any(p["in"] == "query" for p in queries)


def test_every_request_body_built_from_the_examples_is_accepted(document, all_accounts_client, path_values):
    # A key made for every account (acting for `default`) reaches every operation, merchant accounts included.
    client = all_accounts_client(scopes=["*.read", "*.write"], merchant_account_id="default")
    failures = []
    for method, path, operation in _operations(document):
        content = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if content is None:
            continue
        body = example_of(document, content["schema"])
        if body is _SKIP or not isinstance(body, dict):
            continue
        url = path.format(**path_values)
        sender = client if "/fields" not in path else APIClient()
        response = getattr(sender, method)(url, body, format="json", **_headers(operation))
        refused = _refused(response, "body", body)
        assert response.status_code < 500, (method, path, response.content)
        if refused:
            failures.append((method, path, refused))

    assert failures == [], "\n".join(map(str, failures))


def test_every_query_parameter_example_is_accepted(document, all_accounts_client, path_values):
    client = all_accounts_client(scopes=["*.read", "*.write"], merchant_account_id="default")
    failures = []
    for method, path, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            if parameter["in"] != "query" or "example" not in parameter:
                continue
            url = path.format(**path_values)
            response = getattr(client, method)(url, {parameter["name"]: parameter["example"]}, **_headers(operation))
            assert response.status_code < 500, (method, path, response.content)
            if _refused(response, "query", {parameter["name"]: parameter["example"]}):
                failures.append((method, path, parameter["name"], response.json()["details"]))

    assert failures == [], "\n".join(map(str, failures))
