"""`/merchant-accounts/{id}/three-ds-configurations`: upstream's four operations, for keys made for every account."""

from __future__ import annotations

import uuid

import pytest

from payments.tests.assertions import assert_error
from threedsecure.models import ThreeDSConfiguration
from threedsecure.tests.factories import ThreeDSConfigurationFactory

# A well-formed id no row has: a parameter fixed at import, so every test worker collects the same test ids.
UNKNOWN_ID = "00000000-0000-4000-8000-00000000dead"

pytestmark = pytest.mark.django_db

PATH = "/merchant-accounts/default/three-ds-configurations"
VALID = {
    "scheme": "visa",
    "currency": "EUR",
    "merchant_acquirer_bin": "412345",
    "merchant_acquirer_id": "acq-merchant-1",
    "merchant_name": "Example Shop",
    "merchant_country_code": "826",
    "merchant_category_code": "5411",
    "merchant_url": "https://shop.example.com",
    "metadata": {"contract": "2026-01"},
}


@pytest.fixture
def platform(all_accounts_client, merchant_account):
    return all_accounts_client(scopes=["merchant-accounts.read", "merchant-accounts.write"])


def _path(configuration) -> str:
    return f"/merchant-accounts/{configuration.merchant_account_id}/three-ds-configurations/{configuration.pk}"


# --- create ----------------------------------------------------------------------------------------------------


def test_create_stores_and_answers_upstreams_shape(platform):
    response = platform.post(PATH, VALID, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "merchant-account.three-ds-configuration"
    assert body["merchant_account_id"] == "default"
    assert {key: body[key] for key in VALID} == VALID
    stored = ThreeDSConfiguration.objects.get(pk=body["id"])
    assert (stored.scheme, stored.currency, stored.merchant_country_code) == ("visa", "EUR", "826")


def test_currency_left_out_applies_to_every_currency(platform):
    response = platform.post(PATH, {k: v for k, v in VALID.items() if k != "currency"}, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["currency"] is None


@pytest.mark.parametrize("currency", ["EUR", None], ids=["per-currency", "every-currency"])
def test_a_second_one_for_the_same_scheme_and_currency_is_409(platform, currency):
    ThreeDSConfigurationFactory(scheme="visa", currency=currency)

    assert_error(platform.post(PATH, {**VALID, "currency": currency}, format="json"), 409, "/scheme")
    assert ThreeDSConfiguration.objects.count() == 1


def test_other_schemes_currencies_and_accounts_are_separate(platform, other_merchant_account):
    ThreeDSConfigurationFactory(scheme="visa", currency="EUR", merchant_account=other_merchant_account)
    ThreeDSConfigurationFactory(scheme="mastercard", currency="EUR")
    ThreeDSConfigurationFactory(scheme="visa", currency="GBP")
    ThreeDSConfigurationFactory(scheme="visa", currency=None)

    assert platform.post(PATH, VALID, format="json").status_code == 201


BAD_CREATES = [
    ({"scheme": "visa-electron"}, "/scheme"),
    ({"scheme": None}, "/scheme"),
    ({"currency": "eur"}, "/currency"),
    ({"currency": "XYZ"}, "/currency"),
    ({"currency": "EURO"}, "/currency"),
    ({"merchant_acquirer_bin": "123456789012"}, "/merchant_acquirer_bin"),
    ({"merchant_acquirer_bin": "12a456"}, "/merchant_acquirer_bin"),
    ({"merchant_acquirer_bin": ""}, "/merchant_acquirer_bin"),
    ({"merchant_acquirer_bin": 412345}, "/merchant_acquirer_bin"),
    ({"merchant_acquirer_id": "x" * 36}, "/merchant_acquirer_id"),
    ({"merchant_acquirer_id": ""}, "/merchant_acquirer_id"),
    ({"merchant_name": "x" * 41}, "/merchant_name"),
    ({"merchant_name": None}, "/merchant_name"),
    ({"merchant_country_code": "GB"}, "/merchant_country_code"),
    ({"merchant_country_code": "999"}, "/merchant_country_code"),
    ({"merchant_country_code": "82"}, "/merchant_country_code"),
    ({"merchant_category_code": "541"}, "/merchant_category_code"),
    ({"merchant_category_code": "54111"}, "/merchant_category_code"),
    ({"merchant_category_code": "54a1"}, "/merchant_category_code"),
    ({"merchant_url": "shop.example.com"}, "/merchant_url"),
    ({"merchant_url": "ftp://shop.example.com"}, "/merchant_url"),
    ({"merchant_url": "https://" + "a" * 2050 + ".com"}, "/merchant_url"),
    ({"metadata": {"k": 1}}, "/metadata/k"),
    ({"metadata": ["k"]}, "/metadata"),
    ({"metadata": {f"k{n}": "v" for n in range(21)}}, "/metadata"),
    ({"metadata": {"k" * 41: "v"}}, "/metadata"),
    ({"metadata": None}, "/metadata"),
    ({"merchant_account_id": "other"}, "/merchant_account_id"),
    ({"id": str(uuid.uuid4())}, "/id"),
]


@pytest.mark.parametrize(("override", "pointer"), BAD_CREATES, ids=[f"{i}:{p}" for i, (_, p) in enumerate(BAD_CREATES)])
def test_bad_create_is_a_400_naming_the_field_and_writes_nothing(platform, override, pointer):
    assert_error(platform.post(PATH, {**VALID, **override}, format="json"), 400, pointer, location="body")

    assert not ThreeDSConfiguration.objects.exists()


@pytest.mark.parametrize(
    "missing",
    [
        "scheme",
        "merchant_acquirer_bin",
        "merchant_acquirer_id",
        "merchant_name",
        "merchant_country_code",
        "merchant_category_code",
        "merchant_url",
        "metadata",
    ],
)
def test_required_fields(platform, missing):
    body = {k: v for k, v in VALID.items() if k != missing}

    assert_error(platform.post(PATH, body, format="json"), 400, f"/{missing}")
    assert not ThreeDSConfiguration.objects.exists()


def test_unknown_account_is_404(platform):
    assert_error(platform.post("/merchant-accounts/nobody/three-ds-configurations", VALID, format="json"), 404)
    assert_error(platform.get("/merchant-accounts/nobody/three-ds-configurations"), 404)
    assert not ThreeDSConfiguration.objects.exists()


# --- list ------------------------------------------------------------------------------------------------------


def test_list_is_the_accounts_own_newest_first_and_filters_by_currency(platform, other_merchant_account):
    older = ThreeDSConfigurationFactory(scheme="visa", currency="EUR")
    newer = ThreeDSConfigurationFactory(scheme="mastercard", currency=None)
    ThreeDSConfigurationFactory(merchant_account=other_merchant_account)

    everything = platform.get(PATH).json()
    euro = platform.get(PATH, {"currency": "EUR"}).json()

    assert set(everything) == {"items"}
    assert [item["id"] for item in everything["items"]] == [str(newer.pk), str(older.pk)]
    assert [item["id"] for item in euro["items"]] == [str(older.pk)]


@pytest.mark.parametrize(
    ("query", "pointer"),
    [({"currency": "eur"}, "/currency"), ({"currency": "XYZ"}, "/currency"), ({"limit": 5}, "/limit")],
    ids=["lower-case", "unknown-currency", "no-pages"],
)
def test_bad_list_query_is_a_400(platform, query, pointer):
    assert_error(platform.get(PATH, query), 400, pointer, location="query")


# --- update ----------------------------------------------------------------------------------------------------


def test_update_changes_only_what_the_body_carries(platform):
    configuration = ThreeDSConfigurationFactory(currency="EUR", metadata={"a": "b"})

    response = platform.put(_path(configuration), {"merchant_name": "Renamed", "merchant_url": None}, format="json")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["merchant_name"] == "Renamed"
    assert body["merchant_url"] == "https://shop.example.com"
    assert body["currency"] == "EUR"
    assert body["metadata"] == {"a": "b"}


def test_a_null_currency_makes_it_apply_to_every_currency(platform):
    configuration = ThreeDSConfigurationFactory(currency="EUR")

    response = platform.put(_path(configuration), {"currency": None}, format="json")

    assert response.status_code == 200
    configuration.refresh_from_db()
    assert configuration.currency is None


def test_update_onto_another_configurations_scheme_and_currency_is_409(platform):
    ThreeDSConfigurationFactory(scheme="visa", currency="EUR")
    configuration = ThreeDSConfigurationFactory(scheme="mastercard", currency="EUR")

    assert_error(platform.put(_path(configuration), {"scheme": "visa"}, format="json"), 409)

    configuration.refresh_from_db()
    assert configuration.scheme == "mastercard"


@pytest.mark.parametrize(
    ("payload", "pointer"),
    [
        ({"merchant_category_code": "12"}, "/merchant_category_code"),
        ({"merchant_country_code": "GBR"}, "/merchant_country_code"),
        ({"scheme": "diners"}, "/scheme"),
        ({"metadata": {"k": None}}, "/metadata/k"),
        ({"type": "x"}, "/type"),
    ],
    ids=["mcc", "country", "scheme", "metadata", "unknown"],
)
def test_bad_update_is_a_400_and_changes_nothing(platform, payload, pointer):
    configuration = ThreeDSConfigurationFactory()

    assert_error(platform.put(_path(configuration), payload, format="json"), 400, pointer, location="body")

    configuration.refresh_from_db()
    assert (configuration.merchant_category_code, configuration.scheme) == ("5411", "visa")


# --- delete, other accounts --------------------------------------------------------------------------------------


def test_delete_removes_it(platform):
    configuration = ThreeDSConfigurationFactory()

    response = platform.delete(_path(configuration))

    assert response.status_code == 204
    assert not ThreeDSConfiguration.objects.exists()


@pytest.mark.parametrize("method", ["put", "delete"])
def test_another_accounts_configuration_through_this_accounts_path_is_404(platform, other_merchant_account, method):
    configuration = ThreeDSConfigurationFactory(merchant_account=other_merchant_account)

    response = getattr(platform, method)(f"{PATH}/{configuration.pk}", {"merchant_name": "x"}, format="json")

    assert_error(response, 404)
    configuration.refresh_from_db()
    assert configuration.merchant_name == "Example Shop"


@pytest.mark.parametrize("configuration_id", [UNKNOWN_ID, "nope"])
def test_unknown_configuration_is_404(platform, configuration_id):
    assert_error(platform.delete(f"{PATH}/{configuration_id}"), 404)


# --- who may ---------------------------------------------------------------------------------------------------


def _operations(configuration):
    return [
        ("get", PATH, None, "read"),
        ("post", PATH, {**VALID, "scheme": "amex"}, "write"),
        ("put", _path(configuration), {"merchant_name": "Changed"}, "write"),
        ("delete", _path(configuration), None, "write"),
    ]


def _call(client, method, path, payload):
    return getattr(client, method)(path, payload, format="json") if payload else getattr(client, method)(path)


@pytest.mark.parametrize("index", range(4), ids=["list", "create", "update", "delete"])
def test_a_key_bound_to_the_account_itself_is_refused(api_client, merchant_account, index):
    configuration = ThreeDSConfigurationFactory()
    method, path, payload, _ = _operations(configuration)[index]

    assert_error(_call(api_client(scopes=["*.read", "*.write"]), method, path, payload), 403)

    assert list(ThreeDSConfiguration.objects.values_list("merchant_name", flat=True)) == ["Example Shop"]


@pytest.mark.parametrize("index", range(4), ids=["list", "create", "update", "delete"])
@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["merchant-accounts.read"], {"read"}),
        (["merchant-accounts.write"], {"write"}),
        (["*.read"], {"read"}),
        (["*.write"], {"write"}),
        (["three-ds-scenarios.read", "three-ds-scenarios.write"], set()),
    ],
    ids=["ma.read", "ma.write", "*.read", "*.write", "scenario-scopes"],
)
def test_scopes(all_accounts_client, merchant_account, index, scopes, allowed):
    configuration = ThreeDSConfigurationFactory()
    method, path, payload, verb = _operations(configuration)[index]

    response = _call(all_accounts_client(scopes=scopes), method, path, payload)

    if verb in allowed:
        assert 200 <= response.status_code < 300, response.content
    else:
        assert_error(response, 403)
        assert ThreeDSConfiguration.objects.get().merchant_name == "Example Shop"


def test_no_token_is_401(anonymous_client, merchant_account):
    assert_error(anonymous_client.get(PATH), 401)


# --- query counts ----------------------------------------------------------------------------------------------


@pytest.fixture
def warm_reader(all_accounts_client, merchant_account, settings):
    settings.API_KEY_CACHE_SECONDS = 3600
    client = all_accounts_client(scopes=["merchant-accounts.read"])
    assert client.get(PATH).status_code == 200
    return client


@pytest.mark.parametrize("schemes", [["visa"], ["visa", "mastercard", "amex", "jcb", "discover"]])
def test_list_is_one_query_whatever_its_size(warm_reader, django_assert_num_queries, schemes):
    for scheme in schemes:
        ThreeDSConfigurationFactory(scheme=scheme)

    with django_assert_num_queries(1):
        response = warm_reader.get(PATH)

    assert len(response.json()["items"]) == len(schemes)
