"""The audit log: API writes and staff actions recorded with actor, object and time; `GET /audit-logs`."""

import re
import uuid
from datetime import UTC

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from checkout.tests.factories import CheckoutSessionFactory
from payments.audit.models import AuditLogEntry
from payments.audit.services import Actor, audit_record

pytestmark = pytest.mark.django_db

URL = "/audit-logs"
READ = ["audit-logs.read"]


def _entry(account_id: str, **fields: str) -> AuditLogEntry:
    values = {"action": "created", "resource_type": "buyer", "resource_id": str(uuid.uuid4()), "resource_name": "x"}
    values.update(fields)
    actor = Actor(id=uuid.uuid4(), name="key", is_staff=False)
    return audit_record(actor=actor, merchant_account_id=account_id, **values)


def test_an_api_write_is_recorded_with_its_key_and_resource(api_client, api_key, merchant_account):
    client = api_client(scopes=["buyers.write"])
    buyer = client.post("/buyers", {"display_name": "Jane Zoe"}, format="json").json()
    client.delete(f"/buyers/{buyer['id']}")

    entries = list(AuditLogEntry.objects.order_by("created_at").values_list("action", "resource_type", "resource_id"))
    assert entries == [("created", "buyer", buyer["id"]), ("deleted", "buyer", buyer["id"])]
    entry = AuditLogEntry.objects.first()
    assert (entry.user_name, entry.user_id, entry.user_is_staff) == (api_key.kid, api_key.id, False)
    assert (entry.merchant_account_id, entry.resource_name) == (merchant_account.id, "Jane Zoe")


def test_a_refused_write_records_nothing(api_client, merchant_account):
    response = api_client(scopes=["buyers.write"]).post("/buyers", {"display_name": 5}, format="json")
    forbidden = api_client(scopes=["buyers.read"]).post("/buyers", {"display_name": "A"}, format="json")

    assert (response.status_code, forbidden.status_code) == (400, 403)
    assert not AuditLogEntry.objects.exists()


def test_reads_record_nothing(api_client, merchant_account):
    api_client(scopes=["buyers.read"]).get("/buyers")

    assert not AuditLogEntry.objects.exists()


def test_a_staff_change_in_the_admin_is_recorded(admin_client, admin_user, merchant_account):
    response = admin_client.post(
        f"/admin/payments/merchantaccount/{merchant_account.id}/change/",
        {"display_name": "Renamed", "allowed_origins": "[]"},
    )

    assert response.status_code == 302
    entry = AuditLogEntry.objects.get()
    assert (entry.action, entry.resource_type, entry.resource_id) == ("updated", "merchantaccount", "default")
    assert (entry.user_name, entry.user_is_staff, entry.merchant_account_id) == ("admin", True, "default")


def test_the_name_never_carries_a_card_number(merchant_account):
    entry = _entry(merchant_account.id, resource_name="card 4111111111111111")

    assert "4111111111111111" not in entry.resource_name


def test_the_list_needs_the_audit_scope(api_client, merchant_account):
    response = api_client(scopes=["buyers.read"]).get(URL)

    assert response.status_code == 403
    assert "audit-logs.read" in response.json()["message"]


def test_the_list_shows_only_the_accounts_entries(api_client, merchant_account, other_merchant_account):
    mine = _entry(merchant_account.id)
    _entry(other_merchant_account.id)

    body = api_client(scopes=READ).get(URL).json()

    assert [item["id"] for item in body["items"]] == [str(mine.id)]
    assert body["items"][0]["merchant_account_id"] == "default"


def test_the_list_filters_by_action_resource_type_and_user(api_client, merchant_account):
    created = _entry(merchant_account.id)
    voided = _entry(merchant_account.id, action="voided", resource_type="transaction")
    client = api_client(scopes=READ)

    def ids(query: str) -> list[str]:
        return [item["id"] for item in client.get(f"{URL}?{query}").json()["items"]]

    assert ids("action=voided") == [str(voided.id)]
    assert ids("resource_type=buyer") == [str(created.id)]
    assert ids(f"user_id={created.user_id}") == [str(created.id)]


@pytest.mark.parametrize(
    ("query", "name"), [("action=approved", "action"), ("user_id=nope", "user_id"), ("resource_id=1", "resource_id")]
)
def test_a_bad_or_unknown_filter_is_refused_by_name(api_client, merchant_account, query, name):
    response = api_client(scopes=READ).get(f"{URL}?{query}")

    assert response.status_code == 400
    assert name in str(response.json())


def test_the_list_pages_with_cursors(api_client, merchant_account):
    entries = [_entry(merchant_account.id) for _ in range(3)]
    client = api_client(scopes=READ)

    first = client.get(f"{URL}?limit=2").json()
    second = client.get(f"{URL}?limit=2&cursor={first['next_cursor']}").json()

    listed = [item["id"] for item in first["items"] + second["items"]]
    assert sorted(listed) == sorted(str(entry.id) for entry in entries)


def test_the_list_costs_a_fixed_number_of_queries(api_client, merchant_account, django_assert_num_queries):
    for _ in range(5):
        _entry(merchant_account.id)
    client = api_client(scopes=READ)
    client.get(URL)  # warms the key and account caches

    with django_assert_num_queries(1):
        assert len(client.get(URL).json()["items"]) == 5


def test_the_admin_list_is_read_only_and_costs_a_fixed_number_of_queries(
    admin_client, merchant_account, django_assert_num_queries
):
    for _ in range(3):
        _entry(merchant_account.id)
    admin_client.get("/admin/payments/auditlogentry/")
    # Session, user, the recent types, the accounts filter, the capped count and the page.
    with django_assert_num_queries(6) as few:
        admin_client.get("/admin/payments/auditlogentry/?q=key&action__exact=created")
    for _ in range(10):
        _entry(merchant_account.id)
    with django_assert_num_queries(len(few.captured_queries)):
        response = admin_client.get("/admin/payments/auditlogentry/?q=key&action__exact=created")

    assert response.status_code == 200
    assert admin_client.get("/admin/payments/auditlogentry/add/").status_code == 403


def test_the_admin_list_never_counts_or_distincts_the_whole_table(admin_client, merchant_account):
    """At a million entries a full COUNT(*) or a DISTINCT over every row is seconds per page (the scale stage): the
    count is capped, the type filter reads the newest rows only, and there is no date hierarchy."""
    _entry(merchant_account.id, resource_type="gift-card")
    with CaptureQueriesContext(connection) as page:
        html = admin_client.get("/admin/payments/auditlogentry/").content.decode()

    statements = [query["sql"].upper() for query in page.captured_queries]
    counts = [sql for sql in statements if "COUNT(" in sql]
    assert counts
    assert all("LIMIT" in sql for sql in counts), counts
    distincts = [sql for sql in statements if "DISTINCT" in sql]
    assert distincts
    assert all("LIMIT" in sql for sql in distincts), distincts
    assert "gift-card" in html  # the recent types are offered
    assert 'class="xfull"' not in html  # the date hierarchy's bar


def test_the_admin_search_matches_an_id_an_actor_or_a_name_exactly(admin_client, merchant_account):
    wanted = _entry(merchant_account.id, resource_name="Jane Zoe")
    other = _entry(merchant_account.id, resource_name="Jane Zoey")

    def found(term: str) -> set[str]:
        response = admin_client.get("/admin/payments/auditlogentry/", {"q": term})
        return {str(entry.pk) for entry in response.context["cl"].result_list}

    assert found(wanted.resource_id) == {str(wanted.pk)}
    assert found("Jane Zoe") == {str(wanted.pk)}
    assert found("key") == {str(wanted.pk), str(other.pk)}  # the actor's name
    assert found("Jane") == set()  # exact only: a prefix would read every row


def test_a_capture_is_recorded_as_captured_and_a_refund_as_created(api_client, merchant_account):
    from transactions.tests.factories import TransactionFactory

    transaction = TransactionFactory(merchant_account=merchant_account, authorized=True)
    client = api_client(scopes=["transactions.write"])
    captured = client.post(f"/transactions/{transaction.id}/capture", {}, format="json")
    refunded = client.post(f"/transactions/{transaction.id}/refunds", {"amount": 100}, format="json")

    assert (captured.status_code, refunded.status_code) == (200, 201), refunded.content
    entries = AuditLogEntry.objects.order_by("created_at").values_list("action", "resource_type", "resource_id")
    assert list(entries)[:2] == [
        ("captured", "transaction", str(transaction.id)),
        ("created", "refund", refunded.json()["id"]),
    ]


def test_an_increment_is_its_own_action_served_as_upstreams_update_and_said_in_words(
    api_client, merchant_account, admin_client
):
    from transactions.tests.test_api import create

    client = api_client(scopes=["transactions.read", "transactions.write", "audit-logs.read"])
    txn = create(client, amount=1000)
    incremented = client.post(f"/transactions/{txn['id']}/authorization/increment", {"amount": 250}, format="json")
    client.post(f"/transactions/{txn['id']}/capture", {}, format="json")

    assert incremented.status_code == 200, incremented.content
    entries = AuditLogEntry.objects.filter(resource_id=txn["id"]).order_by("created_at")
    assert list(entries.values_list("action", flat=True)) == ["created", "incremented", "captured"]
    served = client.get(URL, {"resource_type": "transaction"}).json()["items"]
    assert [item["action"] for item in served] == ["captured", "updated", "created"]  # upstream's have no increment
    assert len(client.get(URL, {"action": "updated"}).json()["items"]) == 1
    assert client.get(URL, {"action": "incremented"}).status_code == 400
    html = admin_client.get("/admin/payments/auditlogentry/").content.decode()
    assert "Incremented the authorization of transaction <a" in html
    assert "Captured transaction <a" in html


def test_a_bulk_delete_in_the_admin_records_every_deletion(admin_client, merchant_account):
    sessions = [CheckoutSessionFactory(merchant_account=merchant_account) for _ in range(3)]

    response = admin_client.post(
        "/admin/checkout/checkoutsession/",
        {"action": "delete_selected", "_selected_action": [str(s.pk) for s in sessions], "post": "yes"},
    )

    assert response.status_code == 302
    entries = AuditLogEntry.objects.order_by("resource_id")
    assert sorted(str(s.pk) for s in sessions) == [entry.resource_id for entry in entries]
    assert {(e.action, e.resource_type, e.user_is_staff, e.merchant_account_id) for e in entries} == {
        ("deleted", "checkout-session", True, "default")
    }


def test_the_bulk_delete_confirmation_page_records_nothing(admin_client, merchant_account):
    sessions = [CheckoutSessionFactory(merchant_account=merchant_account) for _ in range(2)]

    response = admin_client.post(
        "/admin/checkout/checkoutsession/",
        {"action": "delete_selected", "_selected_action": [str(s.pk) for s in sessions]},
    )

    assert response.status_code == 200
    assert not AuditLogEntry.objects.exists()


def test_a_staff_actor_is_served_to_merchants_without_name_or_email(api_client, merchant_account, admin_client):
    staff = Actor(id=uuid.uuid4(), name="Dana Operator", email="dana@payments.example", is_staff=True)
    entry = audit_record(
        actor=staff,
        action="updated",
        resource_type="buyer",
        resource_id="b1",
        resource_name="x",
        merchant_account_id=merchant_account.id,
    )

    (item,) = api_client(scopes=READ).get(URL).json()["items"]

    assert item["user"] == {
        "type": "user",
        "id": str(staff.id),
        "name": "Staff",
        "email_address": None,
        "is_staff": True,
        "status": "active",
    }
    # Staff see who it was, in the admin.
    page = admin_client.get(f"/admin/payments/auditlogentry/{entry.pk}/change/").content.decode()
    assert "Dana Operator" in page
    assert "dana@payments.example" in page


def test_an_api_key_actor_is_served_by_its_kid(api_client, api_key, merchant_account):
    api_client(scopes=["buyers.write"]).post("/buyers", {"display_name": "Jane Zoe"}, format="json")

    (item,) = api_client(scopes=READ).get(URL).json()["items"]

    assert (item["user"]["name"], item["user"]["id"], item["user"]["is_staff"]) == (api_key.kid, str(api_key.id), False)


def test_the_timestamp_is_written_as_every_other_timestamp_of_the_api(api_client, merchant_account):
    entry = _entry(merchant_account.id)

    (item,) = api_client(scopes=READ).get(URL).json()["items"]

    assert item["timestamp"] == entry.created_at.astimezone(UTC).isoformat(timespec="microseconds")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", item["timestamp"])


def test_each_resource_app_registers_the_resources_it_audits_from_its_ready():
    from payments.audit.services import AUDITED_RESOURCES

    assert AUDITED_RESOURCES == {
        "buyers.buyer": "buyer",
        "buyers.shippingdetails": "shipping-details",
        "checkout.checkoutsession": "checkout-session",
        "digitalwallets.digitalwallet": "digital-wallet",
        "disputes.disputeanswer": "dispute-answer",
        "giftcards.giftcard": "gift-card",
        "giftcards.giftcardissuance": "gift-card-issuance",
        "giftcards.issuedgiftcard": "issued-gift-card",
        "paymentlinks.paymentlink": "payment-link",
        "paymentmethods.paymentmethod": "payment-method",
        "paymentservices.paymentservice": "payment-service",
        "paymentservices.paymentservicetoken": "payment-service-token",
        "payouts.payout": "payout",
        "reports.report": "report",
        "transactions.refund": "refund",
        "transactions.transaction": "transaction",
        "webhooks.webhooksubscription": "webhook-subscription",
    }


def test_the_admin_list_says_who_what_changed_and_links_the_resource(
    admin_client, api_client, api_key, merchant_account
):
    client = api_client(scopes=["buyers.write"])
    buyer = client.post("/buyers", {"display_name": "Jane Zoe"}, format="json").json()
    gone = client.post("/buyers", {"display_name": "Gone Buyer"}, format="json").json()
    client.delete(f"/buyers/{gone['id']}")
    staff = Actor(id=uuid.uuid4(), name="dana", is_staff=True)
    audit_record(
        actor=staff,
        action="updated",
        resource_type="buyer",
        resource_id=buyer["id"],
        resource_name="Jane Zoe",
        merchant_account_id=merchant_account.id,
    )

    html = admin_client.get("/admin/payments/auditlogentry/").content.decode()

    assert f'Created buyer <a href="/admin/buyers/buyer/{buyer["id"]}/change/">Jane Zoe</a>' in html
    assert "Deleted buyer <span>Gone Buyer</span>" in html  # nothing left to link to
    assert "dana <small>(staff)</small>" in html
    assert f"API key {api_key.kid[:8]}…</a> <small>of {merchant_account.id}</small>" in html
    assert f">{api_key.kid}<" not in html  # never the raw key id as the text
    assert f'href="/admin/payments/apikey/{api_key.pk}/change/"' in html


def test_the_admin_list_names_a_key_by_the_name_people_gave_it(admin_client, api_client, api_key):
    api_key.display_name = "Checkout server"
    api_key.save()
    api_client(scopes=["buyers.write"]).post("/buyers", {"display_name": "Jane Zoe"}, format="json")

    html = admin_client.get("/admin/payments/auditlogentry/").content.decode()

    assert (
        f'<a href="/admin/payments/apikey/{api_key.pk}/change/" title="Checkout server">API key Checkout server</a>'
        in html
    )
