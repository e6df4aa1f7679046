"""A mock of Adyen's Checkout API (v72) built from the project's contract of Adyen's API document
(contracts/adyen/checkout-v72.json), run by Prism as a real process in validating mode: every request the official
library sends is checked against Adyen's schemas, and a request the real Adyen would refuse shows up as a violation
(the `sl-violations` header and a "Violation:" line in Prism's log).

The contract holds Adyen's schemas and no examples, so every answer the mock gives is written here: named answers for
the operations the connector calls (`ANSWERS`), one per `resultCode` and per refusal reason for `POST /payments`, and
an error for every error status of every operation (`ERRORS`). Only answers are added; the request schemas are the
contract's, untouched. A test names the answer it simulates per path (Prism's `Prefer: example=<name>` or
`Prefer: code=<status>`), sent by the library's own HTTP client through `AdyenTransport`.
"""

from __future__ import annotations

import argparse
import copy
import fnmatch
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import contracts
from paymentservices.processors.adyen.http import SessionHTTPClient
from tests.prism import NOT_INSTALLED, PRISM, prism_command, prism_environment, prism_wait, start_prism
from tests.processes import free_port, stop_process

DOCUMENT = contracts.ADYEN_CHECKOUT

# The pspReferences of the answers below (16 characters, as Adyen's): the payment `card-direct` approves, and the
# modifications made on a payment (each has its own, as at Adyen).
PAYMENT_PSP = "SIMPAYMENT000001"
CAPTURE_PSP = "SIMCAPTURE000001"
REFUND_PSP = "SIMREFUND0000001"
CANCEL_PSP = "SIMCANCEL0000001"
AMOUNT_UPDATE_PSP = "SIMAMOUNTUPDATE1"
MERCHANT_ACCOUNT = "SimulatedMerchantECOM"

# Adyen's refusal reasons (code, reason), answered as `Refused` by the answers `refused-<code>`.
REFUSALS: dict[str, str] = {
    "2": "Refused",
    "3": "Referral",
    "4": "Acquirer Error",
    "5": "Blocked Card",
    "6": "Expired Card",
    "7": "Invalid Amount",
    "8": "Invalid Card Number",
    "9": "Issuer Unavailable",
    "10": "Not supported",
    "11": "3D Not Authenticated",
    "12": "Not enough balance",
    "14": "Acquirer Fraud",
    "15": "Cancelled",
    "16": "Shopper Cancelled",
    "17": "Invalid Pin",
    "18": "Pin tries exceeded",
    "19": "Pin validation not possible",
    "20": "FRAUD",
    "21": "Not Submitted",
    "22": "FRAUD-CANCELLED",
    "23": "Transaction Not Permitted",
    "24": "CVC Declined",
    "25": "Restricted Card",
    "26": "Revocation Of Auth",
    "27": "Declined Non Generic",
    "28": "Withdrawal amount exceeded",
    "29": "Withdrawal count exceeded",
    "31": "Issuer Suspected Fraud",
    "32": "AVS Declined",
    "33": "Card requires online pin",
    "34": "No checking account available on Card",
    "35": "No savings account available on Card",
    "36": "Mobile pin required",
    "37": "Contactless fallback",
    "38": "Authentication required",
    "39": "RReq not received from DS",
    "42": "3DS Authentication Error",
    "99": "A reason this table does not know",
}


MODIFICATION = {"merchantAccount": MERCHANT_ACCOUNT, "paymentPspReference": PAYMENT_PSP, "status": "received"}

# Named answers by operation (path, status code), for the calls the connector makes. Static: Prism does not echo the
# request, so an amount here is the answer's own.
ANSWERS: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("/payments", "200"): {
        # A zero-value check that stored the card (`storePaymentMethod`): the stored payment method's id.
        "card-stored": {
            "pspReference": "SIMSTORED0000001",
            "resultCode": "Authorised",
            "merchantReference": "string",
            "additionalData": {"tokenization.storedPaymentMethodId": "SIMSTOREDCARD0001"},
        },
        # Adyen asks for the shopper's device fingerprint (3-D Secure 2, native) or sends the shopper to the issuer.
        "card-3d-secure-2-web": {
            "resultCode": "IdentifyShopper",
            "action": {
                "type": "threeDS2",
                "subtype": "fingerprint",
                "paymentMethodType": "scheme",
                "token": "c2ltdWxhdGVkLWZpbmdlcnByaW50LXRva2Vu",
                "paymentData": "simulated-payment-data-1",
                "authorisationToken": "simulated-authorisation-token-1",
            },
        },
        "card-3d-secure-redirect": {
            "pspReference": "SIMREDIRECT00001",
            "resultCode": "RedirectShopper",
            "action": {
                "type": "redirect",
                "method": "GET",
                "paymentMethodType": "scheme",
                "url": "https://issuer.example/3ds/challenge?session=simulated",
            },
        },
        # An approved card payment, with the checks Adyen reports beside it.
        "card-direct": {
            "pspReference": PAYMENT_PSP,
            "resultCode": "Authorised",
            "merchantReference": "simulated-order-1",
            "additionalData": {
                "authCode": "SIM123",
                "cvcResult": "1 Matches",
                "cvcResultRaw": "M",
                "avsResult": "0 Unknown",
                "avsResultRaw": "0",
                "refusalReasonRaw": "AUTHORISED",
            },
        },
    },
    ("/payments/{paymentPspReference}/captures", "201"): {
        "capture": {
            **MODIFICATION,
            "pspReference": CAPTURE_PSP,
            "reference": "simulated-capture-1",
            "amount": {"value": 1000, "currency": "EUR"},
        },
    },
    ("/payments/{paymentPspReference}/refunds", "201"): {
        "refund": {
            **MODIFICATION,
            "pspReference": REFUND_PSP,
            "reference": "simulated-refund-1",
            "amount": {"value": 500, "currency": "EUR"},
        },
    },
    ("/payments/{paymentPspReference}/cancels", "201"): {
        "cancel-with-psp-reference": {**MODIFICATION, "pspReference": CANCEL_PSP, "reference": "simulated-cancel-1"},
    },
    ("/cancels", "201"): {
        # A cancel by our own reference for the payment: Adyen does not say which payment it found.
        "cancel-with-own-reference": {
            "merchantAccount": MERCHANT_ACCOUNT,
            "paymentReference": "simulated-payment-reference",
            "reference": "simulated-cancel-2",
            "pspReference": CANCEL_PSP,
            "status": "received",
        },
    },
    ("/payments/{paymentPspReference}/amountUpdates", "201"): {
        "amount-update": {
            **MODIFICATION,
            "pspReference": AMOUNT_UPDATE_PSP,
            "reference": "simulated-amount-update-1",
            "amount": {"value": 1500, "currency": "EUR"},
        },
    },
    ("/payments", "422"): {
        # The stored payment method a payment named is gone (Adyen's 803, "PaymentDetail is not found").
        "stored-method-missing": {
            "status": 422,
            "errorCode": "803",
            "errorType": "validation",
            "message": "PaymentDetail is not found",
            "pspReference": "SIMNOSTORED00001",
        },
    },
    ("/paymentMethods", "200"): {
        "basic": {
            "paymentMethods": [
                {"name": "Cards", "type": "scheme", "brands": ["visa", "mc", "amex"]},
                {"name": "iDEAL", "type": "ideal"},
            ]
        },
    },
}

# What every operation answers for each error status it declares (its `ServiceError`): Prism gives it for
# `Prefer: code=<status>`. The codes are Adyen's kinds of error (validation, security, internal); the wording is ours.
ERRORS: dict[str, dict[str, Any]] = {
    "400": {"status": 400, "errorCode": "702", "errorType": "validation", "message": "The request is malformed."},
    "401": {"status": 401, "errorCode": "000", "errorType": "security", "message": "Not authenticated."},
    "403": {"status": 403, "errorCode": "010", "errorType": "security", "message": "Not allowed."},
    "422": {
        "status": 422,
        "errorCode": "130",
        "errorType": "validation",
        "message": "A required field is missing.",
        "pspReference": "SIMVALIDATION001",
    },
    "500": {
        "status": 500,
        "errorCode": "000",
        "errorType": "internal",
        "message": "Something went wrong on our side.",
        "pspReference": "SIMINTERNAL00001",
    },
}


def _contract() -> dict[str, Any]:
    contract: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return contract


def result_codes() -> list[str]:
    """Every `resultCode` Adyen's contract lists for a payment's answer."""
    return list(_contract()["components"]["schemas"]["PaymentResponse"]["properties"]["resultCode"]["enum"])


def _payment_answers() -> dict[str, dict[str, Any]]:
    """One answer per `resultCode` (`result-<code>`) and per refusal reason (`refused-<code>`)."""
    answers: dict[str, dict[str, Any]] = {}
    for code in result_codes():
        answer: dict[str, Any] = {"pspReference": f"SIM{code.upper()[:13]:0<13}", "resultCode": code}
        if code in ("Refused", "Error"):
            answer |= {"refusalReason": "Acquirer Error", "refusalReasonCode": "4"}
        answers[f"result-{code}"] = answer
    for code, reason in REFUSALS.items():
        answers[f"refused-{code}"] = {
            "pspReference": f"SIMREFUSED{code:0>6}",
            "resultCode": "Refused",
            "refusalReason": reason,
            "refusalReasonCode": code,
            "additionalData": {"refusalReasonRaw": f"{reason} (raw)", "cvcResult": "2 Does not match"},
            "merchantReference": "string",
        }
    return answers


def added_answers() -> Iterator[tuple[str, str, str, str, dict[str, Any]]]:
    """Every answer the mock adds: (path, method, status, name, body). The generic errors come first: an error status
    asked for without naming an example answers the generic one."""
    for path, item in _contract()["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status in ERRORS and "application/json" in response.get("content", {}):
                    yield path, method, status, "generic", ERRORS[status]
    for (path, status), answers in ANSWERS.items():
        for name, body in answers.items():
            yield path, "post", status, name, body
    for name, body in _payment_answers().items():
        yield "/payments", "post", "200", name, body


def mock_document() -> dict[str, Any]:
    """Adyen's contract with the mock's own answers (request schemas untouched)."""
    document = _contract()
    original = copy.deepcopy(document["paths"]["/payments"]["post"]["requestBody"])
    for path, method, status, name, body in added_answers():
        media = document["paths"][path][method]["responses"][status]["content"]["application/json"]
        examples = media.setdefault("examples", {})
        assert name not in examples, f"{path} {status}: two answers named {name}"
        examples[name] = {"value": body}
    assert document["paths"]["/payments"]["post"]["requestBody"] == original
    return document


@dataclass
class Exchange:
    method: str
    url: str
    status: int
    violations: str | None
    headers: dict[str, str]
    body: Any


@dataclass
class AdyenMock:
    """A running Prism: `answer(path, example=...)` names what it answers on a path (`/payments`,
    `/payments/*/captures`: a pattern of the path under the mock's URL) until the next reset."""

    url: str
    port: int
    process: subprocess.Popen
    log: IO[bytes]
    answers: dict[str, str] = field(default_factory=dict)
    exchanges: list[Exchange] = field(default_factory=list)
    _log_start: int = 0

    def answer(self, path: str, *, example: str | None = None, code: int | None = None) -> None:
        prefer = ", ".join(
            part for part in (f"code={code}" if code else "", f"example={example}" if example else "") if part
        )
        self.answers[path] = prefer

    def reset(self) -> None:
        self.answers.clear()
        self.exchanges.clear()
        self.log.seek(0, 2)
        self._log_start = self.log.tell()

    def output(self) -> str:
        """What Prism logged since the last reset."""
        self.log.seek(self._log_start)
        text = self.log.read().decode(errors="replace")
        self.log.seek(0, 2)
        return text

    def violations(self) -> list[str]:
        """Requests Prism found invalid by Adyen's contract since the last reset (never expected)."""
        from_headers = [f"{e.method} {e.url}: {e.violations}" for e in self.exchanges if e.violations]
        from_log = [line for line in self.output().splitlines() if "Violation:" in line and "request" in line]
        return from_headers + from_log

    def stop(self) -> None:
        stop_process(self.process, grace=10)


@contextmanager
def _prism_serving(name: str, document: dict, probe: str = "/paymentMethods") -> Iterator[AdyenMock]:
    """Prism on a free port serving `document` (written as `name`), refusing requests that break it (`--errors`);
    each of Adyen's APIs has a Prism of its own, as each has a host of its own."""
    if not PRISM.exists():
        raise RuntimeError(NOT_INSTALLED)
    port = free_port()
    with tempfile.TemporaryDirectory() as directory, tempfile.TemporaryFile() as log:
        path = Path(directory) / name
        path.write_text(json.dumps(document))
        process = start_prism(path, port, log)
        mock = AdyenMock(f"http://127.0.0.1:{port}", port, process, log)
        try:
            prism_wait(mock.url + probe, process, log)
            yield mock
        finally:
            mock.stop()


@contextmanager
def prism_adyen() -> Iterator[AdyenMock]:
    """Prism on a free port, serving `mock_document()` and refusing requests that break it (`--errors`)."""
    with _prism_serving("adyen-checkout-v72.json", mock_document()) as mock:
        yield mock


# The Disputes API (v30), served by a Prism of its own from the project's contract of it
# (contracts/adyen/disputes-v30.json), with the answers written here: each operation's success, and Adyen's refusal in
# its `disputeServiceResult` (a 200 whose `success` is false, with its `errorMessage`).
DISPUTE_PSP = "SIMDISPUTE000001"
DEFENSE_REASONS = {
    "defenseReasons": [
        {
            "defenseReasonCode": "SupplyDefenseMaterial",
            "satisfied": False,
            "defenseDocumentTypes": [
                {"defenseDocumentTypeCode": "DefenseMaterial", "requirementLevel": "Required", "available": False},
                {"defenseDocumentTypeCode": "TIDorInvoice", "requirementLevel": "Optional", "available": False},
            ],
        },
        {
            "defenseReasonCode": "GoodsWereAsDescribed",
            "satisfied": False,
            "defenseDocumentTypes": [
                {"defenseDocumentTypeCode": "GoodsWereAsDescribed", "requirementLevel": "Required", "available": False},
                {"defenseDocumentTypeCode": "TIDorInvoice", "requirementLevel": "Required", "available": False},
            ],
        },
    ],
    "disputeServiceResult": {"success": True},
}
SERVICE_SUCCESS = {"disputeServiceResult": {"success": True}}
SERVICE_REFUSED = {"disputeServiceResult": {"success": False, "errorMessage": "Dispute is already defended"}}
DISPUTE_ANSWERS: dict[str, dict[str, dict[str, Any]]] = {
    "/retrieveApplicableDefenseReasons": {"reasons": DEFENSE_REASONS, "refused": SERVICE_REFUSED},
    "/supplyDefenseDocument": {"success": SERVICE_SUCCESS, "refused": SERVICE_REFUSED},
    "/defendDispute": {"success": SERVICE_SUCCESS, "refused": SERVICE_REFUSED},
    "/acceptDispute": {"success": SERVICE_SUCCESS, "refused": SERVICE_REFUSED},
}


def disputes_document() -> dict[str, Any]:
    """Adyen's Disputes contract with the mock's answers (the first of each is what a request naming none gets);
    request schemas untouched."""
    document: dict[str, Any] = json.loads(contracts.ADYEN_DISPUTES.read_text())
    for path, item in document["paths"].items():
        for status, response in item["post"]["responses"].items():
            media = response.get("content", {}).get("application/json")
            if media is None:
                continue
            if status == "200" and path in DISPUTE_ANSWERS:
                media["examples"] = {name: {"value": body} for name, body in DISPUTE_ANSWERS[path].items()}
            elif status in ERRORS:
                media["examples"] = {"generic": {"value": ERRORS[status]}}
    return document


@contextmanager
def prism_adyen_disputes() -> Iterator[AdyenMock]:
    """Prism on a free port serving `disputes_document()`, refusing requests that break it (`--errors`)."""
    with _prism_serving("adyen-disputes-v30.json", disputes_document(), probe="/acceptDispute") as mock:
        yield mock


class AdyenTransport(SessionHTTPClient):
    """The connector's HTTP client (the library's, on the kept session), telling the mock which answer to simulate
    (`Prefer`) and keeping every exchange (with Prism's `sl-violations` header) for the test to check."""

    mock: AdyenMock | None = None

    def _requests_request(self, method, url, json=None, data=None, username="", password="", xapikey="", headers=None):
        headers = dict(headers or {})
        mock = AdyenTransport.mock
        if mock is not None:
            path = url.split("?", 1)[0].removeprefix(mock.url)
            prefer = next(
                (value for pattern, value in mock.answers.items() if fnmatch.fnmatchcase(path, pattern)), None
            )
            if prefer:
                headers["Prefer"] = prefer
        text, message, status, response_headers = super()._requests_request(
            method, url, json=json, data=data, username=username, password=password, xapikey=xapikey, headers=headers
        )
        if mock is not None:
            mock.exchanges.append(
                Exchange(method, url, status, response_headers.get("sl-violations"), dict(headers), json)
            )
        return text, message, status, response_headers


def guide_document() -> dict[str, Any]:
    """`mock_document()` answering an approved payment when no answer is named: a reader's payment names none, and
    Prism answers the first example."""
    document = mock_document()
    examples = document["paths"]["/payments"]["post"]["responses"]["200"]["content"]["application/json"]["examples"]
    document["paths"]["/payments"]["post"]["responses"]["200"]["content"]["application/json"]["examples"] = {
        "card-direct": examples.pop("card-direct"),
        **examples,
    }
    return document


def main() -> None:
    """`python -m tests.mocks adyen --port 8430`: the mock in the foreground, as docs/guides/adyen.md starts it."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8430)
    port = parser.parse_args().port
    if not PRISM.exists():
        raise SystemExit(NOT_INSTALLED)
    # Prism becomes this process, so stopping it stops the mock; its document stays in the temporary directory.
    with tempfile.NamedTemporaryFile("w", prefix="adyen-checkout-v72-", suffix=".json", delete=False) as document:
        json.dump(guide_document(), document)
    command = prism_command(document.name, port)
    os.execve(command[0], command, prism_environment())  # noqa: S606 - fixed


# --- the Payout API (v68): instant card payouts -------------------------------------------------------------------

PAYOUT_DOCUMENT = contracts.ADYEN_PAYOUT
PAYOUT_PSP = "SIMPAYOUT0000001"

# Named answers of `POST /payout`, written here (the contract has none): paid, refused (the card cannot receive), and
# an answer that decides nothing yet.
PAYOUT_ANSWERS: dict[str, dict[str, Any]] = {
    "payout-authorised": {"pspReference": PAYOUT_PSP, "resultCode": "Authorised", "authCode": "SIM456"},
    "payout-refused": {
        "pspReference": "SIMPAYOUTREFUSED",
        "resultCode": "Refused",
        "refusalReason": "Transaction Not Permitted",
        "additionalData": {"refusalReasonCode": "23", "refusalReasonRaw": "CARD NOT ELIGIBLE FOR PAYOUT"},
    },
    "payout-received": {"pspReference": "SIMPAYOUTRECEIVD", "resultCode": "Received"},
}


def payout_mock_document() -> dict[str, Any]:
    """Adyen's Payout contract with the mock's answers for `POST /payout` (request schemas untouched), the first
    answering when a request names none."""
    document: dict[str, Any] = json.loads(PAYOUT_DOCUMENT.read_text())
    original = copy.deepcopy(document["paths"]["/payout"]["post"]["requestBody"])
    media = document["paths"]["/payout"]["post"]["responses"]["200"]["content"]["application/json"]
    media["examples"] = {name: {"value": body} for name, body in PAYOUT_ANSWERS.items()}
    for status, body in ERRORS.items():
        response = document["paths"]["/payout"]["post"]["responses"].get(status)
        if response is not None and "application/json" in response.get("content", {}):
            response["content"]["application/json"]["examples"] = {"generic": {"value": body}}
    assert document["paths"]["/payout"]["post"]["requestBody"] == original
    return document


@contextmanager
def prism_adyen_payout() -> Iterator[AdyenMock]:
    """Prism on a free port, serving `payout_mock_document()` and refusing requests that break it (`--errors`)."""
    with _prism_serving("adyen-payout-v68.json", payout_mock_document()) as mock:
        yield mock
