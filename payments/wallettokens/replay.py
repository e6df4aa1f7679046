"""The replay guard: a wallet token pays once. What is remembered is a keyed hash of the wallet's transaction id,
never the token; where it is remembered belongs to whoever records the payment, in the same database transaction
(docs/wallet-tokens.md), so a refused payment leaves nothing behind and a second use of a token is refused."""

from __future__ import annotations

from collections.abc import Callable

from payments.vault.crypto import keyed_hash
from payments.wallettokens.errors import ReplayedToken
from payments.wallettokens.payment import WalletPayment

REPLAY_PURPOSE = "wallet-token-replay"


def replay_digest(payment: WalletPayment) -> str:
    """A keyed hash naming this token's use: the wallet and its transaction id, unreadable without the server's key."""
    return keyed_hash(f"{payment.wallet}:{payment.transaction_id}", purpose=REPLAY_PURPOSE)


def refuse_replay(payment: WalletPayment, *, remember: Callable[[str], bool]) -> None:
    """Raise ReplayedToken unless `remember(digest)` records the digest as new (False: it was already there).

    `remember` is typically an INSERT into a column with a unique constraint, False on the constraint's error."""
    if not remember(replay_digest(payment)):
        raise ReplayedToken("This wallet token has already been used for a payment.")
