"""The buyers API: shapes, PUT semantics, uniqueness, validation, filters and query counts."""

import json
import re
import uuid

import pytest

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

BUYER_KEYS = {
    "type",
    "id",
    "reconciliation_id",
    "merchant_account_id",
    "display_name",
    "external_identifier",
    "billing_details",
    "account_number",
    "created_at",
    "updated_at",
}
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$")
FULL_BILLING_DETAILS = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email_address": "ada@example.com",
    "phone_number": "+442071838750",
    "address": {
        "city": "London",
        "country": "GB",
        "postal_code": "W1 1AA",
        "state": "Greater London",
        "state_code": "GB-LND",
        "house_number_or_name": "10",
        "line1": "Analytical Street",
        "line2": "Flat 2",
        "organization": "Engines Ltd",
    },
    "tax_id": {"value": "GB123456789", "kind": "gb.vat"},
}


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["buyers.read", "buyers.write"])


def assert_buyer_shape(body: dict) -> None:
    assert set(body) == BUYER_KEYS
    assert body["type"] == "buyer"
    assert uuid.UUID(body["id"])
    assert TIMESTAMP.match(body["created_at"]), body["created_at"]
    assert TIMESTAMP.match(body["updated_at"]), body["updated_at"]


# --- happy paths ---------------------------------------------------------------------------------


def test_create_returns_201_with_the_full_buyer(writer):
    payload = {
        "display_name": "Ada Lovelace",
        "external_identifier": "ada-1",
        "account_number": "ACC-1",
        "billing_details": FULL_BILLING_DETAILS,
    }

    response = writer.post("/buyers", payload, format="json")

    assert response.status_code == 201
    body = response.json()
    assert_buyer_shape(body)
    buyer = Buyer.objects.get()
    assert body == {
        "type": "buyer",
        "id": str(buyer.id),
        "reconciliation_id": buyer.reconciliation_id,
        "merchant_account_id": "default",
        "display_name": "Ada Lovelace",
        "external_identifier": "ada-1",
        "billing_details": FULL_BILLING_DETAILS,
        "account_number": "ACC-1",
        "created_at": body["created_at"],
        "updated_at": body["updated_at"],
    }


def test_create_with_an_empty_body_makes_an_anonymous_buyer(writer):
    response = writer.post("/buyers", {}, format="json")

    assert response.status_code == 201
    body = response.json()
    assert_buyer_shape(body)
    assert [body[key] for key in ("display_name", "external_identifier", "billing_details", "account_number")] == [
        None,
        None,
        None,
        None,
    ]


def test_get_returns_the_buyer(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = writer.get(f"/buyers/{buyer.id}")

    assert response.status_code == 200
    body = response.json()
    assert_buyer_shape(body)
    assert (body["id"], body["display_name"], body["external_identifier"]) == (
        str(buyer.id),
        buyer.display_name,
        buyer.external_identifier,
    )
    assert body["reconciliation_id"] == buyer.reconciliation_id


def test_list_returns_a_page_of_buyers(writer, merchant_account):
    older, newer = BuyerFactory(merchant_account=merchant_account), BuyerFactory(merchant_account=merchant_account)

    response = writer.get("/buyers")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"items", "limit", "next_cursor", "previous_cursor"}
    assert [item["id"] for item in body["items"]] == [str(newer.id), str(older.id)]
    for item in body["items"]:
        assert_buyer_shape(item)
    assert (body["limit"], body["next_cursor"], body["previous_cursor"]) == (20, None, None)


def test_delete_returns_204_and_removes_the_buyer(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = writer.delete(f"/buyers/{buyer.id}")

    assert response.status_code == 204
    assert response.content == b""
    assert not Buyer.objects.exists()
    assert_error(writer.get(f"/buyers/{buyer.id}"), 404)


@pytest.mark.parametrize(
    "buyer_id", ["not-a-uuid", "6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11"], ids=["malformed", "unknown"]
)
@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_missing_buyer_is_404(writer, method, buyer_id):
    response = getattr(writer, method)(f"/buyers/{buyer_id}", {}, format="json")

    assert_error(response, 404)


# --- PUT semantics -------------------------------------------------------------------------------


def test_put_changes_only_the_fields_sent(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, account_number="ACC-1")
    before = {"external_identifier": buyer.external_identifier, "billing_details": buyer.billing_details}

    response = writer.put(f"/buyers/{buyer.id}", {"display_name": "Renamed"}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert_buyer_shape(body)
    assert body["display_name"] == "Renamed"
    assert body["external_identifier"] == before["external_identifier"]
    assert body["billing_details"] == before["billing_details"]
    assert body["account_number"] == "ACC-1"
    buyer.refresh_from_db()
    assert buyer.display_name == "Renamed"
    assert body["updated_at"] > body["created_at"]


def test_put_null_clears_a_field(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)

    response = writer.put(f"/buyers/{buyer.id}", {"billing_details": None, "external_identifier": None}, format="json")

    assert response.status_code == 200
    assert (response.json()["billing_details"], response.json()["external_identifier"]) == (None, None)
    buyer.refresh_from_db()
    assert (buyer.billing_details, buyer.external_identifier) == (None, None)
    assert buyer.display_name is not None


def test_put_replaces_billing_details_as_a_whole(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, billing_details=FULL_BILLING_DETAILS)

    response = writer.put(f"/buyers/{buyer.id}", {"billing_details": {"first_name": "Grace"}}, format="json")

    assert response.json()["billing_details"] == {"first_name": "Grace"}


def test_put_with_an_empty_body_changes_nothing_but_updated_at(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account)
    before = writer.get(f"/buyers/{buyer.id}").json()

    after = writer.put(f"/buyers/{buyer.id}", {}, format="json").json()

    assert {k: v for k, v in after.items() if k != "updated_at"} == {
        k: v for k, v in before.items() if k != "updated_at"
    }


# --- uniqueness of external_identifier ------------------------------------------------------------


def test_duplicate_external_identifier_on_create_is_409(writer, merchant_account):
    BuyerFactory(merchant_account=merchant_account, external_identifier="taken")

    response = writer.post("/buyers", {"external_identifier": "taken"}, format="json")

    assert_error(response, 409, "/external_identifier")
    assert Buyer.objects.count() == 1


def test_duplicate_external_identifier_on_update_is_409(writer, merchant_account):
    BuyerFactory(merchant_account=merchant_account, external_identifier="taken")
    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="mine", display_name="Before")

    response = writer.put(
        f"/buyers/{buyer.id}", {"external_identifier": "taken", "display_name": "After"}, format="json"
    )

    assert_error(response, 409, "/external_identifier")
    buyer.refresh_from_db()
    assert (buyer.external_identifier, buyer.display_name) == ("mine", "Before")


def test_keeping_its_own_external_identifier_is_not_a_duplicate(writer, merchant_account):
    buyer = BuyerFactory(merchant_account=merchant_account, external_identifier="mine")

    response = writer.put(f"/buyers/{buyer.id}", {"external_identifier": "mine"}, format="json")

    assert response.status_code == 200


def test_same_external_identifier_in_another_account_is_fine(writer, other_merchant_account):
    BuyerFactory(merchant_account=other_merchant_account, external_identifier="shared")

    response = writer.post("/buyers", {"external_identifier": "shared"}, format="json")

    assert response.status_code == 201
    assert Buyer.objects.filter(external_identifier="shared").count() == 2


def test_many_buyers_without_external_identifier(writer):
    for _ in range(3):
        assert writer.post("/buyers", {"external_identifier": None}, format="json").status_code == 201


# --- bad input -------------------------------------------------------------------------------------

TOO_LONG_200 = "x" * 201
TOO_LONG_255 = "x" * 256


def _billing(**fields) -> dict:
    return {"billing_details": fields}


def _address(**fields) -> dict:
    return _billing(address=fields)


BAD_INPUT = [
    # top level
    ({"display_name": ""}, "/display_name", "display_name empty"),
    ({"display_name": TOO_LONG_200}, "/display_name", "display_name too long"),
    ({"display_name": 123}, "/display_name", "display_name number"),
    ({"display_name": ["a"]}, "/display_name", "display_name list"),
    ({"display_name": True}, "/display_name", "display_name boolean"),
    ({"display_name": "a\x00b"}, "/display_name", "display_name NUL"),
    ({"external_identifier": ""}, "/external_identifier", "external_identifier empty"),
    ({"external_identifier": TOO_LONG_200}, "/external_identifier", "external_identifier too long"),
    ({"external_identifier": 5}, "/external_identifier", "external_identifier number"),
    ({"account_number": ""}, "/account_number", "account_number empty"),
    ({"account_number": TOO_LONG_200}, "/account_number", "account_number too long"),
    ({"account_number": {}}, "/account_number", "account_number object"),
    ({"name": "unknown field"}, "/name", "unknown field"),
    # billing details
    ({"billing_details": "Ada"}, "/billing_details", "billing_details string"),
    ({"billing_details": []}, "/billing_details", "billing_details list"),
    (_billing(first_name=""), "/billing_details/first_name", "first_name empty"),
    (_billing(first_name=TOO_LONG_255), "/billing_details/first_name", "first_name too long"),
    (_billing(first_name=1), "/billing_details/first_name", "first_name number"),
    (_billing(last_name=TOO_LONG_255), "/billing_details/last_name", "last_name too long"),
    (_billing(email_address="not-an-email"), "/billing_details/email_address", "email invalid"),
    (_billing(email_address="a" * 310 + "@example.com"), "/billing_details/email_address", "email too long"),
    (_billing(phone_number="4155552671"), "/billing_details/phone_number", "phone without plus"),
    (_billing(phone_number="+0155552671"), "/billing_details/phone_number", "phone leading zero"),
    (_billing(phone_number="+1234567890123456"), "/billing_details/phone_number", "phone 16 digits"),
    (_billing(phone_number="+1 415 555 2671"), "/billing_details/phone_number", "phone spaces"),
    (_billing(phone_number=14155552671), "/billing_details/phone_number", "phone number type"),
    (_billing(nickname="Ada"), "/billing_details/nickname", "billing unknown field"),
    # address
    (_billing(address="London"), "/billing_details/address", "address string"),
    (_address(city="x" * 101), "/billing_details/address/city", "city too long"),
    (_address(country="gb"), "/billing_details/address/country", "country lower case"),
    (_address(country="XX"), "/billing_details/address/country", "country unknown"),
    (_address(country="GBR"), "/billing_details/address/country", "country alpha-3"),
    (_address(postal_code="x" * 51), "/billing_details/address/postal_code", "postal_code too long"),
    (_address(state=TOO_LONG_255), "/billing_details/address/state", "state too long"),
    (_address(state_code="US_CA"), "/billing_details/address/state_code", "state_code separator"),
    (_address(state_code="us-ca"), "/billing_details/address/state_code", "state_code lower case"),
    (_address(state_code="US-CALI"), "/billing_details/address/state_code", "state_code too long"),
    (_address(house_number_or_name=TOO_LONG_255), "/billing_details/address/house_number_or_name", "house too long"),
    (_address(line1=TOO_LONG_255), "/billing_details/address/line1", "line1 too long"),
    (_address(line2=""), "/billing_details/address/line2", "line2 empty"),
    (_address(organization=TOO_LONG_255), "/billing_details/address/organization", "organization too long"),
    (_address(street="1 Main St"), "/billing_details/address/street", "address unknown field"),
    # tax id
    (_billing(tax_id={"value": "123"}), "/billing_details/tax_id/kind", "tax_id without kind"),
    (_billing(tax_id={"kind": "us.ein"}), "/billing_details/tax_id/value", "tax_id without value"),
    (_billing(tax_id={"value": "123", "kind": "xx.bad"}), "/billing_details/tax_id/kind", "tax_id unknown kind"),
    (_billing(tax_id={"value": "x" * 51, "kind": "us.ein"}), "/billing_details/tax_id/value", "tax_id too long"),
    (_billing(tax_id={"value": 123, "kind": "us.ein"}), "/billing_details/tax_id/value", "tax_id value number"),
    (_billing(tax_id="us.ein:123"), "/billing_details/tax_id", "tax_id string"),
    # not an object
    ([], "/", "body list"),
    ("Ada", "/", "body string"),
    (42, "/", "body number"),
    (None, "/", "body null"),
]


@pytest.mark.parametrize(("payload", "pointer"), [case[:2] for case in BAD_INPUT], ids=[case[2] for case in BAD_INPUT])
def test_bad_input_on_create_is_400_and_writes_nothing(writer, payload, pointer):
    response = writer.post("/buyers", json.dumps(payload), content_type="application/json")

    body = assert_error(response, 400, pointer)
    assert all(detail["location"] == "body" for detail in body["details"])
    assert not Buyer.objects.exists()


@pytest.mark.parametrize(("payload", "pointer"), [case[:2] for case in BAD_INPUT], ids=[case[2] for case in BAD_INPUT])
def test_bad_input_on_update_is_400_and_changes_nothing(writer, merchant_account, payload, pointer):
    buyer = BuyerFactory(merchant_account=merchant_account, billing_details=FULL_BILLING_DETAILS)
    before = Buyer.objects.values().get(pk=buyer.pk)

    response = writer.put(f"/buyers/{buyer.id}", json.dumps(payload), content_type="application/json")

    assert_error(response, 400, pointer)
    assert Buyer.objects.values().get(pk=buyer.pk) == before


def test_every_bad_field_is_reported_at_once(writer):
    response = writer.post(
        "/buyers",
        {"display_name": "", "billing_details": {"phone_number": "1", "address": {"country": "x"}}},
        format="json",
    )

    pointers = {detail["pointer"] for detail in assert_error(response, 400)["details"]}
    assert pointers == {"/display_name", "/billing_details/phone_number", "/billing_details/address/country"}


# --- filters ---------------------------------------------------------------------------------------


def _listed(client, **params) -> list[str]:
    response = client.get("/buyers", params)
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["items"]]


def test_search_matches_display_name_in_any_case_or_the_exact_external_identifier(writer, merchant_account):
    ada = BuyerFactory(merchant_account=merchant_account, display_name="Ada Lovelace", external_identifier="c-1")
    grace = BuyerFactory(merchant_account=merchant_account, display_name="Grace Hopper", external_identifier="ada")
    BuyerFactory(merchant_account=merchant_account, display_name="Alan Turing", external_identifier="c-3")

    assert set(_listed(writer, search="ada")) == {str(ada.id), str(grace.id)}
    assert _listed(writer, search="ADA") == [str(ada.id)]
    assert _listed(writer, search="love") == [str(ada.id)]
    assert _listed(writer, search="c-3") != []
    assert _listed(writer, search="c-") == []  # external identifiers match exactly, not by prefix
    assert _listed(writer, search="nobody") == []


def test_external_identifier_filter_is_exact(writer, merchant_account):
    wanted = BuyerFactory(merchant_account=merchant_account, external_identifier="c-1")
    BuyerFactory(merchant_account=merchant_account, external_identifier="c-10")

    assert _listed(writer, external_identifier="c-1") == [str(wanted.id)]
    assert _listed(writer, external_identifier="C-1") == []


def test_filters_combine(writer, merchant_account):
    wanted = BuyerFactory(merchant_account=merchant_account, display_name="Ada", external_identifier="c-1")
    BuyerFactory(merchant_account=merchant_account, display_name="Ada", external_identifier="c-2")

    assert _listed(writer, search="ada", external_identifier="c-1") == [str(wanted.id)]


@pytest.mark.parametrize("name", ["search", "external_identifier"])
def test_overlong_filter_is_400_naming_it(writer, name):
    response = writer.get("/buyers", {name: "x" * 201})

    body = assert_error(response, 400, f"/{name}")
    assert body["details"][0]["location"] == "query"


# --- query counts ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [1, 20])
def test_list_is_one_query_whatever_the_page_size(warm_reader, merchant_account, django_assert_num_queries, rows):
    BuyerFactory.create_batch(rows, merchant_account=merchant_account)

    with django_assert_num_queries(1):
        response = warm_reader.get("/buyers", {"limit": 20})

    assert len(response.json()["items"]) == rows


def test_next_page_is_one_query(warm_reader, merchant_account, django_assert_num_queries):
    BuyerFactory.create_batch(5, merchant_account=merchant_account)
    cursor = warm_reader.get("/buyers", {"limit": 2}).json()["next_cursor"]

    with django_assert_num_queries(1):
        response = warm_reader.get("/buyers", {"limit": 2, "cursor": cursor})

    assert len(response.json()["items"]) == 2


def test_detail_is_one_query(warm_reader, merchant_account, django_assert_num_queries):
    buyer = BuyerFactory(merchant_account=merchant_account)

    with django_assert_num_queries(1):
        response = warm_reader.get(f"/buyers/{buyer.id}")

    assert response.status_code == 200
