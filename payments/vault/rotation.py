"""Other sealed data that key rotation covers, registered by the apps that own it.

`rotate_card_keys` re-seals vaulted cards, then every kind registered here, from an app's `AppConfig.ready`:

    rotation.register("payment-service-credentials", rotate_batch, count_stale)

`rotate_batch(batch_size=..., after=...)` re-seals at most `batch_size` rows sealed under a key other than the current
one, in id order after `after`, and returns a `RotationBatch`; `count_stale()` says how many rows are left.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Protocol

from payments.vault.services import RotationBatch


class RotateBatch(Protocol):
    def __call__(self, *, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch: ...


class CountStale(Protocol):
    def __call__(self) -> int: ...


@dataclass(frozen=True)
class SealedKind:
    """One kind of sealed data outside the card vault, and how to re-seal it."""

    name: str
    rotate_batch: RotateBatch
    count_stale: CountStale


_KINDS: dict[str, SealedKind] = {}


def register(name: str, rotate_batch: RotateBatch, count_stale: CountStale) -> None:
    """Have `rotate_card_keys` re-seal this kind too; registering a name again replaces it."""
    _KINDS[name] = SealedKind(name, rotate_batch, count_stale)


def registered() -> list[SealedKind]:
    return list(_KINDS.values())
