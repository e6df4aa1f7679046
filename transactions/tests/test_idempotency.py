"""Idempotency-Key on create, capture, void and refunds, through the API."""

import pytest

from payments.rest.models import IdempotencyRecord
from transactions.models import Refund, Transaction
from transactions.tests.connectors import ProcessorDown
from transactions.tests.test_api import assert_error, body, create, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def test_a_retried_create_replays_the_first_answer(client):
    first = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="order-1")
    again = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="order-1")

    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again["Content-Type"] == "application/json"
    assert "Idempotent-Replayed" not in first
    assert again["Idempotent-Replayed"] == "true"
    assert Transaction.objects.count() == 1


def test_a_replayed_decline_is_the_same_decline(client):
    declined = body(payment_method={**body()["payment_method"], "number": "4000000000000002"})

    first = post(client, "/transactions", declined, HTTP_IDEMPOTENCY_KEY="k")
    again = post(client, "/transactions", declined, HTTP_IDEMPOTENCY_KEY="k")

    assert again.json() == first.json()
    assert again.json()["status"] == "authorization_declined"
    assert Transaction.objects.count() == 1


def test_the_same_key_with_another_request_is_refused(client):
    post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="k")

    response = post(client, "/transactions", body(amount=1), HTTP_IDEMPOTENCY_KEY="k")

    payload = assert_error(response, 400, "/idempotency-key")
    assert payload["details"][0]["location"] == "header"
    assert Transaction.objects.count() == 1


def test_a_key_still_in_flight_is_a_409(client, merchant_account):
    from payments.rest.idempotency import idempotency_claim, request_fingerprint
    from payments.tests.test_idempotency import _request

    request = _request(body(), path="/transactions")
    idempotency_claim(merchant_account=merchant_account, key="k", fingerprint=request_fingerprint(request))

    response = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="k")

    assert assert_error(response, 409, "/idempotency-key")["message"].startswith("A request with this Idempotency-Key")
    assert not Transaction.objects.exists()


def test_keys_are_per_merchant_account(merchant_account, other_merchant_account):
    from rest_framework.test import APIClient

    from payments.accounts.keys import generate_private_key, mint_token, public_pem
    from payments.accounts.services import api_key_register

    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=None)  # acts for every account
    token = mint_token(private_pem, scopes=["transactions.write"])
    answers = []
    for account in ("default", "other"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=account)
        answers.append(post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="shared"))

    assert [answer.status_code for answer in answers] == [201, 201]
    assert [answer.json()["merchant_account_id"] for answer in answers] == ["default", "other"]
    assert "Idempotent-Replayed" not in answers[1]
    assert Transaction.objects.count() == 2


def test_a_refused_request_stores_nothing_and_frees_the_key(client):
    created = create(client)

    refused = post(client, f"/transactions/{created['id']}/capture", {"amount": 99_999}, HTTP_IDEMPOTENCY_KEY="cap")
    accepted = post(client, f"/transactions/{created['id']}/capture", {"amount": 500}, HTTP_IDEMPOTENCY_KEY="cap")

    assert_error(refused, 400, "/amount")
    assert accepted.status_code == 200
    assert IdempotencyRecord.objects.get().response_status == 200


def test_an_invalid_transition_stores_nothing(client):
    created = create(client)
    client.post(f"/transactions/{created['id']}/void")

    assert_error(post(client, f"/transactions/{created['id']}/capture", {}, HTTP_IDEMPOTENCY_KEY="c"), 409)

    assert not IdempotencyRecord.objects.exists()


def test_capture_void_and_refunds_replay(client):
    first = create(client)
    second = create(client, intent="capture")
    requests = [
        (f"/transactions/{first['id']}/capture", {"amount": 100}, {"HTTP_PREFER": "resource=transaction-capture"}),
        (f"/transactions/{second['id']}/refunds", {"amount": 100}, {}),
        (f"/transactions/{second['id']}/refunds/all", None, {}),
    ]

    for path, payload, headers in requests:
        original = post(client, path, payload, HTTP_IDEMPOTENCY_KEY=path, **headers)
        replayed = post(client, path, payload, HTTP_IDEMPOTENCY_KEY=path, **headers)
        assert (replayed.status_code, replayed.json()) == (original.status_code, original.json()), path
        assert replayed["Idempotent-Replayed"] == "true"
    third = create(client)
    voided = client.post(f"/transactions/{third['id']}/void", HTTP_IDEMPOTENCY_KEY="void")
    replayed = client.post(f"/transactions/{third['id']}/void", HTTP_IDEMPOTENCY_KEY="void")
    assert (replayed.status_code, replayed.json()) == (200, voided.json())
    assert Refund.objects.count() == 2
    assert Transaction.objects.get(pk=first["id"]).captured_amount == 100


def test_a_different_prefer_header_is_a_different_request(client):
    created = create(client)
    path = f"/transactions/{created['id']}/capture"

    post(client, path, {}, HTTP_IDEMPOTENCY_KEY="c")

    assert_error(post(client, path, {}, HTTP_IDEMPOTENCY_KEY="c", HTTP_PREFER="resource=transaction-capture"), 400)


def test_an_unknown_outcome_answers_500_to_every_retry(client, connector):
    connector.script["authorize"] = ProcessorDown

    first = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="k")
    connector.script.clear()
    again = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="k")

    assert_error(first, 500)
    assert_error(again, 500)
    assert again["Idempotent-Replayed"] == "true"
    assert Transaction.objects.get().status == "processing"
    assert [name for name, _ in connector.calls] == ["authorize"]


def test_a_malformed_key_is_a_400(client):
    assert_error(post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="x" * 256), 400, "/idempotency-key")
    assert not Transaction.objects.exists()


def _bare_digest(payload: dict) -> str:
    """The unkeyed SHA-256 fingerprint earlier releases stored for a `POST /transactions` with `payload`."""
    import hashlib
    import json

    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256("\n".join(["POST", "/transactions", "", canonical]).encode()).hexdigest()


def test_the_stored_fingerprint_of_a_card_payment_cannot_be_tested_without_the_key(client, settings):
    post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="k")

    stored = IdempotencyRecord.objects.get().fingerprint
    assert stored != _bare_digest(body())
    # A guess at the body (the right one here) gives nothing to compare with: the stored value depends on the key.
    from payments.rest.idempotency import fingerprint_of_digest

    assert stored == fingerprint_of_digest(_bare_digest(body()))
    settings.CARD_FINGERPRINT_KEY = "b3RoZXItZmluZ2VycHJpbnQta2V5LW90aGVyLWZpbmdlcnA"
    assert fingerprint_of_digest(_bare_digest(body())) != stored


def _rekey_migration():
    import importlib

    return importlib.import_module("payments.migrations.0013_idempotency_keyed_fingerprint")


def test_the_migration_rekeys_bare_fingerprints_so_a_retry_still_replays(client, merchant_account):
    from datetime import timedelta

    from django.apps import apps
    from django.utils import timezone

    first = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="before-upgrade")
    keyed = IdempotencyRecord.objects.get()
    # As an earlier release left it: the bare digest of the request. And one row past its retention.
    IdempotencyRecord.objects.filter(pk=keyed.pk).update(fingerprint=_bare_digest(body()))
    expired = IdempotencyRecord.objects.create(
        merchant_account=merchant_account, key="expired", fingerprint="0" * 64, expires_at=timezone.now()
    )
    keyed_elsewhere = IdempotencyRecord.objects.create(
        merchant_account=merchant_account, key="new", fingerprint="A" * 43, expires_at=timezone.now() + timedelta(1)
    )

    _rekey_migration().rekey_fingerprints(apps, None)

    assert IdempotencyRecord.objects.get(pk=keyed.pk).fingerprint == keyed.fingerprint
    assert not IdempotencyRecord.objects.filter(pk=expired.pk).exists()
    assert IdempotencyRecord.objects.get(pk=keyed_elsewhere.pk).fingerprint == "A" * 43
    again = post(client, "/transactions", body(), HTTP_IDEMPOTENCY_KEY="before-upgrade")
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert Transaction.objects.count() == 1
    other = post(client, "/transactions", body(amount=1), HTTP_IDEMPOTENCY_KEY="before-upgrade")
    assert_error(other, 400, "/idempotency-key")


def test_the_migration_uses_the_label_the_code_uses():
    from payments.rest.idempotency import FINGERPRINT_PURPOSE

    assert _rekey_migration().PURPOSE == FINGERPRINT_PURPOSE


def test_the_migration_rekeys_every_batch(merchant_account, monkeypatch):
    from datetime import timedelta

    from django.apps import apps
    from django.utils import timezone

    from payments.rest.idempotency import fingerprint_of_digest

    migration = _rekey_migration()
    monkeypatch.setattr(migration, "_BATCH", 2)
    bare = [f"{n:064x}" for n in range(5)]
    for n, digest in enumerate(bare):
        IdempotencyRecord.objects.create(
            merchant_account=merchant_account, key=f"k{n}", fingerprint=digest, expires_at=timezone.now() + timedelta(1)
        )

    migration.rekey_fingerprints(apps, None)

    stored = list(IdempotencyRecord.objects.order_by("key").values_list("fingerprint", flat=True))
    assert stored == [fingerprint_of_digest(digest) for digest in bare]
