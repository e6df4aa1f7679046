"""Real concurrency against PostgreSQL: registrations of one provider at once make one wallet (the others a 409), and
domains added at once are all kept (the wallet's row lock)."""

import pytest

from digitalwallets.models import DigitalWallet, WalletKey
from digitalwallets.services import digital_wallet_domain_add
from digitalwallets.tests.factories import register
from payments.errors import DuplicateRecord
from payments.tests.races import at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_registrations_at_once_make_one_wallet(merchant_account):
    results = at_once([lambda: register(merchant_account)] * 3, refusals=True)

    assert sum(isinstance(result, DigitalWallet) for result in results) == 1
    assert sum(isinstance(result, DuplicateRecord) for result in results) == 2
    assert DigitalWallet.objects.count() == 1
    assert WalletKey.objects.count() == 2


def test_domains_added_at_once_are_all_kept(merchant_account):
    wallet = register(merchant_account)
    domains = [f"shop{n}.example.com" for n in range(4)]

    at_once([lambda domain=domain: digital_wallet_domain_add(wallet=wallet, domain_name=domain) for domain in domains])

    wallet.refresh_from_db()
    assert sorted(wallet.domain_names) == sorted(["shop.example.com", *domains])
