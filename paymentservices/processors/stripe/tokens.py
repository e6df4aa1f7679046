"""Stored cards kept at Stripe, through Stripe's official library (docs/stored-cards-at-processors.md):

- keep: a Customer for the stored method (our reference in its metadata), a PaymentMethod from the card, attached to
  the Customer ("Attach a PaymentMethod to a Customer"; Stripe checks the card with its issuer as it attaches it).
  The token is the PaymentMethod's id; later payments send it with the Customer, and `off_session` when the merchant
  initiates them. Each write carries an idempotency key made from our reference, so a retried keep makes nothing twice.
- forget: the PaymentMethod detached from its Customer.

Stripe's refusal of the card (a `card_error` as it attaches) is `TokenRefused` with Stripe's words; a call that gets no
answer (or our key refused) is `TokenUnreached`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

import stripe

from payments.connectors.base import CardDetails
from paymentservices.processors.seam import KeptCard, StoredTokens, TokenRefused, TokenUnreached
from paymentservices.processors.stripe.connector import REFERENCE_KEY, account_client

T = TypeVar("T")


def _card(card: CardDetails) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "number": card.number,
        "exp_month": card.expiration_month,
        "exp_year": card.expiration_year,
    }
    if card.security_code:
        fields["cvc"] = card.security_code
    return fields


def _call(send: Callable[[], T]) -> T:
    """Stripe's answer; its refusal of the card raises `TokenRefused`, no answer `TokenUnreached`."""
    try:
        return send()
    except (stripe.CardError, stripe.InvalidRequestError) as error:
        raise TokenRefused(f"Stripe: {error.user_message or 'the card was refused'}") from error
    except stripe.StripeError as error:
        raise TokenUnreached(f"Stripe gave no answer ({type(error).__name__}, {error.http_status}).") from error


class StripeTokens(StoredTokens):
    def keep(self, *, credentials: Mapping[str, str], card: CardDetails, reference: str) -> KeptCard:
        client = account_client(credentials["secret_key"])
        customer = _call(
            lambda: client.v1.customers.create(
                params={"metadata": {REFERENCE_KEY: reference}}, options={"idempotency_key": f"{reference}:customer"}
            )
        )
        method = _call(
            lambda: client.v1.payment_methods.create(
                params=cast(Any, {"type": "card", "card": _card(card)}),
                options={"idempotency_key": f"{reference}:kept-card"},
            )
        )
        _call(lambda: client.v1.payment_methods.attach(method.id, params={"customer": customer.id}))
        return KeptCard(token=method.id, customer=customer.id)

    def forget(self, *, credentials: Mapping[str, str], kept: KeptCard) -> None:
        client = account_client(credentials["secret_key"])
        with contextlib.suppress(TokenRefused):  # already detached, or gone: nothing left to drop
            _call(lambda: client.v1.payment_methods.detach(kept.token))
