"""The transactions admin: read-only and masked for support; capture, void and refund on the transaction's page
for operators only, in major units, with a reason, and on the timeline."""

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from buyers.tests.factories import BuyerFactory
from payments.connectors import OutcomeUnknown
from payments.staff.dates import desk_datetime
from payments.staff.roles import PAYMENTS_OPERATOR, SUPPORT
from transactions.models import Capture, Transaction
from transactions.requests import CardRequest, TransactionRequest
from transactions.services.actions import transaction_capture
from transactions.services.create import transaction_create
from transactions.services.state import Actor
from transactions.tests.factories import RefundFactory, TransactionFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:transactions_transaction_changelist")


def authorized(merchant_account, amount: int = 1000, currency: str = "USD", **kwargs) -> Transaction:
    card = CardRequest(number="4111111111111111", expiration_month=12, expiration_year=2039, security_code="123")
    request = TransactionRequest(amount=amount, currency=currency, payment_method=card, **kwargs)
    return transaction_create(merchant_account=merchant_account, actor=Actor.api_key("kid"), request=request)


def page_of(txn: Transaction) -> str:
    return reverse("admin:transactions_transaction_change", args=[txn.pk])


def act_url(txn: Transaction, action: str) -> str:
    return reverse(f"admin:transactions_transaction_{action}", args=[txn.pk])


def test_support_sees_masked_cards_money_and_the_timeline_but_no_buttons(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=12000)
    staff_login(SUPPORT)

    listing = client.get(CHANGELIST).content.decode()
    page = client.get(page_of(txn)).content.decode()

    for html in (listing, page):
        assert "•••• 1111" in html
        assert "4111111111111111" not in html
        assert "USD 120.00" in html
    assert "authorization succeeded" in page
    assert "<h2>USD 120.00, authorization succeeded</h2>" in page
    assert "transaction created" in page  # the timeline
    assert 'class="transaction-action"' not in page


@pytest.mark.parametrize("method", ["get", "post"])
def test_support_cannot_reach_an_action(client, merchant_account, staff_login, method):
    txn = authorized(merchant_account)
    staff_login(SUPPORT)

    response = getattr(client, method)(act_url(txn, "capture"), {"reason": "asked", "amount": ""})

    assert response.status_code == 403
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize(
    ("action", "form", "pending", "said"),
    [
        ("capture", {"amount": "6.00"}, "capture_pending", "The processor did not answer the capture of USD 6.00"),
        ("void", {}, "authorization_void_pending", "The processor did not answer the void"),
        ("refund", {"amount": "4.00"}, "capture_succeeded", "The processor did not answer the refund of USD 4.00"),
    ],
    ids=["capture", "void", "refund"],
)
def test_an_operator_is_told_plainly_when_the_processor_did_not_answer(
    client, merchant_account, staff_login, connector, action, form, pending, said
):
    txn = authorized(merchant_account, intent="capture" if action == "refund" else "authorize")
    staff_login(PAYMENTS_OPERATOR)
    connector.script[action] = OutcomeUnknown

    done = client.post(act_url(txn, action), {**form, "reason": "Customer asked"}, follow=True)

    txn.refresh_from_db()
    assert txn.status == pending
    html = done.content.decode()
    assert said in html
    assert "The server asks the processor what it did and records its answer" in html
    assert "Captured USD 0.00" not in html
    assert "Voided the authorization" not in html


def test_an_operator_sees_only_the_buttons_the_status_allows(client, merchant_account, staff_login):
    staff_login(PAYMENTS_OPERATOR)
    captured = authorized(merchant_account, intent="capture")
    declined = TransactionFactory(merchant_account=merchant_account, declined=True)

    authorized_page = client.get(page_of(authorized(merchant_account))).content.decode()
    assert 'data-action="capture"' in authorized_page
    assert 'data-action="void"' in authorized_page
    captured_page = client.get(page_of(captured)).content.decode()
    assert f'href="{act_url(captured, "refund")}" class="transaction-action" data-action="refund"' in captured_page
    assert 'data-action="void"' not in captured_page
    assert 'class="transaction-action"' not in client.get(page_of(declined)).content.decode()


def test_an_operator_captures_in_major_units_with_a_reason(client, merchant_account, staff_login):
    txn = authorized(merchant_account)
    operator = staff_login(PAYMENTS_OPERATOR)

    confirmation = client.get(act_url(txn, "capture")).content.decode()
    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"  # nothing happens on a GET
    assert "Capture up to USD 10.00 of the authorization" in confirmation

    done = client.post(act_url(txn, "capture"), {"amount": "6.00", "reason": "Customer kept part"}, follow=True)

    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 600)
    html = done.content.decode()
    assert "Captured USD 6.00; the transaction is capture succeeded." in html
    assert "Customer kept part" in html  # on the timeline
    entry = LogEntry.objects.get()
    assert (entry.user, entry.object_id) == (operator, str(txn.pk))
    last = txn.events.last()
    assert (last.actor_type, last.actor, last.details["reason"]) == ("admin", operator.username, "Customer kept part")


def test_a_refund_with_a_reason_lands_on_the_timeline(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    done = client.post(act_url(txn, "refund"), {"amount": "2.50", "reason": "Damaged item"}, follow=True)

    txn.refresh_from_db()
    assert txn.refunded_amount == 250
    assert txn.refunds.get().reason == "Damaged item"
    html = done.content.decode()
    assert "Refund: USD 2.50 succeeded." in html
    assert html.index("transaction created") < html.index("refund to payment method")


@pytest.mark.parametrize("amount", ["2.50", ""], ids=["typed", "everything-left"])
def test_a_refund_form_sent_again_answers_the_refund_it_made(client, merchant_account, staff_login, amount):
    """The page's worker died after the refund was made, and the browser sends the form again: one refund."""
    txn = authorized(merchant_account, amount=1000, intent="capture")
    staff_login(PAYMENTS_OPERATOR)
    form = client.get(act_url(txn, "refund")).context["form"]
    sent = {"amount": amount, "reason": "Damaged item", "attempt": str(form["attempt"].value())}

    client.post(act_url(txn, "refund"), sent)
    again = client.post(act_url(txn, "refund"), sent, follow=True)

    txn.refresh_from_db()
    refunded = 250 if amount else 1000
    assert (txn.refunds.count(), txn.refunded_amount) == (1, refunded)
    assert f"Refund: USD {refunded / 100:.2f} succeeded." in again.content.decode()


def test_a_void_and_a_full_refund(client, merchant_account, staff_login):
    to_void = authorized(merchant_account)
    to_refund = authorized(merchant_account, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    client.post(act_url(to_void, "void"), {"reason": "Duplicate order"})
    client.post(act_url(to_refund, "refund"), {"amount": "", "reason": "Order cancelled"})

    assert Transaction.objects.get(pk=to_void.pk).status == "authorization_voided"
    assert Transaction.objects.get(pk=to_refund.pk).refunded_amount == 1000
    assert LogEntry.objects.count() == 2


def test_the_actions_are_post_only(client, merchant_account, staff_login):
    txn = authorized(merchant_account)
    staff_login(PAYMENTS_OPERATOR)

    client.get(act_url(txn, "void"), {"reason": "Duplicate order"})

    txn.refresh_from_db()
    assert txn.status == "authorization_succeeded"


def test_amounts_follow_the_currency_exponent(client, merchant_account, staff_login):
    yen = authorized(merchant_account, amount=5000, currency="JPY", intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    refused = client.post(act_url(yen, "refund"), {"amount": "12.5", "reason": "x"}).content.decode()
    client.post(act_url(yen, "refund"), {"amount": "1,200", "reason": "Partial"})

    assert "JPY amounts have no decimals." in refused
    yen.refresh_from_db()
    assert yen.refunded_amount == 1200
    assert "JPY 5,000" in client.get(page_of(yen)).content.decode()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"amount": "10.01", "reason": "x"}, "USD 10.01 is more than the USD 10.00 left to refund."),
        ({"amount": "-3", "reason": "x"}, "Enter an amount such as"),
        ({"amount": "1.001", "reason": "x"}, "USD amounts have 2 decimals."),
        ({"amount": "1.00", "reason": ""}, "Choose a reason or write one."),
    ],
    ids=["too-much", "negative", "too-many-decimals", "no-reason"],
)
def test_a_refused_refund_says_why_and_changes_nothing(client, merchant_account, staff_login, data, says):
    txn = authorized(merchant_account, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    response = client.post(act_url(txn, "refund"), data, follow=True)

    assert says in response.content.decode()
    txn.refresh_from_db()
    assert txn.refunded_amount == 0
    assert not LogEntry.objects.exists()


def test_a_refused_action_says_why_without_a_capitalised_id(client, merchant_account, staff_login):
    captured = authorized(merchant_account, intent="capture")
    staff_login(PAYMENTS_OPERATOR)

    response = client.post(act_url(captured, "void"), {"reason": "x"}, follow=True)

    html = response.content.decode()
    assert "Nothing was done. This transaction cannot be voided: it has already been captured." in html
    assert f"{str(captured.pk).capitalize()}:" not in html
    captured.refresh_from_db()
    assert captured.status == "capture_succeeded"


# --- search ----------------------------------------------------------------------------------------------


def _found(client, term: str) -> set:
    return {txn.pk for txn in client.get(CHANGELIST, {"q": term}).context["cl"].result_list}


def test_search_finds_what_a_customer_tells(support_client, merchant_account):
    felix = BuyerFactory(merchant_account=merchant_account, display_name="Felix Okafor")
    card = TransactionFactory(
        merchant_account=merchant_account, card_last4="0002", card_bin="400000", card_expiration_date="01/31"
    )
    other_expiry = TransactionFactory(
        merchant_account=merchant_account, card_last4="0002", card_expiration_date="02/31"
    )
    emailed = TransactionFactory(merchant_account=merchant_account, buyer_email_address="buyer355@example.com")
    named = TransactionFactory(merchant_account=merchant_account, buyer=felix)
    priced = TransactionFactory(merchant_account=merchant_account, amount=12000, external_identifier="order-9")
    yen = TransactionFactory(merchant_account=merchant_account, amount=500, currency="JPY")

    assert _found(support_client, "0002") == {card.pk, other_expiry.pk}
    assert _found(support_client, "400000…0002") == {card.pk}
    assert _found(support_client, "400000 0002") == {card.pk}
    assert _found(support_client, "0002 01/31") == {card.pk}
    assert _found(support_client, "Buyer355@Example.com") == {emailed.pk}
    assert _found(support_client, "felix okafor") == {named.pk}
    assert _found(support_client, "120.00") == {priced.pk}
    assert _found(support_client, "JPY 500") == {yen.pk}
    assert _found(support_client, "order-9") == {priced.pk}
    assert _found(support_client, str(yen.pk)) == {yen.pk}
    assert _found(support_client, "USD 1.001") == set()


def test_filters_on_decline_reason_currency_and_method(support_client, merchant_account):
    declined = TransactionFactory(merchant_account=merchant_account, declined=True)
    yen = TransactionFactory(merchant_account=merchant_account, currency="JPY")
    TransactionFactory(merchant_account=merchant_account)

    def listed(**params):
        response = support_client.get(CHANGELIST, params)
        return {txn.pk for txn in response.context["cl"].result_list}, response.content.decode()

    by_reason, html = listed(error_code="issuer_decline")
    assert by_reason == {declined.pk}
    assert "?error_code=issuer_decline" in html  # offered as a choice
    assert listed(currency="JPY")[0] == {yen.pk}
    assert len(listed(method="card")[0]) == 3


# --- query counts: fixed whatever the number of rows ---------------------------------------------------------

# session, user, user and group permissions, three bounded filter choices, merchant accounts, capped count, page
LIST_QUERIES = 10
# session, user, transaction (with buyer and account), its disputes, refunds, events, redemptions, webhook deliveries,
# user and group permissions
CHANGE_QUERIES = 11


@pytest.mark.parametrize(
    ("params", "extra"),
    [
        ({}, 0),
        ({"q": "1111"}, 0),
        ({"q": "Felix"}, 1),
        ({"q": "felix@example.com"}, 1),
        ({"q": "felix@"}, 1),
        ({"status": "capture_succeeded"}, 0),
    ],
    ids=["all", "last4", "name", "email", "part-of-an-email", "status"],
)
def test_the_list_costs_a_fixed_number_of_queries(
    support_client, merchant_account, django_assert_num_queries, params, extra
):
    TransactionFactory(merchant_account=merchant_account, captured=True)
    support_client.get(CHANGELIST, params)
    TransactionFactory.create_batch(30, merchant_account=merchant_account, captured=True)

    with django_assert_num_queries(LIST_QUERIES + extra):  # a name or email search first finds the buyers' ids
        assert support_client.get(CHANGELIST, params).status_code == 200


def test_the_list_badges_refunds_without_a_query_more(support_client, merchant_account, django_assert_num_queries):
    TransactionFactory(merchant_account=merchant_account, captured=True, refunded_amount=1299)
    TransactionFactory(merchant_account=merchant_account, captured=True, refunded_amount=300)
    TransactionFactory(merchant_account=merchant_account, captured=True)
    support_client.get(CHANGELIST)

    with django_assert_num_queries(LIST_QUERIES):
        html = support_client.get(CHANGELIST).content.decode()

    assert html.count('data-badge="refunded"') == 1
    assert html.count('data-badge="partly-refunded"') == 1
    assert "transaction-list.css" in html


@pytest.mark.parametrize("refunds", [1, 5])
def test_the_page_costs_a_fixed_number_of_queries(
    client, merchant_account, staff_login, django_assert_num_queries, refunds
):
    staff_login(PAYMENTS_OPERATOR)
    txn = TransactionFactory(merchant_account=merchant_account, captured=True, amount=10000)
    RefundFactory.create_batch(refunds, transaction=txn)
    client.get(page_of(txn))

    with django_assert_num_queries(CHANGE_QUERIES + 1):  # an operator's page also reads what is left to refund
        assert client.get(page_of(txn)).status_code == 200


def test_refund_list_and_page_queries(support_client, merchant_account, django_assert_num_queries):
    refund = RefundFactory(transaction=TransactionFactory(merchant_account=merchant_account, captured=True))
    url = reverse("admin:transactions_refund_change", args=[refund.pk])
    support_client.get(url)

    with django_assert_num_queries(7):  # session, user, permissions (2), merchant accounts, capped count, page
        support_client.get(reverse("admin:transactions_refund_changelist"))
    with django_assert_num_queries(5):  # session, user, permissions (2), refund with its transaction
        support_client.get(url)


# --- pivots ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("redemptions", [1, 6])
def test_a_gift_card_leads_to_its_redemptions_in_fixed_queries(
    support_client, merchant_account, django_assert_num_queries, redemptions
):
    from giftcards.tests.factories import IssuedGiftCardFactory
    from transactions.models import GiftCardRedemption

    card = IssuedGiftCardFactory(merchant_account=merchant_account, amount=50000)
    txns = TransactionFactory.create_batch(redemptions, merchant_account=merchant_account, captured=True)
    for txn in txns:
        GiftCardRedemption.objects.create(
            transaction=txn, issued_card=card, bin="603571", sub_bin="0000", last4=card.last4, amount=250
        )
    url = reverse("admin:giftcards_issuedgiftcard_change", args=[card.pk])
    support_client.get(url)

    # session, user, card with its program, permissions (2), ledger, redemptions: bounded count and newest rows
    with django_assert_num_queries(8):
        html = support_client.get(url).content.decode()

    shown = min(redemptions, 5)
    assert (
        f"Redemptions ({shown} newest of {redemptions})" if redemptions > shown else f"Redemptions ({redemptions})"
    ) in html
    assert html.count("USD 2.50") == min(redemptions, 5)
    assert page_of(txns[-1]) in html


@pytest.mark.parametrize(
    ("action", "intent", "expected"),
    [("capture", "authorize", "captured"), ("void", "authorize", "voided"), ("refund", "capture", "created")],
)
def test_an_operators_action_is_audited_as_the_api_audits_it(
    client, merchant_account, staff_login, action, intent, expected
):
    from payments.audit.models import AuditLogEntry

    txn = authorized(merchant_account, intent=intent)
    operator = staff_login(PAYMENTS_OPERATOR)

    client.post(act_url(txn, action), {"amount": "", "reason": "asked"})

    refund = txn.refunds.first()
    resource = ("refund", str(refund.pk)) if action == "refund" else ("transaction", str(txn.pk))
    entries = AuditLogEntry.objects.filter(user_is_staff=True)
    assert [(e.action, e.resource_type, e.resource_id) for e in entries] == [(expected, *resource)]
    assert (entries[0].user_name, entries[0].merchant_account_id) == (operator.username, merchant_account.id)
    assert LogEntry.objects.filter(object_id=str(txn.pk)).exists()  # the admin's own log still has it


def test_the_page_shows_each_capture_with_its_state_and_the_processors_reference(client, merchant_account, staff_login):
    txn = authorized(merchant_account, amount=1000)
    transaction_capture(txn=txn, actor=Actor.api_key("kid"), amount=600, final=False)
    transaction_capture(txn=Transaction.objects.get(pk=txn.pk), actor=Actor.api_key("kid"), amount=400)
    first, second = Capture.objects.filter(transaction=txn).order_by("sequence")
    staff_login(SUPPORT)

    page = client.get(page_of(txn)).content.decode()

    assert "USD 10.00" in page
    at = page.index('class="capture-list"')
    assert page.index("USD 6.00", at) < page.index("USD 4.00", at)  # oldest first
    assert "(more may follow)" in page[at:]
    for capture in (first, second):
        assert f"captured {desk_datetime(capture.captured_at)}" in page[at:]
        assert f"<code>{capture.payment_service_capture_id}</code>" in page[at:]


def test_the_page_says_what_the_card_is_in_words(client, merchant_account, staff_login):
    staff_login(SUPPORT)
    known = TransactionFactory(
        merchant_account=merchant_account,
        card_scheme="visa",
        card_type="debit",
        card_country="FR",
        card_issuer_name="Some Bank",
    )
    unknown = TransactionFactory(merchant_account=merchant_account, card_scheme="visa")

    page = client.get(page_of(known)).content.decode()

    assert "Card type and issuer" in page
    assert "Visa debit card issued in France by Some Bank" in page
    assert "Visa card (type —) issued in — by —" in client.get(page_of(unknown)).content.decode()
