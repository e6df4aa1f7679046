"""`/payment-methods` and `/buyers/payment-methods` through the real authentication."""

import uuid

import pytest
from django.db import IntegrityError, transaction

from buyers.tests.factories import BuyerFactory
from checkout.tests.factories import CheckoutSessionFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.outbox.models import OutboxEvent
from payments.tests.assertions import assert_error
from payments.vault.models import VaultedCard
from payments.vault.services import vaulted_card_reveal
from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db

NUMBER = "4111111111111111"
CARD = {"method": "card", "number": NUMBER, "expiration_date": "12/39"}


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["payment-methods.read", "payment-methods.write"])


@pytest.fixture
def buyer(merchant_account):
    return BuyerFactory(merchant_account=merchant_account)


def store(client, **fields):
    return client.post("/payment-methods", fields, format="json")


def test_a_card_is_stored_for_a_buyer_masked(writer, buyer):
    response = store(writer, **CARD, security_code="123", buyer_id=str(buyer.pk), external_identifier="card-1")

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["type"], body["method"], body["status"]) == ("payment-method", "card", "succeeded")
    assert (body["label"], body["scheme"], body["expiration_date"], body["details"]["bin"]) == (
        "1111",
        "visa",
        "12/39",
        "411111",
    )
    assert (body["buyer"]["id"], body["external_identifier"], body["usage_count"]) == (str(buyer.pk), "card-1", 0)
    assert NUMBER not in response.content.decode()
    assert "123" not in str(body.get("security_code"))
    method = PaymentMethod.objects.get()
    assert method.card.encrypted_security_code is None  # checked, never stored
    assert vaulted_card_reveal(card=method.card).number == NUMBER


def test_a_buyer_may_be_named_by_external_identifier(writer, buyer):
    response = store(writer, **CARD, buyer_external_identifier=buyer.external_identifier)

    assert response.status_code == 201
    assert response.json()["buyer"]["id"] == str(buyer.pk)


def test_the_same_card_stored_again_is_the_same_method_with_the_newer_expiry(writer, buyer):
    first = store(writer, **CARD, buyer_id=str(buyer.pk)).json()
    again = store(writer, **{**CARD, "expiration_date": "01/40"}, buyer_id=str(buyer.pk))

    assert again.status_code == 201
    assert (again.json()["id"], again.json()["expiration_date"]) == (first["id"], "01/40")
    assert (PaymentMethod.objects.count(), VaultedCard.objects.count()) == (1, 1)


def test_the_same_card_for_another_buyer_is_another_method(writer, buyer, merchant_account):
    other = BuyerFactory(merchant_account=merchant_account)
    first = store(writer, **CARD, buyer_id=str(buyer.pk)).json()
    second = store(writer, **CARD, buyer_id=str(other.pk)).json()

    assert first["id"] != second["id"]
    assert first["fingerprint"] == second["fingerprint"]


def test_the_card_a_checkout_session_holds_is_kept_and_the_session_keeps_its_own(writer, buyer, merchant_account):
    session = CheckoutSessionFactory(merchant_account=merchant_account, with_card=True)

    response = store(writer, method="checkout-session", id=str(session.pk), buyer_id=str(buyer.pk))

    assert response.status_code == 201, response.content
    method = PaymentMethod.objects.get()
    assert method.card_id != session.card_id
    assert method.card.encrypted_security_code is None
    assert vaulted_card_reveal(card=method.card).number == vaulted_card_reveal(card=session.card).number


# --- methods of no buyer ------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [CARD, {**CARD, "buyer_id": None, "buyer_external_identifier": None}])
def test_a_card_is_stored_with_no_buyer_as_upstream_allows(writer, body):
    response = store(writer, **body, security_code="123", external_identifier="shop-card")

    assert response.status_code == 201, response.content
    assert (response.json()["buyer"], response.json()["external_identifier"]) == (None, "shop-card")
    method = PaymentMethod.objects.get()
    assert (method.buyer, method.card.encrypted_security_code) == (None, None)


def test_a_method_of_no_buyer_is_listed_read_updated_and_deleted(writer, buyer, merchant_account):
    owned = PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer)
    unowned = store(writer, **CARD).json()
    path = f"/payment-methods/{unowned['id']}"

    listed = writer.get("/payment-methods").json()["items"]
    by_buyer = writer.get("/payment-methods", {"buyer_id": str(buyer.pk)}).json()["items"]
    read = writer.get(path)
    updated = writer.put(path, {"expiration_date": "10/40"}, format="json")
    wallet = writer.get("/buyers/payment-methods", {"buyer_id": str(buyer.pk)}).json()["items"]

    assert [(item["id"], item["buyer"] and item["buyer"]["id"]) for item in listed] == [
        (unowned["id"], None),
        (str(owned.pk), str(buyer.pk)),
    ]
    assert [item["id"] for item in by_buyer] == [str(owned.pk)]  # a buyer's filter leaves it out
    assert [item["id"] for item in wallet] == [str(owned.pk)]  # and so does the buyer's wallet
    assert (read.status_code, read.json()["buyer"]) == (200, None)
    assert (updated.status_code, updated.json()["expiration_date"]) == (200, "10/40")
    assert writer.delete(path).status_code == 204
    assert list(PaymentMethod.objects.values_list("pk", flat=True)) == [owned.pk]
    assert VaultedCard.objects.count() == 1  # its card went with it


def test_the_same_card_stored_again_with_no_buyer_is_the_same_method_and_a_buyers_is_another(
    writer, buyer, other_merchant_account
):
    first = store(writer, **CARD).json()
    again = store(writer, **{**CARD, "expiration_date": "01/40"}, external_identifier="renewed")
    for_buyer = store(writer, **CARD, buyer_id=str(buyer.pk)).json()
    elsewhere = PaymentMethodFactory(merchant_account=other_merchant_account, buyer=None)

    assert again.status_code == 201
    assert (again.json()["id"], again.json()["expiration_date"], again.json()["external_identifier"]) == (
        first["id"],
        "01/40",
        "renewed",
    )
    assert len({first["id"], for_buyer["id"], str(elsewhere.pk)}) == 3  # one per owner, and per account
    assert PaymentMethod.objects.filter(buyer=None).count() == 2


def test_the_database_keeps_one_method_per_card_of_no_buyer_in_an_account(merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account, buyer=None)

    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentMethod.objects.create(
            merchant_account=merchant_account,
            buyer=None,
            card=VaultedCard.objects.create(
                merchant_account=merchant_account,
                encrypted_number="x",
                key_id="k",
                fingerprint=method.fingerprint,
                bin="411111",
                last4="1111",
                expiration_month=12,
                expiration_year=2039,
                expires_at=method.card.expires_at,
            ),
            fingerprint=method.fingerprint,
        )


BAD_BODIES = [
    ({**CARD, "buyer_id": "{buyer}", "buyer_external_identifier": "x"}, "/buyer_external_identifier"),
    ({**CARD, "buyer_id": str(uuid.uuid4())}, "/buyer_id"),
    ({**CARD, "buyer_external_identifier": "nobody"}, "/buyer_external_identifier"),
    ({**CARD, "number": "4111111111111112", "buyer_id": "{buyer}"}, "/number"),
    ({**CARD, "expiration_date": "01/20", "buyer_id": "{buyer}"}, "/expiration_date"),
    ({**CARD, "security_code": "12", "buyer_id": "{buyer}"}, "/security_code"),
    ({**CARD, "card_type": "credit", "buyer_id": "{buyer}"}, "/card_type"),
    ({**CARD, "bogus": 1, "buyer_id": "{buyer}"}, "/bogus"),
    ({"method": "paypal", "buyer_id": "{buyer}"}, "/method"),
    ({"method": "checkout-session", "buyer_id": "{buyer}"}, "/id"),
]


@pytest.mark.parametrize(("payload", "pointer"), BAD_BODIES, ids=[pointer for _, pointer in BAD_BODIES])
def test_bad_input_is_refused_by_name_and_nothing_is_stored(writer, buyer, payload, pointer):
    payload = {key: str(buyer.pk) if value == "{buyer}" else value for key, value in payload.items()}

    assert_error(store(writer, **payload), 400, pointer)
    assert not PaymentMethod.objects.exists()
    assert not VaultedCard.objects.exists()


@pytest.mark.parametrize("session", ["missing", "no-card", "a-payment-method-id"])
def test_a_session_that_holds_no_card_is_not_found(writer, buyer, merchant_account, session):
    ids = {
        "missing": lambda: uuid.uuid4(),
        "no-card": lambda: CheckoutSessionFactory(merchant_account=merchant_account).pk,
        "a-payment-method-id": lambda: PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer).pk,
    }
    session_id = str(ids[session]())
    count = PaymentMethod.objects.count()

    response = store(writer, method="checkout-session", id=session_id, buyer_id=str(buyer.pk))

    assert_error(response, 404)
    assert PaymentMethod.objects.count() == count


def test_list_filters_and_pages(writer, merchant_account, django_assert_num_queries):
    buyer = BuyerFactory(merchant_account=merchant_account)
    mine = PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer, external_identifier="ref-1")
    PaymentMethodFactory(merchant_account=merchant_account, number="5555555555554444")
    PaymentMethodFactory(merchant_account=merchant_account, number="378282246310005")

    with django_assert_num_queries(4):  # auth key, account, page, and nothing per row
        page = writer.get("/payment-methods", {"limit": 2}).json()
    assert len(page["items"]) == 2
    assert page["next_cursor"]
    assert [item["id"] for item in writer.get("/payment-methods", {"buyer_id": str(buyer.pk)}).json()["items"]] == [
        str(mine.pk)
    ]
    by_external = writer.get("/payment-methods", {"buyer_external_identifier": buyer.external_identifier})
    assert len(by_external.json()["items"]) == 1
    assert len(writer.get("/payment-methods", {"external_identifier": "ref-1"}).json()["items"]) == 1
    assert len(writer.get("/payment-methods", {"status": ["succeeded", "failed"]}).json()["items"]) == 3
    assert writer.get("/payment-methods", {"status": "failed"}).json()["items"] == []


@pytest.mark.parametrize(
    ("query", "pointer"),
    [({"limit": 101}, "/limit"), ({"limit": 10**30}, "/limit"), ({"bogus": 1}, "/bogus"), ({"status": "x"}, "/status")],
    ids=["limit-101", "huge-limit", "unknown", "bad-status"],
)
def test_a_bad_list_query_is_refused_by_name(writer, query, pointer):
    assert_error(writer.get("/payment-methods", query), 400, pointer, location="query")


def test_get_update_delete(writer, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    path = f"/payment-methods/{method.pk}"

    assert writer.get(path).json()["id"] == str(method.pk)
    updated = writer.put(
        path, {"expiration_date": "06/41", "scheme_transaction_id": "abc", "transaction_link_id": "l1"}, format="json"
    )
    assert updated.status_code == 200, updated.content
    assert (updated.json()["expiration_date"], updated.json()["scheme_transaction_id_scheme"]) == ("06/41", "visa")
    cleared = writer.put(path, {"scheme_transaction_id": None}, format="json").json()
    assert (cleared["scheme_transaction_id"], cleared["scheme_transaction_id_scheme"]) == (None, None)
    assert_error(writer.put(path, {"number": NUMBER}, format="json"), 400, "/number")
    assert_error(writer.put(path, {"expiration_date": "01/20"}, format="json"), 400, "/expiration_date")

    assert writer.delete(path).status_code == 204
    assert_error(writer.get(path), 404)
    assert not VaultedCard.objects.filter(pk=method.card_id).exists()  # the card data went at once


def test_another_accounts_method_answers_like_a_missing_one(writer, other_merchant_account):
    theirs = PaymentMethodFactory(merchant_account=other_merchant_account)

    foreign = writer.get(f"/payment-methods/{theirs.pk}")
    missing = writer.get(f"/payment-methods/{uuid.uuid4()}")

    assert_error(foreign, 404)
    assert foreign.json() == missing.json()
    assert_error(writer.delete(f"/payment-methods/{theirs.pk}"), 404)
    assert PaymentMethod.objects.filter(pk=theirs.pk).exists()


@pytest.mark.parametrize(
    ("scopes", "method", "path"),
    [
        (["payment-methods.read"], "post", "/payment-methods"),
        (["payment-methods.read"], "delete", "/payment-methods/{id}"),
        (["buyers.read"], "get", "/payment-methods"),
        (["buyers.read"], "get", "/buyers/payment-methods"),
        (["embed"], "get", "/payment-methods"),
        (["embed"], "post", "/payment-methods"),
    ],
)
def test_scopes(api_client, merchant_account, scopes, method, path):
    stored = PaymentMethodFactory(merchant_account=merchant_account)
    client = api_client(scopes=scopes, embed={"buyer_id": str(stored.buyer_id)})

    response = getattr(client, method)(path.format(id=stored.pk), {"buyer_id": str(stored.buyer_id)})

    assert_error(response, 403)
    assert PaymentMethod.objects.filter(pk=stored.pk).exists()


def test_deleting_a_buyer_deletes_their_methods_and_card_data(api_client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)

    response = api_client(scopes=["buyers.write"]).delete(f"/buyers/{method.buyer_id}")

    assert response.status_code == 204
    assert not PaymentMethod.objects.exists()
    assert not VaultedCard.objects.exists()


# --- GET /buyers/payment-methods -----------------------------------------------------------------------------


def test_a_buyers_methods_by_id_or_external_identifier(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    older = PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer)
    newer = PaymentMethodFactory(merchant_account=merchant_account, buyer=buyer, number="5555555555554444")
    PaymentMethodFactory(merchant_account=merchant_account)
    PaymentMethod.objects.filter(pk=older.pk).update(usage_count=5)

    by_id = writer.get("/buyers/payment-methods", {"buyer_id": str(buyer.pk)})
    by_external = writer.get("/buyers/payment-methods", {"buyer_external_identifier": buyer.external_identifier})
    by_use = writer.get("/buyers/payment-methods", {"buyer_id": str(buyer.pk), "sort_by": "usage_count"})
    filtered = writer.get("/buyers/payment-methods", {"buyer_id": str(buyer.pk), "country": "US", "currency": "USD"})

    assert by_id.status_code == 200, by_id.content
    assert [item["id"] for item in by_id.json()["items"]] == [str(newer.pk), str(older.pk)]
    assert by_external.json() == by_id.json()
    assert [item["id"] for item in by_use.json()["items"]] == [str(older.pk), str(newer.pk)]
    assert len(filtered.json()["items"]) == 2  # usable in every country and currency


def test_an_unknown_buyer_has_no_methods_and_the_path_is_not_a_buyer_id(writer):
    response = writer.get("/buyers/payment-methods", {"buyer_id": str(uuid.uuid4())})

    assert (response.status_code, response.json()) == (200, {"items": []})


@pytest.mark.parametrize(
    ("query", "pointer"),
    [({}, "/buyer_id"), ({"buyer_id": "x"}, "/buyer_id"), ({"buyer_id": str(uuid.uuid4()), "limit": 5}, "/limit")],
    ids=["no-buyer", "bad-id", "unknown-parameter"],
)
def test_a_bad_buyer_query_is_refused(writer, query, pointer):
    assert_error(writer.get("/buyers/payment-methods", query), 400, pointer, location="query")


def test_an_embed_token_lists_and_deletes_only_its_pinned_buyers_methods(api_client, merchant_account):
    mine = PaymentMethodFactory(merchant_account=merchant_account)
    theirs = PaymentMethodFactory(merchant_account=merchant_account)
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD", "buyer_id": str(mine.buyer_id)})

    listed = embed.get("/buyers/payment-methods")
    assert [item["id"] for item in listed.json()["items"]] == [str(mine.pk)]
    assert_error(embed.get("/buyers/payment-methods", {"buyer_id": str(theirs.buyer_id)}), 403)
    assert_error(embed.delete(f"/payment-methods/{theirs.pk}"), 404)
    assert embed.delete(f"/payment-methods/{mine.pk}").status_code == 204
    assert list(PaymentMethod.objects.values_list("pk", flat=True)) == [theirs.pk]


def test_an_embed_token_touches_no_method_of_no_buyer(api_client, merchant_account):
    """Decided in docs/payment-methods.md: a method of no buyer is the merchant's, so no embed token (pinned to a
    buyer or not, read scopes or not) lists, reads, deletes, stores or pays with one; it answers like a missing one."""
    unowned = PaymentMethodFactory(merchant_account=merchant_account, buyer=None)
    mine = PaymentMethodFactory(merchant_account=merchant_account)
    pinned = {"amount": 100, "currency": "USD", "buyer_id": str(mine.buyer_id)}
    reader = api_client(scopes=["embed", "payment-methods.read"], embed=pinned)
    storer = api_client(scopes=["embed", "payment-methods.write"], embed=pinned)
    payer = api_client(scopes=["embed"], embed=pinned)

    assert [item["id"] for item in reader.get("/payment-methods").json()["items"]] == [str(mine.pk)]
    assert [item["id"] for item in reader.get("/buyers/payment-methods").json()["items"]] == [str(mine.pk)]
    assert reader.get(f"/payment-methods/{unowned.pk}").json() == reader.get(f"/payment-methods/{uuid.uuid4()}").json()
    assert_error(reader.get(f"/payment-methods/{unowned.pk}"), 404)
    assert_error(payer.delete(f"/payment-methods/{unowned.pk}"), 404)
    assert_error(storer.post("/payment-methods", {**CARD, "number": "5555555555554444"}, format="json"), 403)
    paid = payer.post(
        "/transactions",
        {
            "amount": 100,
            "currency": "USD",
            "buyer_id": str(mine.buyer_id),
            "payment_method": {"method": "id", "id": str(unowned.pk)},
        },
        format="json",
    )
    assert_error(paid, 404, "/payment_method/id")
    assert PaymentMethod.objects.filter(buyer=None).count() == 1


def test_an_embed_token_without_a_buyer_stores_no_method_of_no_buyer(api_client, merchant_account):
    unpinned = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD"})

    assert_error(unpinned.post("/payment-methods", CARD, format="json"), 403)
    assert not PaymentMethod.objects.exists()


def test_an_embed_token_without_a_buyer_sees_no_methods(api_client, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    embed = api_client(scopes=["embed"], embed={"amount": 100, "currency": "USD"})

    assert_error(embed.get("/buyers/payment-methods", {"buyer_id": str(method.buyer_id)}), 403)
    assert_error(embed.delete(f"/payment-methods/{method.pk}"), 403)


# --- webhooks ------------------------------------------------------------------------------------------------


def test_changes_notify_as_payment_method_events(writer, buyer, merchant_account, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    subscription_for(merchant_account, "http://127.0.0.1:9/hook")

    method_id = store(writer, **CARD, buyer_id=str(buyer.pk)).json()["id"]
    writer.put(f"/payment-methods/{method_id}", {"transaction_link_id": "x"}, format="json")
    writer.delete(f"/payment-methods/{method_id}")

    events = OutboxEvent.objects.filter(target_type="payment-method").order_by("created_at")
    assert [(event.name, event.target_id) for event in events] == [
        ("payment-method.created", method_id),
        ("payment-method.updated", method_id),
        ("payment-method.deleted", method_id),
    ]
