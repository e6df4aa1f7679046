"""The two questions the 3-D Secure flow asks: which scenario a payment meets, and which configuration a 3DS
server is told."""

from __future__ import annotations

from typing import Any

import pytest

from threedsecure.scenarios import ScenarioOutcome
from threedsecure.selectors import scenario_matching, three_ds_configuration_for
from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for

pytestmark = pytest.mark.django_db

CARD = "4111111111111111"
OTHER_CARD = "5555555555554444"
PAYMENT = {
    "amount": 1299,
    "card_number": CARD,
    "email_address": "Ada@Example.com",
    "first_name": "Ada",
    "last_name": "Lovelace",
    "external_identifier": "order-1",
}

# (scenario conditions, payment fields overriding PAYMENT, matches)
MATCHES: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    ({}, {}, True),
    ({"amount": 1299}, {}, True),
    ({"amount": 1300}, {}, False),
    ({"amount": 0}, {"amount": 0}, True),
    ({"card_number": CARD}, {}, True),
    ({"card_number": OTHER_CARD}, {}, False),
    ({"card_number": CARD}, {"card_number": None}, False),
    ({"email_address": "ada@example.com"}, {}, True),
    ({"email_address": "grace@example.com"}, {}, False),
    ({"email_address": "ada@example.com"}, {"email_address": None}, False),
    ({"first_name": "ADA"}, {}, True),
    ({"first_name": "Grace"}, {}, False),
    ({"last_name": "lovelace"}, {}, True),
    ({"last_name": "Hopper"}, {}, False),
    ({"external_identifier": "order-1"}, {}, True),
    ({"external_identifier": "ORDER-1"}, {}, False),
    ({"external_identifier": "order-1"}, {"external_identifier": None}, False),
    ({"amount": 1299, "card_number": CARD, "email_address": "ada@example.com"}, {}, True),
    ({"amount": 1299, "card_number": CARD, "email_address": "ada@example.com"}, {"amount": 1}, False),
    ({"amount": 1299, "card_number": CARD}, {"card_number": OTHER_CARD}, False),
    ({"first_name": "Ada", "last_name": "Lovelace", "external_identifier": "order-1"}, {}, True),
]


@pytest.mark.parametrize(
    ("conditions", "payment", "matches"),
    MATCHES,
    ids=[f"{i}:{sorted(c)}->{'match' if m else 'none'}" for i, (c, _, m) in enumerate(MATCHES)],
)
def test_a_scenario_matches_when_every_condition_it_sets_holds(merchant_account, conditions, payment, matches):
    scenario_for(merchant_account, authentication="C", result="N", **conditions)

    outcome = scenario_matching(merchant_account=merchant_account, **{**PAYMENT, **payment})

    expected = ScenarioOutcome(authentication="C", version="2.2.0", result="N") if matches else None
    assert outcome == expected


def test_no_scenario_is_none(merchant_account):
    assert scenario_matching(merchant_account=merchant_account, **PAYMENT) is None


def test_another_accounts_scenario_never_matches(merchant_account, other_merchant_account):
    scenario_for(other_merchant_account, authentication="R", amount=1299)

    assert scenario_matching(merchant_account=merchant_account, **PAYMENT) is None


def test_the_scenario_with_the_most_conditions_wins(merchant_account):
    scenario_for(merchant_account, authentication="N", amount=1299, card_number=CARD)
    scenario_for(merchant_account, authentication="R", amount=1299)  # newer, but less specific
    scenario_for(merchant_account, authentication="U")

    outcome = scenario_matching(merchant_account=merchant_account, **PAYMENT)

    assert outcome is not None
    assert outcome.authentication == "N"


def test_among_equally_specific_scenarios_the_newest_wins(merchant_account):
    scenario_for(merchant_account, authentication="N", amount=1299)
    scenario_for(merchant_account, authentication="A", card_number=CARD)

    outcome = scenario_matching(merchant_account=merchant_account, **PAYMENT)

    assert outcome is not None
    assert outcome.authentication == "A"


def test_matching_is_one_query(merchant_account, django_assert_num_queries):
    for amount in range(5):
        scenario_for(merchant_account, amount=amount, card_number=CARD)

    with django_assert_num_queries(1):
        scenario_matching(merchant_account=merchant_account, **PAYMENT)


# (configurations as (scheme, currency), asked for (scheme, currency), the one found or None)
CONFIGURATIONS = [
    ([("visa", "EUR"), ("visa", None)], ("visa", "EUR"), ("visa", "EUR")),
    ([("visa", "EUR"), ("visa", None)], ("visa", "GBP"), ("visa", None)),
    ([("visa", "EUR")], ("visa", "GBP"), None),
    ([("mastercard", None)], ("visa", "EUR"), None),
    ([], ("visa", "EUR"), None),
]


@pytest.mark.parametrize(
    ("made", "asked", "found"), CONFIGURATIONS, ids=["exact", "fallback", "none", "scheme", "empty"]
)
def test_the_configuration_for_a_payment(merchant_account, other_merchant_account, made, asked, found):
    ThreeDSConfigurationFactory(merchant_account=other_merchant_account, scheme=asked[0], currency=asked[1])
    for scheme, currency in made:
        ThreeDSConfigurationFactory(scheme=scheme, currency=currency)

    configuration = three_ds_configuration_for(merchant_account=merchant_account, scheme=asked[0], currency=asked[1])

    assert (None if configuration is None else (configuration.scheme, configuration.currency)) == found
    if configuration is not None:
        assert configuration.merchant_account == merchant_account
