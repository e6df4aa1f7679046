"""The official `gr4vy` SDK, unchanged, against a running server: transactions and refunds end to end."""

from datetime import UTC, datetime, timedelta

import pytest
from gr4vy import errors, models

from checkout.tests.factories import CheckoutSessionFactory
from payments.vault.models import VaultedCard
from transactions.models import Transaction

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


def test_create_get_capture_refund_and_list_refunds(sdk):
    created = sdk.transactions.create(
        amount=1299,
        currency="USD",
        country="US",
        payment_method=CARD,
        external_identifier="order-1",
        metadata={"cart": "42"},
        idempotency_key="order-1-attempt",
    )
    assert isinstance(created, models.Transaction)
    assert (created.status, created.authorized_amount, created.payment_method.label) == (
        "authorization_succeeded",
        1299,
        "1111",
    )

    fetched = sdk.transactions.get(transaction_id=created.id)
    assert (fetched.id, fetched.external_identifier, fetched.metadata) == (created.id, "order-1", {"cart": "42"})

    captured = sdk.transactions.capture(transaction_id=created.id, amount=1000)
    assert isinstance(captured, models.Transaction)
    assert (captured.status, captured.captured_amount) == ("capture_succeeded", 1000)

    refund = sdk.transactions.refunds.create(transaction_id=created.id, amount=400, reason="damaged")
    assert isinstance(refund, models.Refund)
    assert (refund.amount, refund.status, refund.target_type) == (400, "succeeded", "payment-method")
    assert sdk.refunds.get(refund_id=refund.id).id == refund.id
    assert sdk.transactions.refunds.get(transaction_id=created.id, refund_id=refund.id).amount == 400

    everything = sdk.transactions.refunds.all.create(transaction_id=created.id, reason="order canceled")
    assert [item.amount for item in everything.items] == [600]
    listed = sdk.transactions.refunds.list(transaction_id=created.id)
    assert [item.amount for item in listed.items] == [600, 400]
    assert sdk.transactions.get(transaction_id=created.id).refunded_amount == 1000


def test_the_sdk_lists_every_refund_of_a_transaction_past_twenty(sdk):
    # The SDK's refunds list takes no cursor: a server that paged it at 20 hid the rest from SDK users.
    created = sdk.transactions.create(amount=5000, currency="USD", payment_method=CARD, intent="capture")
    made = [sdk.transactions.refunds.create(transaction_id=created.id, amount=10).id for _ in range(25)]

    listed = sdk.transactions.refunds.list(transaction_id=created.id)

    assert [item.id for item in listed.items] == made[::-1]  # newest first
    assert listed.next_cursor is None
    assert listed.previous_cursor is None
    assert sdk.transactions.get(transaction_id=created.id).refunded_amount == 250


def test_capture_and_void_with_prefer_return_the_wrappers(sdk):
    first = sdk.transactions.create(amount=500, currency="USD", payment_method=CARD)
    second = sdk.transactions.create(amount=700, currency="USD", payment_method=CARD)

    capture = sdk.transactions.capture(transaction_id=first.id, prefer=["resource=transaction-capture"])
    void = sdk.transactions.void(transaction_id=second.id, prefer=["resource=transaction-void"])

    assert isinstance(capture, models.TransactionCapture)
    assert (capture.status, capture.transaction.captured_amount) == ("succeeded", 500)
    assert isinstance(void, models.TransactionVoid)
    assert (void.status, void.transaction.status) == ("succeeded", "authorization_voided")
    third = sdk.transactions.create(amount=100, currency="USD", payment_method=CARD)
    assert sdk.transactions.void(transaction_id=third.id).status == "authorization_voided"


def test_create_with_a_checkout_session(sdk, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    created = sdk.transactions.create(
        amount=1299, currency="USD", payment_method={"method": "checkout-session", "id": str(session.pk)}
    )

    assert (created.status, created.checkout_session_id) == ("authorization_succeeded", str(session.pk))
    assert VaultedCard.objects.get(pk=session.card_id).encrypted_security_code is None


def test_list_with_filters_pages_with_next(sdk):
    for amount in range(100, 125):
        sdk.transactions.create(amount=amount, currency="USD", payment_method=CARD, metadata={"batch": "a"})
    declined = sdk.transactions.create(
        amount=999, currency="USD", payment_method={**CARD, "number": "4000000000000002"}
    )
    assert declined.status == "authorization_declined"

    seen, page = [], sdk.transactions.list(status=["authorization_succeeded"], metadata=['{"batch": "a"}'], limit=10)
    while page is not None:
        seen.extend(item.amount for item in page.result.items)
        page = page.next()

    assert sorted(seen) == list(range(100, 125))
    since = datetime.now(UTC) - timedelta(minutes=5)
    found = sdk.transactions.list(status=["authorization_declined"], created_at_gte=since, amount_gte=500)
    assert [item.id for item in found.result.items] == [declined.id]
    assert [item.error_code for item in found.result.items] == ["issuer_decline"]


def test_errors_are_typed(sdk):
    created = sdk.transactions.create(amount=100, currency="USD", payment_method=CARD)
    sdk.transactions.void(transaction_id=created.id)

    with pytest.raises(errors.Error409):
        sdk.transactions.capture(transaction_id=created.id)
    with pytest.raises(errors.Error400):
        sdk.transactions.create(amount=100, currency="USD", payment_method={**CARD, "number": "4111111111111112"})
    with pytest.raises(errors.Error404):
        sdk.transactions.get(transaction_id="6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11")
    assert Transaction.objects.count() == 1


def test_the_sdks_new_filters_filter_end_to_end(sdk):
    grace = sdk.transactions.create(
        amount=1500,
        currency="USD",
        payment_method=CARD,
        buyer={"display_name": "Grace", "billing_details": {"email_address": "grace@example.com"}},
        payment_source="moto",
        merchant_initiated=True,
        three_d_secure_data={
            "version": "2.2.0",
            "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
            "eci": "05",
            "directory_response": "Y",
            "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
        },
        statement_descriptor={"name": "TEA SHOP"},
    )
    other = sdk.transactions.create(amount=700, currency="USD", payment_method=CARD)
    assert (grace.three_d_secure.status, grace.statement_descriptor.name) == ("complete", "TEA SHOP")

    def ids(**filters) -> list[str]:
        return [item.id for item in sdk.transactions.list(**filters).result.items]

    assert ids(buyer_email_address="Grace@Example.com") == [grace.id]
    assert ids(buyer_search=["grace@example.com"]) == [grace.id]
    assert ids(payment_source=["moto"]) == [grace.id]
    assert ids(merchant_initiated=False) == [other.id]
    assert ids(used_3ds=True) == [grace.id]
    assert ids(reconciliation_id=other.reconciliation_id) == [other.id]
    assert ids(reconciliation_id="zzz") == []
    assert ids(disputed=True) == []
    assert ids(disputed=False) == [other.id, grace.id]
    assert ids(payment_method_id="6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11") == []


def test_an_input_the_server_cannot_honour_is_a_typed_400(sdk):
    with pytest.raises(errors.Error400) as refused:
        sdk.transactions.create(
            amount=100, currency="USD", payment_method=CARD, payment_service_id="6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11"
        )
    assert [detail.pointer for detail in refused.value.data.details] == ["/payment_service_id"]
    assert not Transaction.objects.exists()
