"""A PayPal dispute answered through PayPal's Customer Disputes API v1, against Prism serving the project's contract
of PayPal's document (every request validated by it): an acceptance is PayPal's `accept-claim`, a defence its
`provide-evidence` with an evidence of PayPal's type per kind of document, naming its documents, the words as the
first one's notes and each document as an `evidence-file` part; PayPal's
refusal is a 409 with its name and message and nothing kept; no answer is a 503 and nothing kept; a document PayPal
does not take is refused before anything is sent."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from disputes.models import Dispute, DisputeAnswer
from disputes.tests.factories import DisputeFactory
from payments.tests.assertions import assert_error
from paymentservices.processors.paypal.tests.test_notifications import paypal_service
from paymentservices.processors.tests.overrides import override_processor

pytestmark = pytest.mark.django_db
DISPUTE_ID = "PP-D-21527"
PDF = b"%PDF-1.4\n% proof of delivery\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
GIF = b"GIF89a" + b"\x00" * 16
TIFF = b"II*\x00" + b"\x00" * 16


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["disputes.write", "transactions.read"])


@pytest.fixture
def dispute(merchant_account, paypal_api) -> Dispute:
    """A PayPal dispute waiting for the merchant's answer, due in a week."""
    service = paypal_service(merchant_account)
    return DisputeFactory(
        transaction__merchant_account=merchant_account,
        transaction__payment_service=service,
        processor_dispute_id=DISPUTE_ID,
        due_at=timezone.now() + timedelta(days=7),
    )


def _url(dispute: Dispute, action: str) -> str:
    return f"/transactions/{dispute.transaction_id}/disputes/{dispute.pk}/{action}"


def _file(content: bytes, content_type: str, name: str) -> dict:
    return {"name": name, "content_type": content_type, "content": base64.b64encode(content).decode()}


def _answers(mock) -> list:
    return [(e.path, e.body) for e in mock.calls("POST", "/v1/customer/disputes/*")]


def test_an_acceptance_is_paypals_accept_claim(writer, dispute, paypal_api):
    response = writer.post(_url(dispute, "accept"))

    assert (response.status_code, response.json()["outcome"]) == (201, "accepted"), response.content
    [(path, parts)] = _answers(paypal_api)
    assert path == f"/v1/customer/disputes/{DISPUTE_ID}/accept-claim"
    assert [(name, kind) for name, _, kind, _ in parts] == [("input", "application/json")]
    assert json.loads(parts[0][3]) == {"note": "The merchant accepts the claim."}
    assert paypal_api.calls("POST", "/v1/customer/disputes/*")[0].headers["Authorization"].startswith("Bearer ")


def test_a_defence_sends_the_words_and_each_document_as_evidence(writer, dispute, paypal_api):
    body = {
        "text": "Delivered on the 3rd, signed for.",
        "files": [
            _file(PDF, "application/pdf", "delivery.pdf"),
            _file(PNG, "image/png", "label.png"),
            _file(GIF, "image/gif", "parcel.gif"),
        ],
    }

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert (response.status_code, response.json()["outcome"]) == (201, "under_review"), response.content
    [(path, parts)] = _answers(paypal_api)
    assert path == f"/v1/customer/disputes/{DISPUTE_ID}/provide-evidence"
    assert json.loads(parts[0][3]) == {
        "evidences": [
            {
                "evidence_type": "OTHER",
                "documents": [{"name": "delivery.pdf"}, {"name": "label.png"}, {"name": "parcel.gif"}],
                "notes": body["text"],
            }
        ]
    }
    assert parts[1:] == [
        ("evidence-file", "delivery.pdf", "application/pdf", PDF),
        ("evidence-file", "label.png", "image/png", PNG),
        ("evidence-file", "parcel.gif", "image/gif", GIF),
    ]
    assert [f.name for f in DisputeAnswer.objects.get().files.all()] == ["delivery.pdf", "label.png", "parcel.gif"]


def test_each_kind_of_document_is_an_evidence_of_paypals_type_naming_its_documents(writer, dispute, paypal_api):
    """Prism validates the types against PayPal's enum and each document's name against PayPal's pattern."""
    body = {
        "text": "Shipped on the 1st, delivered on the 3rd.",
        "files": [
            {**_file(PDF, "application/pdf", "receipt #42.pdf"), "kind": "receipt"},
            {**_file(PNG, "image/png", "label.png"), "kind": "shipping"},
            {**_file(GIF, "image/gif", "signature"), "kind": "delivery"},
            {**_file(PDF, "application/pdf", "label.png.pdf"), "kind": "shipping"},
        ],
    }

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert (response.status_code, response.json()["outcome"]) == (201, "under_review"), response.content
    assert [f["kind"] for f in response.json()["files"]] == ["receipt", "shipping", "delivery", "shipping"]
    [(_, parts)] = _answers(paypal_api)
    assert json.loads(parts[0][3]) == {
        "evidences": [
            {
                "evidence_type": "PROOF_OF_RECEIPT_COPY",
                "documents": [{"name": "receipt -42.pdf"}],
                "notes": body["text"],
            },
            {"evidence_type": "PROOF_OF_FULFILLMENT", "documents": [{"name": "label.png"}, {"name": "label-png.pdf"}]},
            {"evidence_type": "PROOF_OF_DELIVERY_SIGNATURE", "documents": [{"name": "signature.gif"}]},
        ]
    }
    assert [part[1] for part in parts[1:]] == ["receipt -42.pdf", "label.png", "signature.gif", "label-png.pdf"]
    kept = DisputeAnswer.objects.get().files.all()
    assert (kept[0].name, kept[0].kind) == ("receipt #42.pdf", "receipt")  # kept as the merchant sent it


def test_two_documents_of_one_name_are_told_apart(writer, dispute, paypal_api):
    body = {"files": [_file(PDF, "application/pdf", "proof.pdf"), _file(PDF, "application/pdf", "proof.pdf")]}

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert response.status_code == 201, response.content
    [(_, parts)] = _answers(paypal_api)
    assert json.loads(parts[0][3])["evidences"] == [
        {"evidence_type": "OTHER", "documents": [{"name": "proof.pdf"}, {"name": "proof-2.pdf"}]}
    ]


def test_a_kind_the_server_does_not_know_is_a_400_and_nothing_is_sent(writer, dispute, paypal_api):
    body = {"files": [{**_file(PDF, "application/pdf", "proof.pdf"), "kind": "PROOF_OF_REFUND"}]}

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert assert_error(response, 400)["details"][0]["pointer"] == "/files/0/kind"
    assert _answers(paypal_api) == []


@pytest.mark.parametrize(("action", "code"), [("accept", 400), ("defend", 422)])
def test_paypals_refusal_is_a_409_with_its_name_and_message_and_nothing_is_kept(
    writer, dispute, paypal_api, action, code
):
    paypal_api.answer("/v1/customer/disputes/*", code=code)

    response = writer.post(_url(dispute, action), {"text": "Delivered."} if action == "defend" else {}, format="json")

    said = {400: "INVALID_REQUEST: Request is not well-formed.", 422: "UNPROCESSABLE_ENTITY: The requested action"}
    assert f"PayPal: {said[code]}" in assert_error(response, 409)["message"]
    assert not DisputeAnswer.objects.exists()


@pytest.mark.parametrize("action", ["accept", "defend"])
def test_paypal_not_answering_is_a_503_and_nothing_is_kept(writer, dispute, paypal_api, settings, action):
    paypal_api.answer("/v1/customer/disputes/*", code=500)

    response = writer.post(_url(dispute, action), {"text": "Delivered."} if action == "defend" else {}, format="json")

    assert_error(response, 503)
    assert not DisputeAnswer.objects.exists()


def test_paypal_unreachable_is_a_503(writer, dispute, settings):
    override_processor(settings, "paypal", API_BASE="http://127.0.0.1:9", TIMEOUT_SECONDS=2)

    assert_error(writer.post(_url(dispute, "accept")), 503)
    assert not DisputeAnswer.objects.exists()


def test_a_document_paypal_does_not_take_is_refused_with_nothing_sent(writer, dispute, paypal_api):
    body = {"text": "Delivered.", "files": [_file(TIFF, "image/tiff", "scan.tiff")]}

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert (
        "does not take image/tiff documents; it takes application/pdf, image/gif, image/jpeg, image/png"
        in assert_error(response, 400)["message"]
    )
    assert _answers(paypal_api) == []
    assert not DisputeAnswer.objects.exists()
