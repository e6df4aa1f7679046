"""The benchmark's environment and fixtures: the database, the seeded buyers, API keys and tokens, deep cursors."""

import base64
import datetime
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEEP_OFFSET = 900_000
MERCHANT_ACCOUNT = "default"
SUBSCRIBED_ACCOUNT = "bench-subscribed"


def server_environment(database_url: str, redis_url: str) -> dict[str, str]:
    """Production settings with throwaway secrets: what `make serve` runs, on loopback."""
    from payments.accounts.keys import generate_private_key, public_pem

    private_key, private_pem = generate_private_key()
    key = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")
    return {
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "CARD_ENCRYPTION_KEYS": f"bench:{key}",
        "CARD_FINGERPRINT_KEY": secrets.token_urlsafe(32),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "BENCH_PEER_VERIFYING_KEY": public_pem(private_key),
        "BENCH_PRIVATE_KEY_PEM": private_pem,
        "LOG_LEVEL": "INFO",  # the servers log every request, as in production
        "WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",  # the bench's own receiver
        "SANDBOX_PAYMENTS": "true",  # the creates pay through the sandbox (mock-card) service
    }


def ensure_database(database_url: str) -> None:
    import psycopg

    url = urlparse(database_url)
    name = url.path.lstrip("/")
    admin_url = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def seed_buyers(rows: int) -> None:
    """`rows` buyers one second apart, newest first, in one INSERT ... SELECT (a fixture, so raw SQL)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM buyers_buyer WHERE merchant_account_id = %s", [MERCHANT_ACCOUNT])
        have = cursor.fetchone()[0]
        if have >= rows:
            print(f"  {have:,} buyers already seeded")
            return
        started = time.perf_counter()
        cursor.execute(
            """
            INSERT INTO buyers_buyer (id, merchant_account_id, display_name, external_identifier, account_number,
                                      billing_details, created_at, updated_at)
            SELECT gen_random_uuid(), %(account)s, 'Buyer ' || n,
                   'demo-buyer-' || lpad(n::text, greatest(6, length(n::text)), '0'),
                   CASE WHEN n %% 3 = 0 THEN 'ACC' || lpad(n::text, 8, '0') END,
                   jsonb_build_object('first_name', 'Buyer', 'last_name', n::text,
                                      'email_address', 'buyer' || n || '@example.com',
                                      'address', jsonb_build_object('city', 'London', 'country', 'GB')),
                   now() - make_interval(secs => %(rows)s - n), now() - make_interval(secs => %(rows)s - n)
            FROM generate_series(%(first)s::bigint, %(rows)s::bigint) AS n
            ON CONFLICT DO NOTHING
            """,
            {"account": MERCHANT_ACCOUNT, "first": have + 1, "rows": rows},
        )
        inserted = cursor.rowcount
        cursor.execute("VACUUM ANALYZE buyers_buyer")
    print(f"  seeded {inserted:,} buyers in {time.perf_counter() - started:.1f}s")


def prepare(rows: int, env: dict[str, str]) -> dict[str, str]:
    """Migrate, seed, create the account, key and peer user; return tokens and deep-page cursors."""
    os.environ.update({**env, "LOG_LEVEL": "WARNING"})  # this process's own requests need no access log
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from payments.accounts.keys import load_private_pem, mint_token, public_pem
    from payments.accounts.models import MerchantAccount
    from payments.accounts.services import api_key_register

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # as `make serve` does
    account, _ = MerchantAccount.objects.get_or_create(id=MERCHANT_ACCOUNT, defaults={"display_name": "Bench"})
    private_pem = env["BENCH_PRIVATE_KEY_PEM"]
    api_key_register(public_key_pem=public_pem(load_private_pem(private_pem)), merchant_account=account)
    seed_buyers(rows)
    token = mint_token(private_pem, scopes=["buyers.read", "buyers.write"], expires_in=3600)
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    get_user_model().objects.get_or_create(username=claims["iss"])  # the peer's user lookup finds this row
    fixtures = {"token": token, **deep_cursors(min(rows, DEEP_OFFSET))}
    if _routed("gift-card-balances"):
        from giftcards.services import issued_card_create

        card = issued_card_create(merchant_account=account, amount=10_000, currency="USD")
        fixtures["embed_token"] = mint_token(private_pem, scopes=["embed"], expires_in=3600)
        fixtures["balance_body"] = json.dumps({"items": [{"number": card.number, "pin": card.pin}]})
    if _routed("transaction-list"):
        sandbox_service(account)
        fixtures["transactions_token"] = mint_token(private_pem, scopes=["transactions.write"], expires_in=3600)
        fixtures["transactions_read_token"] = mint_token(private_pem, scopes=["transactions.read"], expires_in=3600)
        fixtures["transaction_body"] = json.dumps(TRANSACTION)
        fixtures["queries_per_transaction"] = str(_queries_per_create(fixtures["transactions_token"]))
        fixtures.update(subscribed_account())
    analyze_written_tables()
    return fixtures


def analyze_written_tables() -> None:
    """The planner's statistics for the rows earlier runs wrote (their creates, events, idempotency records), as
    autovacuum keeps them on a production database. Without them, on a database that runs no autovacuum, the planner
    guesses the account's share of the transactions (4 rows of 15,000, once) and reads its page by sorting every row
    of the account (about 100 ms of PostgreSQL's time a page at 100,000 transactions), on a core every case shares."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def subscribed_account() -> dict[str, str]:
    """A second merchant account with one active webhook subscription (to the bench's receiver) and its own key."""
    from payments.accounts.keys import generate_private_key, mint_token, public_pem
    from payments.accounts.models import MerchantAccount
    from payments.accounts.services import api_key_register
    from tests.processes import free_port
    from webhooks.models import WebhookSubscription
    from webhooks.services.subscriptions import webhook_subscription_create

    account, _ = MerchantAccount.objects.get_or_create(id=SUBSCRIBED_ACCOUNT, defaults={"display_name": "Hooked"})
    sandbox_service(account)
    port = free_port()
    WebhookSubscription.objects.filter(merchant_account=account).delete()
    webhook_subscription_create(merchant_account=account, url=f"http://127.0.0.1:{port}/hook")
    private_key, private_pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(private_key), merchant_account=account)
    token = mint_token(private_pem, scopes=["transactions.write"], expires_in=3600)
    return {"subscribed_token": token, "receiver_port": str(port)}


def sandbox_service(account) -> None:
    """The account's one payment service: the sandbox, taking the bench's USD payments from the US."""
    from paymentservices.models import PaymentService
    from paymentservices.services import payment_service_create

    if not PaymentService.objects.filter(merchant_account=account, definition_id="mock-card").exists():
        payment_service_create(
            merchant_account=account,
            definition_id="mock-card",
            display_name="Sandbox",
            fields=[],
            accepted_currencies=["USD"],
            accepted_countries=["US"],
        )


# What the SDK sends for a card authorization (with its model defaults); 4111... is approved by the sandbox.
TRANSACTION = {
    "amount": 1299,
    "currency": "USD",
    "country": "US",
    "intent": "authorize",
    "payment_method": {
        "method": "card",
        "number": "4111111111111111",
        "expiration_date": f"12/{(datetime.date.today().year + 3) % 100:02d}",
        "security_code": "123",
    },
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}


def _queries_per_create(token: str) -> int:
    """Database queries of one `POST /transactions` with a new Idempotency-Key, once caches are warm."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {token}")
    counted = 0
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                "/transactions", TRANSACTION, content_type="application/json", HTTP_IDEMPOTENCY_KEY=secrets.token_hex(8)
            )
        if response.status_code != 201:
            raise SystemExit(f"POST /transactions answered {response.status_code}: {response.content[:500]!r}")
        counted = len(queries)  # the second: the first also fills the key and account caches
    return counted


def _routed(url_name: str) -> bool:
    """Whether the project serves this endpoint yet (the benchmark grows with the API)."""
    from django.urls import NoReverseMatch, reverse

    try:
        reverse(url_name)
    except NoReverseMatch:
        return False
    return True


def deep_cursors(depth: int = DEEP_OFFSET) -> dict[str, str]:
    """Query strings that open each list at the row after `depth`, as its own next links would (a run with fewer
    rows, for the stages that need none, opens at its last)."""
    from django.conf import settings
    from django.core import signing
    from rest_framework.pagination import Cursor as DrfCursor
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from bench.views import PeerCursorPagination
    from buyers.models import Buyer
    from payments.rest.pagination import Cursor, KeysetCursorPagination

    row = (
        Buyer.objects.filter(merchant_account_id=MERCHANT_ACCOUNT)
        .order_by("-created_at", "-id")
        .values("created_at", "id")[depth - 1]
    )
    ours = KeysetCursorPagination()
    ours.signer = signing.Signer(
        key=settings.CURSOR_SIGNING_KEY,
        salt=ours._binding(Request(APIRequestFactory().get("/buyers", {"limit": 20}))),
    )
    peer = PeerCursorPagination()
    peer.base_url = "http://127.0.0.1/bench/peer/buyers"
    # DRF's cursor carries the ordering field's value as text (its stub says int).
    position: Any = str(row["created_at"])
    peer_url = peer.encode_cursor(DrfCursor(offset=0, reverse=False, position=position))
    return {
        "ours_deep": urlencode({"limit": 20, "cursor": ours._encode(Cursor(True, row["created_at"], str(row["id"])))}),
        "peer_deep": urlparse(peer_url).query + "&limit=20",
        "floor_deep": urlencode({"limit": 20, "before": f"{row['created_at'].isoformat()},{row['id']}"}),
    }
