"""`Idempotency-Key` for the API actions that move money (create, capture, void, refunds).

Rules (see docs/transactions.md):
- The first answer is stored per (merchant account, key) and replayed for IDEMPOTENCY_KEY_TTL_SECONDS
  with `Idempotent-Replayed: true`.
- The key is claimed by inserting its row in its own committed transaction before the action runs; the
  unique constraint makes exactly one request win, in any number of processes. A request that finds the
  row still in progress gets 409.
- The same key with a different request (method, path, `Prefer` header or body) is a 400.
- A request refused with a 4xx (validation, state machine) stores nothing: the row is deleted, the key is
  free again. Services refuse before anything changes, so a retry may run.
- An unexpected failure stores a 500: the outcome is unknown, so a retry must not run the action again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Concatenate, ParamSpec, TypeVar

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import Http404, HttpResponse
from django.utils import timezone
from rest_framework.exceptions import APIException
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from payments.errors import Conflict, DomainError
from payments.models import IdempotencyRecord, MerchantAccount
from payments.rest.envelope import envelope
from payments.rest.permissions import request_merchant_account

logger = logging.getLogger("payments.rest.idempotency")

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
_POINTER = "/idempotency-key"
# A row deleted by a refused request frees its key; a racing request then simply claims it again.
_CLAIM_ATTEMPTS = 3
# Headers the framework sets on every response; replaying them from storage would only go stale.
_UNSTORED_HEADERS = {"content-type", "content-length", "vary", "allow", "x-request-id"}

ViewT = TypeVar("ViewT")  # the viewset whose action is wrapped
ActionParams = ParamSpec("ActionParams")


class IdempotencyKeyInUse(Conflict):
    """Another request with this key has not finished yet."""


def _ttl() -> timedelta:
    return timedelta(seconds=settings.IDEMPOTENCY_KEY_TTL_SECONDS)


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


def request_fingerprint(request: Request) -> str:
    """SHA-256 over what makes two requests the same: method, path, `Prefer` and the parsed body."""
    # Parsed and re-serialized with sorted keys, so key order and whitespace do not make a retry "different".
    body = json.dumps(request.data, sort_keys=True, separators=(",", ":"), default=str)
    # Every request a server hands over has a method; the type also allows the None of a bare HttpRequest().
    parts = [request.method or "", request.path, request.headers.get("Prefer", ""), body]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def idempotency_claim(
    *, merchant_account: MerchantAccount, key: str, fingerprint: str, now: datetime | None = None
) -> tuple[IdempotencyRecord, bool]:
    """Return (record, True) when this request now owns the key, or (completed record, False) to replay it.

    Must run outside any open transaction: the claim is committed at once so other processes see it.
    """
    now = now or timezone.now()
    for _ in range(_CLAIM_ATTEMPTS):
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    merchant_account=merchant_account, key=key, fingerprint=fingerprint, expires_at=now + _ttl()
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
            break
        return existing, False
    raise IdempotencyKeyInUse(
        f"A request with this {HEADER} is still being processed; retry once it has finished.",
        pointer=_POINTER,
        location="header",
    )


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


def _replay(record: IdempotencyRecord) -> HttpResponse:
    response = HttpResponse(record.response_body, status=record.response_status, content_type="application/json")
    for name, value in {**record.response_headers, REPLAYED_HEADER: "true"}.items():
        response[name] = value
    return response


def _rendered(data: object) -> str:
    # The renderer the API answers with, so the stored text is what the first client received.
    return JSONRenderer().render(data).decode()


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
            return _replay(record)
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

    return wrapper
