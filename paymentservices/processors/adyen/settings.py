"""Adyen's block of `settings.PROCESSORS`, read from `ADYEN_*` environment variables (docs/deploy.md). Loaded by
file while Django's settings load (`config.processor_settings`): nothing here may import Django or this folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from environ import Env


def settings_block(env: Env) -> dict[str, Any]:
    return {
        # The Checkout API (v72): empty means Adyen's own, test or live by the service's `live_url_prefix`.
        "API_BASE": env.str("ADYEN_API_BASE", default=""),
        # The Payout API (v68, instant card payouts): empty means Adyen's own, test or live like the Checkout API.
        "PAYOUT_API_BASE": env.str("ADYEN_PAYOUT_API_BASE", default=""),
        "TIMEOUT_SECONDS": env.float("ADYEN_TIMEOUT_SECONDS", default=10.0),
        # Where reports are downloaded: empty means only Adyen's own report hosts (ca-test, ca-live); the tests point
        # it at their stand-in. A report URL anywhere else is never kept nor fetched.
        "REPORT_BASE": env.str("ADYEN_REPORT_BASE", default=""),
        # The Disputes API (v30): empty means Adyen's own (its Customer Area host, test or live by the service's
        # `live_url_prefix`); the tests point it at their mock.
        "DISPUTES_BASE": env.str("ADYEN_DISPUTES_BASE", default=""),
    }
