"""The `paypal-paypal` connector: payments the buyer approves at PayPal, through PayPal's official library
(`paypal-server-sdk`) and its Orders v2 and Payments v2 APIs.

- redirect_begin: `POST /v2/checkout/orders` with intent `AUTHORIZE` and where PayPal sends the buyer back; PayPal's
  answer names the order and the page where the buyer approves it (its `payer-action` or `approve` link).
- redirect_authorize: `POST /v2/checkout/orders/{id}/authorize` once the buyer is back; the order's authorization
  (`CREATED`) is the approval, and its id names the payment from then on.
- redirect_status: `GET /v2/checkout/orders/{id}`, what PayPal holds for the order now (recovery, the expiry job).
  An authorization PayPal holds `PENDING` is no decision: both raise `AuthorizationPending` (an `OutcomeUnknown`).
- capture (full or partial: `final_capture`, the rest released), void and refund (full or partial) through Payments
  v2 on the authorization, and for a refund on the capture (a capture's result names it: `payment_reference`). One
  of these that may have reached PayPal and got no answer raises `OutcomeUnknown`: PayPal may have acted on it.

Our reference is the `PayPal-Request-Id` of every write, so a retried call never makes a second order, authorization,
capture or refund: a write that may have reached PayPal (a timeout after sending, a 5xx) is sent once more with it,
and PayPal answers the repeat with what it did the first time. A call that gets no answer (connection refused,
timeout, PayPal's 5xx or rate limit, the app's credentials refused) is a FAILED result, never a decline, except a
capture, void or refund that may have reached PayPal (above). No call goes
anywhere but PayPal's hosts or the `paypal` block's `API_BASE` of `PROCESSORS` as configured (docs/payment-services.md).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import requests
from apimatic_core.authentication.multiple.single_auth import Single
from apimatic_core.exceptions.auth_validation_exception import AuthValidationException
from apimatic_core.request_builder import RequestBuilder
from apimatic_core.response_handler import ResponseHandler
from apimatic_core.types.parameter import Parameter
from paypalserversdk.api_helper import APIHelper
from paypalserversdk.configuration import Configuration, Environment, Server
from paypalserversdk.controllers.base_controller import BaseController
from paypalserversdk.exceptions.api_exception import ApiException
from paypalserversdk.http.auth.o_auth_2 import ClientCredentialsAuthCredentials
from paypalserversdk.http.http_method_enum import HttpMethodEnum
from paypalserversdk.models.o_auth_token import OAuthToken
from paypalserversdk.paypal_serversdk_client import PaypalServersdkClient

from payments.connectors.base import AuthorizationRequest, ConnectorResult, Outcome, OutcomeUnknown, RedirectRequest
from payments.money import currency_exponent, major_units
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
from paymentservices.processors.sessions import proxy_known, thread_session

logger = logging.getLogger(__name__)

# The domain PayPal serves its REST APIs (api-m.paypal.com, api-m.sandbox.paypal.com) and its approval pages from.
PAYPAL_DOMAINS = ("paypal.com",)
# An authorization PayPal made and holds (its `status`), and a capture or refund on its way or done.
AUTHORIZED = frozenset({"CREATED", "CAPTURED", "PARTIALLY_CAPTURED"})
TAKEN = frozenset({"COMPLETED", "PENDING"})
# Orders the buyer has not finished with (or approved, not yet authorized).
WITH_BUYER = frozenset({"CREATED", "SAVED", "APPROVED", "PAYER_ACTION_REQUIRED"})
# PayPal's issues (its error `details[].issue`) that are the buyer's funding refused, in upstream's error codes.
ISSUES = {
    "INSTRUMENT_DECLINED": "declined",
    "PAYER_ACTION_REQUIRED": "incomplete_buyer_approval",
    "ORDER_NOT_APPROVED": "incomplete_buyer_approval",
    "PAYER_CANNOT_PAY": "declined",
    "TRANSACTION_REFUSED": "declined",
    "AUTHORIZATION_EXPIRED": "authorization_expired",
    "AUTHORIZATION_VOIDED": "authorization_voided",
    "MAX_CAPTURE_AMOUNT_EXCEEDED": "invalid_amount",
    "REFUND_AMOUNT_EXCEEDED": "invalid_amount",
    "CAPTURE_FULLY_REFUNDED": "invalid_amount",
    "DUPLICATE_INVOICE_ID": "duplicate_transaction",
}


def _settings() -> Mapping[str, Any]:
    return processor_settings("paypal")


def paypal_url(url: str) -> bool:
    """Whether a call may go to `url`: one of PayPal's hosts, or under PAYPAL_API_BASE exactly as configured."""
    return url_allowed(url, domains=PAYPAL_DOMAINS, configured=str(_settings()["API_BASE"]))


class AuthorizationPending(OutcomeUnknown):
    """PayPal holds the order's authorization `PENDING` (under its review): not a decision, so neither an approval
    nor a decline; the payment waits for PayPal's word (its notification, or a later read of the order)."""


class HostRefused(Exception):
    """The URL a call was about to go to is not PayPal's (nor PAYPAL_API_BASE): it was not sent."""


class _Configuration(Configuration):  # type: ignore[misc] # the library is untyped
    """PayPal's configuration, calling PAYPAL_API_BASE (checked before every call, the token call included)."""

    def get_base_uri(self, server: Any = Server.DEFAULT) -> str:
        base = str(_settings()["API_BASE"]).rstrip("/")
        if not paypal_url(base):
            raise HostRefused("The API base is not one of PayPal's hosts.")
        return base


class PayPalRefused(Exception):
    """PayPal read the request and refused it (its 400, 404, 409 or 422), with its error body."""

    def __init__(self, status: int, body: Mapping[str, Any]) -> None:
        super().__init__(str(status))
        self.status = status
        self.body = body

    @property
    def issue(self) -> str:
        details = field_of(self.body, "details")
        first = details[0] if isinstance(details, list) and details else {}
        return str(field_of(first, "issue") or field_of(self.body, "name") or self.status)

    @property
    def description(self) -> str:
        details = field_of(self.body, "details")
        first = details[0] if isinstance(details, list) and details else {}
        return str(field_of(first, "description") or field_of(self.body, "message") or "PayPal refused the request.")


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def money(amount: int, currency: str) -> dict[str, str]:
    """PayPal's `Money`: the currency and the amount in major units, with the currency's own decimals."""
    return {"currency_code": currency, "value": f"{major_units(amount, currency):.{currency_exponent(currency)}f}"}


def masked_email(email: Any) -> str | None:
    """The payer's email as upstream shows an account: its first character, then `***`, then the domain."""
    if not isinstance(email, str) or "@" not in email:
        return None
    local, _, domain = email.rpartition("@")
    return f"{local[:1]}***@{domain}" if local else None


# PayPal's access tokens in this process, by API base, client ID and the secret's digest. A token lasts hours, and
# each connector (one per payment, notification or read) asked for its own: a round trip to PayPal before every
# payment's own call. A token PayPal refuses on a call is dropped, so the next connector asks again.
_tokens: dict[tuple[str, str, str], OAuthToken] = {}


def _keep_token(key: tuple[str, str, str], token: OAuthToken) -> None:
    if getattr(token, "expiry", None):  # one without a lifetime is not kept: nothing would say when it ends
        _tokens[key] = token


class PayPalConnector:
    """One PayPal REST app (its client ID and secret)."""

    # PayPal answers a write sent again with its PayPal-Request-Id with what it did the first time: recovery asks
    # about a capture, void or refund whose answer was lost by sending it again
    # (`payments.connectors.base.RepeatsWrites`).
    repeats_writes = True

    def __init__(
        self, *, client_id: str, client_secret: str, timeout: float | None = None, deadline: float | None = None
    ) -> None:
        self._client_id = client_id
        self._timeout = timeout or float(_settings()["TIMEOUT_SECONDS"])
        self._deadline = deadline
        # Checked once here (and again by the configuration for every call): a base that is not PayPal's sends
        # nothing, and each call answers FAILED at once.
        base = str(_settings()["API_BASE"]).rstrip("/")
        self._host_refused = not paypal_url(base)
        self._token_key = (base, client_id, hashlib.sha256(client_secret.encode()).hexdigest())
        session = thread_session("paypal")
        proxy_known(session, base)  # every call of the library goes to this one base
        config = _Configuration(
            http_client_instance=session,
            timeout=self._timeout,
            environment=Environment.PRODUCTION,
            client_credentials_auth_credentials=ClientCredentialsAuthCredentials(
                o_auth_client_id=client_id,
                o_auth_client_secret=client_secret,
                o_auth_token=_tokens.get(self._token_key),
                o_auth_on_token_update=functools.partial(_keep_token, self._token_key),
            ),
        )
        self._client = PaypalServersdkClient(config=config)

    def __repr__(self) -> str:  # never the secret
        return f"PayPalConnector(client_id={self._client_id[:8]!r}...)"

    # --- calls ------------------------------------------------------------------------------------------------

    def _call(self, call: Callable[[dict[str, Any]], Any], options: dict[str, Any]) -> dict[str, Any]:
        """One call through the library: PayPal's answer (2xx body), `PayPalRefused` for PayPal's word on the request,
        `NoAnswer` for anything else."""
        if self._host_refused:
            raise NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True)
        self._client.config.http_client.timeout = call_timeout(self._timeout, self._deadline)
        try:
            response = call(options)
        except requests.exceptions.ConnectTimeout:
            raise NoAnswer(sent=False, code="ConnectTimeout") from None
        except requests.exceptions.ConnectionError as exc:
            raise NoAnswer(sent=not never_connected(exc), code=type(exc).__name__) from None
        except requests.exceptions.RequestException as exc:  # a read timeout among them: the request went out
            raise NoAnswer(sent=True, code=type(exc).__name__) from None
        except HostRefused:
            raise NoAnswer(sent=False, code=HOST_REFUSED, misconfigured=True) from None
        except AuthValidationException:  # the token call was refused: the app's credentials
            raise NoAnswer(sent=False, code="401", misconfigured=True) from None
        except ApiException as exc:
            status = int(exc.response_code or 0)
            if status in (401, 403):
                _tokens.pop(self._token_key, None)  # perhaps the kept token, revoked or ended early: ask anew next
                raise NoAnswer(sent=False, code=str(status), misconfigured=True) from None
            if status in (400, 404, 409, 422):
                raise PayPalRefused(status, _json(getattr(exc.response, "text", None))) from None
            raise NoAnswer(sent=status >= 500, code=str(status)) from None
        return _json(getattr(response, "text", None))

    def _write(self, call: Callable[[dict[str, Any]], Any], options: dict[str, Any]) -> dict[str, Any]:
        """A write (its options carry the PayPal-Request-Id), sent a second time when the first may have reached
        PayPal: PayPal answers the repeat with what it did the first time (or does it now, once)."""
        options = {**options, "prefer": "return=representation"}
        try:
            return self._call(call, options)
        except NoAnswer as exc:
            if not exc.sent:
                raise
        return self._call(call, options)

    # --- the buyer's approval ---------------------------------------------------------------------------------

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        """PayPal takes no card here: a card payment is never routed to it (routing goes by method)."""
        return ConnectorResult(
            outcome=Outcome.DECLINED,
            error_code="unsupported_payment_method",
            raw_response_description="A PayPal payment service takes PayPal payments only, not cards.",
        )

    def redirect_begin(self, request: RedirectRequest) -> ConnectorResult:
        unit: dict[str, Any] = {"custom_id": request.reference, "amount": money(request.amount, request.currency)}
        if request.description:
            unit["description"] = request.description[:127]
        body = {
            "intent": "AUTHORIZE",
            "purchase_units": [unit],
            "payment_source": {
                "paypal": {
                    "experience_context": {
                        "return_url": request.return_url,
                        "cancel_url": request.cancel_url,
                        "user_action": "CONTINUE",
                        "shipping_preference": "NO_SHIPPING",
                    }
                }
            },
        }
        options = {"body": body, "paypal_request_id": request.reference}
        try:
            order = self._write(self._client.orders.create_order, options)
        except NoAnswer as exc:
            return _no_answer(exc)
        except PayPalRefused as exc:
            return _refused(exc)
        link = _approval_link(order)
        if link is None:
            return ConnectorResult(
                outcome=Outcome.FAILED,
                processor_reference=field_of(order, "id"),
                error_code="service_error",
                raw_response_code=str(field_of(order, "status") or "unknown"),
                raw_response_description="PayPal gave no page of its own for the buyer to approve the order.",
            )
        return ConnectorResult(
            outcome=Outcome.BUYER_ACTION,
            processor_reference=str(field_of(order, "id")),
            raw_response_code=str(field_of(order, "status") or ""),
            approval_link=link,
        )

    def redirect_authorize(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        options = {"id": processor_reference, "paypal_request_id": reference}
        try:
            order = self._write(self._client.orders.authorize_order, options)
        except NoAnswer as exc:
            return _no_answer(exc)
        except PayPalRefused as exc:
            return _refused(exc)
        return _authorization_result(order)

    def redirect_status(self, *, processor_reference: str) -> ConnectorResult:
        try:
            order = self._call(self._client.orders.get_order, {"id": processor_reference})
        except NoAnswer as exc:
            return _no_answer(exc)
        except PayPalRefused as exc:
            return _refused(exc)
        status = str(field_of(order, "status") or "")
        if _authorization(order) is None and status in WITH_BUYER:
            return ConnectorResult(
                outcome=Outcome.BUYER_ACTION, processor_reference=processor_reference, raw_response_code=status
            )
        return _authorization_result(order)

    # --- Payments v2 ------------------------------------------------------------------------------------------

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        options = {
            "authorization_id": processor_reference,
            "paypal_request_id": reference,
            "body": {"amount": money(amount, currency), "final_capture": True},
        }
        # Its result names the capture (`processor_reference`, the capture's own id, which PayPal's notifications of it
        # name) and, as `payment_reference`, the payment from now on: PayPal's refunds and disputes name the capture.
        return self._unless_unanswered(
            f"capture {reference}", self._client.payments.capture_authorized_payment, options
        )

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        options = {"authorization_id": processor_reference, "paypal_request_id": reference}
        return self._unless_unanswered(
            f"void {reference}", self._client.payments.void_payment, options, keep=processor_reference, status="VOIDED"
        )

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        # Our reference rides in the refund's `custom_id` too: PayPal's notification of the refund carries it, so a
        # refund still being recorded here is known as ours (transactions.services.inbound).
        options = {
            "capture_id": processor_reference,
            "paypal_request_id": reference,
            "body": {"amount": money(amount, currency), "custom_id": reference},
        }
        return self._unless_unanswered(f"refund {reference}", self._client.payments.refund_captured_payment, options)

    def _unless_unanswered(
        self, what: str, call: Callable[[dict[str, Any]], Any], options: dict[str, Any], **payment: Any
    ) -> ConnectorResult:
        """`_payment`, raising `OutcomeUnknown` when the write may have reached PayPal and got no answer (sent twice,
        unanswered twice: a timeout, a dropped connection, a 5xx). PayPal may have captured, voided or refunded:
        answering FAILED would put the payment back as it was (a capture's or refund's amount free to be taken again
        under another reference, an authorization voided at PayPal shown as still held). It stays pending here, and
        recovery sends it again under the same PayPal-Request-Id, which PayPal answers with what it did."""
        try:
            return self._payment(call, options, unknown_when_sent=True, **payment)
        except NoAnswer as exc:
            raise OutcomeUnknown(f"PayPal gave no answer to {what} ({exc.code}).") from None

    def _payment(
        self,
        call: Callable[[dict[str, Any]], Any],
        options: dict[str, Any],
        *,
        keep: str | None = None,
        status: str = "",
        unknown_when_sent: bool = False,
    ) -> ConnectorResult:
        """A write on the payment; its result names the authorization (`keep`) or what the write made (a capture,
        a refund). A void answers 204 with no body: its `status` is given. `unknown_when_sent`: a call that may have
        reached PayPal and got no answer raises its `NoAnswer` rather than answer FAILED."""
        try:
            answer = self._write(call, options)
        except NoAnswer as exc:
            if unknown_when_sent and exc.sent:
                raise
            return _no_answer(exc)
        except PayPalRefused as exc:
            return _refused(exc)
        said = str(field_of(answer, "status") or status)
        made = field_of(answer, "id")
        return ConnectorResult(
            outcome=Outcome.APPROVED if said in TAKEN or said == status else Outcome.DECLINED,
            processor_reference=keep or (str(made) if made else None),
            error_code=None if said in TAKEN or said == status else "declined",
            raw_response_code=said or None,
            raw_response_description=_status_reason(answer),
            payment_reference=str(made) if made else None,
        )

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """PayPal cannot be asked about an operation by our reference: None. An order is read by its own id
        (`redirect_status`), which this server records before the buyer is sent to approve it."""
        return None

    # --- notifications --------------------------------------------------------------------------------------

    def verify_notification(self, *, webhook_id: str, transmission: Mapping[str, str], event: Any) -> bool:
        """Ask PayPal whether it sent `event` to the webhook `webhook_id` (`POST
        /v1/notifications/verify-webhook-signature` with the notification's transmission headers): True for its
        SUCCESS, False for its FAILURE or a refusal of the request; `NoAnswer` when PayPal cannot be asked."""
        body = {**transmission, "webhook_id": webhook_id, "webhook_event": event}
        try:
            answer = self._call(_Notifications(self._client.global_configuration).verify_webhook_signature, body)
        except PayPalRefused:
            return False
        return bool(field_of(answer, "verification_status") == "SUCCESS")

    # --- Transaction Search -----------------------------------------------------------------------------------

    def transactions(self, query: Mapping[str, Any]) -> dict[str, Any]:
        """One page of PayPal's Transaction Search (`GET /v1/reporting/transactions`, settlements.py) through the
        library's controller: PayPal's answer, `PayPalRefused` or `NoAnswer` as for every call here."""
        return self._call(self._client.transaction_search.search_transactions, dict(query))

    # --- calls the library has no controller for -----------------------------------------------------------------

    def send(self, call: Callable[[Any], Any]) -> dict[str, Any]:
        """One call of an API `paypal-server-sdk` has no controller for (its Disputes v1: disputes.py), given the
        library's own configuration to build it on, answered as every call here: PayPal's answer, `PayPalRefused`
        for its word on the request, `NoAnswer` for anything else."""
        return self._call(lambda _: call(self._client.global_configuration), {})

    # --- credentials ------------------------------------------------------------------------------------------

    def verify(self) -> CredentialProblem | None:
        """Ask PayPal for an access token (`POST /v1/oauth2/token`): None when it takes the client ID and secret."""
        try:
            self._call(
                lambda _: self._client.o_auth_authorization.request_token(
                    {"authorization": self._client.oauth_2.build_basic_auth_header()}
                ),
                {},
            )
        except NoAnswer as exc:
            if exc.code in ("400", "401", "403"):
                return CredentialProblem("client_secret", "PayPal refused this client ID and secret.")
            if exc.code == HOST_REFUSED:
                return CredentialProblem("client_id", "PAYPAL_API_BASE is not one of PayPal's hosts: nothing was sent.")
            raise ConnectionError("PayPal gave no answer.") from None
        except PayPalRefused:
            return CredentialProblem("client_secret", "PayPal refused this client ID and secret.")
        return None


class _Notifications(BaseController):  # type: ignore[misc] # the library is untyped
    """PayPal's Notifications API v1 call this server makes, which `paypal-server-sdk` has no controller for: built
    as the library builds its own (its request builder, its OAuth 2 token, its HTTP client and configuration), so it
    goes where every call of the connector goes and is answered as they are."""

    def verify_webhook_signature(self, body: dict[str, Any]) -> Any:
        return (
            super()
            .new_api_call_builder.request(
                RequestBuilder()
                .server(Server.DEFAULT)
                .path("/v1/notifications/verify-webhook-signature")
                .http_method(HttpMethodEnum.POST)
                .header_param(Parameter().key("Content-Type").value("application/json"))
                .body_param(Parameter().value(body))
                .header_param(Parameter().key("accept").value("application/json"))
                .body_serializer(APIHelper.json_serialize)
                .auth(Single("Oauth2"))
            )
            .response(ResponseHandler().deserializer(APIHelper.json_deserialize).is_api_response(True))
            .execute()
        )


def _approval_link(order: Mapping[str, Any]) -> str | None:
    """The order's page where the buyer approves it, when it is PayPal's own (an https URL under paypal.com), or
    under PAYPAL_API_BASE: the operator's stand-in for PayPal (a mock) is the buyer's PayPal as well."""
    links = field_of(order, "links")
    for link in links if isinstance(links, list) else []:
        href = field_of(link, "href")
        if field_of(link, "rel") in ("payer-action", "approve") and isinstance(href, str):
            return href if paypal_url(href) else None
    return None


def _authorization(order: Mapping[str, Any]) -> Mapping[str, Any] | None:
    units = field_of(order, "purchase_units")
    for unit in units if isinstance(units, list) else []:
        found = field_of(field_of(unit, "payments"), "authorizations")
        if isinstance(found, list) and found and isinstance(found[0], Mapping):
            return found[0]
    return None


def _payer_email(order: Mapping[str, Any]) -> Any:
    return field_of(field_of(field_of(order, "payment_source"), "paypal"), "email_address") or field_of(
        field_of(order, "payer"), "email_address"
    )


def _authorization_result(order: Mapping[str, Any]) -> ConnectorResult:
    """The order's authorization: an approval naming it when PayPal made and holds it, else a decline with PayPal's
    status as it gave it."""
    authorization = _authorization(order)
    label = masked_email(_payer_email(order))
    if authorization is None:
        status = str(field_of(order, "status") or "unknown")
        return ConnectorResult(
            outcome=Outcome.DECLINED,
            processor_reference=field_of(order, "id"),
            error_code="declined",
            raw_response_code=status,
            raw_response_description=f"PayPal holds no authorization for the order (order {status}).",
            payer_label=label,
        )
    status = str(field_of(authorization, "status") or "unknown")
    if status == "PENDING":
        raise AuthorizationPending(f"PayPal holds authorization {field_of(authorization, 'id')} pending.")
    approved = status in AUTHORIZED
    return ConnectorResult(
        outcome=Outcome.APPROVED if approved else Outcome.DECLINED,
        processor_reference=str(field_of(authorization, "id")),
        error_code=None if approved else "declined",
        raw_response_code=status,
        raw_response_description=_status_reason(authorization),
        payer_label=label,
    )


def _status_reason(answer: Mapping[str, Any]) -> str | None:
    reason = field_of(field_of(answer, "status_details"), "reason")
    return str(reason)[:255] if reason else None


def _no_answer(exc: NoAnswer) -> ConnectorResult:
    return unanswered(
        exc, processor="PayPal", host_refused="PAYPAL_API_BASE is not one of PayPal's hosts: nothing was sent."
    )


def _refused(exc: PayPalRefused) -> ConnectorResult:
    """PayPal read the request and refused it: its issue as given, in upstream's words where one fits."""
    issue = exc.issue
    return ConnectorResult(
        outcome=Outcome.DECLINED,
        error_code=ISSUES.get(issue, "invalid_request"),
        raw_response_code=issue,
        raw_response_description=exc.description[:255],
    )
