"""The desk shows a wallet, its websites and its key pairs' state (CSR to download, certificate uploaded, expiry),
never a private key; nothing is changed there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from digitalwallets.models import WalletKey
from digitalwallets.services import digital_wallet_certificate_upload
from digitalwallets.tests.factories import TestAuthority, register

pytestmark = pytest.mark.django_db


def test_the_wallet_page_shows_key_state_and_never_a_private_key(admin_client, merchant_account):
    wallet = register(merchant_account)
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=TestAuthority().sign_csr(identity))

    listed = admin_client.get(reverse("admin:digitalwallets_digitalwallet_changelist"))
    page = admin_client.get(reverse("admin:digitalwallets_digitalwallet_change", args=[wallet.pk]))

    assert listed.status_code == page.status_code == 200
    assert "shop.example.com" in listed.content.decode()
    text = page.content.decode()
    assert "Download for Apple" in text
    assert "merchant.com.example.shop" in text
    assert "PRIVATE KEY" not in text
    for key in WalletKey.objects.all():
        assert key.sealed_private_key not in text


def test_a_csr_downloads_as_the_file_apple_takes(admin_client, merchant_account):
    wallet = register(merchant_account)
    key = wallet.keys.get(purpose="apple-payment-processing")

    response = admin_client.get(reverse("admin:digitalwallets_digitalwallet_csr", args=[wallet.pk, key.purpose]))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pkcs10"
    assert response.content.decode() == key.csr


def test_a_google_key_has_no_csr_to_download(admin_client, merchant_account):
    wallet = register(merchant_account, provider="google")

    response = admin_client.get(reverse("admin:digitalwallets_digitalwallet_csr", args=[wallet.pk, "google-payment"]))

    assert response.status_code == 404


def test_nothing_is_added_or_changed_on_the_desk(admin_client, merchant_account):
    wallet = register(merchant_account)

    assert admin_client.get(reverse("admin:digitalwallets_digitalwallet_add")).status_code == 403
    posted = admin_client.post(
        reverse("admin:digitalwallets_digitalwallet_change", args=[wallet.pk]), {"merchant_name": "x"}
    )
    assert posted.status_code == 403
    wallet.refresh_from_db()
    assert wallet.merchant_name == "Acme Shop"
