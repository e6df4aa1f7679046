"""A stored method's network tokens and the account updater: the list answers the tokens this server holds (none: no
network token service is configured), and every operation that would ask such a service is refused by name, in the
error envelope, once the method it names is found; nothing is written."""

from __future__ import annotations

import uuid

import pytest

from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

REFUSAL = "no network token service is configured"


@pytest.fixture
def method(merchant_account) -> PaymentMethod:
    return PaymentMethodFactory(merchant_account=merchant_account)


@pytest.fixture
def client(api_client):
    return api_client(scopes=["payment-methods.read", "payment-methods.write"])


def _tokens(method_id: object) -> str:
    return f"/payment-methods/{method_id}/network-tokens"


def _token(method_id: object) -> str:
    return f"{_tokens(method_id)}/{uuid.uuid4()}"


# (HTTP method, path under the stored method, body, the operation the refusal names), as upstream's document lists them.
REFUSED = [
    (
        "post",
        _tokens,
        {"merchant_initiated": False, "is_subsequent_payment": False},
        "POST /payment-methods/{payment_method_id}/network-tokens",
    ),
    ("delete", _token, None, "DELETE /payment-methods/{payment_method_id}/network-tokens/{network_token_id}"),
    (
        "post",
        lambda m: f"{_token(m)}/suspend",
        None,
        "POST /payment-methods/{payment_method_id}/network-tokens/{network_token_id}/suspend",
    ),
    (
        "post",
        lambda m: f"{_token(m)}/resume",
        None,
        "POST /payment-methods/{payment_method_id}/network-tokens/{network_token_id}/resume",
    ),
    (
        "post",
        lambda m: f"{_token(m)}/cryptogram",
        {"merchant_initiated": False},
        "POST /payment-methods/{payment_method_id}/network-tokens/{network_token_id}/cryptogram",
    ),
]
REFUSED_IDS = ["provision", "delete", "suspend", "resume", "cryptogram"]


def _call(client, verb, path, body):
    return getattr(client, verb)(path, body, format="json") if body is not None else getattr(client, verb)(path)


def test_a_stored_method_has_no_network_tokens(client, method):
    response = client.get(_tokens(method.pk))

    assert response.status_code == 200
    assert response.json() == {"items": []}


def test_the_network_tokens_of_a_method_not_found_are_a_404(client, method, api_client, other_merchant_account):
    assert_error(client.get(_tokens(uuid.uuid4())), 404)
    elsewhere = PaymentMethodFactory(merchant_account=other_merchant_account)
    assert_error(client.get(_tokens(elsewhere.pk)), 404)


@pytest.mark.parametrize(("verb", "path", "body", "operation"), REFUSED, ids=REFUSED_IDS)
def test_each_token_operation_is_refused_by_name(client, method, verb, path, body, operation):
    before = PaymentMethod.objects.values().get(pk=method.pk)

    response = _call(client, verb, path(method.pk), body)

    envelope = assert_error(response, 400)
    assert envelope["message"] == f"Request failed validation: {operation} is not supported: {REFUSAL}."
    assert PaymentMethod.objects.values().get(pk=method.pk) == before


@pytest.mark.parametrize(("verb", "path", "body", "operation"), REFUSED, ids=REFUSED_IDS)
def test_a_token_operation_on_a_method_not_found_is_a_404_first(client, verb, path, body, operation):
    assert_error(_call(client, verb, path(uuid.uuid4()), body), 404)


@pytest.mark.parametrize(("verb", "path", "body", "operation"), REFUSED, ids=REFUSED_IDS)
def test_a_malformed_body_is_refused_as_such(client, method, verb, path, body, operation):
    response = getattr(client, verb)(path(method.pk), "{", content_type="application/json")

    assert_error(response, 400, "/")


@pytest.mark.parametrize(
    ("verb", "suffix", "admitted"),
    [
        ("get", "", {"payment-methods.read", "*.read"}),
        ("post", "", {"payment-methods.write", "*.write"}),
        ("delete", "/{token}", {"payment-methods.write", "*.write"}),
        ("post", "/{token}/suspend", {"payment-methods.write", "*.write"}),
        ("post", "/{token}/resume", {"payment-methods.write", "*.write"}),
        # As upstream: a cryptogram is asked with the read scope.
        ("post", "/{token}/cryptogram", {"payment-methods.read", "*.read"}),
    ],
    ids=["list", "provision", "delete", "suspend", "resume", "cryptogram"],
)
@pytest.mark.parametrize(
    "scope", ["payment-methods.read", "payment-methods.write", "*.read", "*.write", "buyers.read", "embed"]
)
def test_the_scope_matrix(api_client, method, verb, suffix, admitted, scope):
    path = _tokens(method.pk) + suffix.format(token=uuid.uuid4())
    response = getattr(api_client(scopes=[scope]), verb)(path)

    if scope in admitted:
        assert response.status_code in (200, 400), response.content
        if response.status_code == 400:
            assert REFUSAL in response.json()["message"]
    else:
        assert_error(response, 403)


def test_no_token_is_a_401(method):
    from rest_framework.test import APIClient

    assert_error(APIClient().get(_tokens(method.pk)), 401)


def test_a_token_id_that_is_no_uuid_is_an_unknown_url(client, method):
    assert_error(client.delete(f"{_tokens(method.pk)}/not-a-token"), 404)


def test_the_list_is_one_query_once_the_key_is_known(client, method, settings, django_assert_num_queries):
    settings.API_KEY_CACHE_SECONDS = 3600
    assert client.get(_tokens(method.pk)).status_code == 200

    with django_assert_num_queries(1):
        assert client.get(_tokens(method.pk)).status_code == 200


# --- the account updater ----------------------------------------------------------------------------------------


def test_an_account_updater_job_is_refused_by_name(client, method):
    response = client.post("/account-updater/jobs", {"payment_method_ids": [str(method.pk)]}, format="json")

    envelope = assert_error(response, 400)
    assert envelope["message"] == f"Request failed validation: POST /account-updater/jobs is not supported: {REFUSAL}."


@pytest.mark.parametrize(
    ("scope", "status"), [("payment-methods.write", 400), ("*.write", 400), ("payment-methods.read", 403)]
)
def test_an_account_updater_job_takes_the_write_scope(api_client, scope, status):
    response = api_client(scopes=[scope]).post("/account-updater/jobs", {"payment_method_ids": []}, format="json")

    assert_error(response, status)
