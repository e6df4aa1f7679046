"""What the link's page needs to run Embed: a checkout session and an embed token the server mints itself.

The server keeps no merchant's private key, so it signs the page's tokens with a key of its own per merchant account:
a P-521 key derived from the vault's fingerprint key and the account's id (the same on every host, never stored),
whose public half is registered as an API key of that account holding the `embed` role only. A token it mints pins
the link's amount and currency, the page's checkout session and the link itself (`payment_link_id`), so the one thing
it can pay is that link, through `paymentlinks.services.payment_link_pay_pinned`; it lives no longer than the session
and never past the link's `expires_at`. Every token of one link has the same `jti`, so the embed rate limits
(docs/rate-limits.md) count the link's attempts together, however often its page is opened.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.utils import timezone

from checkout.models import CheckoutSession
from checkout.services import DEFAULT_EXPIRES_IN, checkout_session_create
from paymentlinks.models import PaymentLink
from payments.accounts.keys import load_private_pem, mint_token, public_pem
from payments.accounts.models import ApiKey, MerchantAccount
from payments.accounts.roles import EMBED
from payments.accounts.services import api_key_register
from payments.vault.crypto import derived_secret

# The claim of an embed token that pins the one link it may pay.
LINK_CLAIM = "payment_link_id"
PAGE_KEY_PURPOSE = "payment-link-page-signing-key"
PAGE_KEY_NAME = "Payment link pages"
# The order of P-521's group (SEC 2): a private value is any integer from 1 to the order less one.
_P521_ORDER = int(
    "01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
    "FFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03B"
    "B5C9B8899C47AEBB6FB71E91386409",
    16,
)


@dataclass(frozen=True)
class PageCheckout:
    """The page's Embed: the session its card fields fill and the token its requests carry."""

    session: CheckoutSession
    token: str
    expires_in: int


def page_signing_key(merchant_account: MerchantAccount) -> str:
    """The account's page signing key as a PKCS8 PEM, derived afresh: 512 secret bits reduced into P-521's group."""
    secret = int.from_bytes(derived_secret(str(merchant_account.pk), purpose=PAGE_KEY_PURPOSE), "big")
    private_key = ec.derive_private_key(secret % (_P521_ORDER - 1) + 1, ec.SECP521R1())
    return private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")


def page_api_key(merchant_account: MerchantAccount, private_key_pem: str) -> ApiKey:
    """The account's API key for the page's tokens, registered the first time a page needs it (embed only)."""
    return api_key_register(
        public_key_pem=public_pem(load_private_pem(private_key_pem)),
        merchant_account=merchant_account,
        display_name=PAGE_KEY_NAME,
        roles=[EMBED],
    )


def token_lifetime(link: PaymentLink) -> int:
    """Seconds the page's token may live: the checkout session's lifetime, cut short by the link's `expires_at`."""
    if link.expires_at is None:
        return DEFAULT_EXPIRES_IN
    left = math.floor((link.expires_at - timezone.now()).total_seconds())
    return max(1, min(DEFAULT_EXPIRES_IN, left))


def page_checkout(link: PaymentLink) -> PageCheckout | None:
    """A fresh checkout session and a token that can pay this link alone; None when the account's page key was
    disabled or revoked (the merchant turned the pages' payments off)."""
    private_key_pem = page_signing_key(link.merchant_account)
    if not page_api_key(link.merchant_account, private_key_pem).is_active:
        return None
    expires_in = token_lifetime(link)
    session = checkout_session_create(
        merchant_account=link.merchant_account, amount=link.amount, currency=link.currency, country=link.country
    )
    token = mint_token(
        private_key_pem,
        scopes=[EMBED],
        embed={"amount": link.amount, "currency": link.currency, LINK_CLAIM: str(link.pk)},
        checkout_session_id=str(session.pk),
        expires_in=expires_in,
        # One budget for every view of the link (the embed rate limits count per `jti`): a fresh token per reload
        # must not be a fresh set of card attempts.
        jti=f"payment-link:{link.pk}",
    )
    return PageCheckout(session=session, token=token, expires_in=expires_in)
