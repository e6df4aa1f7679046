"""Writes of 3-D Secure scenarios and configurations; the API and the admin call these."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from payments.accounts.models import MerchantAccount
from payments.errors import DomainError, DuplicateRecord
from payments.partial import UNCHANGED, Unchanged, changed_fields
from payments.vault.cards import card_display
from threedsecure.models import AuthenticationStatus, ThreeDSConfiguration, ThreeDSScenario
from threedsecure.scenarios import ScenarioConditions, ScenarioOutcome
from threedsecure.selectors import card_digest

_DUPLICATE_CONFIGURATION = (
    "The merchant account already has a 3-D Secure configuration for this scheme and currency: update that one."
)


# --- scenarios -------------------------------------------------------------------------------------------------


def _check_outcome(outcome: ScenarioOutcome) -> None:
    """A challenge (`C`) must say how it ends; no other status has an end to say."""
    if outcome.authentication == AuthenticationStatus.CHALLENGE and outcome.result is None:
        raise DomainError(
            "A challenge outcome (authentication status C) needs a result: Y, N or timeout.",
            pointer="/outcome/result",
        )
    if outcome.authentication != AuthenticationStatus.CHALLENGE and outcome.result is not None:
        raise DomainError(
            "Only a challenge outcome (authentication status C) has a result; leave it out or set it to null.",
            pointer="/outcome/result",
        )


def _apply_conditions(scenario: ThreeDSScenario, conditions: ScenarioConditions) -> None:
    scenario.amount = conditions.amount
    scenario.email_address = conditions.email_address
    scenario.first_name = conditions.first_name
    scenario.last_name = conditions.last_name
    scenario.external_identifier = conditions.external_identifier
    if conditions.card_number is None:
        scenario.card_digest = scenario.card_bin = scenario.card_last4 = None
        scenario.card_length = None
        return
    display = card_display(conditions.card_number)  # validated shape; the number itself is never kept
    scenario.card_digest = card_digest(conditions.card_number)
    scenario.card_bin, scenario.card_last4 = display["bin"], display["last4"]
    scenario.card_length = len(conditions.card_number)


def _apply_outcome(scenario: ThreeDSScenario, outcome: ScenarioOutcome) -> None:
    _check_outcome(outcome)
    scenario.version = outcome.version
    scenario.authentication_status = outcome.authentication
    scenario.result_status = outcome.result


@transaction.atomic
def three_ds_scenario_create(
    *, merchant_account: MerchantAccount, conditions: ScenarioConditions, outcome: ScenarioOutcome
) -> ThreeDSScenario:
    """Store a scenario; a challenge without a result (or a result without a challenge) is refused."""
    scenario = ThreeDSScenario(merchant_account=merchant_account)
    _apply_conditions(scenario, conditions)
    _apply_outcome(scenario, outcome)
    scenario.save()
    return scenario


@transaction.atomic
def three_ds_scenario_update(
    *, scenario: ThreeDSScenario, conditions: ScenarioConditions | None = None, outcome: ScenarioOutcome | None = None
) -> ThreeDSScenario:
    """Replace the conditions and/or the outcome, each as a whole; None leaves that part as it is."""
    scenario = ThreeDSScenario.objects.select_for_update().get(pk=scenario.pk)
    if conditions is not None:
        _apply_conditions(scenario, conditions)
    if outcome is not None:
        _apply_outcome(scenario, outcome)
    scenario.save()
    return scenario


@transaction.atomic
def three_ds_scenario_delete(*, scenario: ThreeDSScenario) -> None:
    """Remove the scenario; payments it would have matched fall back to the next match or the test cards."""
    ThreeDSScenario.objects.filter(pk=scenario.pk).delete()


# --- configurations --------------------------------------------------------------------------------------------


def _save_configuration(configuration: ThreeDSConfiguration) -> ThreeDSConfiguration:
    try:
        with transaction.atomic():
            configuration.save()
    except IntegrityError:
        raise DuplicateRecord(_DUPLICATE_CONFIGURATION, pointer="/scheme") from None
    return configuration


@transaction.atomic
def three_ds_configuration_create(
    *,
    merchant_account: MerchantAccount,
    scheme: str,
    merchant_acquirer_bin: str,
    merchant_acquirer_id: str,
    merchant_name: str,
    merchant_country_code: str,
    merchant_category_code: str,
    merchant_url: str,
    metadata: dict[str, str],
    currency: str | None = None,
) -> ThreeDSConfiguration:
    """Store what a 3DS server is told for `scheme` (and `currency`, or every currency); one per pair (409)."""
    return _save_configuration(
        ThreeDSConfiguration(
            merchant_account=merchant_account,
            scheme=scheme,
            currency=currency,
            merchant_acquirer_bin=merchant_acquirer_bin,
            merchant_acquirer_id=merchant_acquirer_id,
            merchant_name=merchant_name,
            merchant_country_code=merchant_country_code,
            merchant_category_code=merchant_category_code,
            merchant_url=merchant_url,
            metadata=metadata,
        )
    )


@transaction.atomic
def three_ds_configuration_update(
    *,
    configuration: ThreeDSConfiguration,
    scheme: str | Unchanged = UNCHANGED,
    currency: str | Unchanged | None = UNCHANGED,
    merchant_acquirer_bin: str | Unchanged = UNCHANGED,
    merchant_acquirer_id: str | Unchanged = UNCHANGED,
    merchant_name: str | Unchanged = UNCHANGED,
    merchant_country_code: str | Unchanged = UNCHANGED,
    merchant_category_code: str | Unchanged = UNCHANGED,
    merchant_url: str | Unchanged = UNCHANGED,
    metadata: dict[str, Any] | Unchanged | None = UNCHANGED,
) -> ThreeDSConfiguration:
    """Change the fields given (a null currency: every currency); a second configuration for one scheme and currency
    is refused (409)."""
    changes = changed_fields(
        scheme=scheme,
        currency=currency,
        merchant_acquirer_bin=merchant_acquirer_bin,
        merchant_acquirer_id=merchant_acquirer_id,
        merchant_name=merchant_name,
        merchant_country_code=merchant_country_code,
        merchant_category_code=merchant_category_code,
        merchant_url=merchant_url,
        metadata=metadata,
    )
    configuration = ThreeDSConfiguration.objects.select_for_update().get(pk=configuration.pk)
    for name, value in changes.items():
        setattr(configuration, name, value)
    return _save_configuration(configuration)


@transaction.atomic
def three_ds_configuration_delete(*, configuration: ThreeDSConfiguration) -> None:
    """Remove the configuration."""
    ThreeDSConfiguration.objects.filter(pk=configuration.pk).delete()
