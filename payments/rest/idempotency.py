"""`Idempotency-Key` for the API actions that move money (create, capture, void, refunds).

Rules (see docs/transactions.md):
- The first answer is stored per (merchant account, key) and replayed for IDEMPOTENCY_KEY_TTL_SECONDS
  with `Idempotent-Replayed: true`.
- The key is claimed by inserting its row in its own committed transaction before the action runs; the
  unique constraint makes exactly one request win, in any number of processes. A request that finds the
  row still in progress gets 409.
- The claim is a lease of IDEMPOTENCY_KEY_LEASE_SECONDS, longer than any request may run. A request whose
  process died never finishes its row; once the lease is over, a retry takes the row over and runs the
  action again as a resumption (`idempotency_resumed`). An action that creates something names it with
  `idempotency_reserved_id`, reserved before anything is written, so the resumed action finds what the
  dead attempt made instead of making a second one.
- The same key with a different request (method, path, `Prefer` header or body) is a 400. What tells two
  requests apart is a keyed digest (`request_fingerprint`): a body may hold a card number, security code or
  gift card PIN, and an unkeyed digest of it beside the stored answer (BIN, last 4, amount) is brute-forced
  in seconds. Without the key the stored fingerprint tests no guess (docs/card-data.md).
- A request refused with a 4xx (validation, state machine) stores nothing: the row is deleted, the key is
  free again. Services refuse before anything changes, so a retry may run.
- An unexpected failure stores a 500: the outcome is unknown, so a retry must not run the action again.
- A field that holds only while the state it came from lasts (a 3-D Secure challenge page's address, whose token
  opens the page) is not stored: the app whose answer carries it registers it by the answer's `type`
  (`register_live_field`), and a replay makes it again from the current state, null once that state has passed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import Http404, HttpResponse
from django.utils import timezone
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response

from payments.accounts.models import MerchantAccount
from payments.errors import Conflict, DomainError
from payments.rest.envelope import envelope
from payments.rest.models import IdempotencyRecord
from payments.rest.permissions import request_merchant_account
from payments.rest.renderers import render_json
from payments.savepoints import savepoint_if_nested
from payments.vault.crypto import keyed_hash

logger = logging.getLogger("payments.rest.idempotency")

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
_POINTER = "/idempotency-key"
# A row deleted by a refused request frees its key; a racing request then simply claims it again.
_CLAIM_ATTEMPTS = 3
# Where the wrapper leaves the request's claimed record for the action (a DRF request takes any attribute).
_RECORD_ATTRIBUTE = "idempotency_record"
# Marks an action wrapped by `idempotent`, so the API document lists the header and the 409 it may answer.
_MARK = "honours_idempotency_key"
# Headers the framework sets on every response; replaying them from storage would only go stale.
_UNSTORED_HEADERS = {"content-type", "content-length", "vary", "allow", "x-request-id"}

ViewT = TypeVar("ViewT")  # the viewset whose action is wrapped
ActionParams = ParamSpec("ActionParams")


class IdempotencyKeyInUse(Conflict):
    """Another request with this key has not finished yet."""


Answer = dict[str, Any]


@dataclass(frozen=True)
class LiveField:
    """A field of an answer that holds only while the state it came from lasts: `withhold` takes it out of the answer
    before it is stored; `rebuild` puts it back into a replayed answer from the current state (the replaying request
    gives the host and the merchant account)."""

    withhold: Callable[[Answer], Answer]
    rebuild: Callable[[Answer, Request], Answer]


# By the answer's `type` (`transaction`); registered from the owning app's `ready()`: this package knows no resource.
_live_fields: dict[str, LiveField] = {}


def register_live_field(answer_type: str, field: LiveField) -> None:
    """Keep `field` of every answer of `answer_type` out of the stored record, and rebuild it on each replay."""
    _live_fields[answer_type] = field


def _live_field_of(answer: object) -> LiveField | None:
    return _live_fields.get(str(answer.get("type"))) if isinstance(answer, dict) else None


def _ttl() -> timedelta:
    return timedelta(seconds=settings.IDEMPOTENCY_KEY_TTL_SECONDS)


def _lease() -> timedelta:
    return timedelta(seconds=settings.IDEMPOTENCY_KEY_LEASE_SECONDS)


def idempotency_key_from(request: Request) -> str | None:
    """The request's key, None when it has none; a key that is empty, too long or not printable ASCII is a 400."""
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not (key.isascii() and key.isprintable()):
        raise DomainError(
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters.", pointer=_POINTER, location="header"
        )
    return key


# The HKDF label of the fingerprint key; a data migration (payments 0013) re-keyed older rows under the same label.
FINGERPRINT_PURPOSE = "payments.idempotency.request"


def request_digest(request: Request) -> str:
    """Unkeyed SHA-256 over what makes two requests the same: method, path, `Prefer` and the parsed body.

    Never stored: only `request_fingerprint`, its keyed form, is.
    """
    # Parsed and re-serialized with sorted keys, so key order and whitespace do not make a retry "different".
    body = json.dumps(request.data, sort_keys=True, separators=(",", ":"), default=str)
    # Every request a server hands over has a method; the type also allows the None of a bare HttpRequest().
    parts = [request.method or "", request.path, request.headers.get("Prefer", ""), body]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def fingerprint_of_digest(digest: str) -> str:
    """The stored fingerprint of a `request_digest`: an HMAC under a key derived from CARD_FINGERPRINT_KEY."""
    # Keyed over the digest rather than the body, so rows written with the bare digest could be re-keyed in place.
    return keyed_hash(digest, purpose=FINGERPRINT_PURPOSE)


def request_fingerprint(request: Request) -> str:
    """What is stored to tell this request from another under the same key; nothing can be tested against it
    without the key, although the body may hold card data."""
    return fingerprint_of_digest(request_digest(request))


def idempotency_claim(
    *, merchant_account: MerchantAccount, key: str, fingerprint: str, now: datetime | None = None
) -> tuple[IdempotencyRecord, bool]:
    """Return (record, True) when this request now owns the key, or (completed record, False) to replay it.

    A record still in progress whose lease is over belongs to a request that died: this request takes it over
    (its `attempts` grows) and resumes it. Must run outside any open transaction: the claim is committed at
    once so other processes see it.
    """
    now = now or timezone.now()
    for _ in range(_CLAIM_ATTEMPTS):
        try:
            # One INSERT, committed on its own (autocommit): a duplicate key fails it with nothing to roll back.
            # The id an action creates is reserved in the same row, so a create that resumes finds it.
            with savepoint_if_nested():
                record = IdempotencyRecord.objects.create(
                    merchant_account=merchant_account,
                    key=key,
                    fingerprint=fingerprint,
                    expires_at=now + _ttl(),
                    locked_until=now + _lease(),
                    reserved_id=uuid.uuid4(),
                )
            return record, True
        except IntegrityError:
            pass
        existing = IdempotencyRecord.objects.filter(merchant_account=merchant_account, key=key).first()
        if existing is None:
            continue
        if existing.expires_at <= now:
            # An expired key counts as never used; the filter keeps a racing request's fresh claim alive.
            IdempotencyRecord.objects.filter(pk=existing.pk, expires_at__lte=now).delete()
            continue
        if existing.fingerprint != fingerprint:
            raise DomainError(
                f"This {HEADER} was already used for a different request; use a new key for a new request.",
                pointer=_POINTER,
                location="header",
            )
        if existing.state == IdempotencyRecord.State.IN_PROGRESS:
            taken_over = _take_over(existing, now=now)
            if taken_over is None:
                break
            return taken_over, True
        return existing, False
    raise IdempotencyKeyInUse(
        f"A request with this {HEADER} is still being processed; retry once it has finished.",
        pointer=_POINTER,
        location="header",
    )


def _take_over(record: IdempotencyRecord, *, now: datetime) -> IdempotencyRecord | None:
    """The record, leased again to this request, when its lease is over; None while its request may still run."""
    # Rows claimed before leases existed hold the key for one lease from their creation.
    if (record.locked_until or record.created_at + _lease()) > now:
        return None
    # Conditional on the old lease: of several retries racing for a dead request's key, exactly one wins.
    won = IdempotencyRecord.objects.filter(
        pk=record.pk, state=IdempotencyRecord.State.IN_PROGRESS, locked_until=record.locked_until
    ).update(locked_until=now + _lease(), attempts=F("attempts") + 1)
    if not won:
        return None
    record.refresh_from_db()
    logger.warning("Idempotent request resumed after its lease ran out; key %s, attempt %s", record.pk, record.attempts)
    return record


def idempotency_reserve_id(*, record: IdempotencyRecord) -> uuid.UUID:
    """The id the request's action gives what it creates: reserved (and committed) once, the same on resumption."""
    if record.reserved_id is None:
        IdempotencyRecord.objects.filter(pk=record.pk, reserved_id__isnull=True).update(reserved_id=uuid.uuid4())
        record.refresh_from_db(fields=["reserved_id"])
    assert record.reserved_id is not None  # noqa: S101 - set just above, by this request or the one it resumes
    return record.reserved_id


def idempotency_complete(*, record: IdempotencyRecord, status: int, body: str, headers: dict[str, str]) -> None:
    """Store the answer (rendered JSON) the key replays from now on."""
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        state=IdempotencyRecord.State.COMPLETED, response_status=status, response_body=body, response_headers=headers
    )


def idempotency_release(*, record: IdempotencyRecord) -> None:
    """Forget the claim of a refused request, so the key can be used again."""
    IdempotencyRecord.objects.filter(pk=record.pk, state=IdempotencyRecord.State.IN_PROGRESS).delete()


def idempotency_purge_expired(*, now: datetime, batch_size: int) -> int:
    """Purge job: delete up to `batch_size` stored answers past their retention; return how many went."""
    with transaction.atomic():
        due = IdempotencyRecord.objects.filter(expires_at__lte=now).order_by("expires_at")
        # skip_locked: two overlapping purge runs share the work instead of waiting on each other.
        ids = list(due.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
        deleted, _ = IdempotencyRecord.objects.filter(pk__in=ids).delete()
    return deleted


def idempotency_reserved_id(request: Request) -> uuid.UUID | None:
    """For an action that creates something: the id reserved under the request's key, None without a key."""
    record: IdempotencyRecord | None = getattr(request, _RECORD_ATTRIBUTE, None)
    return idempotency_reserve_id(record=record) if record is not None else None


def idempotency_resumed(request: Request) -> bool:
    """Whether the request resumes one with the same key whose process died before it finished."""
    record: IdempotencyRecord | None = getattr(request, _RECORD_ATTRIBUTE, None)
    return record is not None and record.attempts > 1


def _replay(record: IdempotencyRecord, request: Request) -> HttpResponse:
    body: str | bytes | None = record.response_body
    if body and _live_fields:
        answer = json.loads(body)
        live = _live_field_of(answer)
        if live is not None:
            body = render_json(live.rebuild(answer, request))
    response = HttpResponse(body, status=record.response_status, content_type="application/json")
    for name, value in {**record.response_headers, REPLAYED_HEADER: "true"}.items():
        response[name] = value
    return response


def _rendered(data: object) -> str:
    # The renderer the API answers with, so the stored text is what the first client received, less a live field.
    text = render_json(data)
    live = _live_field_of(data)
    if live is not None:
        # Withheld from a copy: `data` is still to be rendered for the first client, live field included.
        text = render_json(live.withhold(json.loads(text)))
    return text.decode()


def _stored_headers(response: Response) -> dict[str, str]:
    return {name: value for name, value in response.items() if name.lower() not in _UNSTORED_HEADERS}


# Errors that answer 4xx: the action refused the request before changing anything.
_REFUSALS = (DomainError, APIException, Http404, PermissionDenied)


def idempotent(
    action: Callable[Concatenate[ViewT, Request, ActionParams], Response],
) -> Callable[Concatenate[ViewT, Request, ActionParams], HttpResponse]:
    """Make a viewset action honour `Idempotency-Key`; requests without the header run unchanged."""

    @functools.wraps(action)
    def wrapper(
        view: ViewT, request: Request, /, *args: ActionParams.args, **kwargs: ActionParams.kwargs
    ) -> HttpResponse:
        key = idempotency_key_from(request)
        if key is None:
            return action(view, request, *args, **kwargs)
        # Computed before the claim: a body that does not parse is refused with nothing stored.
        fingerprint = request_fingerprint(request)
        record, claimed = idempotency_claim(
            merchant_account=request_merchant_account(request), key=key, fingerprint=fingerprint
        )
        if not claimed:
            return _replay(record, request)
        setattr(request, _RECORD_ATTRIBUTE, record)
        try:
            response = action(view, request, *args, **kwargs)
        except _REFUSALS:
            idempotency_release(record=record)
            raise
        except Exception:
            # The middleware logs the traceback; this line ties the stored 500 to the key.
            logger.warning("Idempotent request failed; key %s now answers 500", record.pk)
            idempotency_complete(record=record, status=500, body=_rendered(envelope(500)), headers={})
            raise
        if response.status_code >= 400:
            idempotency_release(record=record)
        else:
            idempotency_complete(
                record=record,
                status=response.status_code,
                body=_rendered(response.data),
                headers=_stored_headers(response),
            )
        return response

    setattr(wrapper, _MARK, True)  # read by the API document (`honours_idempotency_key`)
    return wrapper


def honours_idempotency_key(action: object) -> bool:
    """Whether `action` (a view's handler) is wrapped by `idempotent`."""
    return getattr(action, _MARK, False) is True
