"""The official `gr4vy` SDK, unchanged, against a running server: `digital_wallets.create`, `.list`, `.get`, `.update`,
`.domains.create` / `.delete`, `.delete`, the Google Pay session, and Paze refused as the SDK's typed error."""

import pytest
from gr4vy import errors, models

from digitalwallets.models import WalletKey
from digitalwallets.tests.validation import SESSION

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_sdk_registers_a_wallet_lists_it_and_adds_a_domain(sdk, merchant_account):
    wallet = sdk.digital_wallets.create(
        provider="apple", merchant_name="Acme Shop", accept_terms_and_conditions=True, domain_names=["shop.example.com"]
    )

    assert isinstance(wallet, models.DigitalWallet)
    assert (wallet.provider, wallet.pending_certificate_count) == ("apple", 2)
    assert [item.id for item in sdk.digital_wallets.list().items] == [wallet.id]
    sdk.digital_wallets.domains.create(digital_wallet_id=wallet.id, domain_name="pay.example.com")
    assert sdk.digital_wallets.get(digital_wallet_id=wallet.id).domain_names == ["shop.example.com", "pay.example.com"]
    sdk.digital_wallets.domains.delete(digital_wallet_id=wallet.id, domain_name="shop.example.com")
    updated = sdk.digital_wallets.update(digital_wallet_id=wallet.id, merchant_display_name="Acme")
    assert (updated.merchant_display_name, updated.domain_names) == ("Acme", ["pay.example.com"])
    sdk.digital_wallets.delete(digital_wallet_id=wallet.id)
    assert sdk.digital_wallets.list().items == []
    assert not WalletKey.objects.exists()


def test_the_sdk_opens_a_google_pay_session_and_is_refused_paze(sdk, merchant_account):
    sdk.digital_wallets.create(
        provider="google",
        merchant_name="Acme Shop",
        accept_terms_and_conditions=True,
        domain_names=["shop.example.com"],
    )

    session = sdk.digital_wallets.sessions.google_pay(origin_domain="shop.example.com")

    assert session.gateway_merchant_id == "default"
    assert session.token
    with pytest.raises(errors.Error400) as refused:
        sdk.digital_wallets.sessions.paze(domain_name="shop.example.com")
    assert "Paze is not supported" in refused.value.message


def test_the_sdk_opens_an_apple_pay_session_against_the_validation_server(sdk, apple_wallet, validation_server):
    session = sdk.digital_wallets.sessions.apple_pay(
        validation_url=validation_server.url, domain_name="shop.example.com"
    )

    assert session == SESSION
    assert validation_server.received[0]["body"]["initiativeContext"] == "shop.example.com"
