"""A Stripe dispute answered through Stripe's official library, against the suite's localstripe with the disputes it
lacks (its tests/localstripe_disputes.py, from Stripe's API reference): a payment of Stripe's disputed test card opens a
dispute at the fake; its `charge.dispute.created` opens it here; a defence uploads the document and submits the
evidence (under review at Stripe), an acceptance closes it (lost at Stripe); Stripe's refusal is a 409 with its
reason and nothing kept; the next notification (`won`) decides the dispute here."""

from __future__ import annotations

import base64
import urllib.request

import pytest
import stripe

from disputes.models import Dispute, DisputeAnswer
from payments.tests.assertions import assert_error
from paymentservices.processors.seam import Evidence, EvidenceFile
from paymentservices.processors.stripe.disputes import MAX_TOTAL_BYTES, StripeDisputes
from paymentservices.processors.stripe.tests.test_disputes import _dispute_event, _send, _stripe
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db
SECRET_KEY = "sk_test_disputes_0123"
PDF = b"%PDF-1.4\n% proof of delivery\n"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def fake(stripe_api):
    return stripe.StripeClient(SECRET_KEY, base_addresses={"api": stripe_api.url})


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["disputes.write", "disputes.read", "transactions.read"])


def _disputed_payment(fake, client, merchant_account):
    """A payment of Stripe's disputed test card at the fake, the service's transaction of it, and its dispute opened
    here by Stripe's signed `charge.dispute.created`."""
    method = fake.v1.payment_methods.create(
        params={"type": "card", "card": {"number": "4000000000000259", "exp_month": 12, "exp_year": 2034, "cvc": "123"}}
    )
    intent = fake.v1.payment_intents.create(
        params={"amount": 1299, "currency": "usd", "payment_method": method.id, "confirm": True}
    )
    [at_stripe] = fake.v1.disputes.list(params={"payment_intent": intent.id}).data
    service = _stripe(merchant_account)
    txn = TransactionFactory(
        merchant_account=merchant_account,
        payment_service=service,
        captured=True,
        payment_service_transaction_id=intent.id,
    )
    assert (
        _send(
            client, service, _dispute_event("created", "needs_response", intent=intent.id, id=at_stripe.id)
        ).status_code
        == 200
    )
    return service, txn, Dispute.objects.get(transaction=txn), at_stripe.id


def _url(dispute, action: str) -> str:
    return f"/transactions/{dispute.transaction_id}/disputes/{dispute.pk}/{action}"


def test_a_defence_reaches_stripe_and_the_next_notification_decides(fake, stripe_api, client, writer, merchant_account):
    service, txn, dispute, stripe_id = _disputed_payment(fake, client, merchant_account)
    body = {
        "text": "Delivered and signed for.",
        "files": [
            {"name": "delivery.pdf", "content_type": "application/pdf", "content": base64.b64encode(PDF).decode()}
        ],
    }

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["outcome"] == "under_review"
    at_stripe = fake.v1.disputes.retrieve(stripe_id)
    assert at_stripe.status == "under_review"
    assert at_stripe.evidence["uncategorized_text"] == "Delivered and signed for."
    assert _sent_file(stripe_api, at_stripe.evidence["uncategorized_file"]) == PDF

    # Stripe's word decides: the dispute is won here when Stripe says so.
    won = _dispute_event("closed", "won", after=60, intent=txn.payment_service_transaction_id, id=stripe_id)
    assert _send(client, service, won).status_code == 200
    dispute.refresh_from_db()
    assert dispute.state == "won"
    assert writer.get(f"/transactions/{txn.pk}").json()["disputed"] is False


def _document(name: str, content: bytes, content_type: str, kind: str) -> dict[str, str]:
    return {"name": name, "content_type": content_type, "content": base64.b64encode(content).decode(), "kind": kind}


def _sent_file(stripe_api, file_id: str) -> bytes:
    request = urllib.request.Request(  # noqa: S310 - the fake, on loopback
        f"{stripe_api.url}/_test/files/{file_id}", headers={"Authorization": f"Bearer {SECRET_KEY}"}
    )
    with urllib.request.urlopen(request, timeout=5) as sent:  # noqa: S310
        return sent.read()


def test_each_document_goes_to_stripes_field_for_what_it_shows(fake, stripe_api, client, writer, merchant_account):
    _, _, dispute, stripe_id = _disputed_payment(fake, client, merchant_account)
    receipt, label, letter = b"%PDF-1.4\n% receipt\n", PNG + b"label", b"%PDF-1.4\n% letter\n"
    files = [
        _document("receipt.pdf", receipt, "application/pdf", "receipt"),
        _document("label.png", label, "image/png", "delivery"),
        _document("letter.pdf", letter, "application/pdf", "other"),
    ]

    response = writer.post(_url(dispute, "defend"), {"text": "", "files": files}, format="json")

    assert response.status_code == 201, response.content
    evidence = fake.v1.disputes.retrieve(stripe_id).evidence
    assert _sent_file(stripe_api, evidence["receipt"]) == receipt
    assert _sent_file(stripe_api, evidence["shipping_documentation"]) == label
    assert _sent_file(stripe_api, evidence["uncategorized_file"]) == letter


def test_two_documents_for_one_stripe_field_are_refused_before_anything_is_sent(fake, client, writer, merchant_account):
    _, _, dispute, stripe_id = _disputed_payment(fake, client, merchant_account)
    files = [
        _document("shipped.pdf", PDF, "application/pdf", "shipping"),
        _document("signed.pdf", PDF, "application/pdf", "delivery"),
    ]

    response = writer.post(_url(dispute, "defend"), {"text": "Shipped.", "files": files}, format="json")

    error = assert_error(response, 400)
    assert error["details"][0]["pointer"] == "/files/1/kind", error
    assert "shipping_documentation" in error["message"]
    assert fake.v1.disputes.retrieve(stripe_id).status == "needs_response"
    assert not DisputeAnswer.objects.exists()


def test_stripe_takes_its_documents_within_one_size_together():
    one = EvidenceFile("a.pdf", "application/pdf", b"%PDF-" + bytes(MAX_TOTAL_BYTES // 2), "receipt")
    other = EvidenceFile("b.pdf", "application/pdf", b"%PDF-" + bytes(MAX_TOTAL_BYTES // 2), "other")

    assert StripeDisputes().evidence_refused(Evidence("", (one,))) is None
    pointer, message = StripeDisputes().evidence_refused(Evidence("", (one, other)))  # type: ignore[misc]
    assert pointer == "/files"
    assert str(MAX_TOTAL_BYTES) in message


def test_an_acceptance_closes_the_dispute_at_stripe(fake, client, writer, merchant_account):
    _, _, dispute, stripe_id = _disputed_payment(fake, client, merchant_account)

    response = writer.post(_url(dispute, "accept"))

    assert (response.status_code, response.json()["outcome"]) == (201, "accepted")
    assert fake.v1.disputes.retrieve(stripe_id).status == "lost"


def test_stripes_refusal_is_a_409_with_its_reason_and_nothing_is_kept(fake, client, writer, merchant_account):
    _, _, dispute, stripe_id = _disputed_payment(fake, client, merchant_account)
    fake.v1.disputes.update(stripe_id, params={"evidence": {"uncategorized_text": "In the dashboard."}, "submit": True})

    response = writer.post(_url(dispute, "defend"), {"text": "Delivered."}, format="json")

    assert "Stripe: This dispute is already closed" in assert_error(response, 409)["message"]
    assert not DisputeAnswer.objects.exists()


def test_a_stripe_without_an_answer_is_a_503_and_nothing_is_kept(client, writer, merchant_account, settings, fake):
    _, _, dispute, _ = _disputed_payment(fake, client, merchant_account)
    from paymentservices.processors.tests.overrides import override_processor

    override_processor(settings, "stripe", API_BASE="http://127.0.0.1:9", TIMEOUT_SECONDS=1)

    response = writer.post(_url(dispute, "accept"))

    assert_error(response, 503)
    assert not DisputeAnswer.objects.exists()
