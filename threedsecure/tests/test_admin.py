"""The admin shows configurations and scenarios read-only; a scenario's card shows as BIN and last 4 only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for

pytestmark = pytest.mark.django_db

CARD = "4111111111111111"


def test_configurations_are_listed_and_shown(support_client, merchant_account):
    configuration = ThreeDSConfigurationFactory(merchant_name="Corner Shop", merchant_acquirer_bin="498765")

    listing = support_client.get(reverse("admin:threedsecure_threedsconfiguration_changelist"))
    page = support_client.get(reverse("admin:threedsecure_threedsconfiguration_change", args=[configuration.pk]))

    assert listing.status_code == 200
    assert "Corner Shop" in listing.content.decode()
    assert page.status_code == 200
    assert "498765" in page.content.decode()


def test_a_scenarios_card_shows_masked(support_client, merchant_account):
    scenario = scenario_for(merchant_account, authentication="C", result="Y", card_number=CARD)

    listing = support_client.get(reverse("admin:threedsecure_threedsscenario_changelist"))
    page = support_client.get(reverse("admin:threedsecure_threedsscenario_change", args=[scenario.pk]))

    for response in (listing, page):
        assert response.status_code == 200
        assert "411111******1111" in response.content.decode()
        assert CARD not in response.content.decode()
        assert scenario.card_digest not in response.content.decode()


@pytest.mark.parametrize("model", ["threedsconfiguration", "threedsscenario"])
def test_staff_cannot_add_here(support_client, model):
    assert support_client.get(reverse(f"admin:threedsecure_{model}_add")).status_code == 403
