"""`/three-ds-scenarios`: upstream's four operations, scoped to the request's merchant account."""

from __future__ import annotations

import pytest
from django.db import connection

from payments.tests.assertions import assert_error
from payments.tests.factories import MerchantAccountFactory
from threedsecure.models import ThreeDSScenario
from threedsecure.tests.factories import scenario_for

# A well-formed id no row has: a parameter fixed at import, so every test worker collects the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"

pytestmark = pytest.mark.django_db

CARD = "4111111111111111"
CHALLENGE = {"authentication": {"transaction_status": "C"}, "result": {"transaction_status": "Y"}}
FRICTIONLESS = {"version": "2.2.0", "authentication": {"transaction_status": "Y"}}


@pytest.fixture
def writer(api_client, merchant_account):
    return api_client(scopes=["three-ds-scenarios.read", "three-ds-scenarios.write"])


def _create(client, conditions=None, outcome=None):
    body = {"conditions": {} if conditions is None else conditions, "outcome": outcome or FRICTIONLESS}
    return client.post("/three-ds-scenarios", body, format="json")


# --- create ----------------------------------------------------------------------------------------------------


def test_create_answers_upstreams_shape(writer):
    conditions = {
        "first_name": "Ada",
        "last_name": "Lovelace",
        "email_address": "ada@example.com",
        "amount": 1299,
        "external_identifier": "order-1",
        "card_number": CARD,
    }

    response = _create(writer, conditions, {"version": "2.1.0", **CHALLENGE})

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "three-d-secure-scenario"
    assert body["merchant_account_id"] == "default"
    assert body["conditions"] == {**conditions, "card_number": "411111******1111"}
    assert body["outcome"] == {"version": "2.1.0", **CHALLENGE}
    assert ThreeDSScenario.objects.get(pk=body["id"]).authentication_status == "C"


@pytest.mark.parametrize("status", ["Y", "N", "A", "R", "U", "timeout"])
def test_every_status_but_a_challenge_has_no_result(writer, status):
    response = _create(writer, {"amount": 100}, {"authentication": {"transaction_status": status}, "result": None})

    assert response.status_code == 201, response.content
    assert response.json()["outcome"] == {
        "version": None,
        "authentication": {"transaction_status": status},
        "result": None,
    }


@pytest.mark.parametrize("result", ["Y", "N", "timeout"])
def test_a_challenge_ends_as_its_result_says(writer, result):
    outcome = {"authentication": {"transaction_status": "C"}, "result": {"transaction_status": result}}

    response = _create(writer, {"amount": 100}, outcome)

    assert response.status_code == 201, response.content
    assert response.json()["outcome"]["result"] == {"transaction_status": result}


def test_the_card_number_is_never_stored_nor_shown(writer):
    response = _create(writer, {"card_number": CARD})
    listed = writer.get("/three-ds-scenarios")

    assert CARD not in response.content.decode()
    assert CARD not in listed.content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM threedsecure_threedsscenario")
        rows = cursor.fetchall()
    assert rows
    assert not any(CARD in str(value) for row in rows for value in row)


BAD_CREATES = [
    ({"outcome": {"authentication": {"transaction_status": "C"}}}, "/outcome/result"),
    ({"outcome": {"authentication": {"transaction_status": "C"}, "result": None}}, "/outcome/result"),
    (
        {"outcome": {"authentication": {"transaction_status": "Y"}, "result": {"transaction_status": "Y"}}},
        "/outcome/result",
    ),
    (
        {"outcome": {"authentication": {"transaction_status": "C"}, "result": {"transaction_status": "A"}}},
        "/outcome/result/transaction_status",
    ),
    ({"outcome": {"authentication": {"transaction_status": "X"}}}, "/outcome/authentication/transaction_status"),
    ({"outcome": {"authentication": {}}}, "/outcome/authentication/transaction_status"),
    ({"outcome": {}}, "/outcome/authentication"),
    ({"outcome": {"authentication": {"transaction_status": "Y"}, "version": "3.0"}}, "/outcome/version"),
    ({"outcome": {"authentication": {"transaction_status": "Y"}, "version": "2.2.0.1"}}, "/outcome/version"),
    ({"outcome": {"authentication": {"transaction_status": "Y"}, "version": 2}}, "/outcome/version"),
    ({"outcome": {"authentication": {"transaction_status": "Y"}, "version": "2.2.0\n"}}, "/outcome/version"),
    ({"outcome": {"authentication": {"transaction_status": "Y"}, "bogus": 1}}, "/outcome/bogus"),
    ({"outcome": None}, "/outcome"),
    ({"conditions": None}, "/conditions"),
    ({"conditions": {"amount": -1}}, "/conditions/amount"),
    ({"conditions": {"amount": 100000000}}, "/conditions/amount"),
    ({"conditions": {"amount": "12"}}, "/conditions/amount"),
    ({"conditions": {"amount": 12.5}}, "/conditions/amount"),
    ({"conditions": {"card_number": "4111111111111112"}}, "/conditions/card_number"),
    ({"conditions": {"card_number": "4111"}}, "/conditions/card_number"),
    ({"conditions": {"card_number": 4111111111111111}}, "/conditions/card_number"),
    ({"conditions": {"card_number": "4111 1111 1111 1111"}}, "/conditions/card_number"),
    ({"conditions": {"email_address": ""}}, "/conditions/email_address"),
    ({"conditions": {"first_name": "x" * 256}}, "/conditions/first_name"),
    ({"conditions": {"last_name": 1}}, "/conditions/last_name"),
    ({"conditions": {"external_identifier": "x" * 201}}, "/conditions/external_identifier"),
    ({"conditions": {"buyer_id": "x"}}, "/conditions/buyer_id"),
    ({"bogus": 1}, "/bogus"),
]


@pytest.mark.parametrize(("override", "pointer"), BAD_CREATES, ids=[f"{i}:{p}" for i, (_, p) in enumerate(BAD_CREATES)])
def test_bad_create_is_a_400_naming_the_field_and_writes_nothing(writer, override, pointer):
    body = {"conditions": {"amount": 100}, "outcome": FRICTIONLESS, **override}

    envelope = assert_error(writer.post("/three-ds-scenarios", body, format="json"), 400, pointer, location="body")

    assert not ThreeDSScenario.objects.exists()
    assert "4111111111111" not in str(envelope)


@pytest.mark.parametrize("missing", ["conditions", "outcome"])
def test_both_parts_are_required(writer, missing):
    body = {"conditions": {}, "outcome": FRICTIONLESS}
    del body[missing]

    assert_error(writer.post("/three-ds-scenarios", body, format="json"), 400, f"/{missing}")
    assert not ThreeDSScenario.objects.exists()


# --- list ------------------------------------------------------------------------------------------------------


def test_list_is_the_accounts_own_newest_first(writer, merchant_account, other_merchant_account):
    older = scenario_for(merchant_account, amount=1)
    newer = scenario_for(merchant_account, amount=2)
    scenario_for(other_merchant_account, amount=3)

    page = writer.get("/three-ds-scenarios", {"limit": 1}).json()
    rest = writer.get("/three-ds-scenarios", {"limit": 1, "cursor": page["next_cursor"]}).json()

    assert [item["id"] for item in page["items"] + rest["items"]] == [str(newer.pk), str(older.pk)]
    assert rest["next_cursor"] is None


@pytest.mark.parametrize(
    ("query", "pointer"),
    [({"limit": 0}, "/limit"), ({"cursor": "x"}, "/cursor"), ({"amount": 1}, "/amount")],
    ids=["limit", "cursor", "unknown"],
)
def test_bad_list_query_is_a_400(writer, query, pointer):
    assert_error(writer.get("/three-ds-scenarios", query), 400, pointer, location="query")


# --- update ----------------------------------------------------------------------------------------------------


def test_update_replaces_the_conditions_as_a_whole_and_keeps_the_outcome(writer, merchant_account):
    scenario = scenario_for(merchant_account, authentication="N", amount=100, card_number=CARD)

    response = writer.put(
        f"/three-ds-scenarios/{scenario.pk}", {"conditions": {"email_address": "a@b.c"}}, format="json"
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["conditions"]["email_address"] == "a@b.c"
    assert body["conditions"]["amount"] is None
    assert body["conditions"]["card_number"] is None
    assert body["outcome"]["authentication"] == {"transaction_status": "N"}
    scenario.refresh_from_db()
    assert scenario.card_digest is None


def test_update_replaces_the_outcome_and_keeps_the_conditions(writer, merchant_account):
    scenario = scenario_for(merchant_account, amount=100)

    response = writer.put(
        f"/three-ds-scenarios/{scenario.pk}", {"outcome": CHALLENGE, "conditions": None}, format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json()["outcome"]["result"] == {"transaction_status": "Y"}
    assert response.json()["conditions"]["amount"] == 100


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"outcome": {"authentication": {"transaction_status": "C"}}}, "/outcome/result"),
        (
            {"outcome": {"authentication": {"transaction_status": "R"}, "result": {"transaction_status": "N"}}},
            "/outcome/result",
        ),
        ({"conditions": {"card_number": "1234"}}, "/conditions/card_number"),
        ({"conditions": {"amount": True}}, "/conditions/amount"),
        ({"extra": True}, "/extra"),
    ],
    ids=["challenge-no-result", "result-no-challenge", "card", "amount", "unknown"],
)
def test_bad_update_is_a_400_and_changes_nothing(writer, merchant_account, payload, pointer):
    scenario = scenario_for(merchant_account, amount=100)

    assert_error(writer.put(f"/three-ds-scenarios/{scenario.pk}", payload, format="json"), 400, pointer)

    scenario.refresh_from_db()
    assert (scenario.amount, scenario.authentication_status, scenario.result_status) == (100, "Y", None)


# --- delete and other accounts -----------------------------------------------------------------------------------


def test_delete_removes_it(writer, merchant_account):
    scenario = scenario_for(merchant_account)

    response = writer.delete(f"/three-ds-scenarios/{scenario.pk}")

    assert response.status_code == 204
    assert not response.content
    assert not ThreeDSScenario.objects.exists()


@pytest.mark.parametrize("method", ["put", "delete"])
def test_another_accounts_scenario_is_404_and_untouched(writer, other_merchant_account, method):
    scenario = scenario_for(other_merchant_account, amount=5)

    response = getattr(writer, method)(f"/three-ds-scenarios/{scenario.pk}", {"conditions": {}}, format="json")

    assert_error(response, 404)
    scenario.refresh_from_db()
    assert scenario.amount == 5


@pytest.mark.parametrize("scenario_id", [UNKNOWN_ID, "not-a-uuid"])
@pytest.mark.parametrize("method", ["put", "delete"])
def test_unknown_scenario_is_404(writer, method, scenario_id):
    assert_error(getattr(writer, method)(f"/three-ds-scenarios/{scenario_id}", {}, format="json"), 404)


def test_a_scenario_has_no_get_of_its_own(writer, merchant_account):
    """Upstream lists scenarios but has no operation reading one."""
    assert_error(writer.get(f"/three-ds-scenarios/{scenario_for(merchant_account).pk}"), 405)


# --- who may ---------------------------------------------------------------------------------------------------


def _operations(scenario_id):
    return [
        ("get", "/three-ds-scenarios", None, "read"),
        ("post", "/three-ds-scenarios", {"conditions": {}, "outcome": FRICTIONLESS}, "write"),
        ("put", f"/three-ds-scenarios/{scenario_id}", {"conditions": {"amount": 7}}, "write"),
        ("delete", f"/three-ds-scenarios/{scenario_id}", None, "write"),
    ]


def _call(client, method, path, payload):
    return getattr(client, method)(path, payload, format="json") if payload else getattr(client, method)(path)


@pytest.mark.parametrize("index", range(4), ids=["list", "create", "update", "delete"])
@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["three-ds-scenarios.read"], {"read"}),
        (["three-ds-scenarios.write"], {"write"}),
        (["*.read"], {"read"}),
        (["*.write"], {"write"}),
        (["merchant-accounts.read", "merchant-accounts.write", "transactions.write"], set()),
        (["embed"], set()),
    ],
    ids=["3ds.read", "3ds.write", "*.read", "*.write", "other-scopes", "embed"],
)
def test_scopes(api_client, merchant_account, index, scopes, allowed):
    scenario = scenario_for(merchant_account, amount=1)
    method, path, payload, verb = _operations(scenario.pk)[index]

    response = _call(api_client(scopes=scopes), method, path, payload)

    if verb in allowed:
        assert 200 <= response.status_code < 300, response.content
    else:
        assert_error(response, 403)
        scenario.refresh_from_db()
        assert scenario.amount == 1


@pytest.mark.parametrize("index", range(4), ids=["list", "create", "update", "delete"])
def test_a_key_of_one_account_cannot_act_for_another(api_client, merchant_account, other_merchant_account, index):
    scenario = scenario_for(other_merchant_account, amount=1)
    method, path, payload, _ = _operations(scenario.pk)[index]
    client = api_client(scopes=["*.read", "*.write"], merchant_account_id="other")

    assert_error(_call(client, method, path, payload), 403)
    assert ThreeDSScenario.objects.get().amount == 1


def test_a_key_for_every_account_acts_for_the_one_the_header_names(all_accounts_client, merchant_account):
    seller = MerchantAccountFactory(id="seller-1")
    client = all_accounts_client(scopes=["*.write"], merchant_account_id="seller-1")

    response = _create(client, {"amount": 1})

    assert response.status_code == 201
    assert ThreeDSScenario.objects.get().merchant_account == seller


# --- query counts ----------------------------------------------------------------------------------------------


@pytest.fixture
def warm_reader(api_client, merchant_account, settings):
    settings.API_KEY_CACHE_SECONDS = 3600
    client = api_client(scopes=["three-ds-scenarios.read"])
    assert client.get("/three-ds-scenarios").status_code == 200
    return client


@pytest.mark.parametrize("rows", [1, 20])
def test_list_is_one_query_whatever_the_page_size(warm_reader, merchant_account, django_assert_num_queries, rows):
    for n in range(rows):
        scenario_for(merchant_account, amount=n, card_number=CARD)

    with django_assert_num_queries(1):
        response = warm_reader.get("/three-ds-scenarios", {"limit": 20})

    assert len(response.json()["items"]) == rows
