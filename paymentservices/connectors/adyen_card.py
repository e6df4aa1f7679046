"""The `adyen-card` connector: card payments through Adyen's Checkout API (v72), with Adyen's official library.

- authorize: `POST /payments` with the card, captured later (`additionalData.manualCapture`) unless the payment
  captures at once (`captureDelayHours: 0`). Our reference is Adyen's `reference` and the idempotency key of every
  write, so a retried call never makes a second payment.
- capture (full or partial), void (cancel) and refund (partial or full) act on the payment's `pspReference`. Adyen
  takes them asynchronously: its answer `received` means accepted, and the final word comes as a notification
  (CAPTURE, CANCELLATION, REFUND, or their _FAILED forms).
- A `resultCode` that is not a plain yes or no is never an approval: shopper actions (`RedirectShopper`,
  `IdentifyShopper`, `ChallengeShopper`, `PresentToShopper`), authentication-only answers, a partial authorization
  (never asked for) and an undecided payment (`Received`, `Pending`) are declines naming the code, and whatever
  Adyen may still hold under our reference is cancelled there (`POST /cancels`), so no money stays held for a
  payment this server answered as declined.
- lookup: Adyen's Checkout API has no read of a payment by reference, so it cannot say what became of an operation
  after a crash: `lookup` answers None. Adyen's AUTHORISATION notification (it carries our reference) settles such a
  payment; recovery waits for it, and past its bound `release`s the payment at Adyen (`POST /cancels` by our
  reference) and records it as never received (docs/payment-services.md).

A call that gets no answer (connection refused, timeout, Adyen's 5xx or rate limit, our key refused) is a FAILED
result, never a decline. A write that may have reached Adyen (a timeout after sending, a 5xx) is sent once more with
the same idempotency key, which makes Adyen answer with what it did the first time; when that gets no answer either,
an authorization is cancelled by our reference (best effort) before the FAILED answer, so failing over to another
service never leaves a second hold on the card.
"""

from __future__ import annotations

import binascii
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import requests
from Adyen import AdyenClient
from Adyen.exceptions import AdyenAPIResponseError, AdyenError
from Adyen.services.checkout import AdyenCheckoutApi
from Adyen.util import is_valid_hmac_notification
from django.conf import settings

from payments.connectors.base import AuthorizationRequest, ConnectorResult, Outcome
from paymentservices.connectors import MIN_CALL_SECONDS, NotificationRefused, ParsedNotification, PaymentChange
from paymentservices.connectors.fields import OPAQUE_SECRET, FieldRule
from paymentservices.connectors.hosts import url_allowed

logger = logging.getLogger(__name__)

# FAILED results: no answer about the payment (Adyen unreachable, slow, failing, or refusing our credentials).
NO_ANSWER = "service_error"
MISCONFIGURED = "invalid_service_configuration"

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

# A card payment's `returnUrl` (the document requires one): used only by redirect flows, which this server refuses.
DEFAULT_RETURN_PATH = "/adyen/return"

# The domains Adyen serves its APIs from: `checkout-test.adyen.com` (test) and
# `<prefix>-checkout-live.adyenpayments.com` (live), as Adyen's "Live endpoints" page gives them. No call goes anywhere
# else but ADYEN_API_BASE (docs/payment-services.md, "Where a connector may send").
ADYEN_DOMAINS = ("adyenpayments.com", "adyen.com")
# A FAILED result's code when the URL the connector built is not Adyen's: nothing was sent.
HOST_REFUSED = "host_refused"

# The fields' shapes (`paymentservices.definitions`), from what Adyen documents of each.
# The API key: Adyen documents no format for it (its keys carry any printable character), and it only ever travels in
# the `X-API-Key` header of a call to a checked host.
API_KEY = OPAQUE_SECRET
# The merchant account code: Adyen gives account codes as ASCII letters, digits and underscores (a dash is let through:
# it is harmless in a JSON body, and refusing a real account code would be worse).
MERCHANT_ACCOUNT = FieldRule(
    pattern=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    max_length=255,
    shape="is an Adyen merchant account code: ASCII letters, digits, '_' and '-'",
    example="YourCompanyECOM",
)
# The live URL prefix: "a hex-encoded random part and your company name" joined by a dash (Adyen's "Live endpoints"),
# the first label of the host `<prefix>-checkout-live.adyenpayments.com`; at most 49 characters, so that label stays
# within DNS's 63.
LIVE_URL_PREFIX = FieldRule(
    pattern=r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*",
    max_length=63 - len("-checkout-live"),
    shape="is Adyen's live URL prefix (Developers > API URLs): ASCII letters and digits in parts joined by single '-'",
    example="1797a841fbb37ca7-AdyenDemo",
)
# The HMAC key of a standard webhook: hexadecimal bytes (Adyen's library decodes it with `binascii.a2b_hex`).
HMAC_KEY = FieldRule(
    pattern=r"(?:[0-9A-Fa-f]{2})+",
    max_length=128,
    shape="is the webhook's HMAC key: hexadecimal digits, two per byte",
    example="44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056",
)


@dataclass(frozen=True)
class CredentialProblem:
    """Which credential field Adyen refused, and why (safe to show: never the value)."""

    field: str
    message: str


class _NoAnswer(Exception):
    """Adyen gave no answer; `sent` says whether the request may have reached it."""

    def __init__(self, *, sent: bool, code: str, misconfigured: bool = False) -> None:
        super().__init__(code)
        self.sent = sent
        self.code = code
        self.misconfigured = misconfigured


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, Mapping) else None


def _base_url(api_base: str, live_url_prefix: str | None) -> str:
    """Checkout v72's base URL: `api_base` when set (tests, a proxy), else Adyen's own for the account's mode."""
    if api_base:
        return api_base.rstrip("/")
    if live_url_prefix:
        return f"https://{live_url_prefix}-checkout-live.adyenpayments.com/checkout/v72"
    return "https://checkout-test.adyen.com/v72"


def _adyen_url(url: str) -> bool:
    """Whether a call may go to `url`: one of Adyen's hosts, or under ADYEN_API_BASE exactly as configured."""
    return url_allowed(url, domains=ADYEN_DOMAINS, configured=settings.ADYEN_API_BASE)


class HostRefused(AdyenError):  # type: ignore[misc] # the library is untyped
    """The URL a call was about to go to is not Adyen's (nor ADYEN_API_BASE): it was not sent."""


class _Client(AdyenClient):  # type: ignore[misc] # the library is untyped
    """Adyen's client, calling each URL as the connector built it and only when it is Adyen's. (The library itself
    would rewrite `-live` to `-test` in every URL of its test platform, and `-test` to `-live` on its live one.)"""

    def _determine_api_url(self, platform: str, endpoint: str) -> str:
        if not _adyen_url(endpoint):
            raise HostRefused("The URL is not one of Adyen's.")
        return endpoint


class AdyenConnector:
    """One Adyen merchant account (its API key and merchant account code). Reads no connection options."""

    connection_options_keys: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        *,
        api_key: str,
        merchant_account: str,
        live_url_prefix: str | None = None,
        timeout: float | None = None,
        deadline: float | None = None,
    ) -> None:
        self._merchant_account = merchant_account
        self._timeout = timeout or settings.ADYEN_TIMEOUT_SECONDS
        self._deadline = deadline
        self._client = client = _Client(
            xapikey=api_key, merchant_account=merchant_account, platform="test", http_timeout=self._timeout
        )
        self._checkout = AdyenCheckoutApi(client=client)
        base = _base_url(settings.ADYEN_API_BASE, live_url_prefix)
        # Checked once here (and again by the client for every URL it calls): a service whose URL is not Adyen's
        # sends nothing, and each call answers FAILED at once.
        self._host_refused = not _adyen_url(base)
        if self._host_refused:
            logger.warning(
                "Adyen connector for merchant account %s: its live URL prefix makes a URL that is not Adyen's; no call "
                "is sent",
                merchant_account if MERCHANT_ACCOUNT.refusal(merchant_account) is None else "(malformed)",
            )
        self._checkout.payments_api.baseUrl = base
        self._checkout.modifications_api.baseUrl = base

    def __repr__(self) -> str:  # never the key
        return f"AdyenConnector(merchant_account={self._merchant_account!r})"

    # --- calls ------------------------------------------------------------------------------------------------

    def _limit_to_deadline(self) -> None:
        """The next call waits at most ADYEN_TIMEOUT_SECONDS, and never past the payment's routing deadline."""
        if self._deadline is None:
            return
        timeout = max(MIN_CALL_SECONDS, min(self._timeout, self._deadline - time.monotonic()))
        self._client.http_timeout = timeout
        if self._client.http_init:  # the library builds its HTTP client once, with the timeout of that moment
            self._client.http_client.timeout = timeout

    def _call(self, call: Callable[..., Any], *args: Any, idempotency_key: str | None = None) -> dict[str, Any]:
        """One call through the library: Adyen's answer (2xx body), `AdyenAPIResponseError` for a 4xx that is
        Adyen's word on the request, `_NoAnswer` for anything else."""
        if self._host_refused:
            raise _NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True)
        self._limit_to_deadline()
        try:
            result = call(*args, idempotency_key=idempotency_key)
        except requests.exceptions.ConnectTimeout:
            raise _NoAnswer(sent=False, code="ConnectTimeout") from None
        except requests.exceptions.ConnectionError as exc:
            # Refused or never resolved: Adyen cannot have seen it. Cut off after sending: it may have acted on it.
            raise _NoAnswer(sent=_reset_after_sending(exc), code=type(exc).__name__) from None
        except requests.exceptions.RequestException as exc:  # a read timeout among them: the request went out
            raise _NoAnswer(sent=True, code=type(exc).__name__) from None
        except AdyenAPIResponseError as exc:
            status = int(exc.status_code or 0)
            if status in (401, 403):
                raise _NoAnswer(sent=False, code=str(status), misconfigured=True) from None
            if status in (400, 422):
                raise
            # 404 (a wrong base URL), 429, 5xx: no word on the request; a 5xx may have acted on it.
            raise _NoAnswer(sent=status >= 500, code=str(status), misconfigured=status == 404) from None
        except HostRefused:
            raise _NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True) from None
        except AdyenError as exc:
            raise _NoAnswer(sent=False, code=type(exc).__name__, misconfigured=True) from None
        message = result.message
        return message if isinstance(message, dict) else {}

    def _write(self, call: Callable[..., Any], *args: Any, idempotency_key: str) -> dict[str, Any]:
        """A write, sent a second time with the same idempotency key when the first may have reached Adyen: Adyen
        answers the repeat with what it did the first time (or does it now, once)."""
        try:
            return self._call(call, *args, idempotency_key=idempotency_key)
        except _NoAnswer as exc:
            if not exc.sent:
                raise
        return self._call(call, *args, idempotency_key=idempotency_key)

    # --- authorize --------------------------------------------------------------------------------------------

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        body = self._payment_request(request)
        try:
            answer = self._write(self._checkout.payments_api.payments, body, idempotency_key=request.reference)
        except _NoAnswer as exc:
            if exc.sent:
                self.release(request.reference)
            return _no_answer(exc)
        except AdyenAPIResponseError as exc:
            return _refused_request(exc)
        return self._payment_result(answer, request.reference)

    def _payment_request(self, request: AuthorizationRequest) -> dict[str, Any]:
        card = request.card
        payment_method: dict[str, Any] = {
            "type": "scheme",
            "number": card.number,
            "expiryMonth": f"{card.expiration_month:02d}",
            "expiryYear": f"{card.expiration_year:04d}",
        }
        if card.security_code:
            payment_method["cvc"] = card.security_code
        body: dict[str, Any] = {
            "amount": {"value": request.amount, "currency": request.currency},
            "merchantAccount": self._merchant_account,
            "reference": request.reference,
            "paymentMethod": payment_method,
            "returnUrl": (settings.PUBLIC_BASE_URL or "http://localhost").rstrip("/") + DEFAULT_RETURN_PATH,
        }
        if request.capture:
            body["captureDelayHours"] = 0
        else:
            body["additionalData"] = {"manualCapture": "true"}
        if request.country:
            body["countryCode"] = request.country
        if request.merchant_initiated:
            body["shopperInteraction"] = "ContAuth"
            body["recurringProcessingModel"] = "UnscheduledCardOnFile"
            if request.previous_scheme_transaction_id:
                body.setdefault("additionalData", {})["networkTxReference"] = request.previous_scheme_transaction_id
        descriptor = request.statement_descriptor
        if descriptor is not None and descriptor.name:
            body["shopperStatement"] = descriptor.name[:135]
        three_d_secure = request.three_d_secure
        if three_d_secure is not None:
            mpi: dict[str, Any] = {
                "cavv": three_d_secure.cavv,
                "eci": three_d_secure.eci,
                "directoryResponse": three_d_secure.directory_response,
                "threeDSVersion": three_d_secure.version,
            }
            if three_d_secure.authentication_response:
                mpi["authenticationResponse"] = three_d_secure.authentication_response
            if three_d_secure.directory_transaction_id:
                mpi["dsTransID"] = three_d_secure.directory_transaction_id
            if three_d_secure.cavv_algorithm:
                mpi["cavvAlgorithm"] = three_d_secure.cavv_algorithm
            if three_d_secure.xid:
                mpi["xid"] = three_d_secure.xid
            body["mpiData"] = mpi
        return body

    def _payment_result(self, answer: Mapping[str, Any], reference: str) -> ConnectorResult:
        code = str(_get(answer, "resultCode") or "")
        psp = _get(answer, "pspReference")
        additional = _get(answer, "additionalData") or {}
        cvv = CVC_RESULTS.get(str(_get(additional, "cvcResult") or "")[:1])
        if code in APPROVED_RESULTS:
            return ConnectorResult(
                outcome=Outcome.APPROVED,
                processor_reference=psp,
                raw_response_code=code,
                raw_response_description=str(_get(additional, "refusalReasonRaw") or code)[:255],
                cvv_response_code=cvv,
            )
        if code in DECLINED_RESULTS:
            reason_code = _get(answer, "refusalReasonCode")
            reason = _get(answer, "refusalReason")
            default = "processing_error" if code == "Error" else "cancelled" if code == "Cancelled" else DEFAULT_REFUSAL
            return ConnectorResult(
                outcome=Outcome.DECLINED,
                processor_reference=psp,
                error_code=REFUSAL_REASONS.get(str(reason_code), default) if reason_code else default,
                raw_response_code=str(reason_code) if reason_code else code,
                raw_response_description=_describe(reason, _get(additional, "refusalReasonRaw")) or code,
                cvv_response_code=cvv,
            )
        # Not an approval: a flow this server does not run (yet), or a payment Adyen has not decided. Nothing may stay
        # held at Adyen for a payment answered as declined.
        self.release(reference)
        error_code = SHOPPER_ACTION_RESULTS.get(code) or UNSUPPORTED_RESULTS.get(code, "processing_error")
        return ConnectorResult(
            outcome=Outcome.DECLINED,
            processor_reference=psp,
            error_code=error_code,
            raw_response_code=code or "unknown",
            raw_response_description=f"Adyen answered {code or 'with no result code'}: "
            "this server takes only an authorization decided at once.",
        )

    def release(self, reference: str) -> None:
        """Cancel at Adyen whatever payment it holds under our `reference` (best effort: nothing there is fine)."""
        body = {"merchantAccount": self._merchant_account, "paymentReference": reference, "reference": reference}
        try:
            self._call(
                self._checkout.modifications_api.cancel_authorised_payment,
                body,
                idempotency_key=f"{reference}:release",
            )
        except (_NoAnswer, AdyenAPIResponseError):
            logger.warning(
                "Could not cancel the Adyen payment with reference %s; it expires unused at Adyen", reference
            )

    # --- modifications ----------------------------------------------------------------------------------------

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        body = {
            "amount": {"value": amount, "currency": currency},
            "merchantAccount": self._merchant_account,
            "reference": reference,
        }
        call = self._checkout.modifications_api.capture_authorised_payment
        return self._modify(call, body, processor_reference, reference, keep=processor_reference)

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        body = {"merchantAccount": self._merchant_account, "reference": reference}
        call = self._checkout.modifications_api.cancel_authorised_payment_by_psp_reference
        return self._modify(call, body, processor_reference, reference, keep=processor_reference)

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        body = {
            "amount": {"value": amount, "currency": currency},
            "merchantAccount": self._merchant_account,
            "reference": reference,
        }
        call = self._checkout.modifications_api.refund_captured_payment
        return self._modify(call, body, processor_reference, reference, keep=None)

    def _modify(
        self, call: Callable[..., Any], body: dict[str, Any], psp: str, reference: str, *, keep: str | None
    ) -> ConnectorResult:
        """A modification of the payment `psp`; its result names the payment (`keep`) or, for a refund, the refund."""
        try:
            answer = self._write(call, body, psp, idempotency_key=reference)
        except _NoAnswer as exc:
            return _no_answer(exc)
        except AdyenAPIResponseError as exc:
            return _refused_request(exc)
        status = str(_get(answer, "status") or "received")
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=keep or _get(answer, "pspReference") or psp,
            raw_response_code=status,
            raw_response_description="Adyen accepted the request; its notification confirms the outcome.",
        )

    # --- lookup -----------------------------------------------------------------------------------------------

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """Adyen's Checkout API cannot be asked about a payment by our reference: None (see the module docstring)."""
        return None

    # --- credentials ------------------------------------------------------------------------------------------

    def verify(self) -> CredentialProblem | None:
        """One cheap authenticated call (the account's payment methods): None when Adyen takes the key and account."""
        try:
            self._call(self._checkout.payments_api.payment_methods, {"merchantAccount": self._merchant_account})
        except _NoAnswer as exc:
            if exc.code == "401":
                return CredentialProblem("api_key", "Adyen refused this API key.")
            if exc.code == "403":
                return CredentialProblem(
                    "merchant_account", "Adyen does not let this API key use this merchant account."
                )
            if exc.code == HOST_REFUSED:
                return CredentialProblem("live_url_prefix", "It does not make a URL of Adyen's.")
            raise ConnectionError("Adyen gave no answer.") from None
        except AdyenAPIResponseError:
            return CredentialProblem("merchant_account", "Adyen does not take this merchant account with this key.")
        return None


def _reset_after_sending(exc: requests.exceptions.ConnectionError) -> bool:
    """A connection error after the request went out (the answer was cut off): Adyen may have acted on it."""
    text = str(exc)
    return not ("NewConnectionError" in text or "Connection refused" in text or "Failed to resolve" in text)


def _describe(reason: Any, raw: Any) -> str | None:
    text = str(reason) if reason else ""
    if raw and str(raw) != text:
        text = f"{text} ({raw})" if text else str(raw)
    return text[:255] or None


def _no_answer(exc: _NoAnswer) -> ConnectorResult:
    if exc.code == HOST_REFUSED:
        description = "The service's live URL prefix does not make a URL of Adyen's: nothing was sent."
    else:
        description = "Adyen refused the credentials." if exc.misconfigured else "Adyen gave no answer."
    return ConnectorResult(
        outcome=Outcome.FAILED,
        error_code=MISCONFIGURED if exc.misconfigured else NO_ANSWER,
        raw_response_code=exc.code,
        raw_response_description=description,
    )


def _refused_request(exc: AdyenAPIResponseError) -> ConnectorResult:
    """Adyen's 400/422: it read the request and refused it (for a card, often the card's details)."""
    message = exc.message if isinstance(exc.message, Mapping) else {}
    error_code = str(_get(message, "errorCode") or exc.error_code or exc.status_code)
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=_get(message, "pspReference") or None,
        error_code=VALIDATION_ERRORS.get(error_code, "invalid_request"),
        raw_response_code=error_code,
        raw_response_description=str(_get(message, "message") or "")[:255] or None,
    )


def _settings(credentials: Mapping[str, str]) -> tuple[str, str, str | None]:
    return (
        credentials.get("api_key", ""),
        credentials.get("merchant_account", ""),
        credentials.get("live_url_prefix") or None,
    )


def connector(credentials: Mapping[str, str], *, deadline: float | None = None) -> AdyenConnector:
    api_key, merchant_account, live_url_prefix = _settings(credentials)
    return AdyenConnector(
        api_key=api_key, merchant_account=merchant_account, live_url_prefix=live_url_prefix, deadline=deadline
    )


def verify_credentials(credentials: Mapping[str, str]) -> CredentialProblem | None:
    """Check the key and merchant account with Adyen (the fields' shapes were checked by their rules before);
    unreachable Adyen raises."""
    return connector(credentials).verify()


ITEM_POINTER = "/notificationItems/0/NotificationRequestItem"
HMAC_POINTER = ITEM_POINTER + "/additionalData/hmacSignature"


def parse_notification(*, payload: bytes, headers: Mapping[str, str], secret: str) -> ParsedNotification:
    """The notification item Adyen signed with the service's HMAC key (checked by Adyen's library), once every signed
    field has its shape; anything else raises `NotificationRefused`. Adyen sends one item per notification; a batch
    of several is refused."""
    try:
        body = json.loads(payload)
    except ValueError:
        raise NotificationRefused("The body is not an Adyen notification.", pointer="/notificationItems") from None
    items = _get(body, "notificationItems")
    if not isinstance(items, list) or len(items) != 1:
        raise NotificationRefused("An Adyen notification carries exactly one item.", pointer="/notificationItems")
    item = _get(items[0], "NotificationRequestItem")
    signature = _get(_get(item, "additionalData"), "hmacSignature")
    amount = _get(item, "amount")
    if not isinstance(item, dict) or not signature or not isinstance(amount, Mapping):
        raise NotificationRefused(
            "The notification is unsigned or not an Adyen notification item.", pointer=HMAC_POINTER
        )
    _check_signed_fields(item, amount)
    try:
        valid = is_valid_hmac_notification(item, secret)
    except (binascii.Error, ValueError, KeyError, TypeError):
        valid = False
    if not valid:
        raise NotificationRefused("The HMAC signature does not match.", pointer=HMAC_POINTER)
    event_code, psp, success = item["eventCode"], item["pspReference"], item["success"]
    data = {key: value for key, value in item.items() if key != "additionalData"}
    payment = str(_get(item, "originalReference") or psp)
    return ParsedNotification(
        # Adyen's own rule for duplicates: the same event code, PSP reference and success flag.
        event_id=f"{event_code}:{psp}:{success}",
        event_type=event_code,
        # The event's own object: the payment for AUTHORISATION, the capture, cancel or refund for a modification
        # (whose notification names the payment as `originalReference`).
        object_id=psp,
        reference=str(_get(item, "merchantReference") or "") or None,
        data=data,
        change=_NOTIFIED_CHANGES.get((event_code, success == "true")),
        amount=amount["value"],
        payment_reference=payment,
        amount_is_total=False,  # Adyen notifies each refund (and capture) on its own
        authorization=_notified_authorization(item, payment) if event_code == "AUTHORISATION" else None,
    )


# The shapes of the fields Adyen's HMAC signs, joined by ':' (Adyen's webhook document and its "Verify HMAC
# signatures" page). Only `merchantReference` may hold a ':' (ours do: `<transaction>:capture`); every other signed
# field is colon-free, so no field's boundary can move while the signed string stays the same.
_SIGNED_SHAPES: dict[str, str] = {
    # "Adyen's 16-character unique reference" for every event about a payment this server acts on.
    "pspReference": r"[A-Za-z0-9]{16}",
    "originalReference": r"(?:[A-Za-z0-9]{16})?",
    "merchantAccountCode": MERCHANT_ACCOUNT.pattern,
    # Ours, or one given in the Customer Area: Adyen's `reference` has at most 80 characters.
    "merchantReference": r"[\x20-\x7e]{0,80}",
    "eventCode": r"[A-Z][A-Z_]{0,63}",
    "success": r"true|false",
}
# Events this server does not act on may name other objects in `pspReference` (a report's file name, a stored
# payment's token): any printable ASCII but the space and ':'.
_OTHER_REFERENCE = r"[\x21-\x39\x3b-\x7e]{1,255}"
_CURRENCY = r"[A-Z]{3}"
# `amount.value`: minor units, an int64 in Adyen's document; never negative.
MAX_NOTIFIED_AMOUNT = 2**63 - 1


def _check_signed_fields(item: Mapping[str, Any], amount: Mapping[str, Any]) -> None:
    """Refuse (naming it) the first signed field without its shape, before the signature or anything else trusts it."""
    event_code = item.get("eventCode")
    acted_on = event_code == "AUTHORISATION" or any(event_code == code for code, _ in _NOTIFIED_CHANGES)
    for name, shape in _SIGNED_SHAPES.items():
        value = item.get(name, "")
        if name in ("pspReference", "originalReference") and not acted_on:
            shape = _OTHER_REFERENCE if name == "pspReference" else f"(?:{_OTHER_REFERENCE})?"
        if not isinstance(value, str) or re.fullmatch(shape, value, flags=re.ASCII) is None:
            raise NotificationRefused(f"`{name}` is not what Adyen sends.", pointer=f"{ITEM_POINTER}/{name}")
    value = amount.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NOTIFIED_AMOUNT:
        raise NotificationRefused(
            "`amount.value` is not an amount Adyen sends (minor units, never negative).",
            pointer=f"{ITEM_POINTER}/amount/value",
        )
    currency = amount.get("currency")
    if not isinstance(currency, str) or re.fullmatch(_CURRENCY, currency, flags=re.ASCII) is None:
        raise NotificationRefused(
            "`amount.currency` is not a currency code.", pointer=f"{ITEM_POINTER}/amount/currency"
        )


# What a notification (its event code and success flag) means for a payment. A failed cancel changes nothing: the
# payment stays as it was at Adyen.
_NOTIFIED_CHANGES: dict[tuple[str, bool], str] = {
    ("CAPTURE", True): PaymentChange.CAPTURED,
    ("CAPTURE", False): PaymentChange.CAPTURE_FAILED,
    ("CAPTURE_FAILED", True): PaymentChange.CAPTURE_FAILED,
    ("CANCELLATION", True): PaymentChange.VOIDED,
    ("REFUND", True): PaymentChange.REFUNDED,
    ("REFUND", False): PaymentChange.REFUND_FAILED,
    ("REFUND_FAILED", True): PaymentChange.REFUND_FAILED,
    ("REFUNDED_REVERSED", True): PaymentChange.REFUND_FAILED,
}


def _notified_authorization(item: Mapping[str, Any], payment: str) -> ConnectorResult:
    """AUTHORISATION's word on a payment: authorised, or refused for the `reason` it gives (Adyen's words; the
    notification carries no refusal code, so the error is the issuer's decline)."""
    if str(_get(item, "success") or "") == "true":
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=payment,
            raw_response_code="Authorised",
            raw_response_description="Authorised (Adyen's AUTHORISATION notification)",
        )
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=payment,
        error_code=DEFAULT_REFUSAL,
        raw_response_code="Refused",
        raw_response_description=str(_get(item, "reason") or "Refused")[:255],
    )
