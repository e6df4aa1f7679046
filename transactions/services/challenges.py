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
from payments.connectors import BuyerAction, BuyerActionConnector, ConnectorResult, Outcome
from payments.errors import DomainError
from payments.vault.crypto import keyed_hash_matches
from payments.vault.services import vaulted_card_reveal
from paymentservices.routing import Route, authorize_routed
from paymentservices.services import ProcessorUnavailable
from paymentservices.tokens import payment_service_token_revoke, payment_service_tokens_usable
from threedsecure.authentication import authentication_summary
from threedsecure.models import ChallengeResult
from transactions.models import ChallengeState, ThreeDSecureChallenge, Transaction, TransactionStatus
from transactions.pinned_orders import pinned_orders_payment_ended
from transactions.services.authentication import (
    CHALLENGE_DIGEST_PURPOSE,
    FAILED_AUTHENTICATION,
    INCOMPLETE_AUTHENTICATION,
    authentication_refuse,
    challenge_token_digest,
)
from transactions.services.authorization import record_authorization
from transactions.services.state import (
    SYSTEM,
    Actor,
    answer_fields,
    authorization_request,
    card_amount_of,
    connector_of,
    move_to,
    record_event,
    return_gift_cards,
)

logger = logging.getLogger("transactions.challenges")
S = TransactionStatus
# Who completes a challenge: the buyer, on this server's page (no API key, no staff user).
BUYER = Actor("system", "buyer")


class ChallengeUnavailable(DomainError):
    """The page cannot be used: unknown or forged token, already used, finished or expired. Nothing changed."""

    status = 404


class ChallengeGone(ChallengeUnavailable):
    status = 410


class ChallengeNotFinished(DomainError):
    """The processor still waits for the buyer (the page never completed its authentication): nothing changed."""

    status = 409


@dataclass(frozen=True)
class ChallengePage:
    """What the challenge page shows, and the token its form must send back (shown once, kept as a digest)."""

    challenge: ThreeDSecureChallenge
    transaction: Transaction
    form_token: str
    # The processor's script the page runs, for the processor's own authentication (`challenge.processor`).
    buyer_action: BuyerAction | None = None


def _found(token: str) -> ThreeDSecureChallenge:
    found = ThreeDSecureChallenge.objects.filter(token_digest=challenge_token_digest(token)).first()
    if found is None or found.approval_link:  # an approval at the processor returns to its own page
        raise ChallengeUnavailable("This authentication page does not exist.")
    return found


def _lock(challenge_id: UUID, transaction_id: UUID) -> tuple[ThreeDSecureChallenge, Transaction]:
    """The challenge and its transaction, both locked (the transaction first, as every other change of it)."""
    txn = Transaction.objects.select_for_update().get(pk=transaction_id)
    return ThreeDSecureChallenge.objects.select_for_update().get(pk=challenge_id), txn


def _waiting(token: str, *, now: datetime) -> tuple[ThreeDSecureChallenge, Transaction]:
    """The challenge of `token` and its transaction, both locked, still waiting and not expired; else
    ChallengeUnavailable."""
    found = _found(token)
    challenge, txn = _lock(found.pk, found.transaction_id)
    if not challenge.waiting or txn.status != S.BUYER_APPROVAL_PENDING:
        raise ChallengeGone("This authentication has already ended.")
    if challenge.expires_at <= now:
        raise ChallengeGone("This authentication has expired.")
    return challenge, txn


def _check_form(challenge: ThreeDSecureChallenge, form_token: str) -> None:
    if challenge.form_token_digest is None or not keyed_hash_matches(
        form_token, challenge.form_token_digest, purpose=CHALLENGE_DIGEST_PURPOSE
    ):
        raise DomainError("The form was not sent from this authentication page.")


def _buyer_connector(txn: Transaction) -> BuyerActionConnector:
    connector = connector_of(txn)
    if not isinstance(connector, BuyerActionConnector):
        raise RuntimeError(f"Transaction {txn.pk} waits for a processor that runs no authentication of its own.")
    return connector


def challenge_open(*, token: str) -> ChallengePage:
    """Show the page once: the challenge is marked opened and a fresh form token (the page's CSRF token) is made;
    opening it again is refused, so a leaked or replayed link shows nothing. For the processor's own
    authentication, what its script needs is asked of the processor first: a processor that cannot be asked
    leaves the page unopened, for the buyer to try again."""
    found = _found(token)
    action = None
    if found.processor:
        txn = Transaction.objects.select_related("payment_service").get(pk=found.transaction_id)
        if found.waiting and txn.status == S.BUYER_APPROVAL_PENDING and txn.payment_service_transaction_id:
            action = _buyer_connector(txn).buyer_action(processor_reference=txn.payment_service_transaction_id)
            if action is None:
                raise ProcessorUnavailable("The card issuer's authentication cannot be reached now: try again soon.")
    return _open(token, action)


@transaction.atomic
def _open(token: str, action: BuyerAction | None) -> ChallengePage:
    challenge, txn = _waiting(token, now=timezone.now())
    if challenge.state != ChallengeState.PENDING:
        raise ChallengeGone("This authentication page was already opened.")
    form_token = secrets.token_urlsafe(32)
    challenge.state = ChallengeState.OPENED
    challenge.form_token_digest = challenge_token_digest(form_token)
    challenge.save(update_fields=["state", "form_token_digest", "updated_at"])
    return ChallengePage(challenge=challenge, transaction=txn, form_token=form_token, buyer_action=action)


def challenge_complete(*, token: str, form_token: str, canceled: bool = False) -> tuple[Transaction, str]:
    """The buyer answered the challenge (or canceled it): the sandbox issuer's result decides. `Y` asks the
    processor with the result; `N` (or a cancel) declines; `timeout` fails. For the processor's own
    authentication, only what the processor then holds decides (`_processor_complete`). Returns the transaction and
    where the buyer goes next (the payment's `redirect_url`)."""
    found = _found(token)
    if found.processor:
        txn = _processor_complete(token=token, form_token=form_token)
        pinned_orders_payment_ended(txn=txn)
        return txn, found.redirect_url
    txn, challenge, result = _challenge_end(token=token, form_token=form_token, canceled=canceled)
    if result == ChallengeResult.AUTHENTICATED:
        txn = _authorize_after_challenge(txn, store_card=challenge.store_card)
    pinned_orders_payment_ended(txn=txn)
    return txn, challenge.redirect_url


@transaction.atomic
def _challenge_end(*, token: str, form_token: str, canceled: bool) -> tuple[Transaction, ThreeDSecureChallenge, str]:
    challenge, txn = _waiting(token, now=timezone.now())
    _check_form(challenge, form_token)
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
    record_event(
        txn,
        name="three_d_secure_challenge_result",
        actor=BUYER,
        from_status=txn.status,
        transaction_status=result,
        canceled=canceled,
    )
    card_amount = card_amount_of(txn)
    if result == ChallengeResult.AUTHENTICATED:
        move_to(txn, S.PROCESSING, name="buyer_approval_succeeded", actor=BUYER, amount=card_amount)
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
    challenge's result, and sent its token of the stored method instead of the card when it keeps one; a crash here
    leaves it `processing`, for recovery."""
    service = txn.payment_service
    if service is None or txn.vaulted_card is None:
        raise RuntimeError(f"Transaction {txn.pk} waited for a challenge without a card or a payment service.")
    clear_card = vaulted_card_reveal(card=txn.vaulted_card)
    card_amount = card_amount_of(txn)
    method = txn.payment_method
    _, result = authorize_routed(
        route=Route((service,)),
        request=authorization_request(txn, card=clear_card, amount=card_amount),
        next_attempt=lambda *_: False,
        tokens=payment_service_tokens_usable(method=method),
    )
    if result.token_revoked and method is not None:
        payment_service_token_revoke(method=method, service=service, reason=result.raw_response_description)
    keep = (
        CardToStore(clear_card.number, clear_card.expiration_month, clear_card.expiration_year) if store_card else None
    )
    return record_authorization(txn, result=result, card_amount=card_amount, actor=BUYER, keep=keep, service=service)


def _processor_complete(*, token: str, form_token: str) -> Transaction:
    """The page says the buyer is done: the form is checked, then the processor is asked what it holds (outside any
    database transaction), and that answer is recorded if the challenge still waits. A processor still waiting for
    the buyer (a forged or early completion) changes nothing."""
    with transaction.atomic():
        challenge, txn = _waiting(token, now=timezone.now())
        _check_form(challenge, form_token)
    result = _buyer_connector(txn).buyer_result(processor_reference=txn.payment_service_transaction_id or "")
    if result.outcome is Outcome.BUYER_ACTION:
        raise ChallengeNotFinished("The authentication is not finished: nothing was charged or changed.")
    if result.outcome is Outcome.FAILED:
        raise ProcessorUnavailable("The card issuer's answer cannot be read now: nothing was charged or changed.")
    with transaction.atomic():
        challenge, txn = _waiting(token, now=timezone.now())
        _check_form(challenge, form_token)
        return _processor_decided(challenge, txn, result=result, actor=BUYER)


def _processor_decided(
    challenge: ThreeDSecureChallenge, txn: Transaction, *, result: ConnectorResult, actor: Actor
) -> Transaction:
    """Record what the processor decided after its own authentication, on the locked challenge and transaction: an
    approval is the authorization (or capture, per the intent), anything else ends the payment as the processor
    said, and the gift card money goes back."""
    challenge.state = ChallengeState.COMPLETED
    challenge.save(update_fields=["state", "updated_at"])
    txn.three_d_secure = {
        **(txn.three_d_secure or {}),
        "status": "complete" if result.approved else "declined",
        "method": "challenge",
    }
    txn.save(update_fields=["three_d_secure", "updated_at"])
    record_event(
        txn,
        name="three_d_secure_challenge_result",
        actor=actor,
        from_status=txn.status,
        processor_status=result.raw_response_code,
    )
    card_amount = card_amount_of(txn)
    if result.approved:
        move_to(txn, S.PROCESSING, name="buyer_approval_succeeded", actor=actor, amount=card_amount)
        keep = None
        if challenge.store_card and txn.vaulted_card is not None:
            card = vaulted_card_reveal(card=txn.vaulted_card)
            keep = CardToStore(card.number, card.expiration_month, card.expiration_year)
        return record_authorization(txn, result=result, card_amount=card_amount, actor=actor, keep=keep)
    to = S.AUTHORIZATION_DECLINED if result.outcome is Outcome.DECLINED else S.AUTHORIZATION_FAILED
    move_to(txn, to, name=to, actor=actor, amount=card_amount, **answer_fields(result))
    return_gift_cards(txn, actor=SYSTEM, card_part_refused=True)
    return txn


def challenges_expire(*, now: datetime | None = None, batch_size: int = 100) -> int:
    """End up to `batch_size` challenges nobody completed by `approval_expires_at`: each transaction fails
    (`incomplete_buyer_approval`, `buyer_approval_timedout_at`), its gift card money goes back and a webhook says
    so. Each is ended under its row lock, so two workers (or a completion at the last moment) end it once."""
    now = now or timezone.now()
    waiting = ThreeDSecureChallenge.objects.filter(
        state__in=[ChallengeState.PENDING, ChallengeState.OPENED], expires_at__lte=now
    ).order_by("expires_at")
    ended = 0
    for challenge_id, transaction_id, processor in waiting.values_list("pk", "transaction_id", "processor")[
        :batch_size
    ]:
        # An approval at the processor (PayPal's) holds nothing until this server authorizes it: it ends here.
        end = _expire_at_processor if processor else _expire
        if end(challenge_id=challenge_id, transaction_id=transaction_id, now=now):
            ended += 1
            pinned_orders_payment_ended(txn=Transaction.objects.get(pk=transaction_id))
    return ended


def _expire_at_processor(*, challenge_id: UUID, transaction_id: UUID, now: datetime) -> bool:
    """The processor's own authentication, unanswered in time: its payment is canceled there first, then the
    transaction ends as every expired challenge. Past `expires_at` no completion records anything, so the cancel
    cannot undo an answer recorded meanwhile. If the processor decided before the cancel (it refuses to cancel),
    what it holds is recorded instead; if it cannot be asked, the next run tries again."""
    with transaction.atomic():
        challenge, txn = _lock(challenge_id, transaction_id)
        if not challenge.waiting or txn.status != S.BUYER_APPROVAL_PENDING or not txn.payment_service_transaction_id:
            return _expire(challenge_id=challenge_id, transaction_id=transaction_id, now=now)
    connector = _buyer_connector(txn)
    reference = txn.payment_service_transaction_id
    canceled = connector.void(processor_reference=reference, reference=f"{txn.pk}:void")
    if canceled.approved:
        return _expire(challenge_id=challenge_id, transaction_id=transaction_id, now=now)
    decided = connector.buyer_result(processor_reference=reference)
    if canceled.outcome is Outcome.FAILED or decided.outcome in (Outcome.FAILED, Outcome.BUYER_ACTION):
        logger.warning("The processor could not end transaction %s's authentication; the next run tries again", txn.pk)
        return False
    with transaction.atomic():
        challenge, txn = _lock(challenge_id, transaction_id)
        if not challenge.waiting or txn.status != S.BUYER_APPROVAL_PENDING:
            return False
        _processor_decided(challenge, txn, result=decided, actor=SYSTEM)
        return True


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
        description="The buyer did not approve the payment in time."
        if challenge.approval_link
        else "The buyer did not complete the authentication in time.",
        card_amount=card_amount_of(txn),
        actor=SYSTEM,
    )
    return True
