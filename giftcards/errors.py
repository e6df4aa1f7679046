"""Refusals of the gift card program, each carrying the upstream `GiftCardErrorCode` it corresponds to.

All are 400s in the error envelope. Callers that report per-card outcomes (balance checks, split tender
redemptions) read `error_code` instead of the message.
"""

from payments.errors import DomainError


class GiftCardError(DomainError):
    """A gift card operation was refused; `error_code` is the upstream `GiftCardErrorCode` value."""

    error_code = "unknown_error"
    default_message = "The gift card could not be used."

    def __init__(self, message: str | None = None, *, pointer: str | None = "/", location: str = "body") -> None:
        super().__init__(message or self.default_message, pointer=pointer, location=location)
        # The detail's `type` is the error code, which is what a client branches on.
        for detail in self.details:
            detail["type"] = self.error_code


class InvalidGiftCard(GiftCardError):
    """Unknown number or wrong PIN: one answer for both, so the response is no oracle for either."""

    error_code = "invalid_gift_card"
    default_message = "The gift card number or PIN is not valid."


class GiftCardExpired(GiftCardError):
    error_code = "expired_card"
    default_message = "The gift card has expired."


class GiftCardInactive(GiftCardError):
    error_code = "inactive_card"
    default_message = "The gift card is not active."


class InsufficientFunds(GiftCardError):
    error_code = "insufficient_funds"
    default_message = "The gift card balance is lower than the amount."


class IncorrectCurrency(GiftCardError):
    error_code = "incorrect_currency"
    default_message = "The gift card holds a different currency."


class InvalidAmount(GiftCardError):
    """A non-positive amount, or a refund larger than what is left to refund under its reference."""

    error_code = "invalid_amount"
    default_message = "The amount is not valid for this gift card."
