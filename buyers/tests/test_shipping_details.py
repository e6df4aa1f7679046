"""A buyer's shipping details: the API (shapes, PUT semantics, validation, scopes, accounts, the bound, query counts)
and their use by `POST /transactions` through `shipping_details_id`."""

import uuid

import pytest

from buyers.models import Buyer, ShippingDetails
from buyers.services import MAX_SHIPPING_DETAILS_PER_BUYER
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

SHIPPING = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email_address": "ada@example.com",
    "phone_number": "+442071838750",
    "address": {"city": "London", "country": "GB", "postal_code": "W1 1AA", "line1": "1 Analytical Street"},
}
KEYS = {"type", "id", "buyer_id", "first_name", "last_name", "email_address", "phone_number", "address"}
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["buyers.read", "buyers.write"])


@pytest.fixture
def buyer(merchant_account):
    return BuyerFactory(merchant_account=merchant_account)


def _path(buyer_id, details_id=None) -> str:
    base = f"/buyers/{buyer_id}/shipping-details"
    return base if details_id is None else f"{base}/{details_id}"


# --- create, read, update, delete ----------------------------------------------------------------------------


def test_create_stores_and_answers_the_details(writer, buyer):
    response = writer.post(_path(buyer.pk), SHIPPING, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == KEYS
    assert body["type"] == "shipping-details"
    assert body["buyer_id"] == str(buyer.pk)
    assert {name: body[name] for name in SHIPPING} == SHIPPING
    assert ShippingDetails.objects.get(pk=body["id"]).buyer == buyer


def test_an_empty_body_creates_empty_details(writer, buyer):
    response = writer.post(_path(buyer.pk), {}, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["first_name"] is None


def test_list_answers_every_detail_of_the_buyer_newest_first(writer, buyer):
    older = ShippingDetailsFactory(buyer=buyer)
    newer = ShippingDetailsFactory(buyer=buyer)
    ShippingDetailsFactory()  # another buyer's

    response = writer.get(_path(buyer.pk))

    assert response.status_code == 200
    assert set(response.json()) == {"items"}
    assert [item["id"] for item in response.json()["items"]] == [str(newer.pk), str(older.pk)]


def test_get_answers_one(writer, buyer):
    details = ShippingDetailsFactory(buyer=buyer)

    response = writer.get(_path(buyer.pk, details.pk))

    assert response.status_code == 200
    assert (response.json()["id"], response.json()["first_name"]) == (str(details.pk), details.first_name)


def test_put_changes_given_fields_keeps_absent_ones_and_null_clears(writer, buyer):
    details = ShippingDetailsFactory(buyer=buyer, first_name="Ada", last_name="Lovelace", phone_number="+15005550006")

    response = writer.put(_path(buyer.pk, details.pk), {"first_name": "Grace", "phone_number": None}, format="json")

    assert response.status_code == 200, response.content
    details.refresh_from_db()
    assert (details.first_name, details.last_name, details.phone_number) == ("Grace", "Lovelace", None)


def test_delete_removes_the_details(writer, buyer):
    details = ShippingDetailsFactory(buyer=buyer)

    response = writer.delete(_path(buyer.pk, details.pk))

    assert response.status_code == 204
    assert not response.content
    assert not ShippingDetails.objects.exists()


def test_deleting_the_buyer_deletes_their_details(writer, buyer):
    ShippingDetailsFactory.create_batch(2, buyer=buyer)

    assert writer.delete(f"/buyers/{buyer.pk}").status_code == 204

    assert not ShippingDetails.objects.exists()


def test_a_buyer_keeps_a_bounded_number_of_details(writer, buyer):
    ShippingDetailsFactory.create_batch(MAX_SHIPPING_DETAILS_PER_BUYER, buyer=buyer)

    response = writer.post(_path(buyer.pk), SHIPPING, format="json")

    assert_error(response, 409)
    assert ShippingDetails.objects.count() == MAX_SHIPPING_DETAILS_PER_BUYER


# --- bad input: validated as billing details are --------------------------------------------------------------

BAD_INPUT = [
    ({"first_name": ""}, "/first_name"),
    ({"last_name": "x" * 256}, "/last_name"),
    ({"email_address": "not-an-email"}, "/email_address"),
    ({"email_address": "a@" + "b" * 320 + ".com"}, "/email_address"),
    ({"phone_number": "0207"}, "/phone_number"),
    ({"address": {"country": "XX"}}, "/address/country"),
    ({"address": {"state_code": "london"}}, "/address/state_code"),
    ({"address": {"city": "x" * 101}}, "/address/city"),
    ({"address": {"planet": "Earth"}}, "/address/planet"),
    ({"tax_id": {"value": "GB1", "kind": "gb.vat"}}, "/tax_id"),
    ({"first_name": 12}, "/first_name"),
    ({"bogus": 1}, "/bogus"),
]


@pytest.mark.parametrize(("payload", "pointer"), BAD_INPUT, ids=[pointer for _, pointer in BAD_INPUT])
def test_bad_input_is_400_naming_the_field_and_nothing_is_written(writer, buyer, payload, pointer):
    details = ShippingDetailsFactory(buyer=buyer, first_name="Kept")

    created = writer.post(_path(buyer.pk), payload, format="json")
    updated = writer.put(_path(buyer.pk, details.pk), payload, format="json")

    assert_error(created, 400, pointer, location="body")
    assert_error(updated, 400, pointer, location="body")
    assert ShippingDetails.objects.count() == 1
    details.refresh_from_db()
    assert details.first_name == "Kept"


@pytest.mark.parametrize(("payload", "pointer"), BAD_INPUT[:9], ids=[pointer for _, pointer in BAD_INPUT[:9]])
def test_the_same_input_is_refused_in_a_buyers_billing_details(writer, payload, pointer):
    """One definition validates both: what shipping details refuse, billing details refuse at the same place."""
    response = writer.post("/buyers", {"billing_details": payload}, format="json")

    assert_error(response, 400, f"/billing_details{pointer}")
    assert not Buyer.objects.exists()


def test_an_unknown_query_parameter_is_refused(writer, buyer):
    assert_error(writer.get(_path(buyer.pk), {"limit": 20}), 400, "/limit", location="query")


# --- who may see what ------------------------------------------------------------------------------------------


def test_another_buyers_details_are_not_found_like_missing_ones(writer, buyer, merchant_account):
    theirs = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=merchant_account))

    for response in (
        writer.get(_path(buyer.pk, theirs.pk)),
        writer.put(_path(buyer.pk, theirs.pk), {"first_name": "X"}, format="json"),
        writer.delete(_path(buyer.pk, theirs.pk)),
        writer.get(_path(buyer.pk, uuid.uuid4())),
        writer.get(_path(buyer.pk, "not-a-uuid")),
    ):
        assert_error(response, 404)
        assert response.json()["message"] == "The shipping details could not be found."
    assert ShippingDetails.objects.get(pk=theirs.pk).first_name == theirs.first_name


def test_another_accounts_buyer_is_not_found(writer, other_merchant_account):
    theirs = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=other_merchant_account))

    assert_error(writer.get(_path(theirs.buyer_id)), 404)
    assert_error(writer.post(_path(theirs.buyer_id), SHIPPING, format="json"), 404)
    assert_error(writer.get(_path(theirs.buyer_id, theirs.pk)), 404)
    assert ShippingDetails.objects.count() == 1


def test_a_missing_buyer_is_404(writer, merchant_account):
    assert_error(writer.get(_path(uuid.uuid4())), 404)
    assert_error(writer.post(_path(uuid.uuid4()), SHIPPING, format="json"), 404)


@pytest.mark.parametrize(
    ("scopes", "reads", "writes"),
    [
        (["buyers.read"], 200, 403),
        (["buyers.write"], 403, 201),
        (["*.read"], 200, 403),
        (["*.write"], 403, 201),
        (["transactions.read", "transactions.write"], 403, 403),
        (["embed"], 403, 403),
    ],
)
def test_scopes(api_client, buyer, scopes, reads, writes):
    client = api_client(scopes=scopes, embed={"amount": 100, "currency": "USD", "buyer_id": str(buyer.pk)})

    assert client.get(_path(buyer.pk)).status_code == reads
    assert client.post(_path(buyer.pk), SHIPPING, format="json").status_code == writes


def test_no_token_is_401(client, buyer):
    assert_error(client.get(_path(buyer.pk)), 401)


# --- query counts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [1, 20])
def test_list_is_two_queries_whatever_its_length(warm_reader, buyer, django_assert_num_queries, rows):
    ShippingDetailsFactory.create_batch(rows, buyer=buyer)

    with django_assert_num_queries(2):  # the buyer, its details
        response = warm_reader.get(_path(buyer.pk))

    assert len(response.json()["items"]) == rows


def test_detail_is_one_query(warm_reader, buyer, django_assert_num_queries):
    details = ShippingDetailsFactory(buyer=buyer)

    with django_assert_num_queries(1):
        response = warm_reader.get(_path(buyer.pk, details.pk))

    assert response.status_code == 200


# --- shipping_details_id on POST /transactions ---------------------------------------------------------------


@pytest.fixture
def payer(api_client, merchant_account):
    return api_client(scopes=["transactions.read", "transactions.write"])


def _pay(client, **fields):
    body = {"amount": 1299, "currency": "USD", "payment_method": CARD, **fields}
    return client.post("/transactions", body, format="json", HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()))


def test_a_transaction_keeps_a_copy_of_the_buyers_details(payer, writer, buyer):
    details = ShippingDetailsFactory(buyer=buyer, **SHIPPING)

    response = _pay(payer, buyer_id=str(buyer.pk), shipping_details_id=str(details.pk))
    writer.put(_path(buyer.pk, details.pk), {"first_name": "Changed later"}, format="json")
    writer.delete(_path(buyer.pk, details.pk))

    assert response.status_code == 201, response.content
    shipping = response.json()["shipping_details"]
    assert (shipping["id"], shipping["buyer_id"], shipping["first_name"]) == (str(details.pk), str(buyer.pk), "Ada")
    assert shipping["address"]["city"] == "London"
    again = payer.get(f"/transactions/{response.json()['id']}")  # the copy, not the changed or deleted details
    assert again.json()["shipping_details"] == shipping


def test_a_buyer_by_external_identifier_works_too(payer, buyer):
    details = ShippingDetailsFactory(buyer=buyer)

    response = _pay(payer, buyer_external_identifier=buyer.external_identifier, shipping_details_id=str(details.pk))

    assert response.status_code == 201, response.content
    assert response.json()["shipping_details"]["id"] == str(details.pk)


def test_a_guest_buyers_details_have_no_ids(payer):
    response = _pay(payer, buyer={"shipping_details": {"first_name": "Ada"}})

    assert response.status_code == 201, response.content
    assert (response.json()["shipping_details"]["id"], response.json()["shipping_details"]["buyer_id"]) == (None, None)


def _refused_alike(response) -> None:
    body = assert_error(response, 404, "/shipping_details_id", location="body")
    assert body["message"] == "The shipping details could not be found."
    assert not Transaction.objects.exists()


def test_another_buyers_details_are_refused_like_missing_ones(payer, buyer, merchant_account):
    theirs = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=merchant_account))

    _refused_alike(_pay(payer, buyer_id=str(buyer.pk), shipping_details_id=str(theirs.pk)))
    _refused_alike(_pay(payer, buyer_id=str(buyer.pk), shipping_details_id=str(uuid.uuid4())))


def test_another_accounts_details_are_refused_like_missing_ones(api_client, other_merchant_account):
    theirs = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=other_merchant_account))
    mine = BuyerFactory(merchant_account__id="default")

    _refused_alike(
        _pay(api_client(scopes=["transactions.write"]), buyer_id=str(mine.pk), shipping_details_id=str(theirs.pk))
    )


def test_details_without_a_buyer_are_refused(payer, buyer):
    details = ShippingDetailsFactory(buyer=buyer)

    response = _pay(payer, shipping_details_id=str(details.pk))

    assert_error(response, 400, "/shipping_details_id", location="body")
    assert not Transaction.objects.exists()


def test_a_malformed_id_is_400(payer, buyer):
    assert_error(_pay(payer, buyer_id=str(buyer.pk), shipping_details_id="nope"), 400, "/shipping_details_id")
