"""Every filter of upstream's transaction list filters: none is accepted and ignored."""

import json
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

import contracts
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.identifiers import base62
from payments.rest.query import PAGING_PARAMS
from payments.tests.assertions import assert_error
from payments.tests.factories import MerchantAccountFactory
from transactions.api.filters import TransactionFilter
from transactions.models import GiftCardRedemption, RedemptionStatus, Transaction
from transactions.tests.factories import RefundFactory, TransactionFactory

# A well-formed id no row has: a parameter fixed at import, so every test worker collects the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"

pytestmark = pytest.mark.django_db

GIFT_CARD_ID = uuid.UUID("6a1d8c6e-0d5e-4d43-8b8e-3f0d0f3a9b10")
THREE_D_SECURE = {"version": "2.2.0", "status": "complete", "method": "frictionless", "response_data": {}}


@pytest.fixture
def client(api_client, merchant_account):
    return api_client(scopes=["transactions.read"])


@pytest.fixture
def rows(merchant_account):
    """Transactions that differ in one filterable way each, named for the tests below."""
    make = TransactionFactory
    made = {
        "plain": make(merchant_account=merchant_account, authorized=True),
        "grace": make(
            merchant_account=merchant_account,
            authorized=True,
            buyer_email_address="grace@example.com",
            buyer_external_identifier="buyer-g",
            buyer_details={"id": None, "display_name": "Grace Hopper"},
        ),
        "moto": make(
            merchant_account=merchant_account,
            captured=True,
            payment_source="moto",
            merchant_initiated=True,
            is_subsequent_payment=True,
            ip_address="2001:db8::1",
        ),
        "three_ds": make(
            merchant_account=merchant_account,
            declined=True,
            three_d_secure=THREE_D_SECURE,
            payment_service_transaction_id="psp-42",
            card_bin="555555",
            card_fingerprint="print-1",
            card_scheme="mastercard",
            card_last4="4444",
        ),
        "gift": make(merchant_account=merchant_account, authorized=True, method="gift-card", card_bin=None),
    }
    card = IssuedGiftCardFactory(merchant_account=merchant_account)
    GiftCardRedemption.objects.create(
        transaction=made["gift"],
        issued_card=card,
        gift_card_id=GIFT_CARD_ID,
        bin=card.bin,
        sub_bin=card.sub_bin,
        last4="9876",
        amount=500,
        status=RedemptionStatus.SUCCEEDED,
    )
    made["refunded"] = RefundFactory(transaction__merchant_account=merchant_account).transaction
    made["settled"] = TransactionFactory(
        merchant_account=merchant_account,
        captured=True,
        settled_at=timezone.now(),
        settled_amount=1000,
        settled_currency="USD",
    )
    # Another account's transaction matches every filter above and is never listed.
    TransactionFactory(
        merchant_account=MerchantAccountFactory(id="other"),
        buyer_email_address="grace@example.com",
        payment_source="moto",
    )
    return made


def listed(client, query) -> set[str]:
    response = client.get("/transactions", query)
    assert response.status_code == 200, response.content
    return {item["id"] for item in response.json()["items"]}


EVERYTHING = object()
CASES = [
    ({"buyer_email_address": "Grace@Example.com"}, ["grace"]),
    ({"buyer_search": "grace@example.com"}, ["grace"]),
    ({"buyer_search": ["nobody", "buyer-g"]}, ["grace"]),
    ({"buyer_search": "GRACE HOPPER"}, ["grace"]),
    ({"ip_address": "2001:DB8:0:0::1"}, ["moto"]),
    ({"ip_address": "192.0.2.1"}, []),
    ({"payment_source": "moto"}, ["moto"]),
    ({"payment_source": ["moto", "recurring"]}, ["moto"]),
    ({"merchant_initiated": "true"}, ["moto"]),
    ({"is_subsequent_payment": "true"}, ["moto"]),
    ({"used_3ds": "true"}, ["three_ds"]),
    ({"payment_service_transaction_id": "psp-42"}, ["three_ds"]),
    ({"payment_method_bin": "555555"}, ["three_ds"]),
    ({"payment_method_fingerprint": "print-1"}, ["three_ds"]),
    ({"payment_method_scheme": "mastercard"}, ["three_ds"]),
    ({"payment_method_label": "4444"}, ["three_ds"]),
    ({"payment_method_country": "US"}, []),
    ({"payment_method_id": UNKNOWN_ID}, []),
    ({"has_gift_card_redemptions": "true"}, ["gift"]),
    ({"gift_card_id": str(GIFT_CARD_ID)}, ["gift"]),
    ({"gift_card_id": UNKNOWN_ID}, []),
    ({"gift_card_last4": "9876"}, ["gift"]),
    ({"method": "gift-card"}, ["gift"]),
    ({"disputed": "true"}, []),
    ({"has_settlements": "true"}, ["settled"]),
    ({"pending_review": "true"}, []),
    ({"payment_link_id": UNKNOWN_ID}, []),
    ({"payment_service_id": UNKNOWN_ID}, []),
    ({"reauthorized_from_transaction_id": UNKNOWN_ID}, []),
    ({"reconciliation_id": "zzz"}, []),
    ({"has_refunds": "true"}, ["refunded"]),
]


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[json.dumps(query) for query, _ in CASES])
def test_each_filter_narrows_the_list(client, rows, query, expected):
    assert listed(client, query) == {str(rows[name].pk) for name in expected}


@pytest.mark.parametrize(
    ("query", "excluded"),
    [
        ({"disputed": "false"}, []),
        ({"has_settlements": "false"}, ["settled"]),
        ({"pending_review": "false"}, []),
        ({"used_3ds": "false"}, ["three_ds"]),
        ({"merchant_initiated": "false"}, ["moto"]),
        ({"has_gift_card_redemptions": "false"}, ["gift"]),
    ],
    ids=lambda value: json.dumps(value),
)
def test_the_other_side_of_a_flag_is_everything_else(client, rows, query, excluded):
    expected = {str(txn.pk) for txn in rows.values()} - {str(rows[name].pk) for name in excluded}
    assert listed(client, query) == expected


def test_reconciliation_id_finds_its_transaction(client, rows):
    assert listed(client, {"reconciliation_id": base62(rows["moto"].pk)}) == {str(rows["moto"].pk)}


@pytest.mark.parametrize("offset", ["Z", "+14:00", "-19:00", "+23:59"])
def test_a_date_time_with_any_offset_python_reads_filters_in_utc(client, merchant_account, offset):
    txn = TransactionFactory(merchant_account=merchant_account)
    moment = timezone.now() + timedelta(minutes=1)
    local = moment.astimezone(timezone.get_fixed_timezone(_minutes(offset))).replace(tzinfo=None).isoformat()

    assert listed(client, {"updated_at_lte": local + offset}) == {str(txn.pk)}
    assert listed(client, {"updated_at_gte": local + offset}) == set()


def _minutes(offset: str) -> int:
    if offset == "Z":
        return 0
    sign = -1 if offset[0] == "-" else 1
    hours, minutes = offset[1:].split(":")
    return sign * (int(hours) * 60 + int(minutes))


@pytest.mark.parametrize(
    ("query", "pointer"),
    [
        ({"created_at_gte": "2026-01-01T00:00:00"}, "/created_at_gte"),
        ({"created_at_gte": "2026-01-01T00:00:00+25:00"}, "/created_at_gte"),
        ({"ip_address": "999.1.1.1"}, "/ip_address"),
        ({"payment_source": "pos"}, "/payment_source"),
        ({"merchant_initiated": "yes"}, "/merchant_initiated"),
        ({"disputed": "1"}, "/disputed"),
        ({"gift_card_id": "nope"}, "/gift_card_id"),
        ({"gift_card_last4": "12"}, "/gift_card_last4"),
        ({"payment_method_id": "nope"}, "/payment_method_id"),
        ({"payment_service_id": "nope"}, "/payment_service_id"),
        ({"payment_link_id": "nope"}, "/payment_link_id"),
        ({"payment_method_country": "usa"}, "/payment_method_country"),
        ({"amount_eq": "2147483648"}, "/amount_eq"),
        # An empty typed value is no value, not "no filter": the whole list would come back.
        ({"buyer_id": ""}, "/buyer_id"),
        ({"created_at_gte": ""}, "/created_at_gte"),
        ({"amount_eq": ""}, "/amount_eq"),
        ({"has_refunds": ""}, "/has_refunds"),
        ({"status": ""}, "/status"),
        ({"bogus_filter": "1"}, "/bogus_filter"),
        ({"Status": "processing"}, "/Status"),
    ],
    ids=lambda value: json.dumps(value) if isinstance(value, dict) else value,
)
def test_a_bad_or_unknown_filter_is_a_400_naming_it(client, query, pointer):
    payload = assert_error(client.get("/transactions", query), 400, pointer, location="query")
    assert payload["details"][0]["pointer"] == pointer


def test_every_filter_of_the_upstream_list_is_declared():
    operation = json.loads(contracts.GR4VY.read_text())["paths"]["/transactions"]["get"]
    upstream = {parameter["name"] for parameter in operation["parameters"] if parameter["in"] == "query"}

    assert upstream - PAGING_PARAMS == set(TransactionFilter.base_filters)


def test_a_filtered_page_costs_the_same_queries_as_an_unfiltered_one(client, rows, django_assert_num_queries):
    client.get("/transactions")  # warms the key and account caches, as every later request finds them
    query = {"gift_card_id": str(GIFT_CARD_ID), "buyer_search": "x", "has_refunds": "false", "used_3ds": "false"}
    with django_assert_num_queries(3):  # the page, then the gift card redemptions and the disputes of all its rows
        client.get("/transactions", {"has_gift_card_redemptions": "true"})
    with django_assert_num_queries(1):  # nothing matches: no redemptions to read
        client.get("/transactions", query)


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("lookup", "index"),
    [
        ({"buyer_email_address": "grace@example.com"}, "transaction_staff_email"),
        ({"ip_address": "2001:db8::1"}, "transaction_ip_address"),
        ({"payment_service_transaction_id": "psp-42"}, "transaction_processor_id"),
        ({"card_fingerprint": "print-1"}, "transaction_card_print"),
    ],
    ids=lambda value: value if isinstance(value, str) else next(iter(value)),
)
def test_an_equality_filter_reads_its_page_from_an_index(merchant_account, lookup, index):
    # Enough rows, each with its own value, and fresh statistics: the planner then prices the choice as it would at
    # scale, instead of reading a tiny table through whichever index comes first.
    Transaction.objects.bulk_create(
        TransactionFactory.build(
            merchant_account=merchant_account,
            buyer_email_address=f"buyer{n}@example.com",
            ip_address=f"2001:db8::{n + 2:x}",
            payment_service_transaction_id=f"psp-{n}",
        )
        for n in range(500)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE transactions_transaction")
        cursor.execute("SET LOCAL enable_seqscan = off")
    page = (
        Transaction.objects.filter(merchant_account=merchant_account, **lookup)
        .order_by("-created_at", "-id")
        .values("id")[:21]
    )

    plan = page.explain()

    assert index in plan, plan
    assert "Sort" not in plan, plan  # the index yields the page order: a range scan, not a sort of every match
