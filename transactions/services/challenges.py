"""A 3-D Secure challenge after its transaction waits for the buyer: the page opened, the challenge completed (and
the processor asked), or the challenge given up when nobody answered in time.

Every step locks the transaction row first, then its challenge: two completions, or a completion and the expiry
job, find the second one already done and change nothing.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from paymentmethods.services import CardToStore
from payments.errors import DomainError
from payments.vault.crypto import keyed_hash_matches
from payments.vault.services import vaulted_card_reveal
from paymentservices.routing import Route, authorize_routed
from threedsecure.authentication import authentication_summary
from threedsecure.models import ChallengeResult
from transactions.models import ChallengeState, ThreeDSecureChallenge, Transaction, TransactionStatus
from transactions.services.authentication import (
    CHALLENGE_DIGEST_PURPOSE,
    FAILED_AUTHENTICATION,
    INCOMPLETE_AUTHENTICATION,
    authentication_refuse,
    challenge_token_digest,
)
from transactions.services.authorization import _record_authorization
from transactions.services.create import _authorization
from transactions.services.recovery import _card_amount
from transactions.services.state import SYSTEM, Actor, _event, _move

logger = logging.getLogger("transactions.challenges")
S = TransactionStatus
# Who completes a challenge: the buyer, on this server's page (no API key, no staff user).
BUYER = Actor("system", "buyer")


class ChallengeUnavailable(DomainError):
    """The page cannot be used: unknown or forged token, already used, finished or expired. Nothing changed."""

    status = 404


class ChallengeGone(ChallengeUnavailable):
    status = 410


@dataclass(frozen=True)
class ChallengePage:
    """What the challenge page shows, and the token its form must send back (shown once, kept as a digest)."""

    challenge: ThreeDSecureChallenge
    transaction: Transaction
    form_token: str


def _waiting(token: str, *, now: datetime) -> tuple[ThreeDSecureChallenge, Transaction]:
    """The challenge of `token` and its transaction, both locked (the transaction first, as every other change of
    it), still waiting and not expired; else ChallengeUnavailable."""
    found = ThreeDSecureChallenge.objects.filter(token_digest=challenge_token_digest(token)).first()
    if found is None:
        raise ChallengeUnavailable("This authentication page does not exist.")
    txn = Transaction.objects.select_for_update().get(pk=found.transaction_id)
    challenge = ThreeDSecureChallenge.objects.select_for_update().get(pk=found.pk)
    if not challenge.waiting or txn.status != S.BUYER_APPROVAL_PENDING:
        raise ChallengeGone("This authentication has already ended.")
    if challenge.expires_at <= now:
        raise ChallengeGone("This authentication has expired.")
    return challenge, txn


@transaction.atomic
def challenge_open(*, token: str) -> ChallengePage:
    """Show the page once: the challenge is marked opened and a fresh form token (the page's CSRF token) is made;
    opening it again is refused, so a leaked or replayed link shows nothing."""
    challenge, txn = _waiting(token, now=timezone.now())
    if challenge.state != ChallengeState.PENDING:
        raise ChallengeGone("This authentication page was already opened.")
    form_token = secrets.token_urlsafe(32)
    challenge.state = ChallengeState.OPENED
    challenge.form_token_digest = challenge_token_digest(form_token)
    challenge.save(update_fields=["state", "form_token_digest", "updated_at"])
    return ChallengePage(challenge=challenge, transaction=txn, form_token=form_token)


def challenge_complete(*, token: str, form_token: str, canceled: bool = False) -> tuple[Transaction, str]:
    """The buyer answered the challenge (or canceled it): the sandbox issuer's result decides. `Y` asks the
    processor with the result; `N` (or a cancel) declines; `timeout` fails. Returns the transaction and where the
    buyer goes next (the payment's `redirect_url`)."""
    txn, challenge, result = _challenge_end(token=token, form_token=form_token, canceled=canceled)
    if result == ChallengeResult.AUTHENTICATED:
        txn = _authorize_after_challenge(txn, store_card=challenge.store_card)
    return txn, challenge.redirect_url


@transaction.atomic
def _challenge_end(*, token: str, form_token: str, canceled: bool) -> tuple[Transaction, ThreeDSecureChallenge, str]:
    challenge, txn = _waiting(token, now=timezone.now())
    if challenge.form_token_digest is None or not keyed_hash_matches(
        form_token, challenge.form_token_digest, purpose=CHALLENGE_DIGEST_PURPOSE
    ):
        raise DomainError("The form was not sent from this authentication page.")
    result = ChallengeResult.NOT_AUTHENTICATED if canceled else challenge.result
    challenge.state = ChallengeState.COMPLETED
    challenge.save(update_fields=["state", "updated_at"])
    summary = authentication_summary(
        status=result,
        version=challenge.version,
        scheme=txn.card_scheme,
        reference=str(txn.pk),
        challenged=True,
        amount=txn.amount,
    )
    txn.three_d_secure = summary
    txn.save(update_fields=["three_d_secure", "updated_at"])
    _event(
        txn,
        name="three_d_secure_challenge_result",
        actor=BUYER,
        from_status=txn.status,
        transaction_status=result,
        canceled=canceled,
    )
    card_amount = _card_amount(txn)
    if result == ChallengeResult.AUTHENTICATED:
        _move(txn, S.PROCESSING, name="buyer_approval_succeeded", actor=BUYER, amount=card_amount)
    elif result == ChallengeResult.NOT_AUTHENTICATED:
        authentication_refuse(
            txn,
            error_code=FAILED_AUTHENTICATION,
            description="The buyer canceled the authentication." if canceled else "The buyer failed the challenge.",
            card_amount=card_amount,
            actor=BUYER,
        )
    else:
        authentication_refuse(
            txn,
            error_code=INCOMPLETE_AUTHENTICATION,
            description="The issuer's challenge timed out.",
            card_amount=card_amount,
            actor=BUYER,
        )
    return txn, challenge, result


def _authorize_after_challenge(txn: Transaction, *, store_card: bool) -> Transaction:
    """Step 2 and 3 of the payment, as a create's: the processor recorded for the payment is asked, with the
    challenge's result; a crash here leaves it `processing`, for recovery."""
    service = txn.payment_service
    if service is None or txn.vaulted_card is None:
        raise RuntimeError(f"Transaction {txn.pk} waited for a challenge without a card or a payment service.")
    clear_card = vaulted_card_reveal(card=txn.vaulted_card)
    card_amount = _card_amount(txn)
    _, result = authorize_routed(
        route=Route((service,)),
        request=_authorization(txn, card=clear_card, amount=card_amount),
        next_attempt=lambda *_: False,
    )
    keep = (
        CardToStore(clear_card.number, clear_card.expiration_month, clear_card.expiration_year) if store_card else None
    )
    return _record_authorization(txn, result=result, card_amount=card_amount, actor=BUYER, keep=keep, service=service)


def challenges_expire(*, now: datetime | None = None, batch_size: int = 100) -> int:
    """End up to `batch_size` challenges nobody completed by `approval_expires_at`: each transaction fails
    (`incomplete_buyer_approval`, `buyer_approval_timedout_at`), its gift card money goes back and a webhook says
    so. Each is ended under its row lock, so two workers (or a completion at the last moment) end it once."""
    now = now or timezone.now()
    waiting = ThreeDSecureChallenge.objects.filter(
        state__in=[ChallengeState.PENDING, ChallengeState.OPENED], expires_at__lte=now
    ).order_by("expires_at")
    ended = 0
    for challenge_id, transaction_id in waiting.values_list("pk", "transaction_id")[:batch_size]:
        ended += _expire(challenge_id=challenge_id, transaction_id=transaction_id, now=now)
    return ended


@transaction.atomic
def _expire(*, challenge_id: UUID, transaction_id: UUID, now: datetime) -> bool:
    txn = Transaction.objects.select_for_update().get(pk=transaction_id)
    challenge = ThreeDSecureChallenge.objects.select_for_update().get(pk=challenge_id)
    if not challenge.waiting or challenge.expires_at > now:
        return False  # completed, or ended by another worker, meanwhile
    challenge.state = ChallengeState.EXPIRED if txn.status == S.BUYER_APPROVAL_PENDING else ChallengeState.CANCELED
    challenge.save(update_fields=["state", "updated_at"])
    if txn.status != S.BUYER_APPROVAL_PENDING:  # canceled by the merchant: nothing left to end
        return False
    txn.buyer_approval_timedout_at = now
    txn.save(update_fields=["buyer_approval_timedout_at", "updated_at"])
    authentication_refuse(
        txn,
        error_code=INCOMPLETE_AUTHENTICATION,
        description="The buyer did not complete the authentication in time.",
        card_amount=_card_amount(txn),
        actor=SYSTEM,
    )
    return True
