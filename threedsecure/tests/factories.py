"""Configurations are plain rows; scenarios go through the service, which keeps a card condition as a digest."""

from __future__ import annotations

from typing import Any

import factory
from factory.django import DjangoModelFactory

from payments.tests.factories import MerchantAccountFactory
from threedsecure.models import ThreeDSConfiguration, ThreeDSScenario
from threedsecure.scenarios import ScenarioConditions, ScenarioOutcome
from threedsecure.services import three_ds_scenario_create


class ThreeDSConfigurationFactory(DjangoModelFactory[ThreeDSConfiguration]):
    class Meta:
        model = ThreeDSConfiguration

    merchant_account = factory.SubFactory(MerchantAccountFactory, id="default")
    scheme = "visa"
    currency = None
    merchant_acquirer_bin = "412345"
    merchant_acquirer_id = factory.Sequence(lambda n: f"acquirer-merchant-{n}")
    merchant_name = "Example Shop"
    merchant_country_code = "826"
    merchant_category_code = "5411"
    merchant_url = "https://shop.example.com"
    metadata = factory.LazyFunction(dict)


def scenario_for(merchant_account: Any, *, authentication: str = "Y", result: str | None = None, **conditions: Any):
    """A scenario made as the API makes one."""
    return three_ds_scenario_create(
        merchant_account=merchant_account,
        conditions=ScenarioConditions(**conditions),
        outcome=ScenarioOutcome(authentication=authentication, result=result, version="2.2.0"),
    )


__all__ = ["ThreeDSConfigurationFactory", "ThreeDSScenario", "scenario_for"]
