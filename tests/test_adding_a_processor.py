"""Adding a processor is its folder and one registry line (docs/architecture.md, "Adding a processor"): a throwaway
processor written into a temporary folder, and added to the registry for this test alone, is listed as a definition,
configured as a payment service, routed a payment, notified of its capture and settled, and its settings block is
read from its folder, with no other file of the server changed."""

from __future__ import annotations

import hashlib
import hmac
import importlib
import json
import sys
import textwrap

import environ
import pytest

from config.processor_settings import processor_blocks
from paymentservices import processors
from settlements.models import LedgerEntry
from settlements.sources import settlements_ingest
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

KEY = "throwaway-signing-key"
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}

# The folder: its package (what others may use), its processor, connector, notifications, settlements and settings.
FOLDER = {
    "__init__.py": """
        from throwaway.processor import ThrowawayProcessor

        PROCESSOR = ThrowawayProcessor()
    """,
    "processor.py": """
        from paymentservices.processors.features import CARD_FEATURES
        from paymentservices.processors.seam import DefinitionField, Processor
        from throwaway import notifications
        from throwaway.connector import ThrowawayConnector
        from throwaway.settlements import ThrowawaySettlements


        class ThrowawayProcessor(Processor):
            id = "throwaway-card"
            slug = "throwaway"
            display_name = "Throwaway"
            fields = (
                DefinitionField("account", "Account", required=True, secret=False),
                DefinitionField("signing_key", "Signing key", required=True, secret=True),
            )
            features = {**CARD_FEATURES, "webhooks": True}
            notification_secret_field = "signing_key"
            settlements = ThrowawaySettlements()

            def connect(self, credentials, deadline=None):
                return ThrowawayConnector()

            def verify(self, credentials):
                return None

            def parse_notification(self, *, payload, headers, secret, credentials):
                return notifications.parse_notification(payload=payload, headers=headers, secret=secret)
    """,
    "connector.py": """
        from payments.connectors.base import ConnectorResult, Outcome


        class ThrowawayConnector:
            def authorize(self, request):
                return ConnectorResult(Outcome.APPROVED, processor_reference=f"tw_{request.reference}")

            def capture(self, *, processor_reference, amount, currency, reference):
                return ConnectorResult(Outcome.APPROVED, processor_reference=processor_reference)

            def void(self, *, processor_reference, reference):
                return ConnectorResult(Outcome.APPROVED, processor_reference=processor_reference)

            def refund(self, *, processor_reference, amount, currency, reference):
                return ConnectorResult(Outcome.APPROVED, processor_reference=f"tw_{reference}")

            def lookup(self, *, reference):
                return None
    """,
    "notifications.py": """
        import hashlib
        import hmac
        import json

        from paymentservices.processors.seam import NotificationRefused, ParsedNotification, PaymentChange


        def parse_notification(*, payload, headers, secret):
            expected = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(headers.get("Throwaway-Signature", ""), expected):
                raise NotificationRefused("Not signed by Throwaway.", pointer="Throwaway-Signature", location="header")
            event = json.loads(payload)
            return ParsedNotification(
                event_id=event["id"],
                event_type=event["type"],
                object_id=event["payment"],
                reference=None,
                change=PaymentChange.CAPTURED,
                amount=event["amount"],
                payment_reference=event["payment"],
            )
    """,
    "settlements.py": """
        import json
        from datetime import UTC, datetime

        from paymentservices.processors.settling import LineKind, PulledFile, SettledLine, Settlements

        # What the processor has published (the test fills it in).
        PUBLISHED = []


        class ThrowawaySettlements(Settlements):
            pulls = True

            def pull(self, *, credentials, ledger):
                if "day-1.json" not in ledger.ingested("daily", "day-"):
                    yield PulledFile(report_name="daily", name="day-1.json", content=json.dumps(PUBLISHED).encode())

            def read(self, content):
                return [
                    SettledLine(
                        entry_key=line["payment"],
                        kind=LineKind.SETTLEMENT,
                        processor_type="payment",
                        amount=line["amount"],
                        currency="USD",
                        net_amount=line["amount"] - 10,
                        net_currency="USD",
                        commission=10,
                        posted_at=datetime(2026, 1, 2, tzinfo=UTC),
                        processor_reference=line["payment"],
                    )
                    for line in json.loads(content)
                ]
    """,
    "settings.py": """
        def settings_block(env):
            return {"API_BASE": env.str("THROWAWAY_API_BASE", default="https://api.throwaway.test")}
    """,
}


@pytest.fixture
def folder(tmp_path):
    """The folder written, beside a folder with no settings (as the sandbox's), and nothing imported."""
    (tmp_path / "throwaway").mkdir()
    for name, text in FOLDER.items():
        (tmp_path / "throwaway" / name).write_text(textwrap.dedent(text))
    (tmp_path / "unset").mkdir()
    (tmp_path / "unset" / "__init__.py").write_text("")
    return tmp_path / "throwaway"


@pytest.fixture
def throwaway(folder, monkeypatch):
    """The folder imported, and its processor added to the registry: nothing else."""
    monkeypatch.syspath_prepend(str(folder.parent))
    package = importlib.import_module("throwaway")
    monkeypatch.setattr(processors, "PROCESSORS", (*processors.PROCESSORS, package.PROCESSOR))
    yield package
    for name in [name for name in sys.modules if name == "throwaway" or name.startswith("throwaway.")]:
        del sys.modules[name]


def _signed(event: dict) -> tuple[bytes, str]:
    payload = json.dumps(event).encode()
    return payload, hmac.new(KEY.encode(), payload, hashlib.sha256).hexdigest()


def test_a_processor_added_by_its_folder_and_a_registry_line_is_listed_routed_notified_and_settled(
    throwaway, api_client, client, merchant_account
):
    definitions = api_client(scopes=["payment-service-definitions.read"]).get("/payment-service-definitions").json()
    listed = next(item for item in definitions["items"] if item["id"] == "throwaway-card")
    assert (listed["display_name"], listed["supported_features"]["webhooks"]) == ("Throwaway", True)
    assert [field["key"] for field in listed["fields"]] == ["account", "signing_key"]

    services = api_client(scopes=["payment-services.read", "payment-services.write"])
    created = services.post(
        "/payment-services",
        {
            "display_name": "Throwaway",
            "payment_service_definition_id": "throwaway-card",
            "fields": [{"key": "account", "value": "acct1"}, {"key": "signing_key", "value": KEY}],
            "accepted_currencies": ["USD"],
            "accepted_countries": ["US"],
            "position": 1,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    service = created.json()
    assert service["webhook_url"].endswith(f"/inbound/payment-services/{service['id']}/notifications")

    payments = api_client(scopes=["transactions.read", "transactions.write"])
    payment = {"amount": 1299, "currency": "USD", "intent": "authorize", "payment_method": CARD}
    paid = payments.post("/transactions", payment, format="json")
    assert paid.status_code == 201, paid.content
    assert (paid.json()["status"], paid.json()["payment_service"]["id"]) == ("authorization_succeeded", service["id"])
    txn = Transaction.objects.get(pk=paid.json()["id"])

    payload, signature = _signed(
        {"id": "evt_1", "type": "captured", "payment": txn.payment_service_transaction_id, "amount": 1299}
    )
    notified = client.post(
        f"/inbound/payment-services/{service['id']}/notifications",
        payload,
        content_type="application/json",
        HTTP_THROWAWAY_SIGNATURE=signature,
    )
    assert notified.status_code == 200, notified.content
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("capture_succeeded", 1299)

    throwaway.settlements.PUBLISHED.append({"payment": txn.payment_service_transaction_id, "amount": 1299})
    results = settlements_ingest(sources=["throwaway-card"])
    assert len(results["throwaway-card"]) == 1
    entry = LedgerEntry.objects.get(source="throwaway-card")
    assert (entry.transaction_id, entry.amount, entry.net_amount) == (txn.pk, 1299, 1289)


def test_a_processor_s_settings_block_is_read_from_its_folder_without_importing_it(folder, monkeypatch):
    """config/settings.py builds `PROCESSORS` so: each folder's `settings.py`, loaded by its file (the package imports
    models, which settings cannot), keyed by the folder's name; a folder without one has no block."""
    assert processor_blocks(folder.parent, environ.Env()) == {"throwaway": {"API_BASE": "https://api.throwaway.test"}}
    monkeypatch.setenv("THROWAWAY_API_BASE", "http://127.0.0.1:1")
    assert processor_blocks(folder.parent, environ.Env()) == {"throwaway": {"API_BASE": "http://127.0.0.1:1"}}
    assert [name for name in sys.modules if name.partition(".")[0] == "throwaway"] == []
