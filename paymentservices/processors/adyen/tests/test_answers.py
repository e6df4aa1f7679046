"""An Adyen dispute answered through Adyen's Disputes API (v30) with its official library, against Prism serving the
project's contract of Adyen's document (every request validated by it): a defence asks the reasons Adyen offers,
supplies each document under the type the reason asks for and defends; an acceptance accepts; Adyen's refusal (its
`disputeServiceResult`, or a 422) is a 409 with its reason and nothing kept; text, which Adyen does not take, is
refused before anything is sent; and Adyen's next notification decides the dispute here."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest

from disputes.models import Dispute, DisputeAnswer
from payments.tests.assertions import assert_error
from paymentservices.processors.adyen.tests.test_connector import _post
from paymentservices.processors.adyen.tests.test_disputes import DISPUTE, _dispute
from paymentservices.processors.adyen.tests.test_inbound import MERCHANT, _adyen, _at

pytestmark = pytest.mark.django_db
PDF = b"%PDF-1.4\n% proof of delivery\n"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16


@pytest.fixture
def writer(api_client):
    return api_client(scopes=["disputes.write", "transactions.read"])


@pytest.fixture
def opened(client, merchant_account):
    """An Adyen dispute opened here by Adyen's signed CHARGEBACK, its answer due in a week."""
    service = _adyen(merchant_account)
    txn = _at(service, captured=True, currency="EUR")
    due = (datetime.now(UTC) + timedelta(days=7)).isoformat()
    chargeback = _dispute(
        "CHARGEBACK", txn, hour=3, disputeStatus="Undefended", defendable="true", defensePeriodEndsAt=due
    )
    assert _post(client, service, chargeback).status_code == 200
    return service, txn, Dispute.objects.get(transaction=txn)


def _url(dispute, action: str) -> str:
    return f"/transactions/{dispute.transaction_id}/disputes/{dispute.pk}/{action}"


def _file(content: bytes, content_type: str, name: str) -> dict:
    return {"name": name, "content_type": content_type, "content": base64.b64encode(content).decode()}


def _sent(mock) -> list[tuple[str, dict]]:
    return [(exchange.url.removeprefix(mock.url), exchange.body) for exchange in mock.exchanges]


def test_a_defence_supplies_the_documents_and_defends_then_adyens_word_decides(
    client, writer, opened, adyen_disputes_mock
):
    service, txn, dispute = opened
    body = {"files": [_file(PDF, "application/pdf", "delivery.pdf"), _file(JPEG, "image/jpeg", "invoice.jpg")]}

    response = writer.post(_url(dispute, "defend"), body, format="json")

    assert (response.status_code, response.json()["outcome"]) == (201, "under_review"), response.content
    base = {"disputePspReference": DISPUTE, "merchantAccountCode": MERCHANT}
    assert _sent(adyen_disputes_mock) == [
        ("/retrieveApplicableDefenseReasons", base),
        (
            "/supplyDefenseDocument",
            {
                **base,
                "defenseDocuments": [
                    {
                        "content": body["files"][0]["content"],
                        "contentType": "application/pdf",
                        "defenseDocumentTypeCode": "DefenseMaterial",
                    },
                    {
                        "content": body["files"][1]["content"],
                        "contentType": "image/jpeg",
                        "defenseDocumentTypeCode": "TIDorInvoice",
                    },
                ],
            },
        ),
        ("/defendDispute", {**base, "defenseReasonCode": "SupplyDefenseMaterial"}),
    ]
    assert [f.name for f in DisputeAnswer.objects.get().files.all()] == ["delivery.pdf", "invoice.jpg"]

    reversed_ = _dispute("CHARGEBACK_REVERSED", txn, hour=30)
    assert _post(client, service, reversed_).status_code == 200
    dispute.refresh_from_db()
    assert dispute.state == "won"


def test_a_named_reason_adyen_offers_is_the_defence(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened
    body = {"reason": "GoodsWereAsDescribed", "files": [_file(PDF, "application/pdf", "listing.pdf")]}

    assert writer.post(_url(dispute, "defend"), body, format="json").status_code == 201

    sent = _sent(adyen_disputes_mock)
    assert sent[1][1]["defenseDocuments"][0]["defenseDocumentTypeCode"] == "GoodsWereAsDescribed"
    assert sent[2][1]["defenseReasonCode"] == "GoodsWereAsDescribed"


def test_a_reason_adyen_does_not_offer_is_refused_naming_those_it_does(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened

    response = writer.post(
        _url(dispute, "defend"), {"reason": "Other", "files": [_file(PDF, "application/pdf", "a.pdf")]}, format="json"
    )

    assert "GoodsWereAsDescribed, SupplyDefenseMaterial" in assert_error(response, 409)["message"]
    assert [path for path, _ in _sent(adyen_disputes_mock)] == ["/retrieveApplicableDefenseReasons"]
    assert not DisputeAnswer.objects.exists()


def test_an_acceptance_is_accepted_at_adyen(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened

    response = writer.post(_url(dispute, "accept"))

    assert (response.status_code, response.json()["outcome"]) == (201, "accepted")
    assert _sent(adyen_disputes_mock) == [
        ("/acceptDispute", {"disputePspReference": DISPUTE, "merchantAccountCode": MERCHANT})
    ]


@pytest.mark.parametrize(
    ("prefer", "words"),
    [
        ({"example": "refused"}, "Adyen: Dispute is already defended"),
        ({"code": 422}, "Adyen: A required field is missing"),
    ],
)
def test_adyens_refusal_is_a_409_with_its_reason_and_nothing_is_kept(
    writer, opened, adyen_disputes_mock, prefer, words
):
    _, _, dispute = opened
    adyen_disputes_mock.answer("/acceptDispute", **prefer)

    response = writer.post(_url(dispute, "accept"))

    assert words in assert_error(response, 409)["message"]
    assert not DisputeAnswer.objects.exists()


def test_adyen_without_an_answer_is_a_503(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened
    adyen_disputes_mock.answer("/acceptDispute", code=500)

    assert_error(writer.post(_url(dispute, "accept")), 503)
    assert not DisputeAnswer.objects.exists()


def test_text_adyen_does_not_take_is_refused_before_anything_is_sent(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened

    response = writer.post(_url(dispute, "defend"), {"text": "Delivered."}, format="json")

    assert "takes no text" in assert_error(response, 400, "/text")["message"]
    assert adyen_disputes_mock.exchanges == []


def test_a_tiff_adyen_takes_and_a_png_it_does_not(writer, opened, adyen_disputes_mock):
    _, _, dispute = opened
    png = _file(b"\x89PNG\r\n\x1a\n" + b"\x00" * 8, "image/png", "a.png")

    assert_error(writer.post(_url(dispute, "defend"), {"files": [png]}, format="json"), 400, "/files/0/content_type")
    tiff = _file(b"II*\x00" + b"\x00" * 8, "image/tiff", "a.tif")
    assert writer.post(_url(dispute, "defend"), {"files": [tiff]}, format="json").status_code == 201
    assert json.dumps(_sent(adyen_disputes_mock)[1][1]).count("image/tiff") == 1
