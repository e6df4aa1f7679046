"""What a card is: `GET /card-details` from the BIN table, and the same facts on the transactions and stored methods
made with the card (docs/card-details.md)."""

from io import StringIO

import pytest

from paymentmethods.tests.factories import PaymentMethodFactory
from payments.bins.services import bin_table_refresh
from payments.bins.sources import read_ranges
from payments.tests.assertions import assert_error
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.tests.conftest import CARD

pytestmark = pytest.mark.django_db

RANGES = (
    "iin_start,iin_end,number_length,scheme,brand,type,prepaid,country,bank_name\n"
    "4,,16,VISA,,,,,\n"
    "411111,,16,VISA,,CREDIT,N,US,Example Bank of Testing\n"
    "40000566,,16,VISA,,DEBIT,N,GB,Example Debit Union\n"
)


@pytest.fixture
def table(db):
    bin_table_refresh(ranges=read_ranges(StringIO(RANGES)))


@pytest.fixture
def reader(api_client, merchant_account):
    return api_client(scopes=["bin-checker.read"])


def _details(client, **query):
    return client.get("/card-details", {"currency": "USD", **query})


def test_a_bin_answers_what_the_table_says(reader, table):
    response = _details(reader, bin="41111111")

    assert response.status_code == 200, response.content
    assert response.json() == {
        "type": "card-detail",
        "id": "41111111",
        "card_type": "credit",
        "scheme": "visa",
        "additional_schemes": None,
        "additional_schemes_details": None,
        "scheme_icon_url": None,
        "country": "US",
        "required_fields": None,
    }


def test_the_longest_range_answers(reader, table):
    assert _details(reader, bin="40000566").json()["country"] == "GB"
    assert _details(reader, bin="400005").json() | {"id": None} == _details(reader, bin="42424242").json() | {
        "id": None
    }


def test_an_unknown_bin_answers_its_scheme_by_prefix_and_nulls(reader):
    answer = _details(reader, bin="555555").json()

    assert (answer["id"], answer["scheme"], answer["card_type"], answer["country"]) == (
        "555555",
        "mastercard",
        None,
        None,
    )


def test_a_stored_method_answers_what_the_table_said_when_it_was_stored(reader, table, merchant_account):
    method = PaymentMethodFactory(merchant_account=merchant_account)

    answer = _details(reader, payment_method_id=str(method.pk)).json()

    assert (answer["id"], answer["card_type"], answer["country"], answer["scheme"]) == (
        "411111",
        "credit",
        "US",
        "visa",
    )


def test_another_accounts_stored_method_is_not_found(reader, other_merchant_account, table):
    method = PaymentMethodFactory(merchant_account=other_merchant_account)

    assert_error(_details(reader, payment_method_id=str(method.pk)), 404)


BAD_QUERIES = [
    ({"bin": "41111"}, "/bin"),
    ({"bin": "411111111"}, "/bin"),
    ({"bin": "4111111111111111"}, "/bin"),
    ({"bin": "41111a"}, "/bin"),
    ({"bin": "٤١١١١١"}, "/bin"),
    ({}, "/bin"),
    ({"bin": "411111", "payment_method_id": "7099948d-7286-47e4-aad8-b68f7eb44591"}, "/bin"),
    ({"payment_method_id": "nope"}, "/payment_method_id"),
    ({"bin": "411111", "currency": "usd"}, "/currency"),
    ({"bin": "411111", "currency": ""}, "/currency"),
    ({"bin": "411111", "country": "XX"}, "/country"),
    ({"bin": "411111", "amount": "-1"}, "/amount"),
    ({"bin": "411111", "intent": "sell"}, "/intent"),
    ({"bin": "411111", "merchant_initiated": "yes"}, "/merchant_initiated"),
    ({"bin": "411111", "payment_source": "web"}, "/payment_source"),
    ({"bin": "411111", "metadata": '{"a": "b"}'}, "/metadata"),
    ({"bin": "411111", "bogus": "1"}, "/bogus"),
]


@pytest.mark.parametrize(("query", "pointer"), BAD_QUERIES, ids=[f"{p}-{i}" for i, (_, p) in enumerate(BAD_QUERIES)])
def test_bad_input_is_400_naming_the_parameter(reader, query, pointer):
    response = _details(reader, **query)

    assert_error(response, 400, pointer, location="query")
    assert "4111111111111111" not in response.content.decode()


def test_currency_is_required(reader):
    assert_error(reader.get("/card-details", {"bin": "411111"}), 400, "/currency", location="query")


def test_the_rest_of_the_checkout_is_taken(reader, table):
    query = {
        "bin": "411111",
        "country": "US",
        "amount": "1299",
        "intent": "capture",
        "is_subsequent_payment": "false",
        "merchant_initiated": "true",
        "payment_source": "recurring",
    }
    assert _details(reader, **query).json()["country"] == "US"


@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["bin-checker.read"], 200),
        (["*.read"], 200),
        (["embed"], 200),
        (["bin-checker.write"], 403),
        (["transactions.read", "payment-methods.read", "buyers.read"], 403),
    ],
)
def test_scopes(api_client, merchant_account, scopes, status):
    client = api_client(scopes=scopes, embed={"amount": 1299, "currency": "USD"})

    assert _details(client, bin="411111").status_code == status


def test_no_token_is_401(client):
    assert_error(_details(client, bin="411111"), 401)


def test_an_embed_token_asks_only_about_its_own_checkout(api_client, merchant_account):
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "EUR"})

    assert _details(embed, bin="411111", currency="EUR").status_code == 200
    assert_error(_details(embed, bin="411111"), 403)


def test_the_answer_is_one_lookup(reader, table, django_assert_num_queries, settings):
    settings.API_KEY_CACHE_SECONDS = 3600
    _details(reader, bin="411111")  # warms the key and account caches

    with django_assert_num_queries(1):
        assert _details(reader, bin="41111111").status_code == 200


# --- the same facts where a card is kept ------------------------------------------------------------------------


@pytest.fixture
def payer(api_client, merchant_account):
    PaymentServiceFactory(merchant_account=merchant_account)
    return api_client(scopes=["transactions.write", "transactions.read"])


def test_a_transaction_shows_the_cards_country_type_and_issuer_from_the_table(payer, table):
    response = payer.post("/transactions", {"amount": 1299, "currency": "USD", "payment_method": CARD}, format="json")

    assert response.status_code == 201, response.content
    method = response.json()["payment_method"]
    assert method["country"] == "US"
    assert method["details"] == {"bin": "411111", "card_type": "credit", "card_issuer_name": "Example Bank of Testing"}
    # Read back later, from the transaction's own copy.
    again = payer.get(f"/transactions/{response.json()['id']}").json()["payment_method"]
    assert (again["country"], again["details"]["card_type"]) == ("US", "credit")


def test_a_card_the_table_does_not_know_shows_nulls(payer):
    response = payer.post("/transactions", {"amount": 1299, "currency": "USD", "payment_method": CARD}, format="json")

    method = response.json()["payment_method"]
    assert (method["country"], method["details"]["card_type"], method["details"]["card_issuer_name"]) == (
        None,
        None,
        None,
    )


def test_a_stored_method_shows_the_cards_country_and_type(api_client, merchant_account, table):
    method = PaymentMethodFactory(merchant_account=merchant_account)
    reader = api_client(scopes=["payment-methods.read"])

    answer = reader.get(f"/payment-methods/{method.pk}").json()

    assert answer["country"] == "US"
    assert answer["details"]["card_type"] == "credit"
    assert answer["details"]["card_issuer_name"] == "Example Bank of Testing"


def test_routing_uses_the_cards_country_where_the_payment_names_none(payer, merchant_account, table):
    # The only service takes payments from GB: a US card with no country of its own is refused by name.
    merchant_account.payment_services.all().update(accepted_countries=["GB"])

    response = payer.post("/transactions", {"amount": 1299, "currency": "USD", "payment_method": CARD}, format="json")
    assert_error(response, 400, "/currency")
    assert "from US" in response.json()["message"]

    named = payer.post(
        "/transactions",
        {"amount": 1299, "currency": "USD", "country": "GB", "payment_method": CARD},
        format="json",
    )
    assert named.status_code == 201, named.content
