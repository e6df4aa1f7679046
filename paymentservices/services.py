"""Writes of payment services: create, update, reorder, delete, and the sealing of their credentials.

Positions are 1-based and contiguous among an account's services that are not deleted: every change of order
locks the merchant account's row first, so two reorders of one account never interleave.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from payments.errors import Conflict, DomainError
from payments.models import MerchantAccount
from payments.vault import crypto
from payments.vault.services import RotationBatch, sealed_rows_rotate_batch
from paymentservices import processors
from paymentservices.definitions import SANDBOX_ID, settlement_reports_fetched
from paymentservices.models import PaymentService
from paymentservices.processors.seam import Processor
from paymentservices.sandbox import THREE_D_SECURE_REFUSAL, sandbox_payments_allowed, sandbox_require
from paymentservices.selectors import payment_services_changed

DEFINITION_POINTER = "/payment_service_definition_id"
# The merchant ID of the sandbox service every new account gets (`mock-card` requires one; nothing reads it).
SANDBOX_MERCHANT_ID = "sandbox"


class CredentialsRefused(DomainError):
    """The processor refused a credential (`POST /payment-services/verify`)."""


class CredentialsUnusable(DomainError):
    """The service's stored credentials cannot be used: no connector is built and nothing is sent to its processor
    until they are entered again (a 400 naming `/fields`). `code` is the FAILED answer a payment routed to it gets."""

    code = "credentials_unusable"


class CredentialsUnreadable(CredentialsUnusable, crypto.VaultError):
    """The service's stored credentials cannot be opened: the key they were sealed with is no longer configured (or
    the ciphertext is not this service's). Still a `VaultError`, so key rotation lists the service as one it failed."""

    code = "credentials_unreadable"

    def __init__(self) -> None:
        super().__init__(
            "The payment service's stored credentials can no longer be read (the key they were sealed with has been "
            "removed): enter them again.",
            pointer="/fields",
        )


class CredentialsMalformed(CredentialsUnusable):
    """A stored credential does not have its field's shape (stored before the field had its rule, or written past
    these services): it is never used, above all never in a URL."""

    code = "credentials_malformed"

    def __init__(self, key: str) -> None:
        super().__init__(
            f"The payment service's stored '{key}' does not have the shape its field requires: enter it again.",
            pointer="/fields",
        )


class ProcessorUnavailable(DomainError):
    """The processor could not be asked (to check credentials, or what a buyer's authentication ended with): nothing
    changed."""

    status = 502


def _context(service_id: uuid.UUID, key: str) -> str:
    """Bind a sealed credential to one service and one field, so it opens nowhere else."""
    return f"payment-service:{service_id}:{key}"


def _settlement_reports_require(processor: Processor) -> None:
    """`settlement_reporting_enabled: true` only where this server fetches the processor's settlement reports."""
    if not settlement_reports_fetched(processor):
        raise DomainError(
            f"settlement_reporting_enabled: {processor.id} services' settlement reports are not fetched by this "
            "server.",
            pointer="/settlement_reporting_enabled",
        )


def definition_require(definition_id: str) -> Processor:
    """The definition (its processor) with this id, or a 400 naming `/payment_service_definition_id`."""
    processor = processors.processor_get(definition_id)
    if processor is None:
        raise DomainError(
            f"There is no payment service definition '{definition_id}'; this server has "
            f"{', '.join(sorted(item.id for item in processors.PROCESSORS))}.",
            pointer=DEFINITION_POINTER,
        )
    return processor


def _field_values(
    processor: Processor, fields: Sequence[Mapping[str, str]], *, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The credential values `fields` give, over `base`; an unknown or repeated key, or a value that breaks its
    field's rule, is a 400 naming it, an empty value clears an optional field (updates only send one). A value kept
    from `base` is held to its rule as well (a 400 naming `/fields`): nothing written or verified carries a value
    its field refuses."""
    values = dict(base or {})
    seen: set[str] = set()
    for index, item in enumerate(fields):
        key, value = item["key"], item["value"]
        field = processor.field_named(key)
        if field is None:
            known = ", ".join(f.key for f in processor.fields) or "none"
            raise DomainError(
                f"'{key}' is not a field of {processor.id} (its fields: {known}).", pointer=f"/fields/{index}/key"
            )
        if key in seen:
            raise DomainError(f"'{key}' is given more than once.", pointer=f"/fields/{index}/key")
        seen.add(key)
        if value == "":
            if field.required:
                raise DomainError(f"'{key}' is required by {processor.id}.", pointer=f"/fields/{index}/value")
            values.pop(key, None)
            continue
        refusal = field.rule.refusal(value)
        if refusal is not None:
            raise DomainError(f"'{key}' {refusal}.", pointer=f"/fields/{index}/value")
        values[key] = value
    for field in processor.fields:
        if field.required and field.key not in values:
            raise DomainError(f"The field '{field.key}' is required by {processor.id}.", pointer="/fields")
    malformed = _malformed_field(processor, {key: value for key, value in values.items() if key not in seen})
    if malformed is not None:
        raise CredentialsMalformed(malformed)
    return values


def _malformed_field(processor: Processor, values: Mapping[str, str]) -> str | None:
    """The first key of `values` whose value its field's rule refuses (a key that is no field is read by no one)."""
    for key, value in values.items():
        field = processor.field_named(key)
        if field is not None and field.rule.refusal(value) is not None:
            return key
    return None


def _check_supported(
    processor: Processor, *, currencies: Sequence[str] | None, countries: Sequence[str] | None
) -> None:
    for name, given, supported in (
        ("accepted_currencies", currencies, processor.supported_currencies),
        ("accepted_countries", countries, processor.supported_countries),
    ):
        for index, code in enumerate(given or ()):
            if code not in supported:
                raise DomainError(f"{processor.id} does not support '{code}'.", pointer=f"/{name}/{index}")


def _seal(service: PaymentService, processor: Processor, values: Mapping[str, str]) -> None:
    """Keep non-secret values as given and seal the secret ones under the current key."""
    secret = {f.key for f in processor.fields if f.secret}
    service.fields = {key: value for key, value in values.items() if key not in secret}
    service.sealed_fields = {
        key: crypto.encrypt(value, context=_context(service.id, key)) for key, value in values.items() if key in secret
    }
    service.key_id = crypto.current_key_id() if service.sealed_fields else ""


def _three_d_secure_require() -> None:
    sandbox_require(pointer="/three_d_secure_enabled", reason=THREE_D_SECURE_REFUSAL)


def payment_service_credentials(*, service: PaymentService) -> dict[str, str]:
    """Every credential of the service in clear, for a connector call only: never log, store or render it. Raises
    `CredentialsUnreadable` when they were sealed with a key that has since been removed."""
    try:
        opened = {
            key: crypto.decrypt(token, context=_context(service.id, key))
            for key, token in service.sealed_fields.items()
        }
    except crypto.VaultError:
        raise CredentialsUnreadable from None
    return {**service.fields, **opened}


def payment_service_connector_credentials(*, service: PaymentService) -> dict[str, str]:
    """The service's credentials in clear for its connector, each held to its field's rule again: a value that
    reached the database without passing it (a row stored before the rule, or written past these services) raises
    `CredentialsMalformed`, so it is never put in a URL or a request. Never log, store or render the answer."""
    credentials = payment_service_credentials(service=service)
    malformed = _malformed_field(definition_require(service.definition_id), credentials)
    if malformed is not None:
        raise CredentialsMalformed(malformed)
    return credentials


def _locked_services(account: MerchantAccount) -> list[PaymentService]:
    """The account's services in routing order, after locking the account so the order cannot change meanwhile."""
    MerchantAccount.objects.select_for_update().filter(pk=account.pk).first()
    return list(
        PaymentService.objects.filter(merchant_account=account, is_deleted=False).order_by("position", "created_at")
    )


def _renumber(services: list[PaymentService]) -> None:
    """Number one account's services from 1 in this order (`_locked_services`); its holders are told once."""
    moved = False
    for number, service in enumerate(services, start=1):
        if service.position != number:
            PaymentService.objects.filter(pk=service.pk).update(position=number)
            service.position = number
            moved = True
    if moved:
        payment_services_changed(merchant_account_id=services[0].merchant_account_id)


@transaction.atomic
def payment_service_create(
    *,
    merchant_account: MerchantAccount,
    definition_id: str,
    display_name: str,
    fields: Sequence[Mapping[str, str]],
    accepted_currencies: Sequence[str],
    accepted_countries: Sequence[str],
    position: int | None = None,
    active: bool | None = True,
    three_d_secure_enabled: bool | None = False,
    merchant_profile: Mapping[str, Any] | None = None,
    payment_method_tokenization_enabled: bool | None = None,
    network_tokens_enabled: bool | None = None,
    open_loop: bool | None = None,
    settlement_reporting_enabled: bool | None = False,
) -> PaymentService:
    """A new service of the account at `position` (default: last); later services move down one place."""
    processor = definition_require(definition_id)
    if settlement_reporting_enabled:
        _settlement_reports_require(processor)
    if processor.sandbox:
        sandbox_require(pointer=DEFINITION_POINTER)
    if three_d_secure_enabled:
        _three_d_secure_require()
    values = _field_values(processor, fields)
    _check_supported(processor, currencies=accepted_currencies, countries=accepted_countries)
    services = _locked_services(merchant_account)
    service = PaymentService(
        merchant_account=merchant_account,
        definition_id=processor.id,
        display_name=display_name,
        position=len(services) + 1,
        active=True if active is None else active,
        accepted_currencies=list(dict.fromkeys(accepted_currencies)),
        accepted_countries=list(dict.fromkeys(accepted_countries)),
        three_d_secure_enabled=bool(three_d_secure_enabled),
        merchant_profile=dict(merchant_profile) if merchant_profile is not None else None,
        payment_method_tokenization_enabled=bool(payment_method_tokenization_enabled),
        network_tokens_enabled=bool(network_tokens_enabled),
        open_loop=bool(open_loop),
        settlement_reporting_enabled=bool(settlement_reporting_enabled),
    )
    _seal(service, processor, values)
    service.save(force_insert=True)
    services.append(service)
    if position is not None:
        _move(services, service, position)
    return service


def _move(services: list[PaymentService], service: PaymentService, position: int) -> None:
    ordered = [item for item in services if item.pk != service.pk]
    index = min(max(position, 1), len(ordered) + 1) - 1
    ordered.insert(index, service)
    _renumber(ordered)


@transaction.atomic
def payment_service_move(*, service: PaymentService, position: int) -> PaymentService:
    """Put the service at `position` (1 is tried first) among its account's services; the others keep their order."""
    services = _locked_services(service.merchant_account)
    if not any(item.pk == service.pk for item in services):
        raise Conflict("The payment service has been deleted; it has no place in the routing order.")
    _move(services, service, position)
    service.refresh_from_db()
    return service


@transaction.atomic
def payment_service_update(
    *,
    service: PaymentService,
    fields: Sequence[Mapping[str, str]] | None = None,
    position: int | None = None,
    display_name: str | None = None,
    accepted_currencies: Sequence[str] | None = None,
    accepted_countries: Sequence[str] | None = None,
    active: bool | None = None,
    three_d_secure_enabled: bool | None = None,
    merchant_profile: Mapping[str, Any] | None = None,
    payment_method_tokenization_enabled: bool | None = None,
    network_tokens_enabled: bool | None = None,
    open_loop: bool | None = None,
    settlement_reporting_enabled: bool | None = None,
    cascade_retryable_declines: bool | None = None,
) -> PaymentService:
    """Change the fields given (None leaves a value as it is, as upstream's update reads a null); `fields` replace or
    clear single credentials."""
    service = PaymentService.objects.select_for_update().get(pk=service.pk)
    if service.is_deleted:
        raise Conflict("The payment service has been deleted; create a new one instead.")
    processor = definition_require(service.definition_id)
    given: dict[str, Any] = {
        "display_name": display_name,
        "accepted_currencies": accepted_currencies,
        "accepted_countries": accepted_countries,
        "active": active,
        "three_d_secure_enabled": three_d_secure_enabled,
        "merchant_profile": merchant_profile,
        "payment_method_tokenization_enabled": payment_method_tokenization_enabled,
        "network_tokens_enabled": network_tokens_enabled,
        "open_loop": open_loop,
        "settlement_reporting_enabled": settlement_reporting_enabled,
        "cascade_retryable_declines": cascade_retryable_declines,
    }
    changes = {name: value for name, value in given.items() if value is not None}
    if processor.sandbox and changes.get("active") and not service.active:
        sandbox_require(pointer="/active")
    if changes.get("three_d_secure_enabled") and not service.three_d_secure_enabled:
        _three_d_secure_require()
    if changes.get("settlement_reporting_enabled"):
        _settlement_reports_require(processor)
    _check_supported(
        processor, currencies=changes.get("accepted_currencies"), countries=changes.get("accepted_countries")
    )
    for name in ("accepted_currencies", "accepted_countries"):
        if name in changes:
            changes[name] = list(dict.fromkeys(changes[name]))
    for name, value in changes.items():
        setattr(service, name, value)
    if fields:
        _seal(service, processor, _field_values(processor, fields, base=payment_service_credentials(service=service)))
    service.save()
    if position is not None:
        payment_service_move(service=service, position=position)
    return service


@transaction.atomic
def payment_service_delete(*, service: PaymentService) -> None:
    """Take the service out of routing for good; it stays (with its credentials) for the captures, voids and refunds
    of payments it authorized, and its listing under `deleted=true`."""
    services = _locked_services(service.merchant_account)
    PaymentService.objects.filter(pk=service.pk).update(is_deleted=True, active=False)
    payment_services_changed(merchant_account_id=service.merchant_account_id)
    _renumber([item for item in services if item.pk != service.pk])


@transaction.atomic
def payment_service_default_create(*, merchant_account: MerchantAccount) -> PaymentService | None:
    """Give a new account the sandbox (`mock-card`, every currency and country) where sandbox payments are allowed,
    so it can take test payments with no setup. An account that already has a service is left alone."""
    if not sandbox_payments_allowed() or PaymentService.objects.filter(merchant_account=merchant_account).exists():
        return None
    sandbox = definition_require(SANDBOX_ID)
    return payment_service_create(
        merchant_account=merchant_account,
        definition_id=sandbox.id,
        display_name="Sandbox",
        fields=[{"key": "merchant_id", "value": SANDBOX_MERCHANT_ID}],
        accepted_currencies=sandbox.supported_currencies,
        accepted_countries=sandbox.supported_countries,
    )


def payment_service_credentials_verify(
    *,
    merchant_account: MerchantAccount,
    definition_id: str,
    fields: Sequence[Mapping[str, str]],
    service: PaymentService | None = None,
) -> None:
    """Check credentials with the processor (no row is written); given a service, fields not sent are its own.
    A refused field is a 400 naming it; a processor that cannot be asked is a 502."""
    processor = definition_require(definition_id)
    if service is not None and service.definition_id != processor.id:
        raise DomainError(
            f"The payment service is a {service.definition_id} service, not {processor.id}.",
            pointer="/payment_service_id",
        )
    base = payment_service_credentials(service=service) if service is not None else None
    values = _field_values(processor, fields, base=base)
    try:
        problem = processor.verify(values)
    except Exception as exc:
        # Never the exception's text: it may quote the request, credentials included.
        raise ProcessorUnavailable(f"{processor.display_name} could not be reached to check the credentials.") from exc
    if problem is not None:
        index = next((i for i, item in enumerate(fields) if item["key"] == problem.field), None)
        pointer = "/fields" if index is None else f"/fields/{index}/value"
        raise CredentialsRefused(f"{problem.field}: {problem.message}", pointer=pointer)


def payment_service_credentials_rotate_batch(*, batch_size: int, after: uuid.UUID | None = None) -> RotationBatch:
    """Re-seal under the current key up to `batch_size` services sealed under another, in id order after `after`.

    A process's held copy of a re-sealed service (`payment_services_routable`) still opens: the key it was sealed
    under stays configured until rotation is over, and taking it out restarts the processes."""
    return sealed_rows_rotate_batch(
        PaymentService.objects.exclude(key_id__in=["", crypto.current_key_id()]),
        batch_size=batch_size,
        after=after,
        reseal=_reseal,
        fields=["fields", "sealed_fields", "key_id"],
    )


def _reseal(service: PaymentService) -> None:
    _seal(service, definition_require(service.definition_id), payment_service_credentials(service=service))


def payment_service_credentials_count_stale() -> int:
    """How many services hold credentials sealed under a key other than the current one."""
    return PaymentService.objects.exclude(key_id__in=["", crypto.current_key_id()]).count()
