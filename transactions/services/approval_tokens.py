"""The challenge page's token, sealed with the card vault's keys so reads can answer `approval_url` while the
transaction waits for the buyer (upstream does), and null once the challenge ended or expired.

The page is found by the token's keyed digest (`challenge_token_digest`); the sealed copy only serves reads. It is
bound to its challenge row (the AES-GCM context), so a ciphertext copied to another row opens nowhere.
`rotate_card_keys` re-seals waiting challenges' tokens under the current key and drops those of ended ones.
"""

from __future__ import annotations

import logging
import uuid

from django.utils import timezone

from payments.vault import crypto
from payments.vault.services import RotationBatch, sealed_rows_rotate_batch
from transactions.models import ThreeDSecureChallenge, Transaction, TransactionStatus

logger = logging.getLogger("transactions.challenges")


def _context(challenge_id: uuid.UUID) -> str:
    return f"three-ds-challenge:{challenge_id}:token"


def approval_token_seal(challenge: ThreeDSecureChallenge, token: str) -> None:
    """Seal `token` on the (unsaved or about to be saved) challenge under the current key."""
    challenge.sealed_token = crypto.encrypt(token, context=_context(challenge.id))
    challenge.key_id = crypto.current_key_id()


def approval_token(txn: Transaction) -> str | None:
    """The page's token while `txn` waits for the buyer and the challenge can still be completed; else None.

    Reads no row for a transaction that is not waiting; a token that cannot be opened (its key was removed) is
    answered as none rather than failing the read."""
    if txn.status != TransactionStatus.BUYER_APPROVAL_PENDING:
        return None
    try:
        challenge = txn.three_ds_challenge  # a list's select_related, else one query
    except ThreeDSecureChallenge.DoesNotExist:
        return None
    if not challenge.waiting or not challenge.sealed_token:
        return None
    if challenge.expires_at <= timezone.now():
        return None
    try:
        return crypto.decrypt(challenge.sealed_token, context=_context(challenge.id))
    except crypto.VaultError:
        logger.warning("The approval token of challenge %s cannot be opened with the configured keys.", challenge.id)
        return None


def approval_tokens_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` waiting challenges' tokens sealed under another, in id order
    after `after`; an ended challenge's token is dropped instead (no read answers it any more)."""
    return sealed_rows_rotate_batch(
        ThreeDSecureChallenge.objects.exclude(key_id__in=["", crypto.current_key_id()]),
        batch_size=batch_size,
        after=after,
        reseal=_reseal,
        fields=["sealed_token", "key_id"],
    )


def _reseal(challenge: ThreeDSecureChallenge) -> None:
    if challenge.waiting:
        approval_token_seal(challenge, crypto.decrypt(challenge.sealed_token, context=_context(challenge.id)))
    else:
        challenge.sealed_token, challenge.key_id = "", ""


def approval_tokens_count_stale() -> int:
    """How many challenges hold a token sealed under a key other than the current one."""
    return ThreeDSecureChallenge.objects.exclude(key_id__in=["", crypto.current_key_id()]).count()
