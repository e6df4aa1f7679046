"""Issuing a card over the API (`POST /gift-cards/issuances`) and showing its number and PIN once.

The answer carries no number and no PIN: it carries `url`, the address of a page of this server. The card's number
and PIN are sealed by the vault (`payments.vault.crypto`, bound to the issuance's id) for `REVEAL_FOR`; the page
opens them once, forgets the sealed copy in the same transaction, and from then on says the card is no longer
shown. The purge job forgets copies nobody opened in time.

The page's address is the issuance id and a keyed hash of it (`page_token`): unguessable without the server's key,
and made again from the id alone, so an `Idempotency-Key` replay answers the same address without storing it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from rest_framework.request import Request

from giftcards.errors import InvalidAmount
from giftcards.models import GiftCardIssuance, GiftCardService
from giftcards.services import gift_card_service_get_or_create, issued_card_create
from payments.accounts.models import MerchantAccount
from payments.errors import DomainError
from payments.rest.idempotency import LiveField
from payments.validators import MAX_AMOUNT
from payments.vault import crypto
from payments.vault.services import RotationBatch, sealed_rows_rotate_batch

# How long an issued card's number and PIN wait to be shown: long enough to reach the buyer by email, short enough
# that a sealed copy does not linger. After it, the page says the card is no longer shown.
REVEAL_FOR = timedelta(days=3)
_TOKEN_PURPOSE = "giftcards.issuance.page"  # noqa: S105 - an HKDF label, not a secret


def _context(issuance_id: uuid.UUID) -> str:
    return f"giftcards.issuance:{issuance_id}"


def page_token(issuance_id: uuid.UUID | str) -> str:
    """The secret half of the page's address: a keyed hash of the id, which only this server can make."""
    return crypto.keyed_hash(str(issuance_id), purpose=_TOKEN_PURPOSE)


def page_url(issuance_id: uuid.UUID | str, request: HttpRequest | None) -> str:
    """The absolute address of the issuance's page: PUBLIC_BASE_URL (HTTPS in production), else the request's host."""
    page = reverse("gift-card-issuance-page", kwargs={"issuance_id": issuance_id, "token": page_token(issuance_id)})
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL.rstrip("/") + page
    return request.build_absolute_uri(page) if request is not None else page


def _require_theme(service: GiftCardService, theme: str) -> None:
    if service.themes and theme not in service.themes:
        raise DomainError(
            f"Unknown theme '{theme}': this account's gift cards are issued in the themes "
            f"{', '.join(map(str, service.themes))}.",
            pointer="/theme",
        )


@transaction.atomic
def gift_card_issuance_create(
    *,
    merchant_account: MerchantAccount,
    theme: str,
    amount: int,
    currency: str,
    external_identifier: str | None = None,
    id: uuid.UUID | None = None,
) -> GiftCardIssuance:
    """Issue one active card holding `amount`, and seal its number and PIN for its page; an issuance already made
    under `id` (an `Idempotency-Key` resumed) is returned as it is."""
    resumed = GiftCardIssuance.objects.filter(pk=id, merchant_account=merchant_account).first() if id else None
    if resumed is not None:
        return resumed
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_AMOUNT:
        raise InvalidAmount(f"A card is issued holding 1 to {MAX_AMOUNT} minor units.", pointer="/amount")
    service = gift_card_service_get_or_create(merchant_account=merchant_account)
    _require_theme(service, theme)
    secret = issued_card_create(merchant_account=merchant_account, amount=amount, currency=currency)
    issuance_id = id or uuid.uuid4()
    return GiftCardIssuance.objects.create(
        id=issuance_id,
        merchant_account=merchant_account,
        issued_card=secret.card,
        theme=theme,
        amount=amount,
        currency=currency,
        external_identifier=external_identifier,
        sealed_secret=crypto.encrypt(
            json.dumps({"number": secret.number, "pin": secret.pin}), context=_context(issuance_id)
        ),
        reveal_until=timezone.now() + REVEAL_FOR,
    )


@dataclass(frozen=True)
class RevealedCard:
    """What the issuance's page shows, once."""

    issuance: GiftCardIssuance
    number: str
    pin: str


@transaction.atomic
def gift_card_issuance_reveal(*, issuance_id: uuid.UUID, token: str) -> RevealedCard | None:
    """The card's number and PIN, the first time a valid address asks before `reveal_until`; the sealed copy is
    forgotten in the same transaction, so two requests racing for it get it once. None for anything else (a wrong
    token, an unknown id, shown already, too late) alike."""
    if not crypto.keyed_hash_matches(str(issuance_id), token, purpose=_TOKEN_PURPOSE):
        return None
    issuance = (
        GiftCardIssuance.objects.select_for_update(of=("self",))
        .select_related("issued_card", "merchant_account")
        .filter(pk=issuance_id, sealed_secret__isnull=False, reveal_until__gt=timezone.now())
        .first()
    )
    if issuance is None or issuance.sealed_secret is None:
        return None
    opened = json.loads(crypto.decrypt(issuance.sealed_secret, context=_context(issuance.pk)))
    issuance.sealed_secret = None
    issuance.revealed_at = timezone.now()
    issuance.save(update_fields=["sealed_secret", "revealed_at", "updated_at"])
    return RevealedCard(issuance=issuance, number=opened["number"], pin=opened["pin"])


def gift_card_issuance_waiting(*, issuance_id: uuid.UUID, token: str) -> GiftCardIssuance | None:
    """The issuance whose card can still be shown at this address, without showing it (the page before the click)."""
    if not crypto.keyed_hash_matches(str(issuance_id), token, purpose=_TOKEN_PURPOSE):
        return None
    return (
        GiftCardIssuance.objects.select_related("issued_card", "merchant_account")
        .filter(pk=issuance_id, sealed_secret__isnull=False, reveal_until__gt=timezone.now())
        .first()
    )


def gift_card_issuances_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: forget up to `batch_size` sealed copies nobody opened before `reveal_until`; the issuances stay."""
    with transaction.atomic():
        due = GiftCardIssuance.objects.filter(sealed_secret__isnull=False, reveal_until__lte=now).order_by(
            "reveal_until"
        )
        ids = list(due.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
        GiftCardIssuance.objects.filter(pk__in=ids).update(sealed_secret=None)
    return len(ids)


def _stale() -> QuerySet[GiftCardIssuance]:
    current = f"{crypto.FORMAT_VERSION}.{crypto.current_key_id()}."
    return GiftCardIssuance.objects.filter(sealed_secret__isnull=False).exclude(sealed_secret__startswith=current)


def gift_card_issuances_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` waiting cards sealed under another (`rotate_card_keys`), so
    a key can be retired while cards still wait to be shown."""
    return sealed_rows_rotate_batch(
        _stale(), batch_size=batch_size, after=after, reseal=_reseal, fields=["sealed_secret"]
    )


def _reseal(issuance: GiftCardIssuance) -> None:
    assert issuance.sealed_secret is not None  # noqa: S101 - only sealed rows are stale
    opened = crypto.decrypt(issuance.sealed_secret, context=_context(issuance.pk))
    issuance.sealed_secret = crypto.encrypt(opened, context=_context(issuance.pk))


def gift_card_issuances_count_stale() -> int:
    """How many waiting cards are sealed under a key other than the current one."""
    return _stale().count()


def _url_withhold(answer: dict[str, Any]) -> dict[str, Any]:
    # Stored for an `Idempotency-Key` without the page's address: whoever reads the stored answers could open it.
    answer["url"] = ""
    return answer


def _url_rebuild(answer: dict[str, Any], request: Request) -> dict[str, Any]:
    answer["url"] = page_url(str(answer.get("id")), request)
    return answer


# The issuance answer's `url`, made again from the id on each replay (registered in `GiftCardsConfig.ready`).
ISSUANCE_URL = LiveField(withhold=_url_withhold, rebuild=_url_rebuild)
