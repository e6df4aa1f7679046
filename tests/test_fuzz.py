"""schemathesis over every operation of the app's own API document, against a real gunicorn on the test database.

Authenticated with a real token of a key made for every merchant account (so merchant account administration is
reached too), carrying every scope and the merchant account header; bounded (a few examples per operation) and
seeded: the seed is printed, and `FUZZ_SEED=<seed>` replays a run. Every check runs but one:
zero 5xx, zero answers that break the document, zero status codes it does not list, 405 for a method an endpoint
does not have, no request the document calls invalid accepted. Left out is `positive_data_acceptance` (a
request the document allows must succeed): the document cannot state every rule a request must meet (a signed
cursor, a Luhn-valid card number, a real ISO 4217 code, an id that exists), so a request valid by the document
may still rightly be refused with a 400.

Costs about a minute on two shared cores; `FUZZ_MAX_EXAMPLES` raises the bound for a deeper run.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.db import connection

from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from checkout.tests.factories import CheckoutSessionFactory
from digitalwallets.tests.factories import DigitalWalletFactory
from disputes.tests.factories import DisputeFactory
from giftcards.tests.factories import GiftCardFactory
from paymentlinks.tests.factories import PaymentLinkFactory
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.accounts.keys import generate_private_key, mint_token, public_pem
from payments.accounts.services import api_key_register
from paymentservices.models import PaymentService
from paymentservices.tests.factories import PaymentServiceFactory
from payouts.tests.factories import PayoutFactory
from reports.tests.factories import ReportExecutionFactory
from settlements.tests.factories import LedgerEntryFactory
from tests.servers import database_url, gunicorn
from tests.test_openapi import registered_api_endpoints
from threedsecure.tests.factories import ThreeDSConfigurationFactory, scenario_for
from transactions.tests.factories import CaptureFactory, RefundFactory, TransactionFactory
from webhooks.tests.factories import subscription_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "5"))
# Coverage (every boundary of every field) is left out: on the transaction input alone it runs for many minutes.
PHASES = "examples,fuzzing,stateful"
EXCLUDED_CHECKS = "positive_data_acceptance"


# An invalid request may be refused by gunicorn before it reaches the application: a request line over its limit
# (a query of many repeated values) is a 414, headers over theirs a 431 (config/gunicorn.conf.py).
REJECTION_STATUSES = ["400", "401", "403", "404", "405", "406", "409", "414", "415", "422", "428", "429", "431", "5xx"]

# How often a generated path id is one of the objects below rather than a random one (a 404).
KNOWN_ID_PROBABILITY = 0.7


def _objects(account, settings) -> dict[str, list[str]]:
    """Real objects for every id a path takes, so the fuzzer reaches past 404 into each operation's own rules."""
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    gift_card = GiftCardFactory(merchant_account=account)
    authorized = TransactionFactory(merchant_account=account, authorized=True)
    refund = RefundFactory(transaction__merchant_account=account)
    capture = CaptureFactory(transaction__merchant_account=account)
    shipping_details = ShippingDetailsFactory(buyer__merchant_account=account)
    settlement = LedgerEntryFactory(transaction__merchant_account=account)
    execution = ReportExecutionFactory(report__merchant_account=account)
    dispute = DisputeFactory(transaction__merchant_account=account)
    # Another key of the account's: the fuzzer's updates and deletes must not touch the key that signs its token.
    other_key = api_key_register(public_key_pem=public_pem(generate_private_key()[0]), merchant_account=account)
    return {
        "buyer_id": [str(shipping_details.buyer_id), str(BuyerFactory(merchant_account=account).pk)],
        "shipping_details_id": [str(shipping_details.pk)],
        "gift_card_id": [str(gift_card.pk)],
        "session_id": [str(CheckoutSessionFactory(merchant_account=account).pk)],
        "transaction_id": [
            str(authorized.pk),
            str(TransactionFactory(merchant_account=account, captured=True).pk),
            str(refund.transaction_id),
            str(capture.transaction_id),
            str(settlement.transaction_id),
            str(dispute.transaction_id),
        ],
        "refund_id": [str(refund.pk)],
        "capture_id": [str(capture.pk)],
        "settlement_id": [str(settlement.pk)],
        "report_id": [str(execution.report_id)],
        "report_execution_id": [str(execution.pk)],
        "payment_method_id": [str(PaymentMethodFactory(merchant_account=account).pk)],
        "subscription_id": [str(subscription_for(account, "http://127.0.0.1:9/payments").pk)],
        "payment_service_id": [
            str(PaymentService.objects.get(merchant_account=account, definition_id="mock-card").pk),
            str(PaymentServiceFactory(merchant_account=account).pk),
        ],
        "payment_service_definition_id": ["adyen-card", "mock-card", "stripe-card"],
        "merchant_account_id": [account.pk],
        "three_ds_configuration_id": [str(ThreeDSConfigurationFactory(merchant_account=account).pk)],
        "three_ds_scenario_id": [str(scenario_for(account, amount=1, card_number="4111111111111111").pk)],
        "dispute_id": [str(dispute.pk)],
        "payment_link_id": [str(PaymentLinkFactory(merchant_account=account).pk)],
        "payout_id": [str(PayoutFactory(merchant_account=account).pk)],
        "digital_wallet_id": [
            str(DigitalWalletFactory(merchant_account=account).pk),
            # With Google's merchant ID, so a payment's `googlepay` token reaches its decryption.
            str(
                DigitalWalletFactory(
                    merchant_account=account, provider="google", extra_configuration={"merchant_id": "12345678"}
                ).pk
            ),
        ],
        # Another key of the account's: the fuzzer's updates and deletes must not touch the key that signs its token.
        "api_key_pair_id": [str(other_key.pk)],
        "network_token_id": [str(uuid.uuid4())],  # none is held (no token service): each is refused or not found
        "payment_service_token_id": [str(uuid.uuid4())],  # the fuzzer makes its own; another id is not found
    }


def _config(objects: dict[str, list[str]]) -> str:
    """schemathesis.toml: each path id drawn from its objects most of the time."""
    lines = [f"[dictionaries.{name}]\nvalues = {json.dumps(ids)}\n" for name, ids in objects.items()]
    lines.append(f"[checks.negative_data_rejection]\nexpected-statuses = {json.dumps(REJECTION_STATUSES)}\n")
    lines.append("[parameters]")
    lines += [f'"path.{name}" = {{ dictionary = "{name}", probability = {KNOWN_ID_PROBABILITY} }}' for name in objects]
    return "\n".join(lines) + "\n"


def test_schemathesis_finds_no_failure_in_any_operation(
    all_accounts_client, merchant_account, all_accounts_private_key_pem, settings, tmp_path
):
    seed = int(os.environ.get("FUZZ_SEED") or random.randrange(2**31))
    print(f"schemathesis seed: {seed} (replay with FUZZ_SEED={seed})")
    objects = _objects(merchant_account, settings)
    endpoints = registered_api_endpoints()
    path_ids = {name for path, _ in endpoints for name in re.findall(r"\{(\w+)\}", path)}
    assert path_ids <= set(objects), f"add a real object for {path_ids - set(objects)} to _objects"
    config = tmp_path / "schemathesis.toml"
    config.write_text(_config(objects))
    # A key made for every account reaches merchant account administration too; the header picks `default`.
    token = mint_token(all_accounts_private_key_pem, scopes=["*.read", "*.write"], expires_in=3600)
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "WEB_CONCURRENCY": "2",
        "CARD_ENCRYPTION_KEYS": ",".join(settings.CARD_ENCRYPTION_KEYS),
        "CARD_FINGERPRINT_KEY": settings.CARD_FINGERPRINT_KEY,
        # Credential checks reach no real processor: nothing listens on port 9, so Stripe and Adyen "cannot be reached".
        "STRIPE_API_BASE": "http://127.0.0.1:9",
        "ADYEN_API_BASE": "http://127.0.0.1:9",
    }
    with gunicorn(env) as server:
        run = subprocess.run(
            [
                str(SCHEMATHESIS),
                f"--config-file={config}",
                "run",
                f"{server.url}/openapi.json",
                "--checks=all",
                f"--exclude-checks={EXCLUDED_CHECKS}",
                f"--phases={PHASES}",
                f"--max-examples={MAX_EXAMPLES}",
                f"--seed={seed}",
                # One thread: on Python 3.11 `ast.parse` in two threads at once can raise "AST constructor recursion
                # depth mismatch" (CPython gh-106905), which schemathesis reports as an error of the run.
                "--workers=1",
                "--no-shrink",
                f"--header=Authorization: Bearer {token}",
                "--header=x-gr4vy-merchant-account-id: default",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,  # where schemathesis keeps its cache
            env={**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_TELEMETRY": "false"},
        )

    print(run.stdout[-3000:])  # the summary: shown with `-s`, and with the failure
    report = run.stdout[-20000:] + run.stderr[-5000:]
    assert run.returncode == 0, f"seed {seed}:\n{report}"
    operations = len(endpoints)
    assert re.search(rf"Selected: {operations}/{operations}\s+Tested: {operations}\b", run.stdout), report
