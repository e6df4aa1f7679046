"""The buyers admin: finds buyers cheaply, shows them to support staff, saves through the services."""

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from buyers.admin import CappedCountPaginator
from buyers.models import Buyer
from buyers.services import buyer_create, buyer_update
from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/buyers/buyer/"
# session, user, user and group permissions, merchant accounts (for the filter), bounded count, page
CHANGELIST_QUERIES = 7
# session, user, buyer, user and group permissions, and per pivot (shipping details, gift cards, stored payment
# methods, transactions, recent events, disputes) a bounded count and the newest rows; the transactions' totals are
# one more query when there are any
PROFILE_QUERIES = 17


def listed(response) -> list[str]:
    return [str(buyer.pk) for buyer in response.context["cl"].result_list]


def _queries(client, url: str, **params) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, params)
    assert response.status_code == 200
    return len(captured), [query["sql"] for query in captured]


# --- query counts: fixed, and never an unbounded COUNT ----------------------------------------------


@pytest.mark.parametrize(
    "page", [{}, {"q": "Ada"}, {"merchant_account__id__exact": "default"}], ids=["all", "search", "filter"]
)
def test_changelist_costs_the_same_for_1_and_60_buyers(support_client, merchant_account, page):
    BuyerFactory(merchant_account=merchant_account, display_name="Ada")
    few, _ = _queries(support_client, CHANGELIST, **page)
    BuyerFactory.create_batch(59, merchant_account=merchant_account, display_name="Ada")

    many, sql = _queries(support_client, CHANGELIST, **page)

    assert few == many == CHANGELIST_QUERIES
    counts = [query for query in sql if "COUNT(" in query.upper()]
    assert counts, "the paginator should count (a bounded count)"
    for query in counts:
        assert re.search(r"LIMIT\s+\d+", query, re.IGNORECASE), f"unbounded count: {query}"


@pytest.mark.parametrize("transactions", [0, 7])
def test_the_buyer_page_leads_to_transactions_and_gift_cards_in_fixed_queries(
    support_client, merchant_account, django_assert_num_queries, transactions
):
    from transactions.tests.factories import TransactionFactory

    address = {"line1": "1 Demo Street", "city": "Lagos", "postal_code": "100001", "country": "NG"}
    billing = {"first_name": "Felix", "last_name": "Okafor", "email_address": "felix@example.com", "address": address}
    buyer = BuyerFactory(merchant_account=merchant_account, billing_details=billing)
    made = TransactionFactory.create_batch(transactions, merchant_account=merchant_account, buyer=buyer, amount=12000)
    TransactionFactory(merchant_account=merchant_account)  # someone else's
    url = f"/admin/buyers/buyer/{buyer.pk}/profile/"
    support_client.get(url)

    with django_assert_num_queries(PROFILE_QUERIES + (1 if transactions else 0)):
        html = support_client.get(url).content.decode()

    assert ("Transactions (5 newest of 7)" if transactions else "Transactions (0)") in html
    assert "Recent events (0)" in html
    assert "Gift cards (0)" in html
    assert "Stored payment methods (0)" in html
    assert "Shipping (0)" in html
    assert "Felix Okafor<br>felix@example.com" in html
    assert "<address>1 Demo Street<br>100001 Lagos<br>NG</address>" in html
    assert '"email_address"' not in html  # not the raw JSON
    if transactions:
        assert f"/admin/transactions/transaction/?buyer__id__exact={buyer.pk}" in html
        assert html.count(" USD 120.00, ") == 5  # the newest five
        captured = sum(txn.captured_amount for txn in made)
        assert f"USD: 7 payment(s), captured USD {captured / 100:,.2f}, refunded USD 0.00" in html
        listed = support_client.get(f"/admin/transactions/transaction/?buyer__id__exact={buyer.pk}")
        assert {txn.pk for txn in listed.context["cl"].result_list} == {txn.pk for txn in made}


def test_capped_paginator_counts_exactly_below_the_cap_and_stops_at_it(merchant_account, monkeypatch):
    BuyerFactory.create_batch(7, merchant_account=merchant_account)
    monkeypatch.setattr(CappedCountPaginator, "CAP", 5)

    assert CappedCountPaginator(Buyer.objects.order_by("-created_at"), 2).count == 5
    assert CappedCountPaginator(Buyer.objects.filter(display_name="nobody").order_by("-created_at"), 2).count == 0
    monkeypatch.setattr(CappedCountPaginator, "CAP", 100)
    assert CappedCountPaginator(Buyer.objects.order_by("-created_at"), 2).count == 7


def test_capped_paginator_reads_a_deep_page_by_its_keys_in_one_statement(merchant_account):
    """A page's rows are picked by key (OFFSET over the ordering alone) and read with their joins in one query,
    in the list's order: a deep page never joins the rows it skips."""
    made = BuyerFactory.create_batch(7, merchant_account=merchant_account)
    ordered = Buyer.objects.select_related("merchant_account").order_by("-created_at", "-id")
    expected = [buyer.pk for buyer in sorted(made, key=lambda b: (b.created_at, b.pk), reverse=True)]

    with CaptureQueriesContext(connection) as read:
        page = CappedCountPaginator(ordered, 3).page(2)
        rows = [(buyer.pk, buyer.merchant_account.pk) for buyer in page.object_list]

    assert rows == [(pk, merchant_account.pk) for pk in expected[3:6]]
    assert len(read.captured_queries) == 2  # the capped count, then the page
    assert "IN (SELECT" in read.captured_queries[1]["sql"].upper()
    assert [buyer.pk for buyer in CappedCountPaginator(ordered, 3).page(3).object_list] == expected[6:]


# --- finding buyers ---------------------------------------------------------------------------------


@pytest.fixture
def people(merchant_account, other_merchant_account):
    ada = BuyerFactory(
        merchant_account=merchant_account,
        display_name="Ada Lovelace",
        external_identifier="cust-1",
        billing_details={"email_address": "Ada@Example.com"},
    )
    grace = BuyerFactory(
        merchant_account=other_merchant_account,
        display_name="Grace Hopper",
        external_identifier="cust-2",
        billing_details={"email_address": "grace@example.com"},
    )
    return ada, grace


@pytest.mark.parametrize(
    ("term", "who"),
    [
        ("lovelace", "ada"),
        ("  Grace ", "grace"),
        ("cust-2", "grace"),
        ("cust", None),  # external identifiers match exactly
        ("ada@example.com", "ada"),  # email addresses in any case
        ("ADA@exa", "ada"),  # or part of one
        ("grace@", "grace"),
        ("example.com", "both"),
        ("@example.org", None),
    ],
)
def test_search(support_client, people, term, who):
    ada, grace = people
    expected = {"ada": [str(ada.pk)], "grace": [str(grace.pk)], "both": [str(grace.pk), str(ada.pk)], None: []}[who]

    assert listed(support_client.get(CHANGELIST, {"q": term})) == expected


def test_search_by_exact_id(support_client, people):
    ada, _ = people

    assert listed(support_client.get(CHANGELIST, {"q": str(ada.pk)})) == [str(ada.pk)]
    assert listed(support_client.get(CHANGELIST, {"q": str(ada.pk)[:8]})) == []


def test_filter_by_merchant_account(support_client, people):
    _, grace = people

    assert listed(support_client.get(CHANGELIST, {"merchant_account__id__exact": "other"})) == [str(grace.pk)]


def test_filter_by_creation_date(support_client, people):
    ada, grace = people
    Buyer.objects.filter(pk=grace.pk).update(created_at=timezone.now() - timedelta(days=30))
    midnight = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)

    # The parameters of the filter's own "Today" link.
    response = support_client.get(
        CHANGELIST, {"created_at__gte": str(midnight), "created_at__lt": str(midnight + timedelta(days=1))}
    )

    assert listed(response) == [str(ada.pk)]


def test_newest_first(support_client, merchant_account):
    older = BuyerFactory(merchant_account=merchant_account)
    newer = BuyerFactory(merchant_account=merchant_account)

    assert listed(support_client.get(CHANGELIST)) == [str(newer.pk), str(older.pk)]


# --- support staff look, but do not touch --------------------------------------------------------------


def test_support_can_view_but_not_change_add_or_delete(support_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, display_name="Before")
    change_url = f"/admin/buyers/buyer/{buyer.pk}/change/"

    page = support_client.get(change_url)
    post = support_client.post(change_url, {"display_name": "After"})

    assert page.status_code == 302  # to the read-only profile (test_profile.py)
    assert post.status_code == 403
    assert support_client.get("/admin/buyers/buyer/add/").status_code == 403
    assert support_client.post(f"/admin/buyers/buyer/{buyer.pk}/delete/", {"post": "yes"}).status_code == 403
    buyer.refresh_from_db()
    assert buyer.display_name == "Before"


# --- saves go through the services ------------------------------------------------------------------------


def _form(**fields) -> dict:
    data = {"display_name": "", "external_identifier": "", "account_number": "", "billing_details": "null"}
    data.update(fields)
    return data


def test_admin_add_creates_through_the_service(admin_client, merchant_account):
    with mock.patch("buyers.admin.buyer_create", wraps=buyer_create) as service:
        response = admin_client.post(
            "/admin/buyers/buyer/add/",
            _form(merchant_account="default", display_name="Ada", billing_details='{"phone_number": "+14155552671"}'),
        )

    assert response.status_code == 302
    buyer = Buyer.objects.get()
    assert (buyer.display_name, buyer.billing_details) == ("Ada", {"phone_number": "+14155552671"})
    assert service.call_args.kwargs["merchant_account"] == merchant_account
    assert response["Location"].endswith("/admin/buyers/buyer/")


def test_admin_change_updates_through_the_service(admin_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, display_name="Before", external_identifier="x-1")

    with mock.patch("buyers.admin.buyer_update", wraps=buyer_update) as service:
        response = admin_client.post(
            f"/admin/buyers/buyer/{buyer.pk}/change/", _form(display_name="After", external_identifier="x-1")
        )

    assert response.status_code == 302
    buyer.refresh_from_db()
    assert (buyer.display_name, buyer.external_identifier, buyer.billing_details) == ("After", "x-1", None)
    assert set(service.call_args.kwargs) == {"buyer", "display_name", "billing_details"}  # only what changed


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"billing_details": '{"phone_number": "0800"}'}, "billing_details", "/phone_number"),
        ({"billing_details": '{"address": {"country": "XX"}}'}, "billing_details", "/address/country"),
        ({"billing_details": '{"nickname": "x"}'}, "billing_details", "/nickname"),
        ({"external_identifier": "taken"}, "external_identifier", "already exists"),
    ],
    ids=["phone", "country", "unknown field", "duplicate external identifier"],
)
def test_admin_refuses_what_the_api_refuses(admin_client, merchant_account, fields, field, message):
    taken = BuyerFactory(merchant_account=merchant_account, external_identifier="taken")
    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="mine")

    added = admin_client.post("/admin/buyers/buyer/add/", _form(merchant_account="default", **fields))
    changed = admin_client.post(
        f"/admin/buyers/buyer/{buyer.pk}/change/", _form(**{"external_identifier": "mine", **fields})
    )

    for response in (added, changed):
        assert response.status_code == 200
        errors = response.context["adminform"].form.errors
        assert message in " ".join(errors[field])
    assert set(Buyer.objects.values_list("external_identifier", flat=True)) == {taken.external_identifier, "mine"}


def test_ids_and_timestamps_are_read_only(admin_client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    html = admin_client.get(f"/admin/buyers/buyer/{buyer.pk}/change/").content.decode()

    for name in ("id", "created_at", "updated_at", "merchant_account", "reconciliation_id"):
        assert f'name="{name}"' not in html
    assert 'name="display_name"' in html
