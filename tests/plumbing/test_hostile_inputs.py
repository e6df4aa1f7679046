"""Inputs a fuzzer does not reach, each a table: nesting depth, chunked bodies, NUL bytes in paths and queries.

Each answers a 4xx in the error envelope and writes nothing. What gunicorn refuses before Django sees the request
(oversized headers and request lines, NUL bytes in headers) is in tests/test_server_errors.py, against a real
gunicorn process.
"""

import io
import json
import uuid

import pytest
from django.core.management import call_command
from django.test import Client

from buyers.models import Buyer, ShippingDetails
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from checkout.models import CheckoutSession
from checkout.tests.factories import CheckoutSessionFactory
from digitalwallets.models import DigitalWallet
from digitalwallets.tests.factories import DigitalWalletFactory
from disputes.tests.factories import DisputeFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.accounts.models import ApiKey, MerchantAccount
from payments.rest.models import IdempotencyRecord
from payments.rest.parsers import json_depth
from payments.tests.assertions import assert_error
from paymentservices.models import PaymentService, PaymentServiceToken
from reports.models import Report
from reports.tests.factories import ReportExecutionFactory
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario
from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for
from transactions.models import Refund, Transaction, TransactionEvent
from transactions.tests.factories import TransactionFactory
from webhooks.models import WebhookSubscription
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

LIMIT = 32  # API_MAX_JSON_DEPTH's default
SHIPPED = 100_000  # the body: 100,000 levels, 200 KB


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# Every operation that reads a JSON body, with the objects its path names (see test_the_table_covers_...).
BODY_OPERATIONS = [
    ("post", "/buyers", {}),
    ("put", "/buyers/{buyer_id}", {}),
    ("post", "/buyers/{buyer_id}/shipping-details", {}),
    ("put", "/buyers/{buyer_id}/shipping-details/{shipping_details_id}", {}),
    ("post", "/gift-cards", {}),
    ("post", "/gift-cards/balances", {}),
    ("post", "/checkout/sessions", {}),
    ("put", "/checkout/sessions/{session_id}", {}),
    ("put", "/checkout/sessions/{session_id}/fields", {}),
    ("post", "/checkout/sessions/{session_id}/fields", {}),
    ("post", "/transactions", {}),
    ("post", "/transactions", {"HTTP_IDEMPOTENCY_KEY": "deep-1"}),
    ("put", "/transactions/{transaction_id}", {}),
    ("post", "/transactions/{transaction_id}/capture", {}),
    ("post", "/transactions/{transaction_id}/authorization/increment", {}),
    ("post", "/transactions/{transaction_id}/void", {"HTTP_IDEMPOTENCY_KEY": "deep-2"}),
    ("post", "/transactions/{transaction_id}/refunds", {}),
    ("post", "/transactions/{transaction_id}/refunds/all", {}),
    ("post", "/payment-options", {}),
    ("post", "/payment-methods", {}),
    ("put", "/payment-methods/{payment_method_id}", {}),
    ("post", "/webhook-subscriptions", {}),
    ("put", "/webhook-subscriptions/{subscription_id}", {}),
    ("post", "/webhook-subscriptions/{subscription_id}/rotate-secret", {}),
    ("post", "/merchant-accounts", {}),
    ("put", "/merchant-accounts/{merchant_account_id}", {}),
    ("post", "/merchant-accounts/{merchant_account_id}/three-ds-configurations", {}),
    ("put", "/merchant-accounts/{merchant_account_id}/three-ds-configurations/{three_ds_configuration_id}", {}),
    ("post", "/three-ds-scenarios", {}),
    ("put", "/three-ds-scenarios/{three_ds_scenario_id}", {}),
    ("post", "/payment-services", {}),
    ("put", "/payment-services/{payment_service_id}", {}),
    ("post", "/payment-services/verify", {}),
    ("post", "/payment-services/{payment_service_id}/sessions", {}),
    ("post", "/payment-service-definitions/{payment_service_definition_id}/sessions", {}),
    ("post", "/payment-methods/{payment_method_id}/network-tokens", {}),
    ("post", "/payment-methods/{payment_method_id}/payment-service-tokens", {}),
    ("post", "/payment-methods/{payment_method_id}/network-tokens/{network_token_id}/cryptogram", {}),
    ("post", "/account-updater/jobs", {}),
    ("post", "/reports", {}),
    ("put", "/reports/{report_id}", {}),
    ("post", "/reports/{report_id}/executions/{report_execution_id}/url", {}),
    ("post", "/api-key-pairs", {}),
    ("put", "/api-key-pairs/{api_key_pair_id}", {}),
    ("post", "/payouts", {}),
    ("post", "/transactions/{transaction_id}/disputes/{dispute_id}/defend", {}),
    ("post", "/checkout/sessions/{session_id}/card-details", {}),
    ("post", "/transactions/{transaction_id}/session", {}),
    ("post", "/gift-cards/issuances", {}),
    ("post", "/gift-cards/activations", {}),
    ("post", "/payment-links", {}),
    ("post", "/digital-wallets", {}),
    ("put", "/digital-wallets/{digital_wallet_id}", {}),
    ("post", "/digital-wallets/{digital_wallet_id}/domains", {}),
    ("delete", "/digital-wallets/{digital_wallet_id}/domains", {}),
    ("post", "/digital-wallets/{digital_wallet_id}/certificates", {}),
    ("post", "/digital-wallets/apple/session", {}),
    ("post", "/digital-wallets/google/session", {}),
]


@pytest.fixture
def objects(merchant_account, api_key, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]  # no delivery is made: the deep bodies are refused first
    buyer = BuyerFactory(merchant_account=merchant_account)
    return {
        "buyer_id": buyer.id,
        "shipping_details_id": ShippingDetailsFactory(buyer=buyer).id,
        "session_id": CheckoutSessionFactory(merchant_account=merchant_account).id,
        "transaction_id": (txn := TransactionFactory(merchant_account=merchant_account, captured=True)).id,
        "dispute_id": DisputeFactory(transaction=txn).id,
        "subscription_id": subscription_for(merchant_account, "http://127.0.0.1:9/payments").id,
        "payment_method_id": PaymentMethodFactory(merchant_account=merchant_account).id,
        "merchant_account_id": merchant_account.id,
        "three_ds_configuration_id": ThreeDSConfigurationFactory(merchant_account=merchant_account).id,
        "three_ds_scenario_id": scenario_for(merchant_account, amount=1).id,
        "payment_service_id": PaymentService.objects.get(merchant_account=merchant_account).id,
        "payment_service_definition_id": "stripe-card",
        "network_token_id": uuid.uuid4(),
        "payment_service_token_id": uuid.uuid4(),
        "api_key_pair_id": api_key.id,  # the key that signs `api_client`'s tokens
        "digital_wallet_id": DigitalWalletFactory(merchant_account=merchant_account).id,
        **_report_objects(merchant_account),
    }


def _report_objects(merchant_account) -> dict:
    execution = ReportExecutionFactory(report__merchant_account=merchant_account)
    return {"report_id": execution.report_id, "report_execution_id": execution.id}


def _counts() -> tuple[int, ...]:
    models = (
        Buyer,
        ShippingDetails,
        CheckoutSession,
        Transaction,
        TransactionEvent,
        Refund,
        IdempotencyRecord,
        WebhookSubscription,
        PaymentMethod,
        MerchantAccount,
        ThreeDSConfiguration,
        ThreeDSScenario,
        PaymentService,
        PaymentServiceToken,
        Report,
        ApiKey,
        DigitalWallet,
    )
    return tuple(model.objects.count() for model in models)


@pytest.mark.parametrize(
    "depth", [LIMIT + 1, 1000, SHIPPED], ids=[f"depth-{LIMIT + 1}", "depth-1000", f"depth-{SHIPPED}"]
)
@pytest.mark.parametrize(
    ("method", "path", "headers"),
    BODY_OPERATIONS,
    ids=[f"{m} {p}{' +key' if h else ''}" for m, p, h in BODY_OPERATIONS],
)
def test_a_body_nested_too_deep_is_a_400_before_decoding(
    api_client, all_accounts_client, objects, method, path, headers, depth
):
    before = _counts()
    client = api_client() if "/fields" not in path else Client()  # Secure Fields takes no token
    if path.startswith("/merchant-accounts"):
        client = all_accounts_client()  # only a key made for every account reaches the body

    response = getattr(client, method)(
        path.format(**objects), nested(depth), content_type="application/json", **headers
    )

    body = assert_error(response, 400, "/", location="body")
    assert body["message"] == f"Request failed validation: The JSON body is nested more than {LIMIT} levels deep."
    assert body["details"][0]["type"] == "JsonTooDeep"
    assert _counts() == before


@pytest.mark.parametrize("depth", [LIMIT + 1, 1100], ids=[f"depth-{LIMIT + 1}", "depth-1100"])
@pytest.mark.parametrize(
    ("path", "name"),
    [("/transactions", "metadata"), ("/transactions", "search"), ("/buyers", "search")],
    ids=["transactions-metadata", "transactions-search", "buyers-search"],
)
def test_a_query_value_nested_too_deep_is_a_400_before_any_filter_decodes_it(api_client, objects, path, name, depth):
    # 1,100 levels fit in a request line gunicorn accepts, and a JSON filter decoding them would recurse past
    # Python's limit.
    response = api_client().get(path, {name: "[" * depth + "]" * depth})

    body = assert_error(response, 400, f"/{name}", location="query")
    assert body["details"][0]["message"] == f"Nested more than {LIMIT} levels deep."


@pytest.mark.parametrize(
    ("body", "depth"),
    [
        ("{}", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('"[[[[[[["', 0),
        ('{"a": "x\\"[[[["}', 1),
        ('["\\\\", ["\\\\"]]', 2),
        ("[" * 40 + "]" * 40, 40),
        ("[" * 5 + "]" * 5 + "[" * 3, 5),
    ],
    ids=["object", "mixed", "brackets-in-a-string", "escaped-quote", "escaped-backslash", "deep", "sequential"],
)
def test_depth_counts_arrays_and_objects_outside_strings(body, depth):
    assert json_depth(body) == depth


def test_a_body_at_the_limit_is_decoded_and_validated(api_client, merchant_account):
    # A metadata value nested exactly LIMIT levels deep: past the depth check, refused by validation instead.
    payload = '{"display_name": "Deep", "billing_details": ' + "[" * (LIMIT - 1) + "]" * (LIMIT - 1) + "}"

    response = api_client().post("/buyers", payload, content_type="application/json")

    body = assert_error(response, 400, "/billing_details")
    assert body["details"][0]["type"] != "JsonTooDeep"
    assert not Buyer.objects.exists()


def test_the_depth_limit_is_a_setting(api_client, merchant_account, settings):
    settings.API_MAX_JSON_DEPTH = 2

    response = api_client().post("/buyers", '{"billing_details": {"address": {}}}', content_type="application/json")

    assert assert_error(response, 400, "/")["message"] == (
        "Request failed validation: The JSON body is nested more than 2 levels deep."
    )


def test_the_table_covers_every_operation_that_takes_a_body():
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    schema = json.loads(out.getvalue())
    with_body = {
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if "requestBody" in operation
    }

    assert with_body <= {(method, path) for method, path, _ in BODY_OPERATIONS}


# --- chunked bodies -----------------------------------------------------------------------------------------
# Behind gunicorn a chunked body reaches Django de-chunked, with no Content-Length and `wsgi.input_terminated`
# set (PEP 3333). The test client builds exactly that environ here; tests/test_server_errors.py sends real
# chunked framing to a real gunicorn.


def _chunked(client, method: str, path: str, body: bytes, *, terminated: bool = True, **headers):
    # A plain stream, as a server's: the test client's own refuses a read past its end, which a server's allows.
    environ = {"HTTP_TRANSFER_ENCODING": "chunked", "CONTENT_LENGTH": "", "wsgi.input": io.BytesIO(body), **headers}
    if terminated:
        environ["wsgi.input_terminated"] = True
    return client.generic(method.upper(), path, body, content_type="application/json", **environ)


def test_a_chunked_body_is_read_like_any_other(api_client, merchant_account):
    body = json.dumps({"display_name": "Chunky", "external_identifier": "chunk-1"}).encode()

    response = _chunked(api_client(), "post", "/buyers", body)

    assert response.status_code == 201, response.content
    buyer = Buyer.objects.get()
    assert (buyer.display_name, buyer.external_identifier) == ("Chunky", "chunk-1")


def test_a_chunked_secure_fields_body_stores_the_card(merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account)
    card = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}

    response = _chunked(
        Client(), "put", f"/checkout/sessions/{session.id}/fields", json.dumps({"payment_method": card}).encode()
    )

    assert response.status_code == 204, response.content
    session.refresh_from_db()
    assert session.card is not None


@pytest.mark.parametrize("size", [1024 * 1024 + 1, 2 * 1024 * 1024, 3 * 1024 * 1024], ids=["limit+1", "2MB", "3MB"])
def test_a_chunked_body_over_the_limit_is_a_413(api_client, merchant_account, size):
    body = b'{"display_name": "' + b"x" * size + b'"}'

    response = _chunked(api_client(), "post", "/buyers", body)

    assert_error(response, 413)
    assert not Buyer.objects.exists()


def test_a_chunked_body_at_the_limit_is_read(api_client, merchant_account, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64
    body = json.dumps({"display_name": "x" * 40}).encode()
    assert len(body) <= 64

    response = _chunked(api_client(), "post", "/buyers", body)

    assert response.status_code == 201, response.content


def test_a_chunked_body_the_server_did_not_decode_is_refused(api_client, merchant_account):
    # Without `wsgi.input_terminated` the stream is raw framing (or would block at its end): never read as JSON.
    response = _chunked(api_client(), "post", "/buyers", b'{"display_name": "x"}', terminated=False)

    assert_error(response, 411)
    assert not Buyer.objects.exists()


@pytest.mark.parametrize("coding", ["chunked", "Chunked", "gzip, chunked"], ids=["lower", "title", "listed"])
def test_any_spelling_of_chunked_is_read(api_client, merchant_account, coding):
    body = json.dumps({"display_name": "Chunky"}).encode()

    response = _chunked(api_client(), "post", "/buyers", body, HTTP_TRANSFER_ENCODING=coding)

    assert response.status_code == 201, response.content
    assert Buyer.objects.get().display_name == "Chunky"


# --- NUL bytes in paths and query strings ---------------------------------------------------------------------

NUL_REQUESTS = [
    ("get", "/buyers/%00", 404),
    ("get", "/buyers/\x00", 404),
    ("get", "/transactions/00000000-0000-0000-0000-00000000000%00", 404),
    ("get", "/checkout/sessions/%00", 404),
    ("put", "/checkout/sessions/%00/fields", 404),
    ("get", "/nope%00", 404),
    ("get", "/buyers?search=%00", 400),
    ("get", "/buyers?external_identifier=a%00b", 400),
    ("get", "/transactions?external_identifier=%00", 400),
    ("get", "/transactions?status=%00", 400),
    ("get", "/transactions?limit=1%00", 400),
    ("get", "/transactions?cursor=%00", 400),
    ("get", "/gift-cards?limit=%00", 400),
    ("post", "/buyers", 400),
]


@pytest.mark.parametrize(("method", "url", "status"), NUL_REQUESTS, ids=[f"{m} {u}" for m, u, _ in NUL_REQUESTS])
def test_a_nul_byte_in_a_path_query_or_body_is_a_4xx_envelope(api_client, merchant_account, method, url, status):
    client = api_client() if "/fields" not in url else Client()
    data = json.dumps({"display_name": "a\x00b"}) if method == "post" else None
    before = _counts()

    if data is None:
        response = getattr(client, method)(url)
    else:
        response = getattr(client, method)(url, data, content_type="application/json")

    assert_error(response, status)
    assert _counts() == before
