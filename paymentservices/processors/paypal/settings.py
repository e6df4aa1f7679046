"""PayPal's block of `settings.PROCESSORS`, read from `PAYPAL_*` environment variables (docs/deploy.md). Loaded by
file while Django's settings load (`config.processor_settings`): nothing here may import Django or this folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from environ import Env


def settings_block(env: Env) -> dict[str, Any]:
    return {
        # The REST API host PayPal's library calls: PayPal's live host by default; its sandbox is
        # https://api-m.sandbox.paypal.com (docs/payment-services.md, "PayPal").
        "API_BASE": env.str("PAYPAL_API_BASE", default="https://api-m.paypal.com"),
        "TIMEOUT_SECONDS": env.float("PAYPAL_TIMEOUT_SECONDS", default=10.0),
    }
