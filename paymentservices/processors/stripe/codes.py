"""Stripe's decline codes in upstream's words (`stripe.connector` reads them)."""

from __future__ import annotations

# Stripe's decline codes (a CardError's `decline_code`, else its `code`; Stripe's "Decline codes" page) as upstream's
# `error_code`; the raw code is kept as `raw_response_code`. Anything else a card error says is the issuer declining.
# `do_not_honor`, `issuer_unavailable` and `processing_error` are kept apart from that: cascading rules name them.
DECLINE_CODES: dict[str, str] = {
    "do_not_honor": "do_not_honor",
    "issuer_not_available": "issuer_unavailable",  # the issuer could not be reached
    "try_again_later": "issuer_unavailable",  # a temporary refusal: the issuer asks to be tried again
    "reenter_transaction": "processing_error",  # the issuer could not process it; Stripe advises a retry
    "processing_error": "processing_error",
    "insufficient_funds": "insufficient_funds",
    "incorrect_cvc": "incorrect_cvv",
    "invalid_cvc": "incorrect_cvv",
    "expired_card": "expired_card",
    "invalid_expiry_month": "invalid_expiry_date",
    "invalid_expiry_year": "invalid_expiry_date",
    "incorrect_number": "invalid_card_number",
    "invalid_number": "invalid_card_number",
    "fraudulent": "suspected_fraud",
    "merchant_blacklist": "suspected_fraud",
    "lost_card": "restricted_card",
    "stolen_card": "restricted_card",
    "pickup_card": "restricted_card",
    "restricted_card": "restricted_card",
    "card_not_supported": "unsupported_card",
    "currency_not_supported": "unsupported_currency",
    "card_velocity_exceeded": "exceeds_limit",
    "withdrawal_count_limit_exceeded": "exceeds_limit",
    "authentication_required": "requires_three_d_secure",
    "invalid_amount": "invalid_amount",
    "invalid_pin": "incorrect_pin",
    "pin_try_exceeded": "exceeds_limit",
    "incorrect_zip": "incorrect_billing_address",
    "security_violation": "suspected_fraud",
    "not_permitted": "transaction_not_permitted",
    "service_not_allowed": "transaction_not_permitted",
    "revocation_of_authorization": "revocation_of_authorization",
    "revocation_of_all_authorizations": "revocation_of_authorization",
    "stop_payment_order": "revocation_of_authorization",
    # The buyer failed (or gave up) Stripe's own 3-D Secure.
    "payment_intent_authentication_failure": "failed_three_d_secure",
    "generic_decline": "issuer_decline",
    "card_declined": "issuer_decline",
}
DEFAULT_DECLINE = "issuer_decline"
