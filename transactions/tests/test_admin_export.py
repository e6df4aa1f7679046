"""The desk's transaction list as a CSV file: every row the list holds for its filters and search, beyond the page
shown, with amounts in major units and spreadsheet formulas defused; whoever may view the list may export it."""

import csv
import io

import pytest
from django.urls import reverse

from payments.staff.roles import SUPPORT
from transactions.admin import TransactionAdmin
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

EXPORT = "admin:transactions_transaction_export"


def _rows(response):
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="transactions-')
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_file_holds_every_row_of_the_filtered_list_not_only_its_page(
    client, staff_login, merchant_account, monkeypatch
):
    monkeypatch.setattr(TransactionAdmin, "list_per_page", 2)
    paid = [TransactionFactory(merchant_account=merchant_account, captured=True, amount=1299) for _ in range(3)]
    TransactionFactory(merchant_account=merchant_account, declined=True)
    staff_login(SUPPORT)

    rows = _rows(client.get(reverse(EXPORT), {"status__exact": "capture_succeeded"}))

    assert sorted(row["ID"] for row in rows) == sorted(str(txn.pk) for txn in paid)
    assert {(row["Amount"], row["Captured"], row["Currency"], row["Status"]) for row in rows} == {
        ("12.99", "12.99", "USD", "capture_succeeded")
    }
    assert "4111111111111111" not in str(rows)


def test_the_search_narrows_the_file_as_it_narrows_the_list(client, staff_login, merchant_account):
    wanted = TransactionFactory(merchant_account=merchant_account, external_identifier="order-42")
    TransactionFactory(merchant_account=merchant_account, external_identifier="order-43")
    staff_login(SUPPORT)

    rows = _rows(client.get(reverse(EXPORT), {"q": "order-42"}))

    assert [row["ID"] for row in rows] == [str(wanted.pk)]


def test_a_cell_a_spreadsheet_would_run_is_defused(client, staff_login, merchant_account):
    TransactionFactory(merchant_account=merchant_account, external_identifier='=HYPERLINK("https://evil.example")')
    staff_login(SUPPORT)

    (row,) = _rows(client.get(reverse(EXPORT)))

    assert row["External identifier"] == '\'=HYPERLINK("https://evil.example")'


def test_the_list_links_to_the_file_with_its_own_filters(client, staff_login, merchant_account):
    staff_login(SUPPORT)

    page = client.get(reverse("admin:transactions_transaction_changelist"), {"status__exact": "capture_succeeded"})

    assert f'href="{reverse(EXPORT)}?status__exact=capture_succeeded"' in page.content.decode()


def test_a_filter_the_list_does_not_offer_is_a_400(client, staff_login, merchant_account):
    staff_login(SUPPORT)

    assert client.get(reverse(EXPORT), {"no_such__field": "1"}).status_code == 400


def test_staff_who_may_not_view_the_list_cannot_export_it(client, merchant_account, django_user_model):
    TransactionFactory(merchant_account=merchant_account)
    client.force_login(django_user_model.objects.create_user("no-role", is_staff=True))

    assert client.get(reverse(EXPORT)).status_code == 403
    client.logout()
    assert client.get(reverse(EXPORT)).status_code == 302  # to the desk's login
