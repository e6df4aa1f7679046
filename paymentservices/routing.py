"""Which payment services may take a payment, in the order to try them, and the failover between them.

`transactions` asks `route(...)` for the ordered list, then `authorize_routed(...)` tries each service in turn:
the next one is asked only when `try_next` says so of the last answer (the processor gave no answer, or a retryable
decline from a service the merchant lets cascade), and only while the payment's time with processors
(PAYMENT_ROUTING_SECONDS) lasts. `connector_for(service)` builds the connector of one service, for the captures,
voids, refunds and lookups of the payments it authorized.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from django.conf import settings

from payments.connectors.base import AuthorizationRequest, ConnectorResult, Outcome, PaymentConnector, ProcessorToken
from payments.errors import DomainError, NotFound
from payments.models import MerchantAccount
from paymentservices.models import PaymentService
from paymentservices.processors import processor_get
from paymentservices.sandbox import REFUSAL, sandbox_payments_allowed
from paymentservices.selectors import payment_service_get, payment_services_routable
from paymentservices.services import CredentialsUnusable, definition_require, payment_service_connector_credentials

logger = logging.getLogger(__name__)

SERVICE_POINTER = "/payment_service_id"


class NoPaymentService(DomainError):
    """No payment service of the account can take the payment (a 400 naming why)."""


@dataclass(frozen=True)
class Route:
    """The services to try for one payment, first choice first."""

    services: tuple[PaymentService, ...]

    @property
    def first(self) -> PaymentService:
        return self.services[0]


# Why a service is not sent a wallet's network token (its processor would take the device number for a card).
NO_NETWORK_TOKENS = "The payment service's processor cannot take a digital wallet's network token and cryptogram."


def _refusal(
    service: PaymentService, currency: str, country: str | None, method: str = "card", network_token: bool = False
) -> str | None:
    """Why `service` cannot take the payment (of `method`; a wallet's `network_token`), or None when it can."""
    if service.is_deleted:  # an automatic route never offers one; an explicit id finds none (payment_service_get)
        return "The payment service has been deleted."
    if not service.active:
        return "The payment service is not active."
    processor = processor_get(service.definition_id)
    if processor is None:
        return f"The payment service's definition '{service.definition_id}' is not available on this server."
    if processor.method != method:
        return f"The payment service takes {processor.method} payments, not {method}."
    if network_token and not processor.network_tokens:
        return NO_NETWORK_TOKENS
    if processor.sandbox and not sandbox_payments_allowed():
        return REFUSAL
    if currency not in service.accepted_currencies:
        return f"The payment service does not accept {currency}."
    if country is not None and country not in service.accepted_countries:
        return f"The payment service does not accept payments from {country}."
    return None


def route(
    *,
    merchant_account: MerchantAccount,
    currency: str,
    country: str | None = None,
    payment_service_id: uuid.UUID | str | None = None,
    method: str = "card",
    prefer: frozenset[uuid.UUID] = frozenset(),
    network_token: bool = False,
) -> Route:
    """The eligible services, in order. With `payment_service_id`: that one service, refused by name when it belongs
    to another account or is deleted (as one that does not exist), is inactive, or does not take the currency or
    country. Without: the account's active services by `position` that take the method, the currency (and the
    country, when the payment has one), those in `prefer` (the services that keep the stored card) first. A
    `network_token` (a wallet's device number with its cryptogram) goes only to processors that take one."""
    if payment_service_id is not None:
        try:
            service = payment_service_get(merchant_account=merchant_account, id=payment_service_id)
        except NotFound:
            raise NoPaymentService(
                f"The payment service '{payment_service_id}' does not exist for this merchant account.",
                pointer=SERVICE_POINTER,
            ) from None
        refusal = _refusal(service, currency, country, method, network_token)
        if refusal is not None:
            raise NoPaymentService(refusal, pointer=SERVICE_POINTER)
        return Route((service,))
    eligible = tuple(
        sorted(
            (
                service
                for service in payment_services_routable(merchant_account=merchant_account)
                if _refusal(service, currency, country, method, network_token) is None
            ),
            key=lambda service: service.pk not in prefer,  # stable: the position orders each group
        )
    )
    if not eligible:
        where = f" from {country}" if country else ""
        kind = " wallet" if network_token else "" if method == "card" else f" {method}"
        raise NoPaymentService(
            f"No active payment service of this merchant account takes {currency}{kind} payments{where}.",
            pointer="/currency",
        )
    return Route(eligible)


def connector_for(service: PaymentService, *, deadline: float | None = None) -> PaymentConnector:
    """The connector that speaks for `service`, built with its credentials (revealed for this connector only, each held
    to its field's rule again), whose calls wait no later than `deadline` (a `time.monotonic()` value) when one is
    given. Raises `CredentialsUnusable` when they cannot be used."""
    processor = definition_require(service.definition_id)
    return processor.connect(payment_service_connector_credentials(service=service), deadline=deadline)


def connection_options_keys(route: Route) -> frozenset[str]:
    """The `connection_options` sets some service of the route reads (each processor declares its own: no credential
    is opened to learn them)."""
    return frozenset().union(*(options_keys(service) for service in route.services))


def options_keys(service: PaymentService) -> frozenset[str]:
    """The `connection_options` sets `service`'s processor reads, as it declares them."""
    processor = processor_get(service.definition_id)
    return processor.connection_options_keys if processor is not None else frozenset()


def _unusable(exc: CredentialsUnusable) -> ConnectorResult:
    """The answer of a service whose credentials cannot be used: no processor was asked, so the payment goes on."""
    return ConnectorResult(
        outcome=Outcome.FAILED,
        error_code="invalid_service_configuration",
        raw_response_code=exc.code,
        raw_response_description=exc.message,
    )


# What a routed payment asks of each service's connector in turn (its authorization, or the start of a payment the
# buyer approves at the processor).
Ask = Callable[[PaymentConnector], ConnectorResult]


def _ask(service: PaymentService, ask: Ask, deadline: float) -> ConnectorResult:
    """`service`'s answer; a service whose stored credentials cannot be opened, or break their fields' rules, answers
    as one that gave no answer, and sends nothing."""
    try:
        connector = connector_for(service, deadline=deadline)
    except CredentialsUnusable as exc:
        # The message names the field, never its value.
        logger.error("Payment service %s: %s", service.id, exc.message)
        return _unusable(exc)
    return ask(connector)


# Declines worth sending to another processor: the refusal came from the route, not from the card or its holder,
# so another acquirer may reach the issuer and be approved (docs/payment-services.md, "Cascading rules"). Any other
# decline (a stolen, lost or expired card, an invalid number, fraud, 3-D Secure failed, no money) is final.
RETRYABLE_DECLINES: frozenset[str] = frozenset({"do_not_honor", "issuer_unavailable", "processing_error"})


def cascades(result: ConnectorResult, service: PaymentService) -> bool:
    """A retryable decline from a service whose merchant lets such declines go on to the next service."""
    return (
        service.cascade_retryable_declines
        and result.outcome is Outcome.DECLINED
        and result.error_code in RETRYABLE_DECLINES
    )


def try_next(result: ConnectorResult, service: PaymentService) -> bool:
    """Whether a payment goes on to the next eligible service after `service` answered `result`: when the processor
    gave no answer (connection refused, timeout, its 5xx), or declined it for a reason another processor may not
    have and the service allows cascading. Any other decline is the issuer's decision and final."""
    return result.outcome is Outcome.FAILED or cascades(result, service)


# The least time worth starting another attempt with: less, and the payment ends with the answer it has.
MIN_ATTEMPT_SECONDS = 1.0

# Called before each attempt after the first with (the service that gave no answer or cascaded, its answer, the next
# service);
# it records the switch and answers False when the payment must not go on (it was canceled meanwhile).
NextAttempt = Callable[[PaymentService, ConnectorResult, PaymentService], bool]


def authorize_routed(
    *,
    route: Route,
    request: AuthorizationRequest,
    next_attempt: NextAttempt,
    tokens: Mapping[uuid.UUID, ProcessorToken] | None = None,
) -> tuple[PaymentService, ConnectorResult]:
    """Authorize `request` along `route` (`ask_routed`); a service that keeps the stored card (`tokens`, by service
    id) is sent its token instead of the card's number."""
    kept = tokens or {}

    def ask_for(service: PaymentService) -> Ask:
        service_request = replace(request, processor_token=kept.get(service.pk))
        return lambda connector: connector.authorize(service_request)

    return _routed(route=route, ask_for=ask_for, next_attempt=next_attempt)


def ask_routed(*, route: Route, ask: Ask, next_attempt: NextAttempt) -> tuple[PaymentService, ConnectorResult]:
    """Ask each service of `route` in order until one decides (`try_next` says when not), all within
    PAYMENT_ROUTING_SECONDS; returns the service that gave the final answer and the answer.

    The caller has recorded the first service as the one being asked before calling; `next_attempt` records each
    later one before it is asked, so a crash at any moment leaves the service to ask on record. A connector that
    raises (the outcome is unknown) ends the routing: the exception propagates and recovery asks that service.
    """
    return _routed(route=route, ask_for=lambda _service: ask, next_attempt=next_attempt)


def _routed(
    *, route: Route, ask_for: Callable[[PaymentService], Ask], next_attempt: NextAttempt
) -> tuple[PaymentService, ConnectorResult]:
    deadline = time.monotonic() + settings.PAYMENT_ROUTING_SECONDS
    service = route.first
    result = _ask(service, ask_for(service), deadline)
    for following in route.services[1:]:
        if not try_next(result, service) or deadline - time.monotonic() < MIN_ATTEMPT_SECONDS:
            break
        if not next_attempt(service, result, following):
            break
        service = following
        result = _ask(service, ask_for(service), deadline)
    return service, result
