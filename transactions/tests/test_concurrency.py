"""Real concurrent requests against PostgreSQL: row locks and unique constraints, not luck, decide."""

import threading
from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from digitalwallets.tests.tokens import wallets_registered
from giftcards.models import IssuedGiftCard
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.rest.models import IdempotencyRecord
from payments.tests.races import at_once
from payments.vault.models import VaultedCard
from transactions.models import Refund, Transaction
from transactions.services import create as create_service
from transactions.tests.test_api import body

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_parallel(count: int, request: Callable[[APIClient], object], token: str) -> list:
    """Run `request` from `count` threads at once, each with its own client and database connection."""

    def worker() -> object:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return request(client)

    return at_once([worker] * count)


@pytest.fixture
def token(token_for, merchant_account) -> str:
    return token_for(["transactions.read", "transactions.write"])


def _authorized(token: str, **fields) -> dict:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.post("/transactions", body(amount=1000, **fields), format="json")
    assert response.status_code == 201
    return response.json()


def test_twenty_identical_requests_with_one_key_create_one_transaction(token, connector):
    answers = in_parallel(
        20,
        lambda client: client.post("/transactions", body(), format="json", HTTP_IDEMPOTENCY_KEY="one-order"),
        token,
    )

    created = [answer for answer in answers if answer.status_code == 201]
    assert {answer.status_code for answer in answers} <= {201, 409}
    assert created
    assert len({answer.content for answer in created}) == 1
    assert Transaction.objects.count() == 1
    assert [name for name, _ in connector.calls] == ["authorize"]
    assert IdempotencyRecord.objects.get().state == "completed"


def test_ten_parallel_captures_capture_once(token, connector):
    txn = _authorized(token)

    answers = in_parallel(
        10, lambda client: client.post(f"/transactions/{txn['id']}/capture", {}, format="json"), token
    )

    assert sorted(answer.status_code for answer in answers) == [200] + [409] * 9
    stored = Transaction.objects.get()
    assert (stored.status, stored.captured_amount) == ("capture_succeeded", 1000)
    assert [name for name, _ in connector.calls] == ["authorize", "capture"]
    assert stored.events.filter(name="capture_succeeded").count() == 1


def test_parallel_refunds_never_exceed_the_captured_amount(token):
    txn = _authorized(token, intent="capture")

    answers = in_parallel(
        10, lambda client: client.post(f"/transactions/{txn['id']}/refunds", {"amount": 300}, format="json"), token
    )

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses.count(201) == 3
    assert set(statuses) <= {201, 400, 409}
    refunded = sum(Refund.objects.filter(status="succeeded").values_list("amount", flat=True))
    assert refunded == Transaction.objects.get().refunded_amount == 900


def test_parallel_payments_never_overdraw_a_gift_card(token, merchant_account):
    card = IssuedGiftCardFactory(merchant_account=merchant_account, amount=1000)
    payload = {
        "amount": 400,
        "currency": "USD",
        "gift_cards": [{"number": card.number, "pin": card.pin, "amount": 400}],
    }

    answers = in_parallel(5, lambda client: client.post("/transactions", payload, format="json"), token)

    assert sorted(answer.status_code for answer in answers) == [201, 201, 400, 400, 400]
    assert IssuedGiftCard.objects.get(pk=card.pk).balance == 200
    assert Transaction.objects.count() == 2


def test_two_payments_racing_with_one_wallet_token_make_one_transaction(
    token, merchant_account, settings, tmp_path, monkeypatch
):
    """Both requests pass the check that the token is unused before either writes (held together there): the unique
    replay digest, written with the transaction's row, lets one through and refuses the other with nothing stored."""
    wallets = wallets_registered(merchant_account, settings=settings, directory=tmp_path)
    apple_pay_token = wallets.apple()
    both_checked = threading.Barrier(2)
    checked = create_service._check_wallet_payment

    def check_then_wait(*args, **kwargs):
        checked(*args, **kwargs)
        both_checked.wait(timeout=30)

    monkeypatch.setattr(create_service, "_check_wallet_payment", check_then_wait)
    payload = {"amount": 1299, "currency": "USD", "payment_method": {"method": "applepay", "token": apple_pay_token}}

    answers = in_parallel(2, lambda client: client.post("/transactions", payload, format="json"), token)

    assert sorted(answer.status_code for answer in answers) == [201, 409]
    refused = next(answer for answer in answers if answer.status_code == 409)
    assert refused.json()["details"][0]["type"] == "wallet_token_replayed"
    assert Transaction.objects.count() == 1
    assert VaultedCard.objects.count() == 1
