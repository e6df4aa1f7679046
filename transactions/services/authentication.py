"""3-D Secure in a new card payment: decided before anything is written, recorded once the transaction exists.

`payment_authentication` asks the sandbox's 3DS server (`threedsecure.authentication`) when the payment's first
payment service has `three_d_secure_enabled`; `authentication_record` writes what the answer means: a frictionless
success goes on to the processor with the result, a refusal ends the payment before any processor is asked, and a
challenge leaves the transaction waiting for the buyer (`transactions.services.challenges`).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from payments.errors import DomainError
from payments.vault import cards
from payments.vault.crypto import keyed_hash
from payments.vault.services import vaulted_card_reveal
from payments.wallettokens import AuthMethod
from paymentservices.routing import Route
from threedsecure.authentication import Authentication, authenticate
from transactions.models import ThreeDSecureChallenge, Transaction, TransactionStatus
from transactions.requests import PaymentCard, TransactionRequest
from transactions.services.approval_tokens import approval_token_seal
from transactions.services.state import SYSTEM, Actor, locked_for_update, move_to, record_event, return_gift_cards

S = TransactionStatus
REDIRECT_URL_POINTER = "/payment_method/redirect_url"
# The keyed digests of a challenge's page token and form token have keys of their own (docs/card-data.md).
CHALLENGE_DIGEST_PURPOSE = "three-ds-challenge"
# Upstream's error codes for a payment this server's 3-D Secure ended (docs/three-d-secure.md).
FAILED_AUTHENTICATION = "failed_buyer_approval"
INCOMPLETE_AUTHENTICATION = "incomplete_buyer_approval"


class MissingRedirectUrl(DomainError):
    """A challenge is needed and the payment says nowhere to send the buyer back (upstream's `missing_redirect_url`)."""


def challenge_token_digest(token: str) -> str:
    return keyed_hash(token, purpose=CHALLENGE_DIGEST_PURPOSE)


def payment_authentication(
    txn: Transaction, *, request: TransactionRequest, card: PaymentCard | None, routed: Route | None
) -> Authentication | None:
    """The issuer's 3-D Secure answer for the (unsaved) transaction, or None when none is asked: not a card, a
    first payment service without `three_d_secure_enabled`, a result the merchant sent (`three_d_secure_data`), or
    a merchant-initiated payment (the buyer is not there to authenticate), or a wallet's device token (its cryptogram
    is the authentication; Google Pay `PAN_ONLY` is a card and is authenticated). Sets its `three_d_secure` summary.

    A challenge needs somewhere to send the buyer back: without `payment_method.redirect_url` the request is refused
    (400) before anything is written.
    """
    if card is None or routed is None or not routed.first.three_d_secure_enabled:
        return None
    if request.three_d_secure is not None or txn.merchant_initiated:
        return None
    if card.wallet is not None and card.wallet.auth_method is AuthMethod.CRYPTOGRAM_3DS:
        return None
    number = card.details.number if card.details is not None else None
    if number is None and card.vaulted is not None:
        number = vaulted_card_reveal(card=card.vaulted).number
    billing = (txn.buyer_details or {}).get("billing_details") or {}
    authentication = authenticate(
        merchant_account=txn.merchant_account,
        amount=txn.amount,
        card_number=number or "",
        scheme=cards.card_scheme(number) if number else None,
        email_address=billing.get("email_address"),
        first_name=billing.get("first_name"),
        last_name=billing.get("last_name"),
        external_identifier=txn.external_identifier,
    )
    redirect_url = request.payment_method.redirect_url if request.payment_method is not None else None
    if authentication.challenge and not redirect_url:
        raise MissingRedirectUrl(
            "This card needs a 3-D Secure challenge: send payment_method.redirect_url, where the buyer returns "
            "after it.",
            pointer=REDIRECT_URL_POINTER,
        )
    if not authentication.challenge:
        txn.three_d_secure = authentication.summary(reference=str(txn.pk), amount=txn.amount)
    return authentication


@transaction.atomic
def authentication_record(
    txn: Transaction,
    *,
    authentication: Authentication,
    actor: Actor,
    card_amount: int,
    request: TransactionRequest,
) -> Transaction | None:
    """Record the answer on the written transaction. Returns the transaction when the payment ends (refused) or
    waits (a challenge); None when it goes on to the processor."""
    txn = locked_for_update(txn)
    if txn.status != S.PROCESSING:  # canceled meanwhile: that stands
        return txn
    record_event(
        txn,
        name="three_d_secure_authentication",
        actor=SYSTEM,
        from_status=txn.status,
        transaction_status=authentication.status,
        version=authentication.version,
    )
    if authentication.refused:
        authentication_refuse(
            txn,
            error_code=FAILED_AUTHENTICATION,
            description="The issuer refused to authenticate the cardholder.",
            card_amount=card_amount,
            actor=actor,
        )
        return txn
    if not authentication.challenge:
        return None
    redirect_url = request.payment_method.redirect_url if request.payment_method is not None else None
    return challenge_begin(
        txn,
        actor=actor,
        redirect_url=redirect_url or "",
        store_card=request.store,
        version=authentication.version,
        result=authentication.result or "",
    )


def authentication_refuse(
    txn: Transaction, *, error_code: str, description: str, card_amount: int, actor: Actor
) -> None:
    """End a locked transaction whose cardholder was not authenticated: nothing was asked of a processor, and
    the gift card money goes back. A refusal is a decline; no answer (a timeout) is a failure."""
    to = S.AUTHORIZATION_DECLINED if error_code == FAILED_AUTHENTICATION else S.AUTHORIZATION_FAILED
    move_to(
        txn, to, name=to, actor=actor, amount=card_amount, error_code=error_code, raw_response_description=description
    )
    return_gift_cards(txn, actor=SYSTEM, card_part_refused=True)


def challenge_begin(
    txn: Transaction,
    *,
    actor: Actor,
    redirect_url: str,
    store_card: bool,
    version: str | None = None,
    result: str = "",
    processor: bool = False,
    token: str | None = None,
    approval_link: str = "",
) -> Transaction:
    """The locked transaction waits for the buyer on the challenge page until `approval_expires_at`: the sandbox
    issuer's challenge (its `version` and `result`), the processor's own authentication (`processor`), or the
    buyer's approval on the processor's own page (`approval_link`, with the `token` its return page takes). The page's
    token is found by its keyed digest and kept sealed for reads (`approval_tokens`) while the challenge waits."""
    token = token or secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(seconds=settings.THREE_D_SECURE_CHALLENGE_SECONDS)
    challenge = ThreeDSecureChallenge(
        transaction=txn,
        token_digest=challenge_token_digest(token),
        redirect_url=redirect_url,
        version=version or "",
        result=result,
        processor=processor,
        approval_link=approval_link,
        store_card=store_card,
        expires_at=expires_at,
    )
    approval_token_seal(challenge, token)
    challenge.save(force_insert=True)
    if not approval_link:  # an approval at the processor is no 3-D Secure authentication
        txn.three_d_secure = {
            "version": version,
            "status": None,
            "method": "challenge",
            "response_data": None,
            "error_data": None,
            "amount": txn.amount,
        }
    move_to(
        txn,
        S.BUYER_APPROVAL_PENDING,
        name="buyer_approval_pending",
        actor=actor,
        approval_expires_at=expires_at,
        three_d_secure=txn.three_d_secure,
    )
    return txn
