"""Answering a dispute on the desk: the Payments operator role accepts or defends (words and a document) through the
same service as the API; Support may not; the answer, what was sent and what the processor said are on the dispute's
page; every answer is in the audit log under the staff user; a refusal says why and keeps nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from disputes.models import DisputeAnswer
from disputes.tests.factories import DisputeFactory
from payments.audit.models import AuditLogEntry
from payments.choices import DisputeState
from payments.staff.roles import PAYMENTS_OPERATOR
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db
PDF = b"%PDF-1.4\n% the receipt\n"


@pytest.fixture
def dispute(merchant_account):
    service = PaymentServiceFactory(mock_card=True, merchant_account=merchant_account)
    return DisputeFactory(
        transaction__merchant_account=merchant_account,
        transaction__payment_service=service,
        due_at=timezone.now() + timedelta(days=7),
    )


@pytest.fixture
def operator(client, staff_login):
    staff_login(PAYMENTS_OPERATOR)
    return client


def _page(dispute) -> str:
    return reverse("admin:disputes_dispute_change", args=[dispute.pk])


def _answer(dispute) -> str:
    return reverse("admin:disputes_dispute_answer", args=[dispute.pk])


def test_an_operator_defends_with_words_and_a_document_and_the_page_shows_the_processors_answer(operator, dispute):
    assert _answer(dispute) in operator.get(_page(dispute)).content.decode()
    assert "Send the answer" in operator.get(_answer(dispute)).content.decode()

    response = operator.post(
        _answer(dispute),
        {
            "action": "defend",
            "text": "Signed for on delivery.",
            "document": SimpleUploadedFile("receipt.pdf", PDF, content_type="application/pdf"),
            "kind": "receipt",
        },
    )

    assert response.status_code == 302
    answer = DisputeAnswer.objects.get(dispute=dispute)
    assert (answer.outcome, answer.text, answer.answered_by) == (
        "under_review",
        "Signed for on delivery.",
        "admin:payments-operator",
    )
    assert bytes(answer.files.get().content) == PDF
    page = operator.get(_page(dispute)).content.decode()
    assert "the processor answered <strong>under review</strong>" in page
    assert "Signed for on delivery." in page
    assert f"Receipt or invoice: receipt.pdf (application/pdf, {len(PDF)} bytes" in page
    assert _answer(dispute) not in page  # answered once: no second answer offered
    [entry] = AuditLogEntry.objects.filter(resource_type="dispute-answer")
    assert (entry.action, entry.resource_id, entry.user_is_staff, entry.user_name) == (
        "created",
        str(answer.pk),
        True,
        "payments-operator",
    )


def test_an_operator_accepts(operator, dispute):
    operator.post(_answer(dispute), {"action": "accept"})

    assert DisputeAnswer.objects.get().outcome == "accepted"
    assert "the processor answered <strong>accepted</strong>" in operator.get(_page(dispute)).content.decode()


def test_a_refusal_says_why_on_the_form_and_keeps_nothing(operator, dispute):
    dispute.processor_dispute_id = "dp_refuse"
    dispute.save()

    response = operator.post(_answer(dispute), {"action": "accept"})

    assert response.status_code == 200
    assert "Nothing was sent. The processor refused the answer: the sandbox refuses" in response.content.decode()
    assert not DisputeAnswer.objects.exists()
    assert not AuditLogEntry.objects.filter(resource_type="dispute-answer").exists()


def test_a_document_the_processor_does_not_take_is_refused_by_name(operator, dispute):
    upload = SimpleUploadedFile("notes.doc", b"\xd0\xcf\x11\xe0 not a pdf", content_type="application/msword")

    response = operator.post(_answer(dispute), {"action": "defend", "text": "x", "document": upload})

    assert "does not take application/msword documents" in response.content.decode()
    assert not DisputeAnswer.objects.exists()


def test_support_sees_the_answer_but_may_not_give_one(support_client, dispute):
    assert _answer(dispute) not in support_client.get(_page(dispute)).content.decode()
    assert support_client.post(_answer(dispute), {"action": "accept"}).status_code == 403
    assert not DisputeAnswer.objects.exists()


def test_a_closed_dispute_offers_no_answer(operator, dispute):
    dispute.state = DisputeState.WON
    dispute.save()

    assert _answer(dispute) not in operator.get(_page(dispute)).content.decode()
    assert "closed" in operator.post(_answer(dispute), {"action": "accept"}).content.decode()
