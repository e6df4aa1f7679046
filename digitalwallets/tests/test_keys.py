"""The private keys: opened in one place (`wallet_keys_for`) to the very keys whose public halves were shown, bound
to their row, re-sealed by key rotation, and never in a log."""

from __future__ import annotations

import base64
import io
import logging

import pytest
from cryptography.hazmat.primitives import serialization
from django.core.management import call_command

from conftest import TEST_CARD_KEYS
from digitalwallets.models import WalletKey
from digitalwallets.selectors import wallet_keys_for
from digitalwallets.services import digital_wallet_certificate_upload, wallet_keys_count_stale
from digitalwallets.tests.factories import MERCHANT_ID, TestAuthority, register
from payments.vault import crypto

pytestmark = pytest.mark.django_db


def _public(private_key) -> str:
    der = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


def test_wallet_keys_for_opens_the_keys_whose_public_halves_were_shown(merchant_account):
    wallet = register(merchant_account)
    identity = wallet.keys.get(purpose="apple-merchant-identity")
    digital_wallet_certificate_upload(wallet=wallet, certificate=TestAuthority().sign_csr(identity))

    keys = wallet_keys_for(merchant_account=merchant_account, provider="apple")

    assert keys is not None
    assert keys.merchant_identifier == MERCHANT_ID
    shown = {key.purpose: key.public_key for key in WalletKey.objects.filter(wallet=wallet)}
    assert {purpose: _public(key) for purpose, key in keys.private_keys.items()} == shown
    assert keys.certificates["apple-payment-processing"] is None
    assert keys.certificates["apple-merchant-identity"] is not None
    assert "PRIVATE" not in repr(keys)


def test_wallet_keys_for_a_provider_not_registered_is_none(merchant_account, other_merchant_account):
    register(other_merchant_account, provider="google")

    assert wallet_keys_for(merchant_account=merchant_account, provider="google") is None


def test_a_sealed_key_opens_only_for_its_own_row(merchant_account):
    first, second = register(merchant_account, provider="google").keys.get(), register(merchant_account).keys.first()
    WalletKey.objects.filter(pk=second.pk).update(sealed_private_key=first.sealed_private_key)

    with pytest.raises(crypto.VaultError):
        wallet_keys_for(merchant_account=merchant_account, provider="apple")


def test_rotate_card_keys_reseals_wallet_keys_too(merchant_account, settings):
    register(merchant_account)
    before = wallet_keys_for(merchant_account=merchant_account, provider="apple")
    new = "new:" + crypto.generate_key_spec("x").split(":", 1)[1]
    settings.CARD_ENCRYPTION_KEYS = [new, TEST_CARD_KEYS[0]]
    assert wallet_keys_count_stale() == 2

    call_command("rotate_card_keys", "--batch-size", "1", stdout=io.StringIO())

    settings.CARD_ENCRYPTION_KEYS = [new]  # the old key can go now
    assert wallet_keys_count_stale() == 0
    after = wallet_keys_for(merchant_account=merchant_account, provider="apple")
    assert {p: _public(k) for p, k in after.private_keys.items()} == {
        p: _public(k) for p, k in before.private_keys.items()
    }


def test_no_private_key_reaches_a_log(api_client, merchant_account, caplog):
    caplog.set_level(logging.DEBUG)
    client = api_client(scopes=["digital-wallets.read", "digital-wallets.write"])
    body = {"provider": "apple", "merchant_name": "Acme", "accept_terms_and_conditions": True}
    wallet_id = client.post("/digital-wallets", body, format="json").json()["id"]
    client.get(f"/digital-wallets/{wallet_id}/keys")

    assert "PRIVATE KEY" not in caplog.text
    for key in WalletKey.objects.all():
        assert key.sealed_private_key not in caplog.text
