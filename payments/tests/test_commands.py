"""The operator's commands: merchant accounts, API keys and tokens."""

import stat
from io import StringIO

import jwt
import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from gr4vy import auth as sdk_auth
from rest_framework.test import APIClient

from payments.accounts.models import ApiKey, MerchantAccount

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()


def test_create_merchant_account_is_idempotent():
    assert run("create_merchant_account", "acme", "--display-name", "Acme Ltd") == "acme"
    assert run("create_merchant_account", "acme", "--display-name", "Renamed") == "acme"

    account = MerchantAccount.objects.get()
    assert (account.id, account.display_name) == ("acme", "Acme Ltd")


def test_create_merchant_account_defaults_the_display_name_to_the_id():
    run("create_merchant_account", "shop")

    assert MerchantAccount.objects.get(pk="shop").display_name == "shop"


def test_create_api_key_writes_a_private_pem_readable_by_the_owner_only(tmp_path, merchant_account):
    path = tmp_path / "keys" / "default.pem"

    kid = run("create_api_key", "--merchant-account", "default", "--private-key-out", str(path))

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    private_pem = path.read_text()
    assert private_pem.startswith("-----BEGIN PRIVATE KEY-----")
    api_key = ApiKey.objects.get()
    assert (api_key.kid, api_key.merchant_account_ids, api_key.algorithm) == (kid, {"default"}, "ES512")
    assert "PRIVATE" not in api_key.public_key
    assert jwt.get_unverified_header(sdk_auth.get_token(private_pem))["kid"] == kid


def test_create_api_key_for_all_accounts(tmp_path):
    run("create_api_key", "--merchant-account", "all", "--private-key-out", str(tmp_path / "all.pem"))

    assert ApiKey.objects.get().merchant_account_ids is None


def test_the_first_key_has_every_role_and_the_name_given(tmp_path):
    run("create_api_key", "--merchant-account", "all", "--private-key-out", str(tmp_path / "k.pem"), "--name", "Ops")

    api_key = ApiKey.objects.get()
    assert (api_key.display_name, api_key.roles) == ("Ops", ["administrator"])


def test_create_api_key_refuses_a_name_too_long(tmp_path):
    with pytest.raises(CommandError, match="200"):
        run(
            "create_api_key",
            "--merchant-account",
            "all",
            "--private-key-out",
            str(tmp_path / "k.pem"),
            "--name",
            "x" * 201,
        )

    assert not ApiKey.objects.exists()


def test_create_api_key_refuses_an_unknown_account(tmp_path):
    with pytest.raises(CommandError, match="nobody"):
        run("create_api_key", "--merchant-account", "nobody", "--private-key-out", str(tmp_path / "k.pem"))

    assert not ApiKey.objects.exists()
    assert not (tmp_path / "k.pem").exists()


def test_create_api_key_never_overwrites_a_private_key(tmp_path, merchant_account):
    path = tmp_path / "k.pem"
    path.write_text("precious")

    with pytest.raises(CommandError, match="exists"):
        run("create_api_key", "--merchant-account", "default", "--private-key-out", str(path))

    assert path.read_text() == "precious"
    assert not ApiKey.objects.exists()


def test_revoke_api_key(api_key):
    # "--" because a kid is base64url and may begin with "-", which would read as an option.
    assert run("revoke_api_key", "--", api_key.kid) == f"revoked {api_key.kid}"

    api_key.refresh_from_db()
    assert api_key.is_active is False
    assert api_key.revoked_at is not None


def test_revoke_api_key_unknown_kid():
    with pytest.raises(CommandError, match="No API key"):
        run("revoke_api_key", "no-such-kid")


def test_issue_token_prints_a_token_the_server_accepts(tmp_path, merchant_account):
    path = tmp_path / "k.pem"
    run("create_api_key", "--merchant-account", "default", "--private-key-out", str(path))

    token = run("issue_token", "--private-key", str(path), "--scopes", "buyers.read", "--expires-in", "600")

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get("/buyers").status_code == 200
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["scopes"] == ["buyers.read"]
    assert claims["exp"] - claims["iat"] == 600


def test_issue_token_with_embed_and_checkout_session(tmp_path, private_key_pem):
    path = tmp_path / "k.pem"
    path.write_text(private_key_pem)

    token = run(
        "issue_token",
        "--private-key",
        str(path),
        "--scopes",
        "embed",
        "--embed",
        '{"amount": 1299, "currency": "USD"}',
        "--checkout-session-id",
        "6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11",
    )

    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["embed"] == {"amount": 1299, "currency": "USD"}
    assert claims["checkout_session_id"] == "6e1f1b5e-4d8f-4b0a-9a55-0d0c3f6f7a11"


@pytest.mark.parametrize(
    ("pem", "extra"),
    [("not a key", []), (None, ["--embed", "{not json"])],
    ids=["bad key file", "bad embed json"],
)
def test_issue_token_reports_bad_input_as_command_errors(tmp_path, private_key_pem, pem, extra):
    path = tmp_path / "k.pem"
    path.write_text(pem or private_key_pem)

    with pytest.raises(CommandError):
        run("issue_token", "--private-key", str(path), *extra)


def test_issue_token_missing_key_file(tmp_path):
    with pytest.raises(CommandError):
        run("issue_token", "--private-key", str(tmp_path / "missing.pem"))


def test_setup_roles_gives_support_view_only_permissions():
    Group.objects.all().delete()

    run("setup_roles")
    run("setup_roles")  # safe to run again

    support = Group.objects.get(name="Support")
    codenames = set(support.permissions.values_list("codename", flat=True))
    assert {"view_buyer", "view_merchantaccount", "view_apikey"} <= codenames
    assert all(codename.startswith("view_") for codename in codenames)


def test_setup_roles_gives_operators_view_permissions_too():
    run("setup_roles")

    operator = Group.objects.get(name="Payments operator")
    codenames = set(operator.permissions.values_list("codename", flat=True))
    assert "view_buyer" in codenames
    assert not {"add_buyer", "change_buyer", "delete_buyer", "change_apikey"} & codenames
