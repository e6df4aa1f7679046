"""An account's Apple Pay and Google Pay wallets registered through the service, the test's own roots configured as
the trusted ones, and tokens minted in the published formats for the wallets' real keys: what tests of payments
with wallets pay with."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.serialization import Encoding
from django.utils import timezone

from digitalwallets.models import DigitalWallet, WalletKeyPurpose
from digitalwallets.selectors import wallet_keys_for
from digitalwallets.tests.factories import MERCHANT_ID, register
from payments.wallettokens import merchant_recipient_id
from payments.wallettokens.testing import (
    ApplePayTestPki,
    GooglePayTestKeys,
    apple_pay_payload,
    apple_pay_test_pki,
    google_pay_message,
    google_pay_test_keys,
    mint_apple_pay_token,
    mint_google_pay_token,
)

GOOGLE_MERCHANT_ID = "12345678901234567890"
DAY_MS = 24 * 3600 * 1000


@dataclass
class WalletTokens:
    """Mints tokens the account's wallets open. `apple(...)` takes `apple_pay_payload`'s fields (amount, number,
    ...); `google(...)` takes `google_pay_message`'s (auth_method, pan, ...)."""

    merchant_account: Any
    pki: ApplePayTestPki
    google_keys: GooglePayTestKeys
    minted: list[str] = field(default_factory=list)

    def apple(self, *, signing_time: datetime | None = None, **payload: Any) -> dict[str, Any]:
        keys = wallet_keys_for(merchant_account=self.merchant_account, provider="apple")
        payment_data = mint_apple_pay_token(
            pki=self.pki,
            merchant_identifier=MERCHANT_ID,
            processing_key=keys.private_keys[WalletKeyPurpose.APPLE_PAYMENT_PROCESSING].public_key(),
            signing_time=signing_time or timezone.now(),
            payload=apple_pay_payload(**payload),
        )
        # As Apple Pay JS hands it over: the payment data beside the card's description.
        return {"paymentData": payment_data, "paymentMethod": {"network": "Visa", "type": "debit"}}

    def google(self, *, expires_at_ms: int | None = None, **message: Any) -> str:
        keys = wallet_keys_for(merchant_account=self.merchant_account, provider="google")
        now_ms = int(time.time() * 1000)
        return mint_google_pay_token(
            keys=self.google_keys,
            recipient_id=merchant_recipient_id(GOOGLE_MERCHANT_ID),
            merchant_public_key=keys.private_keys[WalletKeyPurpose.GOOGLE_PAYMENT].public_key(),
            message=google_pay_message(expires_at_ms=expires_at_ms or now_ms + DAY_MS, **message),
            key_expires_at_ms=now_ms + DAY_MS,
        )


def wallets_registered(merchant_account, *, settings, directory: Path) -> WalletTokens:
    """Both wallets registered for `merchant_account` (Apple's merchant ID as its identity certificate would set it),
    and the test's roots configured as the only trusted ones."""
    register(merchant_account, provider="apple")
    DigitalWallet.objects.filter(merchant_account=merchant_account, provider="apple").update(
        merchant_identifier=MERCHANT_ID
    )
    register(merchant_account, provider="google", extra_configuration={"merchant_id": GOOGLE_MERCHANT_ID})
    pki = apple_pay_test_pki(valid_from=timezone.now() - timedelta(days=1))
    google_keys = google_pay_test_keys()
    apple_roots = directory / "apple-roots.pem"
    apple_roots.write_bytes(pki.root.public_bytes(Encoding.PEM))
    google_roots = directory / "google-root-keys.json"
    google_roots.write_text(google_keys.root_keys_document(expires_at_ms=int(time.time() * 1000) + 30 * DAY_MS))
    settings.WALLET_APPLE_PAY_ROOTS_FILE = str(apple_roots)
    settings.WALLET_GOOGLE_PAY_ROOT_KEYS_FILE = str(google_roots)
    return WalletTokens(merchant_account=merchant_account, pki=pki, google_keys=google_keys)
