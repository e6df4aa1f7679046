"""The transaction page in plain words: refunds on the timeline say what happened, the breadcrumb has no raw status,
and every date on the desk reads one way, with its time zone."""

import datetime as dt

import pytest
from django.urls import reverse

from payments.staff.roles import PAYMENTS_OPERATOR
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory
from transactions.tests.test_admin import CHANGELIST, authorized, page_of

pytestmark = pytest.mark.django_db

WHEN = dt.datetime(2026, 11, 28, 16, 40, 7, tzinfo=dt.UTC)


def test_a_refund_on_the_timeline_says_what_happened(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)
    client.post(reverse("admin:transactions_transaction_refund", args=[txn.pk]), {"amount": "5.00", "reason": "x"})

    html = client.get(page_of(txn)).content.decode()

    assert "Refund of USD 5.00 succeeded" in html
    assert "capture succeeded → capture succeeded" not in html


def test_the_breadcrumb_says_the_status_in_words(support_client, merchant_account):
    txn = TransactionFactory(merchant_account=merchant_account, declined=True)

    html = support_client.get(page_of(txn)).content.decode()
    crumbs = html.split('class="breadcrumbs"')[1].split("</div>")[0]

    assert "authorization declined" in crumbs
    assert "authorization_declined" not in crumbs


def test_one_date_format_with_its_zone_on_the_list_the_page_and_the_timeline(support_client, merchant_account):
    txn = authorized(merchant_account, intent="capture")
    Transaction.objects.filter(pk=txn.pk).update(created_at=WHEN)
    txn.events.update(created_at=WHEN)

    listing = support_client.get(CHANGELIST).content.decode()
    page = support_client.get(page_of(txn)).content.decode()

    assert "28 Nov 2026, 16:40:07 UTC" in listing
    assert page.count("28 Nov 2026, 16:40:07 UTC") >= 2  # the created field and the timeline
    for other in ("2026-11-28 16:40:07", "Nov. 28, 2026"):
        assert other not in listing
        assert other not in page


def test_what_an_agent_reads_first_is_at_the_top_and_the_processors_raw_fields_are_folded(
    support_client, merchant_account
):
    txn = TransactionFactory(merchant_account=merchant_account, declined=True)

    html = support_client.get(page_of(txn)).content.decode()

    status, why, amounts = html.index("field-status_shown"), html.index("Why it failed"), html.index(">Amounts<")
    timeline, raw = html.index('id="timeline"'), html.index("field-raw_response_code")
    assert status < why < amounts < timeline < raw
    assert timeline < html.index("field-card_expiration_date")  # the payment method comes after the timeline
    # The processor's raw answer is folded away, one click to open.
    folded = html[html.rindex("<details>", 0, raw) : raw]
    assert "The processor&#x27;s raw answer" in folded


def test_the_processors_reference_links_to_its_dashboard(support_client, merchant_account):
    from paymentservices.tests.factories import PaymentServiceFactory

    service = PaymentServiceFactory(
        merchant_account=merchant_account,
        fields=[
            {"key": "secret_key", "value": "sk_test_factory_0123456789"},
            {"key": "publishable_key", "value": "pk_test_factory_0123456789"},
        ],
    )
    txn = TransactionFactory(
        merchant_account=merchant_account,
        captured=True,
        payment_service=service,
        payment_service_transaction_id="pi_3Abc",
    )

    html = support_client.get(page_of(txn)).content.decode()

    assert '<a href="https://dashboard.stripe.com/test/payments/pi_3Abc"' in html


def test_a_processor_without_a_dashboard_shows_the_reference_as_text(support_client, merchant_account):
    from paymentservices.tests.factories import PaymentServiceFactory

    service = PaymentServiceFactory(merchant_account=merchant_account, mock_card=True)
    txn = TransactionFactory(
        merchant_account=merchant_account, captured=True, payment_service=service, payment_service_transaction_id="sb-1"
    )

    html = support_client.get(page_of(txn)).content.decode()

    assert "sb-1" in html
    assert 'href="http' not in html.split("field-processor_reference")[1].split("</div>")[0]


def test_a_payment_that_did_not_fail_has_no_why_it_failed_line(support_client, merchant_account):
    paid = TransactionFactory(merchant_account=merchant_account, captured=True)
    declined = TransactionFactory(merchant_account=merchant_account, declined=True)

    assert "Why it failed" not in support_client.get(page_of(paid)).content.decode()
    assert "Why it failed" in support_client.get(page_of(declined)).content.decode()
