"""`/merchant-accounts`: upstream's operations for API keys made for every account."""

from __future__ import annotations

import pytest
from django.db.models.signals import post_save

from payments.accounts.models import MerchantAccount
from payments.tests.assertions import assert_error
from payments.tests.factories import MerchantAccountFactory

pytestmark = pytest.mark.django_db

ALL = ["*.read", "*.write"]


@pytest.fixture
def platform(all_accounts_client, merchant_account):
    """A client of a key made for every account, with every scope."""
    return all_accounts_client(scopes=ALL)


def _create(client, **fields):
    return client.post("/merchant-accounts", {"id": "seller-1", "display_name": "Seller One", **fields}, format="json")


# --- create ----------------------------------------------------------------------------------------------------


def test_create_stores_the_account_and_answers_upstreams_shape(platform):
    response = _create(platform)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["type"] == "merchant-account"
    assert (body["id"], body["display_name"]) == ("seller-1", "Seller One")
    assert body["account_updater_enabled"] is False
    assert body["async_network_tokens_enabled"] is False
    assert body["over_capture_amount"] is None
    assert body["loon_client_key"] is None
    assert body["created_at"].endswith("+00:00")
    assert MerchantAccount.objects.get(pk="seller-1").display_name == "Seller One"


def test_create_goes_through_the_service_so_save_hooks_fire(platform):
    """Apps that give every new account something (its sandbox payment service) hook the account's save."""
    created = []

    def hook(sender, instance, **kwargs):
        if kwargs.get("created"):
            created.append(instance.pk)

    post_save.connect(hook, sender=MerchantAccount, dispatch_uid="test-merchant-account-hook")
    try:
        assert _create(platform).status_code == 201
    finally:
        post_save.disconnect(sender=MerchantAccount, dispatch_uid="test-merchant-account-hook")
    assert created == ["seller-1"]


def test_a_new_account_can_be_acted_for_at_once(platform, all_accounts_client):
    assert _create(platform).status_code == 201

    response = all_accounts_client(scopes=["buyers.read"], merchant_account_id="seller-1").get("/buyers")

    assert response.status_code == 200
    assert response.json()["items"] == []


def test_values_that_ask_for_nothing_are_accepted(platform):
    """The official SDK sends its model defaults (`false`), and a client may send nulls."""
    response = _create(
        platform,
        account_updater_enabled=False,
        async_network_tokens_enabled=False,
        loon_client_key=None,
        over_capture_amount=None,
        visa_network_tokens_app_id=None,
    )

    assert response.status_code == 201, response.content


def test_duplicate_id_is_409_and_changes_nothing(platform):
    MerchantAccountFactory(id="seller-1", display_name="First")

    response = _create(platform, display_name="Second")

    assert_error(response, 409, "/id")
    assert MerchantAccount.objects.get(pk="seller-1").display_name == "First"


BAD_CREATES = [
    ({"id": None}, "/id"),
    ({"id": ""}, "/id"),
    ({"id": "a" * 51}, "/id"),
    ({"id": "seller_1"}, "/id"),
    ({"id": "seller 1"}, "/id"),
    ({"id": " seller-1"}, "/id"),
    ({"id": "seller-1\n"}, "/id"),
    ({"id": "séller"}, "/id"),
    ({"id": 123}, "/id"),
    ({"display_name": ""}, "/display_name"),
    ({"display_name": "x" * 256}, "/display_name"),
    ({"display_name": 5}, "/display_name"),
    ({"display_name": None}, "/display_name"),
    ({"allowed_origins": ["https://shop.example"]}, "/allowed_origins"),
    ({"bogus": 1}, "/bogus"),
    ({"account_updater_enabled": True}, "/account_updater_enabled"),
    ({"account_updater_request_encryption_key": "key"}, "/account_updater_request_encryption_key"),
    ({"account_updater_response_decryption_key_id": "id"}, "/account_updater_response_decryption_key_id"),
    ({"loon_client_key": "key"}, "/loon_client_key"),
    ({"loon_secret_key": "secret"}, "/loon_secret_key"),
    ({"loon_accepted_schemes": ["visa"]}, "/loon_accepted_schemes"),
    ({"loon_merchant_account_id": "m"}, "/loon_merchant_account_id"),
    ({"over_capture_amount": 100}, "/over_capture_amount"),
    ({"over_capture_percentage": 25}, "/over_capture_percentage"),
    ({"visa_network_tokens_requestor_id": "r"}, "/visa_network_tokens_requestor_id"),
    ({"mastercard_network_tokens_app_id": "a"}, "/mastercard_network_tokens_app_id"),
    ({"async_network_tokens_enabled": True}, "/async_network_tokens_enabled"),
]


@pytest.mark.parametrize(("fields", "pointer"), BAD_CREATES, ids=[p + " " + repr(f)[:30] for f, p in BAD_CREATES])
def test_bad_create_is_a_400_naming_the_field_and_writes_nothing(platform, fields, pointer):
    before = set(MerchantAccount.objects.values_list("pk", flat=True))

    body = assert_error(_create(platform, **fields), 400, pointer, location="body")

    assert set(MerchantAccount.objects.values_list("pk", flat=True)) == before
    if pointer.endswith(("_key", "_id", "_enabled", "_schemes", "_amount", "_percentage")):
        assert "Not supported" in str(body["details"])


@pytest.mark.parametrize("payload", [{}, {"id": "seller-1"}, {"display_name": "x"}], ids=["empty", "no-name", "no-id"])
def test_required_fields(platform, payload):
    response = platform.post("/merchant-accounts", payload, format="json")

    assert_error(response, 400)
    assert not MerchantAccount.objects.filter(pk="seller-1").exists()


# --- read ------------------------------------------------------------------------------------------------------


def test_get_answers_the_account(platform):
    MerchantAccountFactory(id="seller-1", display_name="Seller One")

    response = platform.get("/merchant-accounts/seller-1")

    assert response.status_code == 200
    assert response.json()["display_name"] == "Seller One"


@pytest.mark.parametrize("account_id", ["nobody", "bad%00id", "a" * 300], ids=["unknown", "nul", "long"])
def test_get_unknown_is_404(platform, account_id):
    assert_error(platform.get(f"/merchant-accounts/{account_id}"), 404)


@pytest.mark.parametrize("search", ["%", "_", "x" * 200])
def test_odd_searches_find_nothing_and_fail_nothing(platform, search):
    response = platform.get("/merchant-accounts", {"search": search})

    assert response.status_code == 200
    assert response.json()["items"] == []


@pytest.mark.parametrize("search", ["\x00", "x" * 201], ids=["nul", "too-long"])
def test_a_search_no_database_could_take_is_a_400(platform, search):
    assert_error(platform.get("/merchant-accounts", {"search": search}), 400, "/search", location="query")


def test_list_pages_newest_first_and_searches(platform):
    for n in range(3):
        MerchantAccountFactory(id=f"seller-{n}", display_name=f"Shop {n}")

    first = platform.get("/merchant-accounts", {"limit": 2}).json()
    second = platform.get("/merchant-accounts", {"limit": 2, "cursor": first["next_cursor"]}).json()
    by_id = platform.get("/merchant-accounts", {"search": "seller-1"}).json()["items"]
    by_name = platform.get("/merchant-accounts", {"search": "shop 2"}).json()["items"]

    ids = [a["id"] for a in first["items"] + second["items"]]
    assert ids == ["seller-2", "seller-1", "seller-0", "default"]
    assert second["next_cursor"] is None
    assert [a["id"] for a in by_id] == ["seller-1"]
    assert [a["id"] for a in by_name] == ["seller-2"]


@pytest.mark.parametrize(
    ("query", "pointer"),
    [({"limit": 0}, "/limit"), ({"limit": 101}, "/limit"), ({"cursor": "forged"}, "/cursor"), ({"x": 1}, "/x")],
    ids=["limit-0", "limit-101", "cursor", "unknown"],
)
def test_bad_list_query_is_a_400(platform, query, pointer):
    assert_error(platform.get("/merchant-accounts", query), 400, pointer, location="query")


# --- update ----------------------------------------------------------------------------------------------------


def test_update_renames_the_account(platform):
    MerchantAccountFactory(id="seller-1", display_name="Old")

    response = platform.put("/merchant-accounts/seller-1", {"display_name": "New"}, format="json")

    assert response.status_code == 200
    assert response.json()["display_name"] == "New"
    assert MerchantAccount.objects.get(pk="seller-1").display_name == "New"


@pytest.mark.parametrize("payload", [{}, {"display_name": None}, {"account_updater_enabled": False}])
def test_update_without_a_name_keeps_it(platform, payload):
    MerchantAccountFactory(id="seller-1", display_name="Old")

    response = platform.put("/merchant-accounts/seller-1", payload, format="json")

    assert response.status_code == 200
    assert response.json()["display_name"] == "Old"


BAD_UPDATES = [
    ({"display_name": ""}, "/display_name"),
    ({"display_name": "x" * 256}, "/display_name"),
    ({"display_name": ["x"]}, "/display_name"),
    ({"id": "other-id"}, "/id"),
    ({"over_capture_percentage": 5}, "/over_capture_percentage"),
    ({"loon_accepted_schemes": ["visa"]}, "/loon_accepted_schemes"),
    ({"discover_network_tokens_app_id": "a"}, "/discover_network_tokens_app_id"),
]


@pytest.mark.parametrize(("payload", "pointer"), BAD_UPDATES, ids=[p for _, p in BAD_UPDATES])
def test_bad_update_is_a_400_and_changes_nothing(platform, payload, pointer):
    MerchantAccountFactory(id="seller-1", display_name="Old")

    assert_error(platform.put("/merchant-accounts/seller-1", payload, format="json"), 400, pointer, location="body")

    assert MerchantAccount.objects.get(pk="seller-1").display_name == "Old"


def test_update_unknown_is_404(platform):
    assert_error(platform.put("/merchant-accounts/nobody", {"display_name": "x"}, format="json"), 404)
    assert not MerchantAccount.objects.filter(pk="nobody").exists()


# --- who may ---------------------------------------------------------------------------------------------------

OPERATIONS = [
    ("get", "/merchant-accounts", None, "read"),
    ("post", "/merchant-accounts", {"id": "seller-9", "display_name": "Nine"}, "write"),
    ("get", "/merchant-accounts/default", None, "read"),
    ("put", "/merchant-accounts/default", {"display_name": "Renamed"}, "write"),
]
OPERATION_IDS = [f"{method.upper()} {path}" for method, path, _, _ in OPERATIONS]


def _call(client, method, path, payload):
    return getattr(client, method)(path, payload, format="json") if payload else getattr(client, method)(path)


@pytest.mark.parametrize(("method", "path", "payload", "verb"), OPERATIONS, ids=OPERATION_IDS)
def test_a_key_bound_to_one_account_is_refused(api_client, merchant_account, method, path, payload, verb):
    """Even with every scope, and even for its own account."""
    body = assert_error(_call(api_client(scopes=ALL), method, path, payload), 403)

    assert "every merchant account" in body["message"]
    assert MerchantAccount.objects.get(pk="default").display_name == "Default"
    assert not MerchantAccount.objects.filter(pk="seller-9").exists()


@pytest.mark.parametrize(("method", "path", "payload", "verb"), OPERATIONS, ids=OPERATION_IDS)
@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [
        (["merchant-accounts.read"], {"read"}),
        (["merchant-accounts.write"], {"write"}),
        (["*.read"], {"read"}),
        (["*.write"], {"write"}),
        (["buyers.read", "buyers.write", "three-ds-scenarios.write"], set()),
        (["embed"], set()),
    ],
    ids=["ma.read", "ma.write", "*.read", "*.write", "other-scopes", "embed"],
)
def test_scopes(all_accounts_client, merchant_account, method, path, payload, verb, scopes, allowed):
    response = _call(all_accounts_client(scopes=scopes), method, path, payload)

    if verb in allowed:
        assert response.status_code in (200, 201), response.content
    else:
        assert_error(response, 403)


@pytest.mark.parametrize(("method", "path", "payload", "verb"), OPERATIONS, ids=OPERATION_IDS)
def test_no_token_is_401(anonymous_client, merchant_account, method, path, payload, verb):
    assert_error(_call(anonymous_client, method, path, payload), 401)


# --- query counts ----------------------------------------------------------------------------------------------


@pytest.fixture
def warm_platform(all_accounts_client, merchant_account, settings):
    """Key and accounts cached, as every request but a process's first sees them."""
    settings.API_KEY_CACHE_SECONDS = 3600
    client = all_accounts_client(scopes=["merchant-accounts.read"])
    assert client.get("/merchant-accounts").status_code == 200
    assert client.get("/merchant-accounts/default").status_code == 200
    return client


@pytest.mark.parametrize("rows", [1, 20])
def test_list_is_one_query_whatever_the_page_size(warm_platform, django_assert_num_queries, rows):
    MerchantAccountFactory.create_batch(rows)

    with django_assert_num_queries(1):
        response = warm_platform.get("/merchant-accounts", {"limit": 20})

    assert len(response.json()["items"]) == min(rows + 1, 20)


def test_detail_reads_no_more_than_the_account(warm_platform, django_assert_num_queries):
    with django_assert_num_queries(0):  # the account is cached, as every request's own account is
        response = warm_platform.get("/merchant-accounts/default")

    assert response.status_code == 200
