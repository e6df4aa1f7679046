"""The `stripe-card` connector: card payments through Stripe's PaymentMethods and PaymentIntents, with Stripe's
official library.

- authorize: a PaymentMethod from the card (or the card's kept PaymentMethod and its Customer, when the stored card
  has a token here: no card number is sent), then a PaymentIntent confirmed at once (`capture_method=manual` unless
  the payment captures immediately; `off_session` when the merchant initiates it). Our reference is the
  PaymentIntent's `metadata["reference"]`, and every write carries an idempotency key made from our reference, so a
  retried call never makes a second PaymentIntent.
- capture (full or partial), void (cancel) and refund (partial or full) act on the PaymentIntent.
- lookup answers "what became of the operation sent with this reference" from what Stripe holds: the PaymentIntent
  (or refund) whose metadata carries the reference, read newest first.
- captured_amount reads a PaymentIntent's `amount_received`, for a notification that does not say it.

Stripe's answers are read defensively: a field may be missing (the fake Stripe the tests use leaves some out),
so nothing depends on a key only one of them sends. A call that gets no answer (connection refused, timeout,
Stripe's 5xx or rate limit, our key refused) is a FAILED result, never a decline; when such a call may have reached
Stripe, the connector asks Stripe what it holds before answering, and raises `OutcomeUnknown` when it cannot tell.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, cast

import requests
import stripe

from payments.connectors.base import AuthorizationRequest, BuyerAction, ConnectorResult, Outcome, OutcomeUnknown
from paymentservices.processors.calls import call_timeout, field_of, is_notified_amount, never_connected, no_answer
from paymentservices.processors.config import processor_settings
from paymentservices.processors.hosts import url_allowed
from paymentservices.processors.seam import CredentialProblem
from paymentservices.processors.sessions import proxy_known, thread_session
from paymentservices.processors.stripe.codes import DECLINE_CODES, DEFAULT_DECLINE

logger = logging.getLogger(__name__)

# Stripe.js's own origin, and the origins it calls and frames from (Stripe's Content-Security-Policy guide).
STRIPE_JS_ORIGIN = "https://js.stripe.com"
STRIPE_API_ORIGIN = "https://api.stripe.com"
STRIPE_HOOKS_ORIGIN = "https://hooks.stripe.com"
# How far back `lookup` reads (pages of 100, newest first): recovery runs minutes after a crash, not days.
LOOKUP_PAGES = 5
REFERENCE_KEY = "reference"
# Stripe's API host, and its files host (a dispute's evidence is uploaded there): no call goes anywhere else but
# STRIPE_API_BASE as the operator configured it.
STRIPE_DOMAINS = ("api.stripe.com", "files.stripe.com")
STRIPE_FILES_BASE = "https://files.stripe.com"


class HostRefused(stripe.APIConnectionError):
    """The URL a call was about to go to is not Stripe's (nor STRIPE_API_BASE): it was not sent."""


class _CheckedClient(stripe.RequestsClient):
    """Stripe's HTTP client, sending a request only to Stripe's API host or under STRIPE_API_BASE exactly as the
    operator configured it."""

    def request(  # type: ignore[override] # RequestsClient's own signature, which its base's does not match
        self, method: str, url: str, headers: Mapping[str, str] | None, post_data: Any = None
    ) -> tuple[bytes, int, Mapping[str, str]]:
        if not url_allowed(url, domains=STRIPE_DOMAINS, configured=processor_settings("stripe")["API_BASE"]):
            logger.warning("Refused to send a Stripe call to a host that is not Stripe's (nor STRIPE_API_BASE)")
            raise HostRefused("The URL is not Stripe's.")  # type: ignore[no-untyped-call]
        proxy_known(cast(requests.Session, self._session), url)
        return super().request(method, url, headers, post_data)


def account_client(secret_key: str, *, timeout: float | None = None) -> stripe.StripeClient:
    """A client for one account (the connector's, and the balance reads'), checked like every call: only Stripe's
    API host or STRIPE_API_BASE. Cheap to make (about 10 µs): the connections are the thread's session's, and the
    timeout is this client's own, so each call can carry what is left of its payment's time."""
    own = processor_settings("stripe")
    return stripe.StripeClient(
        secret_key,
        # Files go to Stripe's files host, or under STRIPE_API_BASE when the operator points Stripe elsewhere (a proxy,
        # the tests' fake), which then serves both.
        base_addresses={
            "api": own["API_BASE"],
            "files": STRIPE_FILES_BASE if _is_stripes(own["API_BASE"]) else own["API_BASE"],
        },
        # Retries are ours to decide (failover to the next service): one call, one bounded wait.
        max_network_retries=0,
        http_client=_CheckedClient(timeout=timeout or own["TIMEOUT_SECONDS"], session=thread_session("stripe")),
    )


def _is_stripes(base: str) -> bool:
    """Whether the configured API base is Stripe's own API host."""
    return base.rstrip("/") == STRIPE_API_ORIGIN


def value_of(obj: Any, key: str) -> Any:
    """A field of a Stripe object (or of a plain mapping), or None when Stripe (or the fake) left it out."""
    if isinstance(obj, stripe.StripeObject):
        return obj[key] if key in obj else None  # noqa: SIM401 - a StripeObject has no get()
    return field_of(obj, key)


def _never_sent(exc: stripe.APIConnectionError) -> bool:
    """The connection was never made (refused, or no answer to connecting): Stripe cannot have seen the request."""
    if isinstance(exc, HostRefused):
        return True
    cause = exc.__cause__
    if isinstance(cause, requests.exceptions.ConnectTimeout):
        return True
    if isinstance(cause, requests.exceptions.ConnectionError) and not isinstance(cause, requests.exceptions.Timeout):
        return never_connected(cause)
    return False


def _no_answer(exc: stripe.StripeError) -> ConnectorResult:
    status = exc.http_status
    misconfigured = isinstance(exc, stripe.AuthenticationError | stripe.PermissionError | HostRefused)
    return no_answer(
        code=str(status) if status else type(exc).__name__,
        misconfigured=misconfigured,
        description="Stripe refused the credentials." if misconfigured else "Stripe gave no answer.",
    )


def _ambiguous(exc: stripe.StripeError) -> bool:
    """The request may have been acted on: a timeout or lost connection after sending, or Stripe's own 5xx."""
    if isinstance(exc, stripe.APIConnectionError):
        return not _never_sent(exc)
    return isinstance(exc, stripe.APIError) and (exc.http_status or 500) >= 500


def _unanswered(exc: stripe.StripeError) -> bool:
    """Errors that are not Stripe (or the issuer) deciding the request."""
    kinds = (stripe.APIConnectionError, stripe.APIError, stripe.RateLimitError, stripe.AuthenticationError)
    return isinstance(exc, (*kinds, stripe.PermissionError))


def _missing(exc: stripe.StripeError) -> bool:
    """Stripe no longer has an object the request named (a kept PaymentMethod, or its Customer, deleted)."""
    return isinstance(exc, stripe.InvalidRequestError) and (exc.http_status == 404 or exc.code == "resource_missing")


def _declined(exc: stripe.StripeError, processor_reference: str | None = None) -> ConnectorResult:
    error = value_of(exc.json_body, "error") or {}
    code = value_of(error, "decline_code") or value_of(error, "code") or exc.code or "card_declined"
    intent = value_of(error, "payment_intent")
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=value_of(intent, "id") or processor_reference,
        error_code=DECLINE_CODES.get(str(code), DEFAULT_DECLINE)
        if isinstance(exc, stripe.CardError)
        else "invalid_request",
        raw_response_code=str(code),
        raw_response_description=str(value_of(error, "message") or exc.user_message or "")[:255] or None,
        cvv_response_code=_cvc_check(intent),
    )


def _cvc_check(intent: Any) -> str | None:
    """Stripe's CVC check of the charge, in upstream's words, when Stripe sent it."""
    charge = _charge(intent)
    checks = value_of(value_of(value_of(charge, "payment_method_details"), "card"), "checks")
    return {"pass": "match", "fail": "no_match", "unavailable": "unavailable", "unchecked": "not_provided"}.get(
        str(value_of(checks, "cvc_check"))
    )


def _charge(intent: Any) -> Any:
    """The PaymentIntent's charge: `latest_charge` when expanded, else the first of `charges` (older answers)."""
    charge = value_of(intent, "latest_charge")
    if isinstance(charge, stripe.StripeObject | Mapping):
        return charge
    charges = value_of(value_of(intent, "charges"), "data") or []
    return charges[0] if charges else None


def _avs(checks: Any) -> str | None:
    """Stripe's address checks (street line and postal code) in upstream's `AVSResponseCode` words."""
    line1, postal = str(value_of(checks, "address_line1_check")), str(value_of(checks, "address_postal_code_check"))
    if line1 == "pass" and postal == "pass":
        return "match"
    if postal == "pass":
        return "partial_match_postcode"
    if line1 == "pass":
        return "partial_match_address"
    if "fail" in (line1, postal):
        return "no_match"
    return "unavailable" if "unavailable" in (line1, postal) else None


def _network_details(intent: Any) -> dict[str, Any]:
    """What the card network told Stripe of the charge, as Stripe passes it on (each None when not sent): the
    scheme's id of the payment, the address check, the issuer's response and the scheme's advice codes."""
    charge = _charge(intent)
    card = value_of(value_of(charge, "payment_method_details"), "card")
    outcome = value_of(charge, "outcome")
    scheme_id = value_of(card, "network_transaction_id")
    decline = value_of(outcome, "network_decline_code")
    advice = value_of(outcome, "network_advice_code")
    return {
        "scheme_transaction_id": str(scheme_id) if scheme_id else None,
        "avs_response_code": _avs(value_of(card, "checks")),
        "auth_response_code": str(decline) if decline else None,
        "merchant_advice_code": str(advice) if advice else None,
    }


def _intent_result(intent: Any) -> ConnectorResult | None:
    """What a PaymentIntent says of its authorization; None while nothing was decided."""
    status = value_of(intent, "status")
    pi_id = value_of(intent, "id")
    if status in ("requires_capture", "succeeded", "processing") or (
        status == "canceled" and value_of(intent, "latest_charge") and not value_of(intent, "last_payment_error")
    ):
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=pi_id,
            raw_response_code=str(status),
            raw_response_description="Approved",
            cvv_response_code=_cvc_check(intent),
            **_network_details(intent),
        )
    if status == "requires_action":  # Stripe's own 3-D Secure: the buyer completes it on our page, with Stripe.js
        return ConnectorResult(
            outcome=Outcome.BUYER_ACTION,
            processor_reference=pi_id,
            raw_response_code="requires_action",
            raw_response_description="The card issuer asks for 3-D Secure authentication.",
        )
    error = value_of(intent, "last_payment_error")
    if status in ("requires_payment_method", "canceled") and error:
        code = value_of(error, "decline_code") or value_of(error, "code") or "card_declined"
        return ConnectorResult(
            outcome=Outcome.DECLINED,
            processor_reference=pi_id,
            error_code=DECLINE_CODES.get(str(code), DEFAULT_DECLINE),
            raw_response_code=str(code),
            raw_response_description=str(value_of(error, "message") or "")[:255] or None,
        )
    return None


def _decided(intent: Any) -> ConnectorResult:
    """What a confirmed PaymentIntent says: a status that decides nothing we know of is a decline."""
    return _intent_result(intent) or ConnectorResult(
        outcome=Outcome.DECLINED,
        processor_reference=value_of(intent, "id"),
        error_code=DEFAULT_DECLINE,
        raw_response_code=str(value_of(intent, "status")),
    )


class StripeConnector:
    """One Stripe account (its secret key, and its publishable key for the buyer's page)."""

    def __init__(self, *, secret_key: str, publishable_key: str | None = None, deadline: float | None = None) -> None:
        self._secret_key = secret_key
        self._publishable_key = publishable_key
        # When the payment's time with processors runs out (`time.monotonic()`): each call waits at most what is left.
        self._deadline = deadline
        self._client = account_client(secret_key)

    def _api(self) -> stripe.StripeClient:
        """The client for the next call: it waits at most STRIPE_TIMEOUT_SECONDS, and never past the deadline."""
        if self._deadline is None:
            return self._client
        timeout = call_timeout(processor_settings("stripe")["TIMEOUT_SECONDS"], self._deadline)
        return account_client(self._secret_key, timeout=timeout)

    def __repr__(self) -> str:  # never the key
        return "StripeConnector()"

    # --- authorize -------------------------------------------------------------------------------------------

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        kept = request.processor_token
        method_id = kept.token if kept is not None else None
        if method_id is None:
            made = self._payment_method(request)
            if isinstance(made, ConnectorResult):
                return made
            method_id = made
        params: dict[str, Any] = {
            "amount": request.amount,
            "currency": request.currency.lower(),
            "payment_method": method_id,
            "payment_method_types": ["card"],
            "capture_method": "automatic" if request.capture else "manual",
            "confirm": True,
            "metadata": {REFERENCE_KEY: request.reference},
            # The charge's network details (the scheme's id of the payment, the address check) come with it.
            "expand": ["latest_charge"],
        }
        if kept is not None and kept.customer:
            params["customer"] = kept.customer  # a kept card is charged as its Customer's
        if request.merchant_initiated:
            params["off_session"] = True
        try:
            intent = self._create("/v1/payment_intents", params, idempotency_key=f"{request.reference}:authorize")
        except stripe.StripeError as exc:
            if _ambiguous(exc):
                return self._reconcile(request.reference, exc)
            if kept is not None and _missing(exc):
                return replace(_declined(exc), token_revoked=True)
            return _no_answer(exc) if _unanswered(exc) else _declined(exc)
        return _decided(intent)

    def _payment_method(self, request: AuthorizationRequest) -> str | ConnectorResult:
        """A PaymentMethod made from the card, by its id; a refusal or no answer as the payment's result."""
        card: dict[str, Any] = {
            "number": request.card.number,
            "exp_month": request.card.expiration_month,
            "exp_year": request.card.expiration_year,
        }
        if request.card.security_code:
            card["cvc"] = request.card.security_code
        try:
            method = self._create(
                "/v1/payment_methods",
                {"type": "card", "card": card},
                idempotency_key=f"{request.reference}:payment-method",
            )
        except stripe.StripeError as exc:
            # No money moves when a PaymentMethod is made: whatever happened, nothing is left to reconcile.
            return _no_answer(exc) if _unanswered(exc) else _declined(exc)
        return str(method["id"])

    def _create(self, path: str, params: dict[str, Any], *, idempotency_key: str) -> Mapping[str, Any]:
        """Stripe's answer to a create on the payment's path, as the JSON it sent. Everything here reads it through
        `value_of`, so the library's typed objects (each nested object and list built field by field, about a tenth
        of a payment's time in this process) are not made; errors are raised as for the typed calls."""
        answer = self._api().raw_request("post", path, **params, idempotency_key=idempotency_key)
        return cast(Mapping[str, Any], answer.data)

    def _reconcile(self, reference: str, exc: stripe.StripeError) -> ConnectorResult:
        """After a call that may have reached Stripe: Stripe's own record decides, or the outcome stays unknown."""
        try:
            found = self.lookup(reference=reference)
        except OutcomeUnknown:
            raise OutcomeUnknown(f"Stripe did not answer for {reference} and cannot be asked now.") from exc
        return found if found is not None else _no_answer(exc)

    # --- the buyer's step (Stripe's own 3-D Secure) --------------------------------------------------------------

    @property
    def buyer_can_act(self) -> bool:
        """Stripe.js runs the buyer's step, and it is loaded with the account's publishable key."""
        return bool(self._publishable_key)

    def buyer_action(self, *, processor_reference: str) -> BuyerAction | None:
        """Stripe.js (`STRIPE_JS_URL`), the publishable key, and the PaymentIntent's client secret, read now with the
        secret key (it is never stored); None when Stripe cannot be asked."""
        try:
            intent = self._api().v1.payment_intents.retrieve(processor_reference)
        except stripe.StripeError:
            logger.warning("Stripe could not be asked for the PaymentIntent %s's client secret", processor_reference)
            return None
        script_url = processor_settings("stripe")["JS_URL"]
        # Real Stripe.js calls Stripe's API and frames Stripe's 3-D Secure pages from origins of their own
        # (Stripe's CSP guide); a stand-in (the tests' fake Stripe) serves all three from its one origin.
        own_origin = script_url.startswith(STRIPE_JS_ORIGIN + "/")
        return BuyerAction(
            script_url=script_url,
            publishable_key=self._publishable_key or "",
            client_secret=str(value_of(intent, "client_secret") or ""),
            connect_origins=(STRIPE_API_ORIGIN,) if own_origin else (),
            frame_origins=(STRIPE_HOOKS_ORIGIN,) if own_origin else (),
        )

    def buyer_result(self, *, processor_reference: str) -> ConnectorResult:
        """The PaymentIntent as Stripe holds it: only its status decides (never what the buyer's page says)."""
        try:
            intent = self._api().v1.payment_intents.retrieve(processor_reference, params={"expand": ["latest_charge"]})
        except stripe.StripeError as exc:
            return _no_answer(exc)
        return _decided(intent)

    # --- capture, void, refund --------------------------------------------------------------------------------

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        """The capture's own answer: the PaymentIntent's status after it (`succeeded`), which Stripe gives no words
        for."""
        return self._act(
            lambda: self._api().v1.payment_intents.capture(
                processor_reference,
                params={"amount_to_capture": amount},
                options={"idempotency_key": reference},
            ),
            reference,
            processor_reference,
            description=None,
        )

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        return self._act(
            lambda: self._api().v1.payment_intents.cancel(processor_reference, options={"idempotency_key": reference}),
            reference,
            processor_reference,
        )

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        return self._act(
            lambda: self._api().v1.refunds.create(
                params={
                    "payment_intent": processor_reference,
                    "amount": amount,
                    "metadata": {REFERENCE_KEY: reference},
                },
                options={"idempotency_key": reference},
            ),
            reference,
            processor_reference,
        )

    def _act(
        self, call: Any, reference: str, processor_reference: str, *, description: str | None = "Approved"
    ) -> ConnectorResult:
        try:
            obj = call()
        except stripe.StripeError as exc:
            if _ambiguous(exc):
                return self._reconcile(reference, exc)
            return _no_answer(exc) if _unanswered(exc) else _declined(exc, processor_reference)
        return ConnectorResult(
            outcome=Outcome.APPROVED,
            processor_reference=value_of(obj, "id") or processor_reference,
            raw_response_code=str(value_of(obj, "status") or "succeeded"),
            raw_response_description=description,
        )

    def captured_amount(self, *, processor_reference: str) -> int:
        """What Stripe received of the PaymentIntent (`amount_received` once it `succeeded`, else 0), read now; raises
        `OutcomeUnknown` when Stripe cannot be asked or its PaymentIntent says no amount."""
        try:
            intent = self._api().v1.payment_intents.retrieve(processor_reference)
        except stripe.StripeError as exc:
            raise OutcomeUnknown(f"Stripe cannot be asked for the PaymentIntent {processor_reference}.") from exc
        if value_of(intent, "status") != "succeeded":
            return 0
        received = value_of(intent, "amount_received")
        if not is_notified_amount(received):
            raise OutcomeUnknown(f"Stripe's PaymentIntent {processor_reference} says no amount received.")
        return int(received)

    # --- lookup -----------------------------------------------------------------------------------------------

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """`<ref>` is an authorization, `<ref>:capture` / `<ref>:void` an operation on it, anything else a refund."""
        try:
            base, _, operation = reference.rpartition(":")
            if operation in ("capture", "void") and base:
                intent = self._find_intent(base)
                return None if intent is None else _operation_result(intent, operation)
            intent = self._find_intent(reference)
            if intent is not None:
                return _intent_result(intent)
            refund = self._find(self._api().v1.refunds.list, reference)
            if refund is None:
                return None
            succeeded = value_of(refund, "status") in ("succeeded", "pending")
            return ConnectorResult(
                outcome=Outcome.APPROVED if succeeded else Outcome.DECLINED,
                processor_reference=value_of(refund, "id"),
                error_code=None if succeeded else "refund_failed",
                raw_response_code=str(value_of(refund, "status")),
            )
        except stripe.StripeError as exc:
            raise OutcomeUnknown("Stripe cannot be asked what became of the operation.") from exc

    def _find_intent(self, reference: str) -> Any:
        return self._find(self._api().v1.payment_intents.list, reference)

    @staticmethod
    def _find(list_call: Any, reference: str) -> Any:
        """The newest object whose metadata carries `reference`, reading a few pages newest first. (Stripe's
        search API lags by up to a minute and the fake has none: the list is read instead.)"""
        for obj in _pages(list_call):
            if value_of(value_of(obj, "metadata"), REFERENCE_KEY) == reference:
                return obj
        return None

    # --- credentials ------------------------------------------------------------------------------------------

    def verify(self) -> CredentialProblem | None:
        """One cheap authenticated call (the balance): None when Stripe takes the key."""
        try:
            self._api().v1.balance.retrieve()
        except (stripe.AuthenticationError, stripe.PermissionError):
            return CredentialProblem("secret_key", "Stripe refused this secret key.")
        return None


def _pages(list_call: Any) -> Iterator[Any]:
    after: str | None = None
    for _ in range(LOOKUP_PAGES):
        params: dict[str, Any] = {"limit": 100}
        if after:
            params["starting_after"] = after
        page = list_call(params=params)
        items = list(value_of(page, "data") or [])
        yield from items
        if not items or not value_of(page, "has_more"):
            return
        after = value_of(items[-1], "id")


def _operation_result(intent: Any, operation: str) -> ConnectorResult | None:
    status = value_of(intent, "status")
    done = "succeeded" if operation == "capture" else "canceled"
    if status != done:
        return None
    return ConnectorResult(
        outcome=Outcome.APPROVED,
        processor_reference=value_of(intent, "id"),
        raw_response_code=str(status),
        raw_response_description=None if operation == "capture" else "Approved",
    )
