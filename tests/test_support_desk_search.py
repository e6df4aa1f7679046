"""The support desk's one search box (the admin's start page): buyers, transactions and stored payment methods
found by id, email address (or part of one, any case), name, card last 4 and external identifier, in a fixed
number of queries, showing staff only what they may view and never a card number."""

import re

import pytest
from django.contrib.auth.models import User

from buyers.tests.factories import BuyerFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

START = "/admin/"
# The start page: session, user, permissions (user, group), the trends panel, the settlement panel's
# unmatched lines, lines not as captured, refused files and reports not fetched, and the unmatched notifications' count.
PAGE = 12
# Then per finder one page of rows (transactions with their buyers, payment methods with card and buyer); a name,
# a partial email or an external identifier also finds up to 500 buyer ids first, once for transactions and payment
# methods both (payments.remembered); last 4 digits ask no buyer search at all.
SEARCH = {"Doe": 4, "jane.doe": 4, "cust-jane": 4, "4242": 2}


@pytest.fixture
def people(merchant_account):
    jane = BuyerFactory(
        merchant_account=merchant_account,
        display_name="Jane Doe",
        external_identifier="cust-jane",
        billing_details={"first_name": "Jane", "last_name": "Doe", "email_address": "Jane.Doe@Example.com"},
    )
    john = BuyerFactory(
        merchant_account=merchant_account,
        display_name="John Roe",
        external_identifier="cust-john",
        billing_details={"email_address": "john@example.org"},
    )
    paid = TransactionFactory(
        merchant_account=merchant_account,
        buyer=jane,
        captured=True,
        amount=12000,
        refunded_amount=2500,
        buyer_email_address="jane.doe@example.com",
        card_last4="4242",
        external_identifier="order-77",
    )
    stored = PaymentMethodFactory(merchant_account=merchant_account, buyer=john, number="5555555555554444")
    return {"jane": jane, "john": john, "paid": paid, "stored": stored}


def found(response) -> dict[str, list[str]]:
    """{group: [href, ...]} as the start page lists them."""
    html = response.content.decode()
    assert response.status_code == 200
    groups = {}
    for slug, body in re.findall(r'<section data-group="([\w-]+)">(.*?)</section>', html, re.DOTALL):
        groups[slug] = re.findall(r'<li><a href="([^"]+)"', body)
    return groups


def buyer_url(buyer) -> str:
    return f"/admin/buyers/buyer/{buyer.pk}/profile/"


def transaction_url(txn) -> str:
    return f"/admin/transactions/transaction/{txn.pk}/change/"


def method_url(method) -> str:
    return f"/admin/paymentmethods/paymentmethod/{method.pk}/change/"


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("jane.doe", {"buyers": ["jane"], "transactions": ["paid"]}),  # part of an email address, any case
        ("JANE.DOE@example.COM", {"buyers": ["jane"], "transactions": ["paid"]}),
        ("@example.org", {"buyers": ["john"], "payment-methods": ["stored"]}),
        ("Doe", {"buyers": ["jane"], "transactions": ["paid"]}),  # part of a name
        ("john roe", {"buyers": ["john"], "payment-methods": ["stored"]}),
        ("4242", {"transactions": ["paid"], "buyers": ["jane"]}),  # a card's last 4 leads to its buyer too
        ("4444", {"payment-methods": ["stored"], "buyers": ["john"]}),
        ("cust-jane", {"buyers": ["jane"]}),  # external identifiers, exactly
        ("order-77", {"transactions": ["paid"], "buyers": ["jane"]}),
        ("cust", {}),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_one_box_finds_buyers_transactions_and_payment_methods(support_client, people, term, expected):
    groups = found(support_client.get(START, {"q": term}))

    urls = {"jane": buyer_url, "john": buyer_url, "paid": transaction_url, "stored": method_url}
    assert {group: sorted(hrefs) for group, hrefs in groups.items()} == {
        group: sorted(urls[name](people[name]) for name in names) for group, names in expected.items()
    }


@pytest.mark.parametrize("which", ["jane", "paid", "stored"])
def test_ids_find_their_object(support_client, people, which):
    groups = found(support_client.get(START, {"q": str(people[which].pk)}))

    expected = {"jane": buyer_url, "paid": transaction_url, "stored": method_url}[which](people[which])
    assert expected in [href for hrefs in groups.values() for href in hrefs]


def test_nothing_found_says_so(support_client, people):
    response = support_client.get(START, {"q": "nobody-at-all"})

    assert found(response) == {}
    assert "Nothing found for" in response.content.decode()


def test_results_show_masked_cards_and_refund_badges(support_client, people):
    html = support_client.get(START, {"q": "4242"}).content.decode()

    assert "•••• 4242" in html
    assert "Partly refunded" in html
    html = support_client.get(START, {"q": "4444"}).content.decode()
    assert "555555" in html  # BIN and last 4 only
    assert "5555555555554444" not in html


@pytest.mark.parametrize("term", list(SEARCH))
@pytest.mark.parametrize("rows", [1, 15])
def test_a_search_costs_the_same_queries_whatever_it_finds(
    support_client, merchant_account, django_assert_num_queries, term, rows
):
    for n in range(rows):
        buyer = BuyerFactory(
            merchant_account=merchant_account,
            display_name=f"Jane Doe {n}",
            external_identifier="cust-jane" if n == 0 else f"cust-{n}",
            billing_details={"email_address": f"jane.doe{n}@example.com"},
        )
        TransactionFactory(merchant_account=merchant_account, buyer=buyer, card_last4="4242", captured=True)
    support_client.get(START, {"q": term})  # content types and the like, cached once per process

    with django_assert_num_queries(PAGE + SEARCH[term]):
        groups = found(support_client.get(START, {"q": term}))

    assert all(len(hrefs) <= 10 for hrefs in groups.values())


def test_the_start_page_without_a_search_runs_no_finder(support_client, people, django_assert_num_queries):
    support_client.get(START)
    with django_assert_num_queries(PAGE):
        response = support_client.get(START)

    assert 'id="desk-q"' in response.content.decode()
    assert 'id="desk-results"' not in response.content.decode()


def test_staff_see_only_what_they_may_view(client, people):
    user = User.objects.create_user("no-role", is_staff=True)  # staff, in no group: may view nothing
    client.force_login(user)

    assert found(client.get(START, {"q": "jane.doe"})) == {}


@pytest.mark.parametrize("term", ["x" * 5000, "%", "_", "'; drop table", "\u202e", "4242\x00"])
def test_odd_terms_are_searched_not_failed(support_client, people, term):
    response = support_client.get(START, {"q": term})

    assert response.status_code in (200, 400)


def test_a_method_of_no_buyer_is_found_and_shown_as_such(support_client, people, merchant_account):
    unowned = PaymentMethodFactory(merchant_account=merchant_account, buyer=None, number="378282246310005")

    response = support_client.get(START, {"q": "0005"})
    page = support_client.get(f"/admin/paymentmethods/paymentmethod/{unowned.pk}/change/")

    assert found(response) == {"payment-methods": [method_url(unowned)]}  # and no buyer beside it
    assert "no buyer" in response.content.decode()
    assert page.status_code == 200


def test_payment_methods_admin_searches_by_last4_and_buyer_email(support_client, people):
    listed = support_client.get("/admin/paymentmethods/paymentmethod/", {"q": "4444"})
    assert [m.pk for m in listed.context["cl"].result_list] == [people["stored"].pk]

    listed = support_client.get("/admin/paymentmethods/paymentmethod/", {"q": "JOHN@"})
    assert [m.pk for m in listed.context["cl"].result_list] == [people["stored"].pk]


def test_transactions_admin_finds_a_partial_email(support_client, people):
    listed = support_client.get("/admin/transactions/transaction/", {"q": "jane.doe"})

    assert [t.pk for t in listed.context["cl"].result_list] == [people["paid"].pk]
    assert "Partly refunded" in listed.content.decode()


@pytest.mark.parametrize(
    "changelist",
    ["/admin/buyers/buyer/", "/admin/transactions/transaction/", "/admin/paymentmethods/paymentmethod/"],
)
@pytest.mark.parametrize("term", ["4242\x00", "jane\x00doe", "x" * 5000])
def test_odd_terms_in_the_list_searches_are_no_500(support_client, people, changelist, term):
    assert support_client.get(changelist, {"q": term}).status_code in (200, 400)


@pytest.mark.parametrize(("term", "extra"), [("", 0), ("4444", 0), ("john@", 1), ("Roe", 1)])
@pytest.mark.parametrize("methods", [1, 12])
def test_the_payment_methods_list_costs_fixed_queries(
    support_client, merchant_account, django_assert_num_queries, term, extra, methods
):
    email = {"email_address": "john@x.org"}
    for _ in range(methods):  # one card per buyer and card number: a buyer each
        buyer = BuyerFactory(merchant_account=merchant_account, display_name="John Roe", billing_details=email)
        PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer, number="5555555555554444")
    url = "/admin/paymentmethods/paymentmethod/"
    support_client.get(url, {"q": term})

    # session, user, permissions (2), the merchant accounts filter, the count, the page (with card, buyer and
    # account); a part of a name or an email address first finds the buyers' ids
    with django_assert_num_queries(7 + extra):
        assert support_client.get(url, {"q": term}).status_code == 200
