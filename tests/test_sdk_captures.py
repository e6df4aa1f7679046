"""The official `gr4vy` SDK, unchanged, against a running server: several captures of one authorization read back
as records, and an increment of an authorization."""

import pytest
from gr4vy import errors, models

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


def test_the_sdk_captures_in_parts_and_reads_each_capture(sdk):
    created = sdk.transactions.create(amount=1000, currency="USD", payment_method=CARD)

    first = sdk.transactions.capture(
        transaction_id=created.id, amount=400, final=False, prefer=["resource=transaction-capture"]
    )
    last = sdk.transactions.capture(transaction_id=created.id, prefer=["resource=transaction-capture"])

    assert isinstance(first, models.TransactionCapture)
    assert (first.status, last.status, last.transaction.captured_amount) == ("succeeded", "succeeded", 1000)
    listed = sdk.transactions.captures.list(transaction_id=created.id)
    assert isinstance(listed, models.CaptureCollection)
    assert [(item.amount, item.final, item.status) for item in listed.items] == [
        (600, True, "succeeded"),
        (400, False, "succeeded"),
    ]
    one = sdk.transactions.captures.get(transaction_id=created.id, capture_id=first.capture_id)
    assert isinstance(one, models.Capture)
    assert (one.id, one.amount, one.transaction_id) == (first.capture_id, 400, created.id)
    with pytest.raises(errors.Error409):
        sdk.transactions.capture(transaction_id=created.id, amount=1)


def test_the_sdk_increments_an_authorization(sdk):
    created = sdk.transactions.create(amount=1000, currency="USD", payment_method=CARD)

    incremented = sdk.transactions.increment_authorization(transaction_id=created.id, amount=500)

    assert isinstance(incremented, models.TransactionAuthorizationIncrement)
    assert (incremented.status, incremented.transaction.authorized_amount) == ("succeeded", 1500)
    captured = sdk.transactions.capture(transaction_id=created.id)
    assert captured.captured_amount == 1500
    with pytest.raises(errors.Error409):
        sdk.transactions.increment_authorization(transaction_id=created.id, amount=1)
