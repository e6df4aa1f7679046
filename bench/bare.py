"""The bare floors: the least a Django view can do for the same work, outside the project (bench/bare_settings.py:
no project app, no middleware, no DRF, no authentication), served by its own gunicorn with the same worker config.

- `GET /bare/buyers`: the list's keyset query over the same table, the same columns as JSON.
- `POST /bare/transactions`: the rows one approved card authorization writes (the idempotency record with its
  answer, the sealed card, the transaction, its two events, the processor's decision), with raw SQL in one
  database transaction; the card sealed with AES-GCM and fingerprinted with HMAC-SHA256, as the vault does, and
  the request's idempotency fingerprint keyed with HMAC-SHA256 too, as the project keys it.
"""

import base64
import datetime
import functools
import hashlib
import hmac
import json
import os
import uuid

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

MERCHANT_ACCOUNT = "default"

_LIST = """
    SELECT id, merchant_account_id, display_name, external_identifier, account_number, billing_details,
           created_at, updated_at
    FROM buyers_buyer
    WHERE merchant_account_id = %s {position}
    ORDER BY created_at DESC, id DESC
    LIMIT %s
"""


def bare_buyers(request: HttpRequest) -> JsonResponse:
    """`?limit=20[&before=<created_at>,<id>]`: one keyset page."""
    limit = int(request.GET.get("limit", 20))
    params: list = [MERCHANT_ACCOUNT]
    position = ""
    if before := request.GET.get("before"):
        created_at, pk = before.split(",")
        position = "AND (created_at, id) < (%s, %s)"
        params += [created_at, pk]
    with connection.cursor() as cursor:
        cursor.execute(_LIST.format(position=position), [*params, limit + 1])
        rows = cursor.fetchall()
    items = [buyer_item(row) for row in rows[:limit]]
    last = rows[limit - 1] if len(rows) > limit else None
    next_cursor = f"{last[6].isoformat()},{last[0]}" if last else None
    return JsonResponse({"items": items, "limit": limit, "next_cursor": next_cursor, "previous_cursor": None})


def buyer_item(row: tuple) -> dict:
    pk, account, display_name, external_identifier, account_number, billing_details, created_at, updated_at = row
    return {
        "type": "buyer",
        "id": str(pk),
        "merchant_account_id": account,
        "display_name": display_name,
        "external_identifier": external_identifier,
        "billing_details": json.loads(billing_details) if isinstance(billing_details, str) else billing_details,
        "account_number": account_number,
        "created_at": created_at.isoformat(),
        "updated_at": updated_at.isoformat(),
    }


@functools.cache
def _keys() -> tuple[str, AESGCM, bytes]:
    """The first card key (id, cipher) and the fingerprint key, from the environment the project reads them from."""
    key_id, _, key = os.environ["CARD_ENCRYPTION_KEYS"].split(",")[0].partition(":")
    cipher = AESGCM(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)))
    return key_id, cipher, os.environ["CARD_FINGERPRINT_KEY"].encode()


def _seal(value: str) -> str:
    key_id, cipher, _ = _keys()
    nonce = os.urandom(12)
    return key_id + ":" + base64.urlsafe_b64encode(nonce + cipher.encrypt(nonce, value.encode(), None)).decode()


def _fingerprint(value: str) -> str:
    return hmac.new(_keys()[2], value.encode(), hashlib.sha256).hexdigest()


@csrf_exempt
def bare_transaction_create(request: HttpRequest) -> HttpResponse:
    """The rows of one approved authorization, written in one database transaction."""
    body = json.loads(request.body)
    card = body["payment_method"]
    number, (month, year) = card["number"], card["expiration_date"].split("/")
    now = datetime.datetime.now(datetime.UTC)
    txn_id, card_id = uuid.uuid4(), uuid.uuid4()
    answer = {
        "type": "transaction",
        "id": str(txn_id),
        "merchant_account_id": MERCHANT_ACCOUNT,
        "amount": body["amount"],
        "currency": body["currency"],
        "status": "authorization_succeeded",
        "created_at": now.isoformat(),
    }
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO payments_vaultedcard (id, merchant_account_id, encrypted_number, encrypted_security_code,
                   key_id, fingerprint, scheme, bin, last4, expiration_month, expiration_year, created_at, expires_at)
               VALUES (%s, %s, %s, NULL, %s, %s, 'visa', %s, %s, %s, %s, %s, %s)""",
            [card_id, MERCHANT_ACCOUNT, _seal(number), _keys()[0], _fingerprint(number), number[:8], number[-4:],
             int(month), 2000 + int(year), now, now + datetime.timedelta(days=1)],
        )  # fmt: skip
        cursor.execute(
            """INSERT INTO transactions_transaction (id, merchant_account_id, created_at, updated_at, amount, currency,
                   country, intent, status, authorized_amount, captured_amount, refunded_amount, settled_amount, method,
                   card_scheme,
                   card_bin, card_last4, card_fingerprint, card_expiration_date, payment_service_transaction_id,
                   payment_source, merchant_initiated,
                   is_subsequent_payment, account_funding_transaction, allow_partial_authorization, authorized_at,
                   vaulted_card_id)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'authorization_succeeded', %s, 0, 0, 0, 'card', 'visa', %s, %s,
                   %s, %s, %s, 'ecommerce', false, false, false, false, %s, %s)""",
            [txn_id, MERCHANT_ACCOUNT, now, now, body["amount"], body["currency"], body.get("country"),
             body.get("intent", "authorize"), body["amount"], number[:6], number[-4:], _fingerprint(number),
             card["expiration_date"], f"sandbox-{txn_id}", now, card_id],
        )  # fmt: skip
        cursor.execute(
            """INSERT INTO payments_sandboxoperation (reference, operation, outcome, processor_reference, amount,
                   currency, decided_at) VALUES (%s, 'authorization', 'approved', %s, %s, %s, %s)""",
            [str(txn_id), f"sandbox-{txn_id}", body["amount"], body["currency"], now],
        )
        cursor.execute(
            """INSERT INTO transactions_transactionevent (transaction_id, name, actor_type, actor, from_status,
                   to_status, amount, details, created_at)
               VALUES (%s, 'transaction_created', 'api_key', 'bare', NULL, 'processing', %s, '{}', %s),
                      (%s, 'authorization_succeeded', 'api_key', 'bare', 'processing', 'authorization_succeeded',
                       %s, '{}', %s)""",
            [txn_id, body["amount"], now, txn_id, body["amount"], now],
        )
        cursor.execute(
            """INSERT INTO payments_idempotencyrecord (merchant_account_id, key, fingerprint, state, response_status,
                   response_body, response_headers, created_at, expires_at, attempts, reserved_id)
               VALUES (%s, %s, %s, 'completed', 201, %s, '{}', %s, %s, 1, %s)""",
            [MERCHANT_ACCOUNT, request.headers["Idempotency-Key"],
             _fingerprint(hashlib.sha256(request.body).hexdigest()), json.dumps(answer), now,
             now + datetime.timedelta(days=1), txn_id],
        )  # fmt: skip
    return JsonResponse(answer, status=201)


urlpatterns = [
    path("bare/buyers", bare_buyers),
    path("bare/transactions", bare_transaction_create),
]
