"""Issuing cards straight into a CSV file: the one copy of their numbers and PINs there will ever be."""

import csv
import os
from datetime import datetime
from pathlib import Path
from typing import IO

from giftcards.models import IssuedGiftCard
from giftcards.services import BULK_SIZE, IssuedCardSecret, issued_cards_create_batch
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.vault.crypto import VaultError

CSV_HEADER = ["number", "pin", "balance", "currency", "expiration_date"]


class ExportError(Exception):
    """Issuing stopped; the message says why and how many cards the file holds."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def issued_cards_export(
    path: Path,
    *,
    merchant_account: MerchantAccount,
    count: int,
    amount: int,
    currency: str,
    expires_at: datetime | None = None,
    status: str = IssuedGiftCard.Status.ACTIVE,
) -> int:
    """Issue `count` cards into a new CSV at `path` (mode 0600), batch by batch, each batch committed before its
    rows are written; return how many were issued. A failure raises `ExportError` naming what the file holds."""
    issued = 0
    with _create_private(path) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        try:
            while issued < count:
                batch = issued_cards_create_batch(
                    merchant_account=merchant_account,
                    count=min(BULK_SIZE, count - issued),
                    amount=amount,
                    currency=currency,
                    expires_at=expires_at,
                    status=status,
                )
                writer.writerows(_row(secret) for secret in batch)
                handle.flush()
                issued += len(batch)
        except (DomainError, VaultError) as exc:
            if issued == 0:
                path.unlink()  # a file with only a header would pass for an empty issue
            message = exc.message if isinstance(exc, DomainError) else str(exc)
            if issued:
                message += f" Stopped after {issued} cards, all written to {path}."
            raise ExportError(message) from exc
        except BaseException:
            if issued == 0:
                path.unlink()
            raise
    return issued


def _create_private(path: Path) -> IO[str]:
    """A new file readable by its owner only, created before any number is written to it."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ExportError(f"{path} exists; refusing to overwrite it.") from None
    except OSError as exc:
        raise ExportError(f"Cannot create {path}: {exc.strerror}.") from exc
    return os.fdopen(descriptor, "w", newline="", encoding="ascii")


def _row(secret: IssuedCardSecret) -> list[object]:
    card = secret.card
    expiration = card.expires_at.date().isoformat() if card.expires_at else ""
    return [secret.number, secret.pin, card.balance, card.currency, expiration]
