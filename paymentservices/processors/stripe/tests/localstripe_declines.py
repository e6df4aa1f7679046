"""What the suite's localstripe (mock.py) adds to localstripe's charges (`install()`, called before the server
starts): the decline test cards Stripe documents declining when charged as Stripe does, each with the codes Stripe
gives it, and the amounts Stripe's objects carry of a capture (a PaymentIntent's `amount_received`, a charge's
`amount_captured`). Unchanged, localstripe declines those cards only when they are attached to a customer, every
decline as `card_declined` without a `decline_code`, and says nothing of what a (partial) capture took; nothing else
of it changes. Its balance gets Stripe's fee and automatic payouts from localstripe_balance.py; disputes, which it
lacks, come from localstripe_disputes.py.
"""

from __future__ import annotations

from typing import Any

from localstripe import resources

# Stripe's decline test cards: the card number, its error `code` and its `decline_code` (None: Stripe gives none).
DECLINES: dict[str, tuple[str, str | None]] = {
    "4000000000000002": ("card_declined", "generic_decline"),
    "4000000000009995": ("card_declined", "insufficient_funds"),
    "4000000000009987": ("card_declined", "lost_card"),
    "4000000000009979": ("card_declined", "stolen_card"),
    "4000000000000069": ("expired_card", None),
    "4000000000000127": ("incorrect_cvc", None),
    "4000000000000119": ("processing_error", None),
}

_charging_is_declined = resources.PaymentMethod._charging_is_declined
_set_auth_failure = resources.Charge._set_auth_failure
_last_payment_error = resources.PaymentIntent.last_payment_error


def _card_decline(charge: Any) -> tuple[str, str | None] | None:
    if not str(charge.payment_method or "").startswith("pm_"):
        return None
    method = resources.PaymentMethod._api_retrieve(charge.payment_method)
    return DECLINES.get(getattr(method, "_card_number", None) or "")


def charging_is_declined(self: Any) -> bool:
    return bool(_charging_is_declined(self)) or (self.type == "card" and self._card_number in DECLINES)


def set_auth_failure(self: Any) -> None:
    _set_auth_failure(self)
    decline = _card_decline(self)
    if decline is not None:
        self.failure_code, self._decline_code = decline


def raise_failure(self: Any) -> None:
    details = {"code": self.failure_code, "charge": self.id}
    if getattr(self, "_decline_code", None):
        details["decline_code"] = self._decline_code
    raise resources.UserError(402, self.failure_message, details)


def last_payment_error(self: Any) -> Any:
    error = _last_payment_error.fget(self)
    decline = getattr(self.latest_charge, "_decline_code", None) if error else None
    return {**error, "decline_code": decline} if decline else error


_capture = resources.Charge._capture


def capture(self: Any, amount: Any, on_success: Any = None) -> None:
    """localstripe's capture, remembering how much it took (its release of the rest is localstripe's own)."""
    taken = self.amount if amount is None else resources.try_convert_to_int(amount)

    def captured() -> None:
        self._amount_captured = taken
        if on_success:
            on_success()

    _capture(self, amount, on_success=captured)


def amount_captured(self: Any) -> int:
    """Stripe's `amount_captured`: what the charge captured (all of it when it was captured at once), else 0."""
    if not self.captured or self.status != "succeeded":
        return 0
    return int(getattr(self, "_amount_captured", self.amount))


def amount_received(self: Any) -> int:
    """Stripe's `amount_received`: what the PaymentIntent's charge captured."""
    charge = self.latest_charge
    return amount_captured(charge) if charge is not None else 0


def install() -> None:
    resources.PaymentMethod._charging_is_declined = charging_is_declined
    resources.Charge._capture = capture
    resources.Charge.amount_captured = property(amount_captured)
    resources.PaymentIntent.amount_received = property(amount_received)
    resources.Charge._set_auth_failure = set_auth_failure
    resources.Charge._raise_failure = raise_failure
    resources.PaymentIntent.last_payment_error = property(last_payment_error)
