"""`/api-key-pairs` and `/roles`: key pairs made, read, changed and deleted over the API, never with more power than
the token that asks (its scopes that its key's roles grant, and its key's merchant account)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from rest_framework.test import APIClient

from payments.accounts import keys, selectors
from payments.accounts.models import ApiKey
from payments.accounts.roles import ROLES
from payments.audit.models import AuditLogEntry
from payments.rest import authentication
from payments.tests.assertions import assert_error
from payments.tests.factories import MerchantAccountFactory

pytestmark = pytest.mark.django_db

ALL = ["*.read", "*.write"]
ROLE_IDS = {role.slug: str(role.id) for role in ROLES}


@dataclass
class Key:
    """A key pair for a test: its row and its private half, which mints tokens."""

    row: ApiKey
    private_pem: str

    def client(self, scopes: list[str] | None = None) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {keys.mint_token(self.private_pem, scopes=scopes or ALL)}")
        return client


@pytest.fixture
def make_key(db, merchant_account):
    """`make_key(roles=["viewer"], account=None, accounts=())`: a stored key of those roles, reaching that account
    and those accounts (none named: every account)."""

    def make(roles: list[str] | None = None, account=None, name: str = "", accounts=()) -> Key:
        private_key, private_pem = keys.generate_private_key()
        reach = [account, *accounts] if account is not None else list(accounts)
        row = ApiKey.objects.create(
            kid=keys.thumbprint(private_key.public_key()),
            public_key=keys.public_pem(private_key),
            all_merchant_accounts=not reach,
            roles=roles or ["administrator"],
            display_name=name,
        )
        row.merchant_accounts.set(reach)
        return Key(row=row, private_pem=private_pem)

    return make


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """`with committed(execute=True):` runs what a change does once it commits (it tells the shared cache)."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def admin_key(make_key) -> Key:
    """A key of every account with every role: what `manage.py create_api_key --merchant-account all` makes."""
    return make_key(name="Platform")


def _create(client: APIClient, **fields):
    body = {"display_name": "Checkout server", "role_ids": [ROLE_IDS["payments"]], **fields}
    return client.post("/api-key-pairs", body, format="json")


def _ec_public_pem(curve: ec.EllipticCurve | None = None) -> tuple[str, str]:
    private_key = ec.generate_private_key(curve or ec.SECP521R1())
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return private_pem, keys.public_pem(private_key)


# --- create -----------------------------------------------------------------------------------------------------


def test_the_server_makes_the_pair_and_shows_the_private_key_once(admin_key):
    response = _create(admin_key.client())

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["type"], body["display_name"], body["algorithm"], body["active"]) == (
        "api-key-pair",
        "Checkout server",
        "ECDSA",
        True,
    )
    assert [role["slug"] for role in body["roles"]] == ["payments"]
    assert body["merchant_accounts"] == []
    assert body["last_used_at"] is None
    assert body["creator"] == {
        "id": str(admin_key.row.pk),
        "name": "Platform",
        "email_address": None,
        "thumbprint": admin_key.row.kid,
    }
    private_pem = body["private_key"]
    assert private_pem.startswith("-----BEGIN PRIVATE KEY-----")
    stored = ApiKey.objects.get(pk=body["id"])
    assert stored.kid == body["thumbprint"] == keys.thumbprint(keys.load_private_pem(private_pem).public_key())
    assert "PRIVATE" not in stored.public_key
    # It works at once, and is never shown again.
    made = Key(row=stored, private_pem=private_pem)
    assert made.client(["transactions.read"]).get("/transactions").status_code == 200
    assert admin_key.client().get(f"/api-key-pairs/{body['id']}").json()["private_key"] is None


def test_rsa_pairs_are_made_and_sign_rs512(admin_key):
    body = _create(admin_key.client(), algorithm="RSA").json()

    assert body["algorithm"] == "RSA"
    assert ApiKey.objects.get(pk=body["id"]).algorithm == "RS512"
    token = keys.mint_token(body["private_key"], scopes=["buyers.read"])
    assert APIClient().get("/buyers", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200


def test_a_public_key_the_merchant_made_is_registered_without_a_private_key(admin_key):
    private_pem, public_pem = _ec_public_pem()

    response = _create(admin_key.client(), public_key=public_pem, merchant_account_ids=["default"])

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["private_key"] is None
    assert [account["id"] for account in body["merchant_accounts"]] == ["default"]
    token = keys.mint_token(private_pem, scopes=["buyers.read"])
    assert APIClient().get("/buyers", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200


def test_the_same_public_key_twice_is_a_409(admin_key):
    _, public_pem = _ec_public_pem()
    assert _create(admin_key.client(), public_key=public_pem).status_code == 201

    assert_error(_create(admin_key.client(), public_key=public_pem), 409, "/public_key")
    assert ApiKey.objects.count() == 2


_, P256_PUBLIC = _ec_public_pem(ec.SECP256R1())


@pytest.mark.parametrize(
    ("fields", "pointer"),
    [
        ({"display_name": ""}, "/display_name"),
        ({"display_name": "x" * 201}, "/display_name"),
        ({"role_ids": []}, "/role_ids"),
        ({"role_ids": ["0b7c1c2e-7f7e-4c52-9a35-4f6a1f0d2b61"]}, "/role_ids"),
        ({"role_ids": ["administrator"]}, "/role_ids/0"),
        ({"merchant_account_ids": ["default", "other", "default"]}, "/merchant_account_ids"),
        ({"merchant_account_ids": [""]}, "/merchant_account_ids/0"),
        ({"merchant_account_ids": "default"}, "/merchant_account_ids"),
        ({"merchant_account_ids": ["nowhere"]}, "/merchant_account_ids"),
        ({"merchant_account_ids": ["default", "nowhere"]}, "/merchant_account_ids"),
        ({"algorithm": "DSA"}, "/algorithm"),
        ({"active": "yes"}, "/active"),
        ({"public_key": "not a key"}, "/public_key"),
        ({"public_key": P256_PUBLIC}, "/public_key"),
        ({"public_key": P256_PUBLIC.replace("PUBLIC", "PRIVATE")}, "/public_key"),
        ({"algorithm": "RSA", "public_key": _ec_public_pem()[1]}, "/algorithm"),
        ({"private_key": "x"}, "/private_key"),
    ],
    ids=[
        "empty-name",
        "long-name",
        "no-roles",
        "unknown-role",
        "role-by-slug",
        "repeated-account",
        "empty-account-id",
        "accounts-not-a-list",
        "unknown-account",
        "one-account-unknown",
        "unknown-algorithm",
        "active-not-boolean",
        "not-a-pem",
        "p256-key",
        "garbled-pem",
        "algorithm-mismatch",
        "unknown-field",
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(admin_key, other_merchant_account, fields, pointer):
    assert_error(_create(admin_key.client(), **fields), 400, pointer)

    assert list(ApiKey.objects.all()) == [admin_key.row]
    assert not AuditLogEntry.objects.exists()


def test_a_missing_name_or_roles_is_named(admin_key):
    body = assert_error(admin_key.client().post("/api-key-pairs", {}, format="json"), 400)

    assert {detail["pointer"] for detail in body["details"]} == {"/display_name", "/role_ids"}


def test_a_key_reaching_two_of_three_accounts_acts_for_those_alone(
    admin_key, merchant_account, other_merchant_account, third_merchant_account
):
    response = _create(admin_key.client(), merchant_account_ids=["other", "default"])

    assert response.status_code == 201, response.content
    body = response.json()
    shown = [(account["id"], account["display_name"]) for account in body["merchant_accounts"]]
    assert shown == [("default", "Default"), ("other", "Other")]
    assert (
        admin_key.client().get(f"/api-key-pairs/{body['id']}").json()["merchant_accounts"] == body["merchant_accounts"]
    )
    client = Key(row=ApiKey.objects.get(pk=body["id"]), private_pem=body["private_key"]).client(["buyers.read"])
    for account in ("default", "other"):
        assert client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=account).status_code == 200
    refused = assert_error(client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="third"), 403)
    assert refused["message"] == "This API key cannot act for merchant account 'third'."


# --- the power matrix -------------------------------------------------------------------------------------------

# (the maker key's roles, its token's scopes, the roles asked for, allowed?)
POWER = [
    (["administrator"], [*ALL, "embed"], ["administrator"], True),
    (["administrator"], ALL, ["administrator"], True),  # `*.write` is all the power `embed` is
    (["administrator"], ["*.read", "api-key-pairs.write"], ["administrator"], False),
    (["administrator"], ["*.read", "api-key-pairs.write"], ["embed"], False),
    (["administrator"], ALL, ["viewer"], True),
    (["administrator"], ["api-key-pairs.write"], ["viewer"], False),  # the token reads nothing
    (["administrator"], ["api-key-pairs.write", "*.read"], ["viewer"], True),
    (["payments"], [*ALL, "embed"], ["embed"], False),  # the role grants no api-key-pairs.write: 403 before
    (["administrator", "viewer"], ["*.read", "api-key-pairs.write"], ["payments"], False),
    (["administrator"], ["*.read", "*.write", "embed"], ["payments", "viewer"], True),
    (["administrator"], ["*.read", "api-key-pairs.write", "embed"], ["embed"], True),
]


@pytest.mark.parametrize(
    ("maker_roles", "scopes", "asked", "allowed"),
    POWER,
    ids=[f"{'+'.join(m)} {'+'.join(s)} -> {'+'.join(a)}" for m, s, a, _ in POWER],
)
def test_a_key_never_makes_a_key_with_more_scopes_than_its_own(make_key, maker_roles, scopes, asked, allowed):
    maker = make_key(roles=maker_roles)

    response = _create(maker.client(scopes), role_ids=[ROLE_IDS[slug] for slug in asked])

    if allowed:
        assert response.status_code == 201, response.content
    else:
        assert_error(response, 403)
        assert ApiKey.objects.count() == 1


# (the accounts the maker reaches, the accounts asked for, allowed?): None is a key of every account.
REACH = [
    (None, [], True),
    (None, ["default"], True),
    (None, ["default", "other"], True),
    (["default"], ["default"], True),
    (["default"], [], False),  # every account is more than one
    (["default"], ["other"], False),
    (["default"], ["nowhere"], False),  # 403, not 400: a key never learns which other accounts exist
    (["default", "other"], ["default"], True),  # a subset
    (["default", "other"], ["other", "default"], True),  # the same set
    (["default", "other"], ["default", "third"], False),  # another set
    (["default", "other"], ["third"], False),
    (["default", "other"], ["default", "other", "third"], False),  # a superset
    (["default", "other"], [], False),  # every account
    (["default", "other"], ["default", "nowhere"], False),
]
REACH_IDS = [f"{'+'.join(m) if m else 'all'} -> {'+'.join(a) or 'all'}" for m, a, _ in REACH]


@pytest.fixture
def third_merchant_account(db):
    return MerchantAccountFactory(id="third", display_name="Third shop")


@pytest.fixture
def reach_maker(make_key, merchant_account, other_merchant_account, third_merchant_account):
    """`reach_maker(["default", "other"])`: an administrator key reaching those accounts (None: every account)."""
    accounts = {account.pk: account for account in (merchant_account, other_merchant_account, third_merchant_account)}
    return lambda ids: make_key(name="Maker", accounts=[accounts[id] for id in ids or []])


@pytest.mark.parametrize(("maker_reach", "asked", "allowed"), REACH, ids=REACH_IDS)
def test_a_key_never_makes_a_key_reaching_more_accounts_than_its_own(reach_maker, maker_reach, asked, allowed):
    maker = reach_maker(maker_reach)

    response = _create(maker.client(), merchant_account_ids=asked)

    if allowed:
        assert response.status_code == 201, response.content
        made = ApiKey.objects.get(pk=response.json()["id"])
        assert made.merchant_account_ids == (frozenset(asked) if asked else None)
    else:
        assert_error(response, 403, "/merchant_account_ids")
        assert ApiKey.objects.count() == 1


@pytest.mark.parametrize(("maker_reach", "asked", "allowed"), REACH, ids=REACH_IDS)
def test_a_key_never_widens_a_key_beyond_its_own_accounts(
    reach_maker, make_key, merchant_account, maker_reach, asked, allowed
):
    maker = reach_maker(maker_reach)
    target = make_key(roles=["viewer"], account=merchant_account)

    response = maker.client().put(f"/api-key-pairs/{target.row.pk}", {"merchant_account_ids": asked}, format="json")

    target.row.refresh_from_db()
    if allowed:
        assert response.status_code == 200, response.content
        assert target.row.merchant_account_ids == (frozenset(asked) if asked else None)
    else:
        assert_error(response, 403, "/merchant_account_ids")
        assert target.row.merchant_account_ids == {"default"}


def test_a_key_sees_only_keys_reaching_no_account_beyond_its_own(
    reach_maker, make_key, merchant_account, other_merchant_account, third_merchant_account
):
    maker = reach_maker(["default", "other"])
    for name, accounts in [("Default", [merchant_account]), ("Both", [merchant_account, other_merchant_account])]:
        make_key(name=name, accounts=accounts)
    hidden = [make_key(name="Default and third", accounts=[merchant_account, third_merchant_account]), make_key()]

    names = {item["display_name"] for item in maker.client().get("/api-key-pairs").json()["items"]}

    assert names == {"Maker", "Default", "Both"}
    for key in hidden:
        assert_error(maker.client().get(f"/api-key-pairs/{key.row.pk}"), 404)
        assert_error(maker.client().delete(f"/api-key-pairs/{key.row.pk}"), 404)


def test_a_key_never_raises_a_keys_roles_beyond_its_token(make_key):
    maker = make_key(roles=["administrator"])
    target = make_key(roles=["viewer"])
    client = maker.client(["*.read", "api-key-pairs.write"])

    response = client.put(f"/api-key-pairs/{target.row.pk}", {"role_ids": [ROLE_IDS["payments"]]}, format="json")

    assert_error(response, 403, "/role_ids")
    target.row.refresh_from_db()
    assert target.row.roles == ["viewer"]


def test_a_key_of_one_account_cannot_widen_itself_to_every_account(make_key, merchant_account):
    maker = make_key(account=merchant_account)

    response = maker.client().put(f"/api-key-pairs/{maker.row.pk}", {"merchant_account_ids": []}, format="json")

    assert_error(response, 403, "/merchant_account_ids")
    maker.row.refresh_from_db()
    assert maker.row.merchant_account_ids == {"default"}


@pytest.mark.parametrize("method", ["put", "delete"])
def test_a_weaker_key_cannot_change_or_delete_a_stronger_one(make_key, merchant_account, method):
    weaker = make_key(roles=["administrator"])
    stronger = make_key(roles=["administrator"], name="Platform")
    client = weaker.client(["*.read", "api-key-pairs.write"])  # less than the administrator role

    response = getattr(client, method)(f"/api-key-pairs/{stronger.row.pk}", {"active": False}, format="json")

    assert_error(response, 403, "/")
    stronger.row.refresh_from_db()
    assert stronger.row.is_active


# --- list, get ----------------------------------------------------------------------------------------------------


def test_a_key_of_one_account_sees_only_that_accounts_keys(make_key, merchant_account, other_merchant_account):
    mine = make_key(account=merchant_account, name="Mine")
    other = make_key(account=other_merchant_account, name="Theirs")
    every = make_key(name="Every")

    listed = mine.client().get("/api-key-pairs").json()
    assert [item["display_name"] for item in listed["items"]] == ["Mine"]
    assert_error(mine.client().get(f"/api-key-pairs/{other.row.pk}"), 404)
    assert_error(mine.client().get(f"/api-key-pairs/{every.row.pk}"), 404)
    names = [item["display_name"] for item in every.client().get("/api-key-pairs").json()["items"]]
    assert names == ["Every", "Theirs", "Mine"]


def test_pages_walk_every_key_once(make_key):
    made = [make_key(name=f"Key {n}") for n in range(5)]
    client = made[0].client()

    seen, page = [], client.get("/api-key-pairs", {"limit": 2}).json()
    seen.extend(item["id"] for item in page["items"])
    while page["next_cursor"]:
        page = client.get("/api-key-pairs", {"limit": 2, "cursor": page["next_cursor"]}).json()
        seen.extend(item["id"] for item in page["items"])
    assert sorted(seen) == sorted(str(key.row.pk) for key in made)


def test_a_key_made_by_the_command_is_named_by_its_thumbprint(make_key):
    key = make_key()

    assert key.client().get(f"/api-key-pairs/{key.row.pk}").json()["display_name"] == key.row.kid


def test_list_and_get_cost_a_fixed_number_of_queries(make_key, merchant_account, django_assert_num_queries):
    key = make_key(name="Reader")
    for n in range(4):
        make_key(account=merchant_account, name=f"Key {n}")
    client = key.client()
    client.get("/api-key-pairs")  # the key's state is cached and its use recorded

    with django_assert_num_queries(2):  # the keys, then the accounts of them all
        assert len(client.get("/api-key-pairs").json()["items"]) == 5
    with django_assert_num_queries(2):
        assert client.get(f"/api-key-pairs/{key.row.pk}").status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "scopes"),
    [
        ("get", "/api-key-pairs", ["buyers.read", "roles.read"]),
        ("post", "/api-key-pairs", ["api-key-pairs.read", "*.read"]),
        ("get", "/roles", ["api-key-pairs.read"]),
    ],
)
def test_each_operation_needs_its_scope(admin_key, method, path, scopes):
    assert_error(getattr(admin_key.client(scopes), method)(path, {}, format="json"), 403)


def test_without_a_token_it_is_a_401(db):
    assert_error(APIClient().get("/api-key-pairs"), 401)
    assert_error(APIClient().get("/roles"), 401)


# --- update, delete -----------------------------------------------------------------------------------------------


def test_update_renames_and_replaces_roles_and_reach(admin_key, make_key, merchant_account):
    target = make_key(roles=["viewer"], name="Old")

    response = admin_key.client([*ALL, "embed"]).put(
        f"/api-key-pairs/{target.row.pk}",
        {"display_name": "New", "role_ids": [ROLE_IDS["payments"]], "merchant_account_ids": ["default"]},
        format="json",
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["display_name"], [role["slug"] for role in body["roles"]]) == ("New", ["payments"])
    assert [account["id"] for account in body["merchant_accounts"]] == ["default"]
    target.row.refresh_from_db()
    assert (target.row.display_name, target.row.roles, target.row.merchant_account_ids) == (
        "New",
        ["payments"],
        {"default"},
    )


def test_null_fields_leave_the_key_as_it_is(admin_key, make_key, merchant_account):
    target = make_key(roles=["viewer"], account=merchant_account, name="Kept")

    response = admin_key.client().put(
        f"/api-key-pairs/{target.row.pk}",
        {"display_name": None, "role_ids": None, "merchant_account_ids": None, "active": None},
        format="json",
    )

    assert response.status_code == 200, response.content
    target.row.refresh_from_db()
    assert (target.row.display_name, target.row.roles, target.row.merchant_account_ids, target.row.is_active) == (
        "Kept",
        ["viewer"],
        {"default"},
        True,
    )


def test_disabling_a_key_stops_its_verified_tokens_at_once_and_enabling_restores_them(admin_key, make_key, committed):
    target = make_key(roles=["viewer"])
    client = target.client(["buyers.read"])
    assert client.get("/buyers").status_code == 200  # verified, and remembered by this process

    with committed(execute=True):
        response = admin_key.client().put(f"/api-key-pairs/{target.row.pk}", {"active": False}, format="json")
    assert response.json()["active"] is False
    assert_error(client.get("/buyers"), 401)

    with committed(execute=True):
        admin_key.client().put(f"/api-key-pairs/{target.row.pk}", {"active": True}, format="json")
    assert client.get("/buyers").status_code == 200


def test_a_narrowed_role_holds_for_tokens_already_verified(admin_key, make_key, committed):
    target = make_key(roles=["payments"])
    client = target.client(ALL)
    assert client.post("/buyers", {"display_name": "Ada"}, format="json").status_code == 201

    with committed(execute=True):
        admin_key.client().put(f"/api-key-pairs/{target.row.pk}", {"role_ids": [ROLE_IDS["viewer"]]}, format="json")

    assert_error(client.post("/buyers", {"display_name": "Bob"}, format="json"), 403)
    assert client.get("/buyers").status_code == 200


def test_an_account_dropped_from_a_key_stops_its_verified_tokens_there_at_once(
    admin_key, make_key, merchant_account, other_merchant_account, committed
):
    target = make_key(roles=["viewer"], accounts=[merchant_account, other_merchant_account])
    client = target.client(["buyers.read"])
    assert client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other").status_code == 200  # verified, remembered

    with committed(execute=True):
        response = admin_key.client().put(
            f"/api-key-pairs/{target.row.pk}", {"merchant_account_ids": ["default"]}, format="json"
        )

    assert [account["id"] for account in response.json()["merchant_accounts"]] == ["default"]
    assert_error(client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other"), 403)
    assert client.get("/buyers").status_code == 200
    authentication.clear_caches()  # another host: only the shared cache and the database
    assert_error(client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other"), 403)


def test_delete_answers_204_and_the_keys_next_request_is_a_401(admin_key, make_key, committed):
    target = make_key(roles=["viewer"], name="Leaving")
    client = target.client(["buyers.read"])
    assert client.get("/buyers").status_code == 200

    with committed(execute=True):
        response = admin_key.client().delete(f"/api-key-pairs/{target.row.pk}")

    assert response.status_code == 204
    assert not response.content
    assert_error(client.get("/buyers"), 401)
    assert_error(admin_key.client().get(f"/api-key-pairs/{target.row.pk}"), 404)


def test_a_deleted_key_stays_refused_after_this_process_forgets_its_tokens(admin_key, make_key, committed):
    """What another host sees: no verified token remembered, only the shared cache and the database."""
    target = make_key(roles=["viewer"])
    client = target.client(["buyers.read"])
    assert client.get("/buyers").status_code == 200
    with committed(execute=True):
        admin_key.client().delete(f"/api-key-pairs/{target.row.pk}")

    authentication.clear_caches()

    assert_error(client.get("/buyers"), 401)


def test_changes_are_in_the_audit_log_by_name(admin_key, make_key, merchant_account):
    client = admin_key.client()
    made = _create(client, merchant_account_ids=["default"]).json()
    client.put(f"/api-key-pairs/{made['id']}", {"display_name": "Renamed"}, format="json")
    client.delete(f"/api-key-pairs/{made['id']}")

    entries = AuditLogEntry.objects.order_by("created_at")
    assert [(e.action, e.resource_type, e.resource_name, e.user_name, e.merchant_account_id) for e in entries] == [
        ("created", "api-key-pair", "Checkout server", "Platform", "default"),
        ("updated", "api-key-pair", "Renamed", "Platform", "default"),
        ("deleted", "api-key-pair", "Renamed", "Platform", "default"),
    ]


def test_a_change_is_in_the_audit_log_of_every_account_it_concerns(admin_key, merchant_account, other_merchant_account):
    client = admin_key.client()
    made = _create(client, merchant_account_ids=["default", "other"]).json()
    client.put(f"/api-key-pairs/{made['id']}", {"merchant_account_ids": ["default"]}, format="json")
    client.put(f"/api-key-pairs/{made['id']}", {"merchant_account_ids": []}, format="json")
    client.delete(f"/api-key-pairs/{made['id']}")

    entries = AuditLogEntry.objects.order_by("created_at", "merchant_account_id")
    assert [(entry.action, entry.merchant_account_id) for entry in entries] == [
        ("created", "default"),
        ("created", "other"),
        ("updated", "default"),  # it reached both, and reaches one: both accounts see it
        ("updated", "other"),
        ("updated", None),  # it came to reach every account: the desk's log alone
        ("deleted", None),
    ]


# --- roles and what they allow ----------------------------------------------------------------------------------


def test_roles_are_listed_with_their_scopes_a_page_at_a_time(admin_key):
    client = admin_key.client(["roles.read"])

    seen, page = [], client.get("/roles", {"limit": 3}).json()
    seen.extend(page["items"])
    assert page["previous_cursor"] is None
    while page["next_cursor"]:
        page = client.get("/roles", {"limit": 3, "cursor": page["next_cursor"]}).json()
        seen.extend(page["items"])
    assert [role["slug"] for role in seen] == [role.slug for role in ROLES]
    administrator = seen[0]
    assert administrator == {
        "type": "role",
        "id": ROLE_IDS["administrator"],
        "name": "Administrator",
        "slug": "administrator",
        "description": ROLES[0].description,
        "permissions": {"allow": ["*.read", "*.write", "embed"]},
        "assignable_to": ["api-key-pair"],
        "applies_to": [],
        "is_standalone_assignable": True,
    }


def test_a_forged_roles_cursor_is_a_400(admin_key):
    assert_error(admin_key.client().get("/roles", {"cursor": "3"}), 400, "/cursor")


@pytest.mark.parametrize(
    ("role", "method", "path", "status"),
    [
        ("viewer", "get", "/buyers", 200),
        ("viewer", "post", "/buyers", 403),
        ("payments", "post", "/buyers", 201),
        ("payments", "get", "/api-key-pairs", 403),
        ("embed", "get", "/buyers", 403),
    ],
)
def test_a_token_acts_only_with_the_scopes_its_keys_roles_grant(make_key, role, method, path, status):
    client = make_key(roles=[role]).client([*ALL, "embed"])

    response = getattr(client, method)(path, {"display_name": "Ada"} if method == "post" else None, format="json")

    assert response.status_code == status, response.content


def test_use_is_recorded_at_most_once_a_minute_per_key(make_key, django_assert_num_queries):
    key = make_key(roles=["viewer"])
    client = key.client(["buyers.read"])

    client.get("/buyers")
    key.row.refresh_from_db()
    first = key.row.last_used_at
    assert first is not None
    with django_assert_num_queries(1):  # the list's own query: no key read, no write
        client.get("/buyers")
    key.row.refresh_from_db()
    assert key.row.last_used_at == first


def test_authentication_reads_a_key_and_its_accounts_once_per_cache_lifetime(
    make_key, merchant_account, other_merchant_account, django_assert_num_queries
):
    key = make_key(roles=["viewer"], accounts=[merchant_account, other_merchant_account])
    client = key.client(["buyers.read"])
    for account in ("default", "other"):  # the key's state and the accounts are cached, its use recorded
        client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID=account)

    with django_assert_num_queries(1):  # the page's own query: the key comes from the shared cache
        client.get("/buyers", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other")
    selectors.clear_caches()  # its entry expired, and this process's copy of the accounts
    with django_assert_num_queries(
        3
    ):  # the key with its accounts (one query whatever their number), the account, the page
        client.get("/buyers")


def test_with_the_shared_cache_unreachable_keys_are_read_from_the_database(admin_key, make_key, monkeypatch, committed):
    from django.core.cache import caches
    from redis.exceptions import ConnectionError as RedisConnectionError

    def unreachable(*args, **kwargs):
        raise RedisConnectionError("no answer")

    target = make_key(roles=["viewer"])
    client = target.client(["buyers.read"])
    cache = caches["default"]
    for method in ("get", "add", "set"):
        monkeypatch.setattr(cache, method, unreachable)

    assert client.get("/buyers").status_code == 200
    with committed(execute=True):
        assert admin_key.client().delete(f"/api-key-pairs/{target.row.pk}").status_code == 204
    assert_error(client.get("/buyers"), 401)
