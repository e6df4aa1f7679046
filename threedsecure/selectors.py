"""Reads of 3-D Secure scenarios and configurations, scoped to one merchant account; and the two questions the
3-D Secure flow asks: which scenario a payment meets, and which configuration a 3DS server is told."""

from __future__ import annotations

import uuid

from django.db.models import Q, QuerySet

from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from payments.vault.crypto import keyed_hash
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario
from threedsecure.scenarios import ScenarioOutcome

# The keyed digest of a scenario's card number has a key of its own (docs/card-data.md, "Keyed digests").
CARD_DIGEST_PURPOSE = "three-ds-scenario-card"
_CONDITIONS = ("amount", "card_digest", "email_address", "first_name", "last_name", "external_identifier")


def card_digest(number: str) -> str:
    """The keyed digest a scenario keeps of a card number, and the one a payment's number is matched by."""
    return keyed_hash(number, purpose=CARD_DIGEST_PURPOSE)


def _uuid_or_not_found(value: uuid.UUID | str, message: str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise NotFound(message) from None


# --- scenarios -------------------------------------------------------------------------------------------------


def three_ds_scenario_list(*, merchant_account: MerchantAccount) -> QuerySet[ThreeDSScenario]:
    """The account's scenarios; pagination orders them."""
    return account_rows(ThreeDSScenario, merchant_account)


def three_ds_scenario_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> ThreeDSScenario:
    """One scenario of the account; another account's is not found, like a missing one."""
    message = "The 3-D Secure scenario could not be found."
    pk = _uuid_or_not_found(id, message)
    scenario = account_rows(ThreeDSScenario, merchant_account).filter(pk=pk).first()
    if scenario is None:
        raise NotFound(message)
    return scenario


def _specificity(scenario: ThreeDSScenario) -> int:
    return sum(getattr(scenario, name) is not None for name in _CONDITIONS)


def _condition(name: str, value: str | int | None, *, lookup: str = "exact") -> Q:
    """A scenario without this condition matches; one with it matches only an equal value."""
    unset = Q(**{f"{name}__isnull": True})
    return unset if value is None else unset | Q(**{f"{name}__{lookup}": value})


def scenario_matching(
    *,
    merchant_account: MerchantAccount,
    amount: int,
    card_number: str | None = None,
    email_address: str | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
    external_identifier: str | None = None,
) -> ScenarioOutcome | None:
    """The outcome of the scenario whose every condition the payment meets; when several do, the one with the most
    conditions, then the newest. None when no scenario matches (the sandbox's test cards decide then).

    Amount, card number and external identifier match exactly; names and email address ignore case.
    """
    scenarios = ThreeDSScenario.objects.filter(
        _condition("amount", amount),
        _condition("card_digest", card_digest(card_number) if card_number else None),
        _condition("email_address", email_address or None, lookup="iexact"),
        _condition("first_name", first_name or None, lookup="iexact"),
        _condition("last_name", last_name or None, lookup="iexact"),
        _condition("external_identifier", external_identifier or None),
        merchant_account=merchant_account,
    )
    best = max(scenarios, key=lambda s: (_specificity(s), s.created_at, str(s.pk)), default=None)
    if best is None:
        return None
    return ScenarioOutcome(authentication=best.authentication_status, version=best.version, result=best.result_status)


# --- configurations --------------------------------------------------------------------------------------------


def three_ds_configuration_list(
    *, merchant_account: MerchantAccount, currency: str | None = None
) -> QuerySet[ThreeDSConfiguration]:
    """The account's configurations, newest first; with `currency`, only those made for that currency."""
    configurations = account_rows(ThreeDSConfiguration, merchant_account)
    if currency is not None:
        configurations = configurations.filter(currency=currency)
    return configurations.order_by("-created_at", "-pk")


def three_ds_configuration_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> ThreeDSConfiguration:
    """One configuration of the account; another account's is not found, like a missing one."""
    message = "The 3-D Secure configuration could not be found."
    pk = _uuid_or_not_found(id, message)
    configuration = account_rows(ThreeDSConfiguration, merchant_account).filter(pk=pk).first()
    if configuration is None:
        raise NotFound(message)
    return configuration


def three_ds_configuration_for(
    *, merchant_account: MerchantAccount, scheme: str, currency: str
) -> ThreeDSConfiguration | None:
    """What a 3DS server is told for a card of `scheme` paying in `currency`: the configuration made for that
    currency, else the one for every currency, else None."""
    candidates = ThreeDSConfiguration.objects.filter(
        Q(currency=currency) | Q(currency__isnull=True), merchant_account=merchant_account, scheme=scheme
    )
    return min(candidates, key=lambda c: c.currency is None, default=None)
