"""Admin for merchant accounts and API keys: keys are read-only apart from revoking them."""

import pytest
from django.contrib.admin.models import LogEntry
from django.db.models import ProtectedError

from payments.accounts.models import ApiKey, MerchantAccount

pytestmark = pytest.mark.django_db

KEYS = "/admin/payments/apikey/"


def test_api_key_pages_show_the_public_key_and_its_use(admin_client, api_key):
    listing = admin_client.get(KEYS)
    detail = admin_client.get(f"{KEYS}{api_key.pk}/change/")

    assert listing.status_code == 200
    assert api_key.kid in listing.content.decode()
    assert detail.status_code == 200
    html = detail.content.decode()
    assert "BEGIN PUBLIC KEY" in html
    assert "Last used at" in html
    assert 'name="is_active"' not in html  # read-only: revoking is an action, not an edit


def test_api_keys_are_listed_and_found_by_name_with_their_roles(admin_client, api_key):
    api_key.display_name = "Checkout server"
    api_key.roles = ["viewer", "payments"]
    api_key.save()

    html = admin_client.get(KEYS, {"q": "checkout"}).content.decode()

    assert "Checkout server" in html
    assert "Viewer, Payments" in html
    assert "Checkout server" not in admin_client.get(KEYS, {"q": "nothing"}).content.decode()


def test_api_keys_show_the_merchant_accounts_they_reach_by_name(
    admin_client, api_key, merchant_account, other_merchant_account, django_assert_max_num_queries
):
    api_key.merchant_accounts.add(other_merchant_account)
    MerchantAccount.objects.create(id="third", display_name="Third shop")
    every = ApiKey.objects.create(kid="every", public_key="-", display_name="Platform", all_merchant_accounts=True)

    with django_assert_max_num_queries(12) as listed:
        html = admin_client.get(KEYS).content.decode()
    detail = admin_client.get(f"{KEYS}{api_key.pk}/change/").content.decode()
    filtered = admin_client.get(KEYS, {"merchant_accounts__id__exact": "other"}).content.decode()

    assert "Default, Other" in html
    assert "all accounts" in html
    assert "Default, Other" in detail
    assert "Third shop" not in detail
    assert api_key.kid in filtered
    assert every.name not in filtered
    assert sum("payments_merchantaccount" in query["sql"] for query in listed.captured_queries) <= 2  # not per row


def test_an_account_a_key_reaches_is_not_deleted_from_under_it(api_key, merchant_account):
    with pytest.raises(ProtectedError):
        merchant_account.delete()
    assert api_key.merchant_account_ids == {"default"}


def test_revoking_on_the_desk_refuses_the_keys_verified_tokens_at_once(
    admin_client, api_client, api_key, django_capture_on_commit_callbacks
):
    client = api_client(scopes=["buyers.read"])
    assert client.get("/buyers").status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(KEYS, {"action": "revoke", "_selected_action": [str(api_key.pk)]})

    assert client.get("/buyers").status_code == 401


def test_api_keys_cannot_be_added_edited_or_deleted(admin_client, api_key):
    assert admin_client.get(f"{KEYS}add/").status_code == 403
    assert admin_client.post(f"{KEYS}{api_key.pk}/change/", {"is_active": ""}).status_code == 403
    assert admin_client.post(f"{KEYS}{api_key.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ApiKey.objects.get().is_active


def test_revoke_action_uses_the_service_and_is_logged(admin_client, api_key, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(KEYS, {"action": "revoke", "_selected_action": [str(api_key.pk)]})

    assert response.status_code == 302
    api_key.refresh_from_db()
    assert (api_key.is_active, api_key.revoked_at is not None) == (False, True)
    assert LogEntry.objects.get().get_change_message() == "Revoked"


def test_support_can_view_keys_but_not_revoke(support_client, api_key):
    assert support_client.get(KEYS).status_code == 200
    assert support_client.get(f"{KEYS}{api_key.pk}/change/").status_code == 200

    support_client.post(KEYS, {"action": "revoke", "_selected_action": [str(api_key.pk)]})

    api_key.refresh_from_db()
    assert api_key.is_active


def test_merchant_account_add_and_rename_go_through_the_services(admin_client):
    added = admin_client.post(
        "/admin/payments/merchantaccount/add/", {"id": "acme", "display_name": "Acme", "allowed_origins": "[]"}
    )
    renamed = admin_client.post(
        "/admin/payments/merchantaccount/acme/change/",
        {"display_name": "Acme Ltd", "allowed_origins": '["https://shop.acme.test"]'},
    )

    assert (added.status_code, renamed.status_code) == (302, 302)
    account = MerchantAccount.objects.get()
    assert (account.id, account.display_name, account.allowed_origins) == (
        "acme",
        "Acme Ltd",
        ["https://shop.acme.test"],
    )


def test_merchant_account_id_is_read_only_once_created(admin_client, merchant_account):
    html = admin_client.get(f"/admin/payments/merchantaccount/{merchant_account.pk}/change/").content.decode()

    assert 'name="id"' not in html
    assert 'name="display_name"' in html


def test_the_start_page_names_every_list_apart(admin_client):
    """Two links of one name (both ledgers once read "Ledger entries") leave staff guessing which is which."""
    response = admin_client.get("/admin/")

    names = [model["name"] for app in response.context["app_list"] for model in app["models"]]
    assert len(names) == len(set(names)), sorted(name for name in names if names.count(name) > 1)
    assert {"Gift card ledger entries", "Settlement ledger entries"} <= set(names)
