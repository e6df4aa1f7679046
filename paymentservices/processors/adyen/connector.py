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

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import requests
from Adyen.exceptions import AdyenAPIResponseError, AdyenError
from Adyen.services.checkout import AdyenCheckoutApi
from Adyen.services.payouts import InstantPayoutsApi
from django.conf import settings

from payments.connectors.base import AuthorizationRequest, CardDetails, ConnectorResult, NetworkToken, Outcome
from paymentservices.processors.adyen.codes import (
    APPROVED_RESULTS,
    CVC_RESULTS,
    DECLINED_RESULTS,
    DEFAULT_REFUSAL,
    REFUSAL_REASONS,
    SHOPPER_ACTION_RESULTS,
    STORED_METHOD_MISSING,
    UNSUPPORTED_RESULTS,
    VALIDATION_ERRORS,
)
from paymentservices.processors.adyen.http import SessionClient
from paymentservices.processors.adyen.rules import MERCHANT_ACCOUNT
from paymentservices.processors.calls import (
    HOST_REFUSED,
    NoAnswer,
    call_timeout,
    field_of,
    never_connected,
    unanswered,
)
from paymentservices.processors.config import processor_settings
from paymentservices.processors.hosts import url_allowed
from paymentservices.processors.seam import CredentialProblem

logger = logging.getLogger(__name__)

# A card payment's `returnUrl` (the document requires one): used only by redirect flows, which this server refuses.
DEFAULT_RETURN_PATH = "/adyen/return"

# The domains Adyen serves its APIs from: `checkout-test.adyen.com` (test) and
# `<prefix>-checkout-live.adyenpayments.com` (live), as Adyen's "Live endpoints" page gives them. No call goes anywhere
# else but ADYEN_API_BASE (docs/payment-services.md, "Where a connector may send").
ADYEN_DOMAINS = ("adyenpayments.com", "adyen.com")


def _base_url(api_base: str, live_url_prefix: str | None) -> str:
    """Checkout v72's base URL: `api_base` when set (tests, a proxy), else Adyen's own for the account's mode."""
    if api_base:
        return api_base.rstrip("/")
    if live_url_prefix:
        return f"https://{live_url_prefix}-checkout-live.adyenpayments.com/checkout/v72"
    return "https://checkout-test.adyen.com/v72"


def _payout_base_url(api_base: str, live_url_prefix: str | None) -> str:
    """The Payout API's (v68) base URL: `api_base` when set (tests, a proxy), else Adyen's own for the account's
    mode."""
    if api_base:
        return api_base.rstrip("/")
    if live_url_prefix:
        return f"https://{live_url_prefix}-pal-live.adyenpayments.com/pal/servlet/Payout/v68"
    return "https://pal-test.adyen.com/pal/servlet/Payout/v68"


def _adyen_url(url: str) -> bool:
    """Whether a call may go to `url`: one of Adyen's hosts, or under ADYEN_API_BASE (or ADYEN_PAYOUT_API_BASE)
    exactly as configured."""
    configured = processor_settings("adyen")
    return any(
        url_allowed(url, domains=ADYEN_DOMAINS, configured=configured.get(base, ""))
        for base in ("API_BASE", "PAYOUT_API_BASE")
    )


class HostRefused(AdyenError):  # type: ignore[misc] # the library is untyped
    """The URL a call was about to go to is not Adyen's (nor ADYEN_API_BASE): it was not sent."""


class _Client(SessionClient):
    """Adyen's client, calling each URL as the connector built it and only when it is Adyen's. (The library itself
    would rewrite `-live` to `-test` in every URL of its test platform, and `-test` to `-live` on its live one.)"""

    def _determine_api_url(self, platform: str, endpoint: str) -> str:
        if not _adyen_url(endpoint):
            raise HostRefused("The URL is not one of Adyen's.")
        return endpoint


# The currency of the zero-value check that stores a card: nothing is charged, so any currency Adyen takes will do.
STORE_CHECK_CURRENCY = "EUR"


def _card_method(card: CardDetails) -> dict[str, Any]:
    """The card as Adyen's `scheme` payment method."""
    method: dict[str, Any] = {
        "type": "scheme",
        "number": card.number,
        "expiryMonth": f"{card.expiration_month:02d}",
        "expiryYear": f"{card.expiration_year:04d}",
    }
    if card.security_code:
        method["cvc"] = card.security_code
    return method


def _network_token_method(card: CardDetails) -> dict[str, Any]:
    """A digital wallet's device number as Adyen's `networkToken` payment method (its cryptogram goes in `mpiData`)."""
    return {**_card_method(replace(card, security_code=None)), "type": "networkToken"}


def _network_token_mpi(token: NetworkToken) -> dict[str, Any]:
    """The device's cryptogram as Adyen takes a network token's (TAVV), with its ECI: the wallet authenticated the
    buyer, so the authentication is reported as successful."""
    mpi: dict[str, Any] = {
        "directoryResponse": "Y",
        "authenticationResponse": "Y",
        "tokenAuthenticationVerificationValue": token.cryptogram,
    }
    if token.eci:
        mpi["eci"] = token.eci
    return mpi


class AdyenConnector:
    """One Adyen merchant account (its API key and merchant account code)."""

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
        self._timeout = timeout or processor_settings("adyen")["TIMEOUT_SECONDS"]
        self._deadline = deadline
        self._client = client = _Client(
            xapikey=api_key, merchant_account=merchant_account, platform="test", http_timeout=self._timeout
        )
        self._checkout = AdyenCheckoutApi(client=client)
        base = _base_url(processor_settings("adyen")["API_BASE"], live_url_prefix)
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
        self._checkout.recurring_api.baseUrl = base
        self._payouts = InstantPayoutsApi(client=client)
        payout_base = _payout_base_url(processor_settings("adyen").get("PAYOUT_API_BASE", ""), live_url_prefix)
        self._payouts.baseUrl = payout_base
        self._payout_host_refused = not _adyen_url(payout_base)

    def __repr__(self) -> str:  # never the key
        return f"AdyenConnector(merchant_account={self._merchant_account!r})"

    # --- calls ------------------------------------------------------------------------------------------------

    def _limit_to_deadline(self) -> None:
        """The next call waits at most ADYEN_TIMEOUT_SECONDS, and never past the payment's routing deadline."""
        if self._deadline is None:
            return
        timeout = call_timeout(self._timeout, self._deadline)
        self._client.http_timeout = timeout
        if self._client.http_init:  # the library builds its HTTP client once, with the timeout of that moment
            self._client.http_client.timeout = timeout

    def _call(self, call: Callable[..., Any], *args: Any, idempotency_key: str | None = None) -> dict[str, Any]:
        """One call through the library: Adyen's answer (2xx body), `AdyenAPIResponseError` for a 4xx that is
        Adyen's word on the request, `NoAnswer` for anything else."""
        if self._host_refused:
            raise NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True)
        self._limit_to_deadline()
        try:
            result = call(*args, idempotency_key=idempotency_key)
        except requests.exceptions.ConnectTimeout:
            raise NoAnswer(sent=False, code="ConnectTimeout") from None
        except requests.exceptions.ConnectionError as exc:
            # Refused or never resolved: Adyen cannot have seen it. Cut off after sending: it may have acted on it.
            raise NoAnswer(sent=_reset_after_sending(exc), code=type(exc).__name__) from None
        except requests.exceptions.RequestException as exc:  # a read timeout among them: the request went out
            raise NoAnswer(sent=True, code=type(exc).__name__) from None
        except AdyenAPIResponseError as exc:
            status = int(exc.status_code or 0)
            if status in (401, 403):
                raise NoAnswer(sent=False, code=str(status), misconfigured=True) from None
            if status in (400, 422):
                raise
            # 404 (a wrong base URL), 429, 5xx: no word on the request; a 5xx may have acted on it.
            raise NoAnswer(sent=status >= 500, code=str(status), misconfigured=status == 404) from None
        except HostRefused:
            raise NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True) from None
        except AdyenError as exc:
            raise NoAnswer(sent=False, code=type(exc).__name__, misconfigured=True) from None
        message = result.message
        return message if isinstance(message, dict) else {}

    def _write(self, call: Callable[..., Any], *args: Any, idempotency_key: str) -> dict[str, Any]:
        """A write, sent a second time with the same idempotency key when the first may have reached Adyen: Adyen
        answers the repeat with what it did the first time (or does it now, once)."""
        try:
            return self._call(call, *args, idempotency_key=idempotency_key)
        except NoAnswer as exc:
            if not exc.sent:
                raise
        return self._call(call, *args, idempotency_key=idempotency_key)

    # --- authorize --------------------------------------------------------------------------------------------

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        body = self._payment_request(request)
        try:
            answer = self._write(self._checkout.payments_api.payments, body, idempotency_key=request.reference)
        except NoAnswer as exc:
            if exc.sent:
                self.release(request.reference)
            return no_answer_result(exc)
        except AdyenAPIResponseError as exc:
            refused = refused_request(exc)
            gone = request.processor_token is not None and refused.raw_response_code in STORED_METHOD_MISSING
            return replace(refused, token_revoked=True) if gone else refused
        return self._payment_result(answer, request.reference)

    def _payment_request(self, request: AuthorizationRequest) -> dict[str, Any]:
        kept = request.processor_token
        body: dict[str, Any] = {
            "amount": {"value": request.amount, "currency": request.currency},
            "merchantAccount": self._merchant_account,
            "reference": request.reference,
            # The card's stored payment method at Adyen, for the shopper it is stored for: no card number is sent.
            "paymentMethod": self._payment_method(request),
            "returnUrl": (settings.PUBLIC_BASE_URL or "http://localhost").rstrip("/") + DEFAULT_RETURN_PATH,
        }
        if kept is not None:
            body["shopperReference"] = kept.customer
            body["shopperInteraction"] = "ContAuth"
            body["recurringProcessingModel"] = "CardOnFile"
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
        if request.network_token is not None:
            body["shopperInteraction"] = "Ecommerce"
            body["mpiData"] = _network_token_mpi(request.network_token)
        return body

    @staticmethod
    def _payment_method(request: AuthorizationRequest) -> dict[str, Any]:
        if request.processor_token is not None:
            return {"type": "scheme", "storedPaymentMethodId": request.processor_token.token}
        if request.network_token is not None:
            return _network_token_method(request.card)
        return _card_method(request.card)

    def store_card(self, *, card: CardDetails, shopper_reference: str) -> dict[str, Any]:
        """Adyen's answer to a zero-value check of the card that stores it (`storePaymentMethod`) for the shopper
        `shopper_reference` names, for later card-on-file payments. Raises `NoAnswer`, or `AdyenAPIResponseError`
        when Adyen refuses the request."""
        body = {
            "amount": {"value": 0, "currency": STORE_CHECK_CURRENCY},
            "merchantAccount": self._merchant_account,
            "reference": f"{shopper_reference}:store",
            "paymentMethod": _card_method(card),
            "shopperReference": shopper_reference,
            "storePaymentMethod": True,
            "shopperInteraction": "Ecommerce",
            "recurringProcessingModel": "UnscheduledCardOnFile",
            "returnUrl": (settings.PUBLIC_BASE_URL or "http://localhost").rstrip("/") + DEFAULT_RETURN_PATH,
        }
        return self._write(self._checkout.payments_api.payments, body, idempotency_key=f"{shopper_reference}:store")

    def forget_stored_card(self, *, token: str, shopper_reference: str) -> None:
        """Ask Adyen to delete the stored payment method `token` of the shopper `shopper_reference` names (`DELETE
        /storedPaymentMethods/{id}`). Raises `NoAnswer`, or `AdyenAPIResponseError` when Adyen refuses the request
        (a stored payment method it no longer has)."""
        query = {"shopperReference": shopper_reference, "merchantAccount": self._merchant_account}
        delete = self._checkout.recurring_api.delete_token_for_stored_payment_details
        self._call(lambda **options: delete(token, query_parameters=query, **options))

    def _payment_result(self, answer: Mapping[str, Any], reference: str) -> ConnectorResult:
        code = str(field_of(answer, "resultCode") or "")
        psp = field_of(answer, "pspReference")
        additional = field_of(answer, "additionalData") or {}
        cvv = CVC_RESULTS.get(str(field_of(additional, "cvcResult") or "")[:1])
        if code in APPROVED_RESULTS:
            return ConnectorResult(
                outcome=Outcome.APPROVED,
                processor_reference=psp,
                raw_response_code=code,
                raw_response_description=str(field_of(additional, "refusalReasonRaw") or code)[:255],
                cvv_response_code=cvv,
            )
        if code in DECLINED_RESULTS:
            reason_code = field_of(answer, "refusalReasonCode")
            reason = field_of(answer, "refusalReason")
            default = "processing_error" if code == "Error" else "cancelled" if code == "Cancelled" else DEFAULT_REFUSAL
            return ConnectorResult(
                outcome=Outcome.DECLINED,
                processor_reference=psp,
                error_code=REFUSAL_REASONS.get(str(reason_code), default) if reason_code else default,
                raw_response_code=str(reason_code) if reason_code else code,
                raw_response_description=describe(reason, field_of(additional, "refusalReasonRaw")) or code,
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
        except (NoAnswer, AdyenAPIResponseError):
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

    def increment_authorization(
        self, *, processor_reference: str, amount: int, total: int, currency: str, reference: str
    ) -> ConnectorResult:
        """Adyen's amount update (`/amountUpdates`) takes the new total; `refused` is a decline, anything else is
        accepted (its AUTHORISATION_ADJUSTMENT notification confirms it)."""
        body = {
            "amount": {"value": total, "currency": currency},
            "merchantAccount": self._merchant_account,
            "reference": reference,
            "industryUsage": "delayedCharge",
        }
        call = self._checkout.modifications_api.update_authorised_amount
        result = self._modify(call, body, processor_reference, reference, keep=processor_reference)
        if result.raw_response_code != "refused":
            return result
        return replace(result, outcome=Outcome.DECLINED, error_code="issuer_decline", raw_response_description=None)

    def _modify(
        self, call: Callable[..., Any], body: dict[str, Any], psp: str, reference: str, *, keep: str | None
    ) -> ConnectorResult:
        """A modification of the payment `psp`; its result names the payment (`keep`) or, for a refund, the refund."""
        try:
            answer = self._write(call, body, psp, idempotency_key=reference)
        except NoAnswer as exc:
            return no_answer_result(exc)
        except AdyenAPIResponseError as exc:
            return refused_request(exc)
        status = str(field_of(answer, "status") or "received")
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=keep or field_of(answer, "pspReference") or psp,
            raw_response_code=status,
            raw_response_description="Adyen accepted the request; its notification confirms the outcome.",
        )

    # --- payouts ----------------------------------------------------------------------------------------------

    def payout(self, body: dict[str, Any], *, reference: str) -> dict[str, Any]:
        """`POST /payout` (instant card payout) with `body`, our `reference` its idempotency key, so a repeat answers
        what Adyen did the first time: Adyen's answer, `AdyenAPIResponseError` for its refusal of the request,
        `NoAnswer` for anything else (`sent`: it may have acted)."""
        if self._payout_host_refused:
            raise NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True)
        body = {**body, "merchantAccount": self._merchant_account}
        return self._write(self._payouts.payout, body, idempotency_key=reference)

    # --- lookup -----------------------------------------------------------------------------------------------

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """Adyen's Checkout API cannot be asked about a payment by our reference: None (see the module docstring)."""
        return None

    # --- credentials ------------------------------------------------------------------------------------------

    def verify(self) -> CredentialProblem | None:
        """One cheap authenticated call (the account's payment methods): None when Adyen takes the key and account."""
        try:
            self._call(self._checkout.payments_api.payment_methods, {"merchantAccount": self._merchant_account})
        except NoAnswer as exc:
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
    return not never_connected(exc)


def describe(reason: Any, raw: Any) -> str | None:
    text = str(reason) if reason else ""
    if raw and str(raw) != text:
        text = f"{text} ({raw})" if text else str(raw)
    return text[:255] or None


def no_answer_result(exc: NoAnswer) -> ConnectorResult:
    return unanswered(
        exc,
        processor="Adyen",
        host_refused="The service's live URL prefix does not make a URL of Adyen's: nothing was sent.",
    )


def refused_request(exc: AdyenAPIResponseError) -> ConnectorResult:
    """Adyen's 400/422: it read the request and refused it (for a card, often the card's details)."""
    message = exc.message if isinstance(exc.message, Mapping) else {}
    error_code = str(field_of(message, "errorCode") or exc.error_code or exc.status_code)
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=field_of(message, "pspReference") or None,
        error_code=VALIDATION_ERRORS.get(error_code, "invalid_request"),
        raw_response_code=error_code,
        raw_response_description=str(field_of(message, "message") or "")[:255] or None,
    )
