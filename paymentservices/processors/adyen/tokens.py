"""Stored cards kept at Adyen, through Adyen's official library (docs/stored-cards-at-processors.md): a zero-value
check of the card through the Checkout API's `/payments` with `storePaymentMethod`, for a shopper named by our
reference of the stored method (`shopperReference`), card-on-file from then on (`recurringProcessingModel`). The
token is the `storedPaymentMethodId` Adyen answers (`tokenization.storedPaymentMethodId`, or the older
`recurring.recurringDetailReference`); later payments send it with the shopper reference, `ContAuth`, and the first
payment's network reference (`networkTxReference`) when the merchant initiates them.

Adyen's refusal of the check (`Refused`, its reason) is `TokenRefused`; no answer is `TokenUnreached`. A token deleted
here is deleted at Adyen too (`DELETE /storedPaymentMethods/{id}` through the library's checkout recurring API).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from Adyen.exceptions import AdyenAPIResponseError

from payments.connectors.base import CardDetails
from paymentservices.processors.adyen.connector import AdyenConnector
from paymentservices.processors.calls import NoAnswer, field_of
from paymentservices.processors.seam import KeptCard, StoredTokens, TokenRefused, TokenUnreached

# Where Adyen's answer names the stored payment method: the current key first, then the one it replaces.
STORED_ID_KEYS = ("tokenization.storedPaymentMethodId", "recurring.recurringDetailReference")


def _connector(credentials: Mapping[str, str]) -> AdyenConnector:
    return AdyenConnector(
        api_key=credentials.get("api_key", ""),
        merchant_account=credentials.get("merchant_account", ""),
        live_url_prefix=credentials.get("live_url_prefix") or None,
    )


class AdyenTokens(StoredTokens):
    def keep(self, *, credentials: Mapping[str, str], card: CardDetails, reference: str) -> KeptCard:
        try:
            answer = _connector(credentials).store_card(card=card, shopper_reference=reference)
        except NoAnswer as exc:
            raise TokenUnreached(f"Adyen gave no answer ({exc.code}).") from None
        except AdyenAPIResponseError as exc:
            raise TokenRefused(f"Adyen refused the request ({exc.status_code}).") from None
        if field_of(answer, "resultCode") != "Authorised":
            reason = field_of(answer, "refusalReason") or field_of(answer, "resultCode") or "no reason given"
            raise TokenRefused(f"Adyen: {reason}")
        additional = field_of(answer, "additionalData") or {}
        stored = next((field_of(additional, key) for key in STORED_ID_KEYS if field_of(additional, key)), None)
        if not stored:
            raise TokenRefused("Adyen checked the card but stored no payment method for it.")
        return KeptCard(token=str(stored), customer=reference)

    def forget(self, *, credentials: Mapping[str, str], kept: KeptCard) -> None:
        """Deleted at Adyen (its stored payment method, for the shopper it was kept for); one Adyen no longer has
        (its refusal) is already gone."""
        if kept.customer is None:
            return  # no shopper named: Adyen cannot be asked to delete it
        with contextlib.suppress(AdyenAPIResponseError):
            try:
                _connector(credentials).forget_stored_card(token=kept.token, shopper_reference=kept.customer)
            except NoAnswer as exc:
                raise TokenUnreached(f"Adyen gave no answer ({exc.code}).") from None
