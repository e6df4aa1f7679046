"""`make run`'s setup (`setup_local`): what a developer needs the second time, and for the all-accounts operations."""

import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from payments.accounts.keys import mint_token

pytestmark = pytest.mark.django_db


def _setup_local(key) -> str:
    out = io.StringIO()
    call_command("setup_local", private_key_out=key, stdout=out)
    return out.getvalue()


@pytest.fixture
def debug(settings):
    settings.DEBUG = True  # setup_local refuses to run in production


def test_a_second_run_says_how_to_set_a_new_admin_password(debug, tmp_path):
    first = _setup_local(tmp_path / "default-api-key.pem")
    second = _setup_local(tmp_path / "default-api-key.pem")

    assert "Admin login created: admin / " in first
    assert "Admin login created" not in second
    assert "manage.py changepassword admin" in second


def _merchant_accounts(pem: str) -> int:
    token = mint_token(pem, scopes=["merchant-accounts.read"])
    return APIClient().get("/merchant-accounts", HTTP_AUTHORIZATION=f"Bearer {token}").status_code


def test_an_all_accounts_key_is_written_beside_the_default_key_and_the_output_says_how_to_use_it(debug, tmp_path):
    output = _setup_local(tmp_path / "default-api-key.pem")
    again = _setup_local(tmp_path / "default-api-key.pem")

    all_accounts = tmp_path / "all-accounts-api-key.pem"
    assert all_accounts.stat().st_mode & 0o777 == 0o600
    for said in (output, again):
        assert f"issue_token --private-key {all_accounts}" in said
        assert "/merchant-accounts" in said
    assert _merchant_accounts((tmp_path / "default-api-key.pem").read_text()) == 403
    assert _merchant_accounts(all_accounts.read_text()) == 200
