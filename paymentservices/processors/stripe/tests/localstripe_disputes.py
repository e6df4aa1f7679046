"""Disputes for the suite's localstripe, which has none (`install()`, called by mock.py before the server starts).
Built from Stripe's API reference (the Dispute and File objects, "Update a dispute", "Close a dispute", "Create a
file") and its testing page (the card that is disputed), as far as the server's calls need:

- a charge of Stripe's test card 4000000000000259 is disputed at once, as Stripe's test mode does: a Dispute
  (`dp_...`, `needs_response`, reason `fraudulent`, the charge's amount and currency, due in 7 days);
- `GET /v1/disputes` (filtered by `payment_intent` or `charge`) and `GET /v1/disputes/{id}`;
- `POST /v1/disputes/{id}` takes `evidence` (its text and file fields, each a File of purpose `dispute_evidence`) and
  `submit`: submitted, the dispute is `under_review` and takes no more evidence (Stripe's 400 after that);
- `POST /v1/disputes/{id}/close`: the dispute is `lost` (conceded); a closed dispute is closed again without change;
- `POST /v1/files` takes a multipart upload (`purpose`, `file`), with Stripe's types for dispute evidence (PDF, JPEG,
  PNG) and its size limit, and keeps the bytes (`GET /_test/files/{id}` reads them back, for the tests).

Nothing else of localstripe changes; the server's calls go through Stripe's official library.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from localstripe import resources, server
from localstripe.errors import UserError
from localstripe.server import app, json_response, unflatten_data

DISPUTED_CARD = "4000000000000259"
DUE_SECONDS = 7 * 86400
# Stripe tells a file's type from its bytes (the library sends every upload as application/octet-stream).
FILE_TYPES = {b"%PDF-": "pdf", b"\xff\xd8\xff": "jpg", b"\x89PNG\r\n\x1a\n": "png"}
MAX_FILE_BYTES = 5 * 1024 * 1024
# The evidence fields that name a File (Stripe's Dispute `evidence`); the others are text.
FILE_FIELDS = {
    "cancellation_policy",
    "customer_communication",
    "customer_signature",
    "duplicate_charge_documentation",
    "receipt",
    "refund_policy",
    "service_documentation",
    "shipping_documentation",
    "uncategorized_file",
}
TEXT_FIELDS = {
    "access_activity_log",
    "billing_address",
    "cancellation_policy_disclosure",
    "cancellation_rebuttal",
    "customer_email_address",
    "customer_name",
    "customer_purchase_ip",
    "duplicate_charge_explanation",
    "duplicate_charge_id",
    "product_description",
    "refund_policy_disclosure",
    "refund_refusal_explanation",
    "service_date",
    "shipping_address",
    "shipping_carrier",
    "shipping_date",
    "shipping_tracking_number",
    "uncategorized_text",
}
CLOSED = ("won", "lost", "warning_closed")


class Dispute(resources.StripeObject):  # type: ignore[misc]
    object = "dispute"
    _id_prefix = "dp_"

    def __init__(self, charge: Any) -> None:
        super().__init__()
        self._charge = charge
        self.amount = charge.amount
        self.currency = charge.currency
        self.charge = charge.id
        self.reason = "fraudulent"
        self.status = "needs_response"
        self.is_charge_refundable = False
        self.metadata: dict[str, str] = {}
        self.evidence: dict[str, Any] = dict.fromkeys(sorted(FILE_FIELDS | TEXT_FIELDS))
        self.evidence_details = {
            "due_by": self.created + DUE_SECONDS,
            "has_evidence": False,
            "past_due": False,
            "submission_count": 0,
        }

    @property
    def payment_intent(self) -> str | None:
        return self._charge.payment_intent


class File(resources.StripeObject):  # type: ignore[misc]
    object = "file"
    _id_prefix = "file_"

    def __init__(self, *, purpose: str, filename: str, kind: str, content: bytes) -> None:
        super().__init__()
        self.purpose = purpose
        self.filename = filename
        self.size = len(content)
        self.type = kind
        self._content = content


def _dispute(request: web.Request) -> Dispute:
    found = resources.store.get("dispute:" + request.match_info["id"])
    if found is None:
        raise UserError(404, "No such dispute: " + request.match_info["id"])
    return found


def _evidence(given: Any) -> dict[str, Any]:
    if not isinstance(given, dict) or set(given) - FILE_FIELDS - TEXT_FIELDS:
        raise UserError(400, "Received unknown parameter in evidence")
    for name, value in given.items():
        if name in FILE_FIELDS:
            stored = resources.store.get(f"file:{value}")
            if stored is None or stored.purpose != "dispute_evidence":
                raise UserError(400, f"No such file upload: '{value}'")
    return given


async def update_dispute(request: web.Request) -> web.Response:
    dispute = _dispute(request)
    data = await _post_data(request) or {}
    if set(data) - {"evidence", "submit", "metadata"}:
        raise UserError(400, "Received unknown parameter")
    if dispute.status in CLOSED or dispute.evidence_details["submission_count"]:
        raise UserError(400, "This dispute is already closed or its evidence was submitted")
    dispute.evidence.update(_evidence(data.get("evidence", {})))
    dispute.evidence_details["has_evidence"] = True
    if str(data.get("submit", "false")).lower() == "true":
        dispute.status = "under_review"
        dispute.evidence_details["submission_count"] += 1
    return json_response(dispute._export())


async def close_dispute(request: web.Request) -> web.Response:
    dispute = _dispute(request)
    if dispute.status not in CLOSED:
        dispute.status = "lost"
    return json_response(dispute._export())


def retrieve_dispute(request: web.Request) -> web.Response:
    return json_response(_dispute(request)._export())


def list_disputes(request: web.Request) -> web.Response:
    wanted = unflatten_data(request.query)
    found = [
        value._export()
        for key, value in resources.store.items()
        if key.startswith("dispute:")
        and all(value._export().get(name) == wanted[name] for name in ("payment_intent", "charge") if name in wanted)
    ]
    return json_response({"object": "list", "url": "/v1/disputes", "has_more": False, "data": found})


async def create_file(request: web.Request) -> web.Response:
    form = await request.post()
    upload, purpose = form.get("file"), form.get("purpose")
    if purpose != "dispute_evidence" or not isinstance(upload, web.FileField):
        raise UserError(400, "A file and its purpose (dispute_evidence) are required")
    content = upload.file.read()
    kind = next((kind for start, kind in FILE_TYPES.items() if content.startswith(start)), None)
    if kind is None:
        raise UserError(400, "Invalid file type. Must be one of pdf, jpg, png")
    if len(content) > MAX_FILE_BYTES:
        raise UserError(400, "File size exceeds the maximum for its purpose")
    made = File(purpose=purpose, filename=upload.filename, kind=kind, content=content)
    return json_response(made._export())


def file_content(request: web.Request) -> web.Response:
    found = resources.store.get("file:" + request.match_info["id"])
    if found is None:
        raise UserError(404, "No such file")
    return web.Response(body=found._content, content_type="application/octet-stream")


_charge_init = resources.Charge.__init__
_post_data = server.get_post_data


async def post_data(request: web.Request, remove_auth: bool = True) -> Any:
    """localstripe's reading of a form, leaving a multipart upload (a file) unread for its handler: localstripe reads
    every body as JSON first, which consumes the stream a multipart reader needs. The key is in the header."""
    if request.content_type == "multipart/form-data":
        return {}
    return await _post_data(request, remove_auth)


def charge_init(self: Any, *args: Any, **kwargs: Any) -> None:
    """localstripe's charge; one of the disputed test card opens its dispute, as Stripe's test mode does."""
    _charge_init(self, *args, **kwargs)
    method = resources.store.get(f"payment_method:{self.payment_method}")
    if self._authorized and getattr(method, "_card_number", None) == DISPUTED_CARD:
        Dispute(self)


def install() -> None:
    server.get_post_data = post_data
    resources.Charge.__init__ = charge_init
    app.router.add_get("/v1/disputes", list_disputes)
    app.router.add_get("/v1/disputes/{id}", retrieve_dispute)
    app.router.add_post("/v1/disputes/{id}", update_dispute)
    app.router.add_post("/v1/disputes/{id}/close", close_dispute)
    app.router.add_post("/v1/files", create_file)
    app.router.add_get("/_test/files/{id}", file_content)
