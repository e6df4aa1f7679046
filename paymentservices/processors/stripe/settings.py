"""Stripe's block of `settings.PROCESSORS`, read from `STRIPE_*` environment variables (docs/deploy.md). Loaded by
file while Django's settings load (`config.processor_settings`): nothing here may import Django or this folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from environ import Env


def settings_block(env: Env) -> dict[str, Any]:
    return {
        "API_BASE": env.str("STRIPE_API_BASE", default="https://api.stripe.com"),
        "TIMEOUT_SECONDS": env.float("STRIPE_TIMEOUT_SECONDS", default=10.0),
        # Stripe.js, which the buyer's page loads to complete Stripe's own 3-D Secure (docs/three-d-secure.md); the
        # tests point it at the fake Stripe's stand-in. The page's Content-Security-Policy allows its origin.
        "JS_URL": env.str("STRIPE_JS_URL", default="https://js.stripe.com/v3/"),
        # Its library logs two lines per call at INFO (the URL, then the answer's status): four records a card payment
        # through every filter and the JSON formatter, nearly 4 % of a worker's profile of the payment.
        "QUIET_LOGGERS": ("stripe",),
    }
