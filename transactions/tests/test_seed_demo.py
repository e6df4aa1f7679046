"""`manage.py seed_demo --transactions N --gift-cards N`: demo payments and gift cards, resumable."""

import csv
import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from giftcards.models import IssuedGiftCard
from transactions.demo import demo_transactions
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _seed(**options) -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def test_transactions_are_written_as_the_service_leaves_sandbox_payments_for_demo_buyers(merchant_account):
    _seed(buyers=3, transactions=40)

    transactions = list(demo_transactions(merchant_account).order_by("external_identifier"))
    assert [t.external_identifier for t in transactions] == [f"demo-transaction-{n:06d}" for n in range(1, 41)]
    for txn in transactions:
        assert txn.buyer is not None
        assert txn.buyer.merchant_account_id == "default"
        assert txn.buyer_details["id"] == str(txn.buyer_id)
        assert txn.buyer_email_address == txn.buyer.billing_details["email_address"]
        names = [event.name for event in txn.events.all()]
        assert names[0] == "transaction_created"
        assert len(names) == 2
        assert txn.events.last().to_status == txn.status
        if txn.status == "capture_succeeded":
            assert txn.captured_amount == txn.authorized_amount == txn.amount
        if txn.status == "authorization_declined":
            assert txn.error_code
            assert txn.authorized_amount == 0
    statuses = {t.status for t in transactions}
    assert {"authorization_declined", "authorization_succeeded", "capture_succeeded"} <= statuses
    assert {t.currency for t in transactions} >= {"USD", "EUR", "JPY"}


def test_seeded_transactions_read_back_through_the_api(merchant_account, api_client):
    _seed(buyers=2, transactions=12)

    response = api_client(scopes=["transactions.read"]).get("/transactions", {"limit": 20})

    assert response.status_code == 200
    assert len(response.json()["items"]) == 12
    # The sandbox decided them: the account's mock-card service answers for them (and takes their captures).
    assert {item["payment_service"]["payment_service_definition_id"] for item in response.json()["items"]} == {
        "mock-card"
    }


def test_seeded_transactions_have_distinct_increasing_times_over_the_last_90_days(merchant_account):
    _seed(transactions=30)

    times = list(
        demo_transactions(merchant_account).order_by("external_identifier").values_list("created_at", flat=True)
    )
    assert len(set(times)) == 30
    assert times == sorted(times)
    assert times[-1] - times[0] > timedelta(days=80)
    assert times[-1] <= timezone.now()


def test_transactions_carry_on_where_the_last_run_stopped(merchant_account):
    _seed(transactions=2)

    output = _seed(transactions=4)

    assert demo_transactions(merchant_account).count() == 4
    assert "2 created" in output
    assert "0 created" in _seed(transactions=4)


def test_transactions_never_store_a_clear_card_number(merchant_account):
    _seed(transactions=2)

    for row in Transaction.objects.values():
        assert "4111111111111111" not in str(row)


def test_gift_cards_are_issued_up_to_the_total_with_their_secrets_in_a_private_csv(merchant_account, tmp_path):
    out = tmp_path / "cards.csv"

    _seed(gift_cards=3, gift_cards_out=out)
    _seed(gift_cards=5, gift_cards_out=out)

    assert IssuedGiftCard.objects.filter(service__merchant_account=merchant_account).count() == 5
    first, second = out, tmp_path / "cards-from-4.csv"
    assert [len(list(csv.DictReader(path.open()))) for path in (first, second)] == [3, 2]
    assert oct(second.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("option", ["transactions", "gift_cards"])
def test_negative_totals_are_refused(merchant_account, option):
    with pytest.raises(CommandError, match="must be zero or more"):
        _seed(**{option: -1})

    assert Transaction.objects.count() == 0


def test_missing_card_keys_are_a_clear_error(merchant_account, settings):
    settings.CARD_FINGERPRINT_KEY = ""

    with pytest.raises(CommandError, match="CARD_FINGERPRINT_KEY"):
        _seed(transactions=1)
