"""What each normalised `error_code` means to a merchant, and what to do about it.

Every processor's code table (`<name>/codes.py`) translates its own codes into upstream's `error_code` vocabulary; this
is that vocabulary in plain words, for the support desk: a short label, one sentence of what happened, and the next
step. Each processor's tests check that every code its table can answer is here, so a new code cannot reach the desk
unexplained; a code that still does (an old row, a processor's new word) is shown as itself, said to be unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Explanation:
    """A code in the merchant's words: `label` for lists and filters, `meaning` and `next_step` for the page."""

    code: str
    label: str
    meaning: str
    next_step: str

    @property
    def sentence(self) -> str:
        return f"{self.meaning} {self.next_step}"


_ASK_FOR_ANOTHER_CARD = "Ask the customer to use another card."
_ASK_TO_CALL_THE_BANK = "Ask the customer to contact their bank, or to use another card."
_TRY_AGAIN_LATER = "Try again in a few minutes; if it keeps happening, check the processor's status page."
_CHECK_THE_SERVICE = "Check the payment service's credentials and settings on the desk, then try again."

_EXPLANATIONS = (
    # The card's bank said no.
    Explanation(
        "issuer_decline", "Declined by the bank", "The card's bank declined the payment.", _ASK_TO_CALL_THE_BANK
    ),
    Explanation(
        "do_not_honor",
        "Declined by the bank, no reason given",
        "The card's bank declined the payment without giving a reason.",
        _ASK_TO_CALL_THE_BANK,
    ),
    Explanation("declined", "Declined", "The payment was declined.", "Ask the customer to pay another way."),
    Explanation(
        "insufficient_funds",
        "Insufficient funds",
        "The card's account does not hold enough money for this payment.",
        "Ask the customer to use another card, or to pay a smaller amount.",
    ),
    Explanation(
        "exceeds_limit",
        "Over the card's limit",
        "The payment is over a limit the bank sets on this card (an amount, a count, or PIN attempts).",
        _ASK_TO_CALL_THE_BANK,
    ),
    Explanation(
        "restricted_card",
        "Card blocked",
        "The bank has blocked this card (it may be reported lost or stolen).",
        "Do not try this card again; ask the customer for another one.",
    ),
    Explanation(
        "suspected_fraud",
        "Suspected fraud",
        "The bank or the processor declined the payment as likely fraud.",
        "Do not try this card again; if the customer is genuine, they should contact their bank.",
    ),
    Explanation(
        "transaction_not_permitted",
        "Not allowed on this card",
        "The bank does not allow this kind of payment on this card.",
        _ASK_FOR_ANOTHER_CARD,
    ),
    Explanation(
        "revocation_of_authorization",
        "Customer stopped payments",
        "The cardholder told their bank to stop payments to this merchant.",
        "Do not charge this card again; contact the customer.",
    ),
    Explanation(
        "card_replaced",
        "Card replaced",
        "The bank has replaced this card with a new one.",
        "Ask the customer for their new card details.",
    ),
    # Something about the card's details.
    Explanation(
        "expired_card", "Card expired", "The card has expired.", "Ask the customer for a card that is still valid."
    ),
    Explanation(
        "invalid_card_number",
        "Wrong card number",
        "The card number is not one the bank knows.",
        "Ask the customer to check the number, or to use another card.",
    ),
    Explanation(
        "invalid_expiry_date",
        "Wrong expiry date",
        "The expiry date does not match the card.",
        "Ask the customer to check the date printed on the card.",
    ),
    Explanation(
        "incorrect_cvv",
        "Wrong security code",
        "The security code does not match the card.",
        "Ask the customer to check the three or four digits on the card.",
    ),
    Explanation(
        "incorrect_pin",
        "Wrong PIN",
        "The PIN was wrong, or could not be checked.",
        "Ask the customer to try again with the right PIN.",
    ),
    Explanation(
        "requires_pin",
        "PIN needed",
        "The bank asks for the card's PIN, which an online payment cannot give.",
        _ASK_FOR_ANOTHER_CARD,
    ),
    Explanation(
        "incorrect_billing_address",
        "Billing address does not match",
        "The billing address does not match what the bank holds for the card.",
        "Ask the customer to check their billing address and postcode.",
    ),
    Explanation(
        "unsupported_card",
        "Card not supported",
        "This card (its brand or account type) cannot be used for this payment.",
        _ASK_FOR_ANOTHER_CARD,
    ),
    Explanation(
        "unsupported_currency",
        "Currency not supported",
        "The card or the processor does not take payments in this currency.",
        "Take the payment in another currency, or through another payment service.",
    ),
    Explanation(
        "invalid_amount",
        "Amount not accepted",
        "The processor did not accept the amount (too large, too small, or more than is left to capture or refund).",
        "Check the amount against what the payment allows, then try again.",
    ),
    # The buyer's part: authentication and approval.
    Explanation(
        "requires_three_d_secure",
        "3-D Secure needed",
        "The bank requires the cardholder to authenticate (3-D Secure) for this payment.",
        "Take the payment again with 3-D Secure switched on for the account.",
    ),
    Explanation(
        "failed_three_d_secure",
        "3-D Secure failed",
        "The cardholder did not pass the bank's 3-D Secure check.",
        "Ask the customer to try again, or to use another card.",
    ),
    Explanation(
        "failed_buyer_approval",
        "Customer did not approve",
        "The customer did not approve the payment (they refused, or did not pass the check).",
        "Ask the customer to try again, or to pay another way.",
    ),
    Explanation(
        "incomplete_buyer_approval",
        "Approval not finished",
        "The customer did not finish approving the payment in time.",
        "Ask the customer to start the payment again.",
    ),
    Explanation(
        "cancelled",
        "Cancelled",
        "The payment was cancelled before it completed, by the customer or the processor.",
        "Nothing to do unless the customer still wants to pay; then start a new payment.",
    ),
    # The processor or this server's configuration.
    Explanation(
        "service_error",
        "Processor did not answer",
        "The payment service did not answer in time, or answered with an error.",
        _TRY_AGAIN_LATER,
    ),
    Explanation(
        "issuer_unavailable",
        "Bank unavailable",
        "The card's bank could not be reached.",
        _TRY_AGAIN_LATER,
    ),
    Explanation(
        "processing_error",
        "Processing error",
        "The processor or the bank could not process the payment.",
        _TRY_AGAIN_LATER,
    ),
    Explanation(
        "processing_pending",
        "Not decided",
        "The processor had not decided the payment, so it was released rather than left waiting.",
        "Try the payment again.",
    ),
    Explanation(
        "invalid_service_configuration",
        "Service set up wrongly",
        "The payment service's credentials or settings were refused by the processor.",
        _CHECK_THE_SERVICE,
    ),
    Explanation(
        "invalid_request",
        "Request refused by the processor",
        "The processor refused the request as it was sent.",
        "Check the payment's details (amount, currency, card), then try again; if it repeats, report it.",
    ),
    Explanation(
        "unsupported_payment_flow",
        "Payment flow not supported",
        "The processor asked for a step this server does not run with it (a redirect or a voucher).",
        "Route this kind of payment to another payment service.",
    ),
    Explanation(
        "unsupported_payment_method",
        "Payment method not supported",
        "The payment service cannot take this way of paying.",
        "Route this payment method to another payment service.",
    ),
    Explanation(
        "duplicate_transaction",
        "Duplicate payment",
        "The processor already has a payment with this reference.",
        "Check for the earlier payment before taking it again.",
    ),
    Explanation(
        "authorization_expired",
        "Authorization expired",
        "The authorization expired before it was captured.",
        "Take a new payment for the amount still due.",
    ),
    Explanation(
        "authorization_voided",
        "Authorization voided",
        "The authorization was voided, so nothing is left to capture.",
        "Take a new payment if money is still due.",
    ),
    Explanation(
        "refund_failed",
        "Refund failed",
        "The processor could not return the money to the card.",
        "Check the refund at the processor, then refund the customer another way if needed.",
    ),
)

EXPLANATIONS: dict[str, Explanation] = {explanation.code: explanation for explanation in _EXPLANATIONS}


def explain(code: str) -> Explanation:
    """The code in plain words; a code with no entry is shown as itself and said to be unexplained (never hidden)."""
    return EXPLANATIONS.get(code) or Explanation(
        code, code, f"The processor answered {code!r}, a code this server has no explanation for.", ""
    )
