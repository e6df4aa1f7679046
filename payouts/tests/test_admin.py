"""The desk lists payouts and shows one with the card masked; Support only views; only the Payments operator role
may make a payout there, to a stored card, through the same service as the API, recorded in the admin's history and
the audit log."""

from io import StringIO

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.urls import reverse

from payments.audit.models import AuditLogEntry
from payments.bins.services import bin_table_refresh
from payments.bins.sources import read_ranges
from payments.connectors.models import SandboxOperation
from payouts.models import Payout, PayoutStatus
from payouts.tests.factories import PaymentMethodFactory, PayoutFactory

pytestmark = pytest.mark.django_db

ADD = "admin:payouts_payout_add"
RANGES = (
    "iin_start,iin_end,number_length,scheme,brand,type,prepaid,country,bank_name\n"
    "411111,,16,VISA,,CREDIT,N,US,Example Bank of Testing\n"
)


def _form(method, **fields):
    return {
        "merchant_account": method.merchant_account_id,
        "payment_method": str(method.pk),
        "payment_service": "",
        "amount": "2500",
        "currency": "USD",
        "external_identifier": "",
        **fields,
    }


def test_support_lists_and_reads_payouts_masked_and_cannot_make_one(client, staff_login, merchant_account):
    payout = PayoutFactory(merchant_account=merchant_account)
    method = PaymentMethodFactory(merchant_account=merchant_account)
    staff_login("Support")

    listing = client.get(reverse("admin:payouts_payout_changelist"))
    page = client.get(reverse("admin:payouts_payout_change", args=[payout.pk]))
    add = client.post(reverse(ADD), _form(method))

    assert (listing.status_code, page.status_code, add.status_code) == (200, 200, 403)
    for response in (listing, page):
        text = response.content.decode()
        assert "411111…1111" in text
        assert "4111111111111111" not in text
    assert "12.99" in listing.content.decode()  # the amount in major units
    assert Payout.objects.count() == 1


def test_the_payout_page_says_what_the_card_is(client, staff_login, merchant_account):
    bin_table_refresh(ranges=read_ranges(StringIO(RANGES)))
    payout = PayoutFactory(merchant_account=merchant_account)
    staff_login("Support")

    page = client.get(reverse("admin:payouts_payout_change", args=[payout.pk]))

    assert "Visa credit card issued in United States by Example Bank of Testing" in page.content.decode()


def test_an_operator_pays_out_to_a_stored_card_through_the_service_audited(client, staff_login, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    user = staff_login("Payments operator")

    response = client.post(reverse(ADD), _form(method))

    assert response.status_code == 302, response.content.decode()[:2000]
    payout = Payout.objects.get()
    assert (payout.status, payout.amount, payout.payment_method_id) == (PayoutStatus.SUCCEEDED, 2500, method.pk)
    assert SandboxOperation.objects.filter(operation="payout", reference=str(payout.pk)).count() == 1
    assert LogEntry.objects.filter(action_flag=ADDITION, object_id=str(payout.pk), user=user).exists()
    assert AuditLogEntry.objects.filter(resource_id=str(payout.pk)).exists()


def test_an_operator_s_payout_over_the_limit_is_refused_on_the_form(client, staff_login, merchant_account, settings):
    settings.PAYOUT_MAX_AMOUNT = 1000
    method = PaymentMethodFactory(merchant_account=merchant_account)
    staff_login("Payments operator")

    response = client.post(reverse(ADD), _form(method))

    assert response.status_code == 200
    assert "limit" in response.content.decode()
    assert not Payout.objects.exists()
    assert not SandboxOperation.objects.exists()
