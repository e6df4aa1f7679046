"""Answering a dispute over the API (an extension): accept, or defend with words and documents, through the
processor's seam (the sandbox's here; Stripe's and Adyen's in their folders), each refusal a 4xx with nothing kept,
its own `disputes.write` scope, `Idempotency-Key` honoured, every answer in the audit log."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from django.utils import timezone

from disputes.models import DisputeAnswer
from disputes.tests.factories import DisputeFactory
from payments.audit.models import AuditLogEntry
from payments.choices import DisputeState
from payments.tests.assertions import assert_error
from paymentservices.processors import processor_get
from paymentservices.tests.factories import PaymentServiceFactory
from transactions.models import TransactionEvent

pytestmark = pytest.mark.django_db
S = DisputeState
PDF = b"%PDF-1.4\n% the receipt\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _file(content: bytes = PDF, content_type: str = "application/pdf", name: str = "receipt.pdf") -> dict:
    return {"name": name, "content_type": content_type, "content": base64.b64encode(content).decode()}


@pytest.fixture
def dispute(merchant_account):
    service = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)
    return DisputeFactory(
        transaction__merchant_account=merchant_account,
        transaction__payment_service=service,
        due_at=timezone.now() + timedelta(days=7),
    )


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["disputes.write"])


def _url(dispute, action: str) -> str:
    return f"/transactions/{dispute.transaction_id}/disputes/{dispute.pk}/{action}"


def test_a_defence_is_sent_kept_and_answered_as_the_processor_said(writer, dispute, api_client):
    signed = {**_file(PNG, "image/png", "proof.png"), "kind": "delivery"}
    body = {"text": "The buyer signed for the parcel.", "files": [_file(), signed]}

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert response.status_code == 201, response.content
    answer = DisputeAnswer.objects.get(dispute=dispute)
    assert response.json() == {
        "type": "dispute-answer",
        "id": str(answer.pk),
        "dispute_id": str(dispute.pk),
        "action": "defend",
        "outcome": "under_review",
        "text": "The buyer signed for the parcel.",
        "reason": None,
        "files": [
            {
                "name": "receipt.pdf",
                "content_type": "application/pdf",
                "kind": "other",  # a document of no kind given
                "size": len(PDF),
                "sha256": answer.files.all()[0].sha256,
            },
            {
                "name": "proof.png",
                "content_type": "image/png",
                "kind": "delivery",
                "size": len(PNG),
                "sha256": answer.files.all()[1].sha256,
            },
        ],
        "created_at": response.json()["created_at"],
    }
    assert bytes(answer.files.all()[0].content) == PDF
    listed = api_client(scopes=["disputes.read"]).get(f"/transactions/{dispute.transaction_id}/disputes").json()
    assert listed["items"][0]["answer"] == response.json()
    dispute.refresh_from_db()
    assert dispute.state == S.NEEDS_RESPONSE  # the processor's next notification moves it
    assert TransactionEvent.objects.filter(transaction=dispute.transaction, name="dispute_answered").count() == 1
    [entry] = AuditLogEntry.objects.filter(resource_type="dispute-answer")
    assert (entry.action, entry.resource_id, entry.user_is_staff) == ("created", str(answer.pk), False)


def test_an_acceptance_is_answered_accepted(writer, dispute):
    response = writer.post(_url(dispute, "accept"))

    assert response.status_code == 201, response.content
    assert (response.json()["action"], response.json()["outcome"], response.json()["files"]) == (
        "accept",
        "accepted",
        [],
    )


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"state": S.WON}, "closed"),
        ({"state": S.LOST}, "closed"),
        ({"due_at": timezone.now() - timedelta(minutes=1)}, "was due by"),
        ({"processor_dispute_id": "dp_refuse"}, "refused the answer: the sandbox refuses"),
    ],
)
@pytest.mark.parametrize("action", ["accept", "defend"])
def test_what_cannot_be_answered_is_a_409_and_nothing_is_kept(writer, dispute, changes, words, action):
    for name, value in changes.items():
        setattr(dispute, name, value)
    dispute.save()

    response = writer.post(_url(dispute, action), {"text": "Delivered."}, format="json")

    assert words in assert_error(response, 409)["message"]
    assert not DisputeAnswer.objects.exists()
    assert not AuditLogEntry.objects.filter(resource_type="dispute-answer").exists()


def test_a_dispute_is_answered_once(writer, dispute):
    assert writer.post(_url(dispute, "accept")).status_code == 201

    response = writer.post(_url(dispute, "defend"), {"text": "Delivered."}, format="json")

    assert "already answered" in assert_error(response, 409)["message"]
    assert DisputeAnswer.objects.count() == 1


def test_a_processor_that_answers_only_in_its_dashboard_is_refused_by_name(writer, merchant_account, monkeypatch):
    # Every processor registered answers its disputes; one that declares no `disputes` is refused by name.
    service = PaymentServiceFactory(paypal=True, merchant_account=merchant_account)
    monkeypatch.setattr(type(processor_get(service.definition_id)), "disputes", None)
    paypal = DisputeFactory(
        transaction__merchant_account=merchant_account,
        transaction__payment_service=service,
        due_at=timezone.now() + timedelta(days=7),
    )

    response = writer.post(_url(paypal, "accept"))

    assert assert_error(response, 409)["message"] == "PayPal disputes are answered in PayPal's dashboard."
    assert not DisputeAnswer.objects.exists()


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"text": " "}, "/text"),
        ({"text": "x" * 20001}, "/text"),
        ({"files": [_file()] * 6}, "/files"),
        ({"files": [_file(content_type="application/msword")]}, "/files/0/content_type"),
        ({"files": [_file(content=b"MZ not a pdf")]}, "/files/0/content"),
        ({"files": [_file(content=b"")]}, "/files/0/content"),
        ({"files": [_file(content=b"%PDF-" + b"0" * (2 * 1024 * 1024))]}, "/files/0/content"),
        (
            {"files": [{"name": "a.pdf", "content_type": "application/pdf", "content": "not base64!"}]},
            "/files/0/content",
        ),
        ({"files": [{"name": "a.pdf"}]}, "/files/0/content"),
        ({"text": "Delivered.", "unknown": 1}, "/unknown"),
        ({"text": "Delivered.", "reason": "GoodsWereAsDescribed"}, "/reason"),
    ],
)
def test_evidence_the_processor_would_not_take_is_a_400_before_anything_is_sent(
    writer, dispute, body, pointer, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024  # the body limit is not what is tested here

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert_error(response, 400, pointer)
    assert not DisputeAnswer.objects.exists()


@pytest.mark.parametrize(
    ("scopes", "status"),
    [(["disputes.write"], 201), (["*.write"], 201), (["disputes.read"], 403), (["transactions.write"], 403)],
)
def test_answering_needs_the_disputes_write_scope(api_client, dispute, scopes, status):
    response = api_client(scopes=scopes).post(_url(dispute, "accept"))

    assert response.status_code == status
    if status == 403:
        assert_error(response, 403)
        assert not DisputeAnswer.objects.exists()


def test_another_accounts_or_an_unknown_dispute_is_not_found(writer, dispute):
    theirs = DisputeFactory(transaction__merchant_account__id="other", due_at=timezone.now() + timedelta(days=7))
    other_transactions = DisputeFactory(
        transaction__merchant_account=dispute.merchant_account, due_at=timezone.now() + timedelta(days=7)
    )

    assert_error(writer.post(_url(theirs, "accept")), 404)
    assert_error(writer.post(f"/transactions/{dispute.transaction_id}/disputes/{other_transactions.pk}/accept"), 404)
    assert_error(writer.post(f"/transactions/{dispute.transaction_id}/disputes/not-a-uuid/accept"), 404)
    assert not DisputeAnswer.objects.exists()


def test_a_retry_with_the_same_idempotency_key_replays_the_answer(writer, dispute):
    body = {"text": "Delivered.", "files": [_file()]}
    first = writer.post(_url(dispute, "defend"), body, format="json", HTTP_IDEMPOTENCY_KEY="answer-1")
    again = writer.post(_url(dispute, "defend"), body, format="json", HTTP_IDEMPOTENCY_KEY="answer-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert DisputeAnswer.objects.count() == 1
