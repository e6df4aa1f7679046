"""Scenarios of merchant accounts, their 3-D Secure configurations and 3-D Secure scenarios."""

from __future__ import annotations

import uuid

from payments.tests.factories import MerchantAccountFactory
from tests.conformance.world import Scenario, World
from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for

THREE_DS_CONFIGURATION = {
    "scheme": "visa",
    "currency": "EUR",
    "merchant_acquirer_bin": "412345",
    "merchant_acquirer_id": "acq-1",
    "merchant_name": "Example Shop",
    "merchant_country_code": "826",
    "merchant_category_code": "5411",
    "merchant_url": "https://shop.example.com",
    "metadata": {"contract": "2026"},
}
CONFIGURATIONS = "/merchant-accounts/{merchant_account_id}/three-ds-configurations"
CONFIGURATION = CONFIGURATIONS + "/{three_ds_configuration_id}"
CHALLENGE = {"version": "2.2.0", "authentication": {"transaction_status": "C"}, "result": {"transaction_status": "Y"}}


def _configuration_path(world: World) -> str:
    configuration = ThreeDSConfigurationFactory(merchant_account=world.account)
    return f"/merchant-accounts/{world.account.pk}/three-ds-configurations/{configuration.pk}"


def _scenario_path(world: World) -> str:
    return f"/three-ds-scenarios/{scenario_for(world.account, amount=1, card_number='4111111111111111').pk}"


SCENARIOS: list[tuple[str, str, str, Scenario]] = [
    # merchant accounts
    ("/merchant-accounts", "GET", "page", lambda w: w.platform.get("/merchant-accounts", {"search": "default"})),
    ("/merchant-accounts", "GET", "bad-limit", lambda w: w.platform.get("/merchant-accounts", {"limit": 0})),
    ("/merchant-accounts", "GET", "wrong-scope", lambda w: w.client.get("/merchant-accounts")),
    ("/merchant-accounts", "GET", "no-token", lambda w: w.anonymous.get("/merchant-accounts")),
    (
        "/merchant-accounts",
        "POST",
        "created",
        lambda w: w.platform.post(
            "/merchant-accounts",
            {"id": "seller-1", "display_name": "Seller", "account_updater_enabled": False},
            format="json",
        ),
    ),
    (
        "/merchant-accounts",
        "POST",
        "duplicate",
        lambda w: w.platform.post("/merchant-accounts", {"id": "default", "display_name": "Again"}, format="json"),
    ),
    (
        "/merchant-accounts",
        "POST",
        "invalid",
        lambda w: w.platform.post("/merchant-accounts", {"id": "a_b", "loon_client_key": "k"}, format="json"),
    ),
    (
        "/merchant-accounts/{merchant_account_id}",
        "GET",
        "found",
        lambda w: w.platform.get("/merchant-accounts/default"),
    ),
    ("/merchant-accounts/{merchant_account_id}", "GET", "missing", lambda w: w.platform.get("/merchant-accounts/x")),
    (
        "/merchant-accounts/{merchant_account_id}",
        "PUT",
        "updated",
        lambda w: w.platform.put("/merchant-accounts/default", {"display_name": "Renamed"}, format="json"),
    ),
    (
        "/merchant-accounts/{merchant_account_id}",
        "PUT",
        "invalid",
        lambda w: w.platform.put("/merchant-accounts/default", {"display_name": ""}, format="json"),
    ),
    # a merchant account's 3-D Secure configurations
    (
        CONFIGURATIONS,
        "POST",
        "created",
        lambda w: w.platform.post(
            "/merchant-accounts/default/three-ds-configurations", THREE_DS_CONFIGURATION, format="json"
        ),
    ),
    (
        CONFIGURATIONS,
        "POST",
        "invalid",
        lambda w: w.platform.post(
            "/merchant-accounts/default/three-ds-configurations",
            {**THREE_DS_CONFIGURATION, "merchant_country_code": "GB"},
            format="json",
        ),
    ),
    (
        CONFIGURATIONS,
        "POST",
        "duplicate",
        lambda w: (
            ThreeDSConfigurationFactory(merchant_account=w.account, scheme="visa", currency="EUR"),
            w.platform.post(
                "/merchant-accounts/default/three-ds-configurations", THREE_DS_CONFIGURATION, format="json"
            ),
        )[1],
    ),
    (
        CONFIGURATIONS,
        "GET",
        "list",
        lambda w: (
            ThreeDSConfigurationFactory(merchant_account=w.account, currency=None),
            w.platform.get("/merchant-accounts/default/three-ds-configurations"),
        )[1],
    ),
    (
        CONFIGURATIONS,
        "GET",
        "wrong-scope",
        lambda w: w.client.get("/merchant-accounts/default/three-ds-configurations"),
    ),
    (
        CONFIGURATIONS,
        "GET",
        "missing",
        lambda w: w.platform.get("/merchant-accounts/nobody/three-ds-configurations"),
    ),
    (
        CONFIGURATION,
        "PUT",
        "updated",
        lambda w: w.platform.put(
            _configuration_path(w), {"merchant_name": "Corner Shop", "currency": None}, format="json"
        ),
    ),
    (CONFIGURATION, "PUT", "invalid", lambda w: w.platform.put(_configuration_path(w), {"scheme": "x"}, format="json")),
    (CONFIGURATION, "DELETE", "deleted", lambda w: w.platform.delete(_configuration_path(w))),
    (
        CONFIGURATION,
        "DELETE",
        "missing",
        lambda w: w.platform.delete(f"/merchant-accounts/default/three-ds-configurations/{uuid.uuid4()}"),
    ),
    # 3-D Secure scenarios
    (
        "/three-ds-scenarios",
        "POST",
        "created",
        lambda w: w.post(
            "/three-ds-scenarios", {"conditions": {"card_number": "4111111111111111"}, "outcome": CHALLENGE}
        ),
    ),
    (
        "/three-ds-scenarios",
        "POST",
        "invalid",
        lambda w: w.post(
            "/three-ds-scenarios", {"conditions": {}, "outcome": {"authentication": {"transaction_status": "C"}}}
        ),
    ),
    (
        "/three-ds-scenarios",
        "GET",
        "page",
        lambda w: (scenario_for(w.account, card_number="4111111111111111"), w.client.get("/three-ds-scenarios"))[1],
    ),
    ("/three-ds-scenarios", "GET", "wrong-scope", lambda w: w.read_only.get("/three-ds-scenarios")),
    (
        "/three-ds-scenarios/{three_ds_scenario_id}",
        "PUT",
        "updated",
        lambda w: w.put(_scenario_path(w), {"outcome": {"authentication": {"transaction_status": "R"}}}),
    ),
    (
        "/three-ds-scenarios/{three_ds_scenario_id}",
        "PUT",
        "missing",
        lambda w: w.put(f"/three-ds-scenarios/{scenario_for(MerchantAccountFactory(id='other')).pk}", {}),
    ),
    ("/three-ds-scenarios/{three_ds_scenario_id}", "DELETE", "deleted", lambda w: w.client.delete(_scenario_path(w))),
]
