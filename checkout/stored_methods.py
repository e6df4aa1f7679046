"""The stored payment methods Secure Fields may put on a checkout session (`{"method": "id", "id": ...}`).

Checkout sits below the stored payment methods (docs/architecture.md: `paymentmethods` imports `checkout`, never the
reverse), so it knows none of them: the app that keeps them registers, from its `AppConfig.ready`, how a session's
account finds one's card (`register`), as apps register what the shared plumbing needs of them.
"""

from __future__ import annotations

import uuid
from typing import Protocol

from payments.accounts.models import MerchantAccount
from payments.errors import NotFound
from payments.vault.models import VaultedCard


class StoredCardFinder(Protocol):
    def __call__(self, *, merchant_account: MerchantAccount, id: uuid.UUID, pointer: str) -> VaultedCard:
        """The card of the account's stored payment method `id`, if it can pay now: NotFound at `pointer` for a
        missing method or another account's, a DomainError there for one whose card has expired."""
        ...


_finders: list[StoredCardFinder] = []


def register(finder: StoredCardFinder) -> None:
    """Have sessions find stored methods with `finder`; registering again replaces it."""
    _finders[:] = [finder]


def stored_method_card(*, merchant_account: MerchantAccount, id: uuid.UUID, pointer: str) -> VaultedCard:
    """The card of the account's stored payment method `id` (see `StoredCardFinder`); with no app keeping stored
    methods, none exists."""
    if not _finders:
        raise NotFound("The payment method could not be found.", pointer=pointer)
    return _finders[0](merchant_account=merchant_account, id=id, pointer=pointer)
