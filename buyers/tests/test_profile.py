"""The buyer profile: one read-only page of a buyer for every staff role, with the buttons the role may press."""

import re

import pytest
from django.contrib.auth.models import User

from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from giftcards.tests.factories import GiftCardFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from transactions.models import TransactionEvent
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

# session, user, buyer, user and group permissions, and per pivot (shipping details, gift cards, stored payment
# methods, transactions, recent events, disputes) a bounded count and the newest rows
PROFILE_QUERIES = 17
# what the buttons need: the transactions' gift card parts and disputes (what is left to refund), once for the page
OPERATOR_EXTRA = 2
# the transactions' totals per currency, when there are any
TOTALS = 1

ADDRESS = {"line1": "1 Demo Street", "line2": "Flat 4", "city": "Lagos", "postal_code": "100001", "country": "NG"}
BILLING = {
    "first_name": "Felix",
    "last_name": "Okafor",
    "email_address": "felix@example.com",
    "phone_number": "+2348012345678",
    "address": ADDRESS,
}


def profile_url(buyer) -> str:
    return f"/admin/buyers/buyer/{buyer.pk}/profile/"


def buttons(html: str) -> list[str]:
    """The action buttons on the page, as `data-action` names, in order."""
    return re.findall(r'class="button[^"]*" data-action="([^"]+)"', html)


@pytest.fixture
def staff(client, staff_login):
    """`staff("Support")` logs the client in as a member of that group; `staff(None)` as a superuser."""

    def login(group: str | None) -> None:
        if group is None:
            client.force_login(User.objects.create_superuser("root", password=None))
        else:
            staff_login(group)

    return login


@pytest.fixture
def felix(merchant_account):
    """A buyer with one of everything: a shipping address, a stored card, a gift card, a captured payment, an
    authorized one and a declined one."""
    buyer = BuyerFactory(
        merchant_account=merchant_account,
        display_name="Felix Okafor",
        external_identifier="customer-355",
        billing_details=BILLING,
    )
    ShippingDetailsFactory(buyer=buyer, first_name="Ada", last_name="Okafor", address={**ADDRESS, "city": "Abuja"})
    PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer)
    GiftCardFactory(merchant_account=merchant_account, buyer=buyer)
    TransactionFactory(merchant_account=merchant_account, buyer=buyer, captured=True, amount=12000)
    TransactionFactory(merchant_account=merchant_account, buyer=buyer, authorized=True, amount=3000)
    TransactionFactory(merchant_account=merchant_account, buyer=buyer, declined=True, amount=4500)
    return buyer


def test_the_profile_shows_who_contact_addresses_and_every_pivot(staff, client, felix):
    staff(SUPPORT)

    html = client.get(profile_url(felix)).content.decode()

    assert "<h1>Felix Okafor</h1>" in html
    assert "customer-355" in html
    assert "Felix Okafor<br>felix@example.com<br>+2348012345678" in html
    assert "<address>1 Demo Street<br>Flat 4<br>100001 Lagos<br>NG</address>" in html
    assert "Ada Okafor: 1 Demo Street, Flat 4, 100001 Abuja, NG" in html
    assert "Shipping (1)" in html
    assert "Stored payment methods (1)" in html
    assert "visa 411111" in html.lower() or "411111" in html
    assert "Gift cards (1)" in html
    assert "balance USD 50.00, active" in html
    assert "Transactions (3)" in html
    for state in ("capture succeeded", "authorization succeeded", "authorization declined"):
        assert state in html
    for txn in felix.transactions.all():
        assert f'href="/admin/transactions/transaction/{txn.pk}/change/"' in html
    assert '"email_address"' not in html  # never the JSON an editor types
    # payments first, the timeline last
    assert html.index('data-pivot="transactions"') < html.index('data-pivot="gift cards"')
    assert html.index('data-pivot="stored payment methods"') < html.index('data-pivot="recent events"')


@pytest.mark.parametrize(("events", "header"), [(5, "Recent events (5)"), (6, "Recent events (5 newest of 6)")])
def test_the_timeline_header_counts_what_it_lists(staff, client, merchant_account, events, header):
    staff(SUPPORT)
    buyer = BuyerFactory(merchant_account=merchant_account)
    txn = TransactionFactory(merchant_account=merchant_account, buyer=buyer)
    TransactionEvent.objects.filter(transaction=txn).delete()
    for _ in range(events):
        TransactionEvent.objects.create(
            transaction=txn, name="authorization_succeeded", actor_type="system", to_status="authorization_succeeded"
        )

    html = client.get(profile_url(buyer)).content.decode()

    assert header in html
    section = html.split('data-pivot="recent events"', 1)[1].split("</ul>", 1)[0]
    assert section.count("<li>") == 5


def test_an_empty_profile_says_so(staff, client, merchant_account):
    staff(SUPPORT)
    buyer = BuyerFactory(merchant_account=merchant_account, billing_details=None, display_name=None)

    html = client.get(profile_url(buyer)).content.decode()

    assert f"<h1>{buyer.external_identifier or buyer.pk}</h1>" in html
    assert "No name, email address or phone number given." in html
    assert "Transactions (0)" in html


# --- who sees which buttons ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        # Support reads; nothing to press.
        (SUPPORT, []),
        # Operators act on money and stored cards, as on those pages; the buyer record is not theirs to edit.
        (PAYMENTS_OPERATOR, ["refund", "capture", "void", "delete"]),
        # A superuser may do everything, editing on its own page.
        (None, ["edit", "delete", "refund", "capture", "void", "delete", "remove"]),
    ],
    ids=["support", "operator", "superuser"],
)
def test_buttons_follow_the_role(staff, client, felix, group, expected):
    staff(group)

    html = client.get(profile_url(felix)).content.decode()

    assert sorted(buttons(html)) == sorted(expected)


def test_each_button_opens_a_page_the_role_may_use(staff, client, felix):
    staff(PAYMENTS_OPERATOR)
    html = client.get(profile_url(felix)).content.decode()
    urls = re.findall(r'class="button profile-action" data-action="[^"]+" href="([^"]+)"', html)

    assert len(urls) == 4
    for url in urls:
        assert client.get(url).status_code == 200, url
    captured = felix.transactions.get(status="capture_succeeded")
    assert f"/admin/transactions/transaction/{captured.pk}/refund/" in urls


def test_a_staff_user_without_the_view_permission_is_refused(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    client.force_login(User.objects.create_user("nobody", is_staff=True))

    assert client.get(profile_url(buyer)).status_code == 403


def test_signed_out_goes_to_sign_in(client, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = client.get(profile_url(buyer))

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_an_unknown_buyer_is_a_404(staff, client):
    staff(SUPPORT)

    assert client.get("/admin/buyers/buyer/00000000-0000-4000-8000-000000000000/profile/").status_code == 404
    # Not an id at all: Django's own answer for a mistyped admin address, the start page saying so.
    response = client.get("/admin/buyers/buyer/not-a-uuid/profile/", follow=True)
    assert response.status_code == 200
    assert "exist" in response.content.decode()


# --- the change form is the editors' page -----------------------------------------------------------------


@pytest.mark.parametrize("group", [SUPPORT, PAYMENTS_OPERATOR])
def test_who_may_not_edit_is_sent_from_the_change_form_to_the_profile(staff, client, felix, group):
    staff(group)

    response = client.get(f"/admin/buyers/buyer/{felix.pk}/change/")

    assert response.status_code == 302
    assert response["Location"] == profile_url(felix)


def test_an_editor_edits_on_the_change_form_which_links_back(staff, client, felix):
    staff(None)

    html = client.get(f"/admin/buyers/buyer/{felix.pk}/change/").content.decode()

    assert 'name="display_name"' in html
    assert f'href="{profile_url(felix)}"' in html


def test_the_list_opens_profiles(staff, client, felix):
    staff(SUPPORT)

    html = client.get("/admin/buyers/buyer/").content.decode()

    assert f'href="{profile_url(felix)}"' in html


# --- a fixed number of queries --------------------------------------------------------------------------------


@pytest.mark.parametrize("transactions", [0, 7])
@pytest.mark.parametrize("group", [SUPPORT, PAYMENTS_OPERATOR])
def test_the_profile_costs_a_fixed_number_of_queries(
    staff, client, merchant_account, django_assert_num_queries, transactions, group
):
    staff(group)
    buyer = BuyerFactory(merchant_account=merchant_account, billing_details=BILLING)
    TransactionFactory.create_batch(transactions, merchant_account=merchant_account, buyer=buyer, captured=True)
    PaymentMethodFactory.create_batch(3, merchant_account=merchant_account, buyer=buyer)
    client.get(profile_url(buyer))  # the first request also fills Django's content type cache
    expected = PROFILE_QUERIES
    if transactions:
        expected += TOTALS + (OPERATOR_EXTRA if group == PAYMENTS_OPERATOR else 0)

    with django_assert_num_queries(expected):
        response = client.get(profile_url(buyer))

    assert response.status_code == 200
