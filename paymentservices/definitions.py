"""The payment service definitions this server ships, derived from the registered processors
(`paymentservices.processors`): what each needs (its fields), what it supports, and the connector it maps to.
Definitions are code, not rows: a merchant account's services are made from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache

import pycountry

from payments.connectors.base import PaymentConnector
from paymentservices.processors import PROCESSORS
from paymentservices.processors.seam import CredentialProblem, DefinitionField, ParsedNotification, Processor


@dataclass(frozen=True)
class Definition:
    """A kind of payment service: a processor and the way of paying it takes."""

    id: str
    display_name: str
    fields: tuple[DefinitionField, ...]
    supported_features: Mapping[str, bool]
    # Builds the connector for a service's credentials ({key: clear value}, and `deadline=`: the `time.monotonic()`
    # past which its calls must not wait); checks credentials with the processor.
    connector: Callable[..., PaymentConnector]
    verify_credentials: Callable[[Mapping[str, str]], CredentialProblem | None]
    # The built-in sandbox: refused in production unless SANDBOX_PAYMENTS (paymentservices.sandbox).
    sandbox: bool = False
    # Notifications the processor sends to the service's `webhook_url`: verified with this field's secret by
    # `parse_notification(payload=..., headers=..., secret=..., credentials=...)`.
    webhook_secret_field: str | None = None
    parse_notification: Callable[..., ParsedNotification] | None = None
    method: str = "card"
    mode: str = "card"
    icon_url: str | None = None
    supported_integration_clients: tuple[str, ...] = ("web",)
    reporting_fields: tuple[DefinitionField, ...] = field(default=())
    # The `connection_options` sets its connector reads, and the template of the buyer's page for the processor's own
    # authentication (`Processor`).
    connection_options_keys: frozenset[str] = frozenset()
    buyer_page: str | None = None
    # The processor's dashboard page of a payment: `dashboard_url(reference=..., fields=...)` (`Processor`).
    dashboard_url: Callable[..., str | None] | None = None

    @property
    def supported_currencies(self) -> list[str]:
        return all_currencies()

    @property
    def supported_countries(self) -> list[str]:
        return all_countries()

    @property
    def settlement_reports(self) -> bool:
        """Whether this server fetches the settlement reports of its services' processor (a source registered it)."""
        return self.id in _SETTLEMENT_REPORTS

    def field_named(self, key: str) -> DefinitionField | None:
        return next((item for item in self.fields if item.key == key), None)


@cache
def all_currencies() -> list[str]:
    return sorted(currency.alpha_3 for currency in pycountry.currencies)


@cache
def all_countries() -> list[str]:
    return sorted(country.alpha_2 for country in pycountry.countries)


def _definition(processor: Processor) -> Definition:
    """What the definitions endpoint and the services see of a registered processor."""
    takes_notifications = processor.notification_secret_field is not None
    return Definition(
        id=processor.id,
        display_name=processor.display_name,
        fields=processor.fields,
        supported_features=processor.features,
        connector=processor.connect,
        verify_credentials=processor.verify,
        sandbox=processor.sandbox,
        webhook_secret_field=processor.notification_secret_field,
        parse_notification=processor.parse_notification if takes_notifications else None,
        connection_options_keys=processor.connection_options_keys,
        buyer_page=processor.buyer_page,
        dashboard_url=processor.dashboard_url,
        method=processor.method,
        mode=processor.mode,
    )


DEFINITIONS: dict[str, Definition] = {processor.id: _definition(processor) for processor in PROCESSORS}
# The built-in sandbox's definition id (the registered processor that says `sandbox`): what a new account is given
# where sandbox payments are allowed.
SANDBOX_ID = next(processor.id for processor in PROCESSORS if processor.sandbox)


# The definitions whose settlement reports a source of the app that fetches them reads: registered by that app from
# its sources (settlements.apps), so `settlement_reporting_enabled` is taken exactly where it is acted on.
_SETTLEMENT_REPORTS: set[str] = set()


def settlement_reports_register(*definition_ids: str) -> None:
    """Say that the settlement reports of these definitions' services are fetched."""
    unknown = set(definition_ids) - set(DEFINITIONS)
    if unknown:
        raise ValueError(f"No definition {', '.join(sorted(unknown))} is shipped.")
    _SETTLEMENT_REPORTS.update(definition_ids)


def definition_get(definition_id: str) -> Definition | None:
    return DEFINITIONS.get(definition_id)
