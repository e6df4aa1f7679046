"""Adyen's result and refusal codes in upstream's words (`adyen.connector` reads them)."""

from __future__ import annotations

# Adyen's refusal reasons (`refusalReasonCode`, see Adyen's "Authorisation refusal reasons") as upstream's
# `error_code`; the code and Adyen's words are kept as `raw_response_code` / `raw_response_description`. A code not
# listed is the issuer declining.
REFUSAL_REASONS: dict[str, str] = {
    "2": "do_not_honor",  # Refused
    "3": "issuer_decline",  # Referral
    "4": "processing_error",  # Acquirer Error
    "5": "restricted_card",  # Blocked Card
    "6": "expired_card",  # Expired Card
    "7": "invalid_amount",  # Invalid Amount
    "8": "invalid_card_number",  # Invalid Card Number
    "9": "issuer_unavailable",  # Issuer Unavailable
    "10": "unsupported_card",  # Not supported
    "11": "failed_three_d_secure",  # 3D Not Authenticated
    "12": "insufficient_funds",  # Not enough balance
    "14": "suspected_fraud",  # Acquirer Fraud
    "15": "cancelled",  # Cancelled
    "16": "cancelled",  # Shopper Cancelled
    "17": "incorrect_pin",  # Invalid Pin
    "18": "exceeds_limit",  # Pin tries exceeded
    "19": "incorrect_pin",  # Pin validation not possible
    "20": "suspected_fraud",  # FRAUD
    "21": "processing_error",  # Not Submitted (to the acquirer: never reached the issuer)
    "22": "suspected_fraud",  # FRAUD-CANCELLED
    "23": "transaction_not_permitted",  # Transaction Not Permitted
    "24": "incorrect_cvv",  # CVC Declined
    "25": "restricted_card",  # Restricted Card
    "26": "revocation_of_authorization",  # Revocation Of Auth
    "27": "issuer_decline",  # Declined Non Generic
    "28": "exceeds_limit",  # Withdrawal amount exceeded
    "29": "exceeds_limit",  # Withdrawal count exceeded
    "31": "suspected_fraud",  # Issuer Suspected Fraud
    "32": "incorrect_billing_address",  # AVS Declined
    "33": "requires_pin",  # Card requires online pin
    "34": "unsupported_card",  # No checking account available on Card
    "35": "unsupported_card",  # No savings account available on Card
    "36": "requires_pin",  # Mobile pin required
    "37": "issuer_decline",  # Contactless fallback
    "38": "requires_three_d_secure",  # Authentication required
    "39": "failed_three_d_secure",  # RReq not received from DS
    "42": "failed_three_d_secure",  # 3DS Authentication Error
}
DEFAULT_REFUSAL = "issuer_decline"

# `POST /payments` answered 422 (Adyen's validation of the card it was given): Adyen's `errorCode`s that say what was
# wrong with the card, as upstream's `error_code`. Any other 422 or 400 is our request refused (`invalid_request`).
VALIDATION_ERRORS: dict[str, str] = {
    "101": "invalid_card_number",  # Invalid card number
    "102": "invalid_card_number",  # Unable to determine variant
    "103": "incorrect_cvv",  # CVC is not the right length
    "104": "incorrect_billing_address",  # Billing address problem
    "129": "invalid_expiry_date",  # Expiry date invalid
    "140": "invalid_expiry_date",  # Invalid expiry month / year
}
# Adyen's API error codes saying the stored payment method a payment named is gone (its "API error codes" page: 800
# "Contract not found", 803 "PaymentDetail is not found"): the token is revoked, the card is sent next time.
STORED_METHOD_MISSING = frozenset({"800", "803"})

# Every `resultCode` of Checkout v72's PaymentResponse, by what it means for a card payment this server asked for.
APPROVED_RESULTS = frozenset({"Authorised"})
DECLINED_RESULTS = frozenset({"Refused", "Error", "Cancelled"})
# Adyen waits for the shopper (3-D Secure, a redirect, a voucher): flows this server does not run through Adyen yet.
SHOPPER_ACTION_RESULTS = {
    "RedirectShopper": "requires_three_d_secure",
    "IdentifyShopper": "requires_three_d_secure",
    "ChallengeShopper": "requires_three_d_secure",
    "PresentToShopper": "unsupported_payment_flow",
}
# Answers to requests this server never makes (authentication only, partial authorization) or payments Adyen has not
# decided yet: none is an approval, and the payment is released at Adyen.
UNSUPPORTED_RESULTS = {
    "AuthenticationFinished": "unsupported_payment_flow",
    "AuthenticationNotRequired": "unsupported_payment_flow",
    "PartiallyAuthorised": "insufficient_funds",
    "Received": "processing_pending",
    "Pending": "processing_pending",
    "Success": "unsupported_payment_flow",
}

# Adyen's CVC check (the digit that starts `additionalData.cvcResult`) in upstream's words.
CVC_RESULTS = {
    "0": "unavailable",
    "1": "match",
    "2": "no_match",
    "3": "unavailable",
    "4": "not_provided",
    "5": "unavailable",
    "6": "not_provided",
}
