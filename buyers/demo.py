"""Realistic demo buyers in bulk, for `seed_demo`, local development and the benchmark.

Every demo buyer's `external_identifier` is `demo-buyer-<n>`, so seeding is deterministic and
resumable: a rerun counts the demo buyers already there and carries on after them, and the unique
constraint (with `ignore_conflicts`) skips any it meets again.
"""

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from buyers.models import Buyer
from payments.accounts.models import MerchantAccount
from payments.ops.demo import (
    BULK_LOAD_MIN_ROWS,
    DemoClock,
    DemoResult,
    DemoRun,
    bulk_load,
    copy_lines,
    seeding_lock,
)

EXTERNAL_IDENTIFIER_PREFIX = "demo-buyer-"
DEFAULT_BATCH_SIZE = 5_000
_COPY_COLUMNS = (
    "id", "merchant_account_id", "display_name", "external_identifier", "account_number", "billing_details",
    "created_at", "updated_at",
)  # fmt: skip

_FIRST_NAMES = (
    "Amara", "Ben", "Chloé", "Dmitri", "Elif", "Felix", "Grace", "Hiro", "Ines", "Jonas", "Kavya", "Liam",
    "Mei", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sami", "Tara", "Uma", "Victor", "Wen", "Yusuf", "Zoe",
)  # fmt: skip
_LAST_NAMES = (
    "Abara", "Becker", "Costa", "Dubois", "Eriksen", "Fischer", "García", "Haddad", "Ito", "Jensen", "Kowalski",
    "Lopez", "Müller", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Singh", "Tanaka", "Usman", "Varga",
    "Weber", "Yilmaz", "Zhang",
)  # fmt: skip
# (city, country, postal code)
_PLACES = (
    ("London", "GB", "EC1A 1BB"), ("Berlin", "DE", "10115"), ("Paris", "FR", "75001"), ("Madrid", "ES", "28001"),
    ("New York", "US", "10001"), ("Toronto", "CA", "M5H 2N2"), ("Tokyo", "JP", "100-0001"), ("Sydney", "AU", "2000"),
    ("São Paulo", "BR", "01000-000"), ("Amsterdam", "NL", "1012 JS"), ("Lagos", "NG", "100001"),
)  # fmt: skip


def external_identifier(number: int) -> str:
    return f"{EXTERNAL_IDENTIFIER_PREFIX}{number:06d}"


def demo_buyers(merchant_account: MerchantAccount) -> QuerySet[Buyer]:
    """The account's demo buyers (found by their identifier prefix)."""
    return Buyer.objects.filter(
        merchant_account=merchant_account, external_identifier__startswith=EXTERNAL_IDENTIFIER_PREFIX
    )


def demo_buyer_fields(number: int) -> dict[str, Any]:
    """Demo buyer number `number`'s own fields: the same name, contact details and address on every run."""
    first = _FIRST_NAMES[number % len(_FIRST_NAMES)]
    last = _LAST_NAMES[(number // len(_FIRST_NAMES)) % len(_LAST_NAMES)]
    city, country, postal_code = _PLACES[number % len(_PLACES)]
    return {
        "display_name": f"{first} {last}",
        "external_identifier": external_identifier(number),
        "account_number": f"ACC{number:08d}" if number % 3 == 0 else None,
        "billing_details": {
            "first_name": first,
            "last_name": last,
            "email_address": f"buyer{number}@example.com",
            "phone_number": f"+1555{number % 10_000_000:07d}",
            "address": {
                "line1": f"{number % 200 + 1} Demo Street",
                "city": city,
                "postal_code": postal_code,
                "country": country,
            },
        },
    }


def _copy_line(account_id: str, number: int, created: datetime) -> str:
    """Demo buyer `number` as one COPY text line: the fields of `demo_buyer_fields`, formatted without building
    them as dicts first (the test suite holds the two equal)."""
    first = _FIRST_NAMES[number % len(_FIRST_NAMES)]
    last = _LAST_NAMES[(number // len(_FIRST_NAMES)) % len(_LAST_NAMES)]
    city, country, postal_code = _PLACES[number % len(_PLACES)]
    billing = (
        f'{{"first_name": "{first}", "last_name": "{last}", "email_address": "buyer{number}@example.com", '
        f'"phone_number": "+1555{number % 10_000_000:07d}", "address": {{"line1": "{number % 200 + 1} Demo Street", '
        f'"city": "{city}", "postal_code": "{postal_code}", "country": "{country}"}}}}'
    )
    account_number = f"ACC{number:08d}" if number % 3 == 0 else "\\N"
    at = created.isoformat()
    return (
        f"{uuid.uuid4()}\t{account_id}\t{first} {last}\t{external_identifier(number)}\t{account_number}\t"
        f"{billing}\t{at}\t{at}\n"
    )


def _insert(merchant_account: MerchantAccount, numbers: range, clock: DemoClock) -> None:
    """Insert these demo buyers, skipping any identifier the account has already.

    On PostgreSQL the rows go in with COPY straight into the table when none of the batch's identifiers is taken
    (the usual case), else through a temporary table and `INSERT ... ON CONFLICT DO NOTHING`; elsewhere through
    `bulk_create(ignore_conflicts=True)`.
    """
    if connection.vendor != "postgresql":
        buyers = [Buyer(merchant_account=merchant_account, **demo_buyer_fields(n)) for n in numbers]
        Buyer.objects.bulk_create(buyers, ignore_conflicts=True)
        # The insert stamps "now" on every row (auto_now_add); the clock's times replace it.
        for buyer, number in zip(buyers, numbers, strict=True):
            buyer.created_at = buyer.updated_at = clock.at(number)
        Buyer.objects.bulk_update(buyers, ["created_at", "updated_at"])
        return
    lines = (_copy_line(merchant_account.pk, number, clock.at(number)) for number in numbers)
    identifiers = [external_identifier(number) for number in numbers]
    with transaction.atomic():
        if not demo_buyers(merchant_account).filter(external_identifier__in=identifiers).exists():
            copy_lines("buyers_buyer", _COPY_COLUMNS, lines)
            return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE IF NOT EXISTS demo_buyers (LIKE buyers_buyer) ON COMMIT DELETE ROWS")
        cursor.execute("TRUNCATE demo_buyers")  # within a bulk load, the commit (and its cleanup) comes at the end
        copy_lines("demo_buyers", _COPY_COLUMNS, lines)
        columns = ", ".join(_COPY_COLUMNS)
        # Constant names only: nothing from outside reaches this statement.
        cursor.execute(f"INSERT INTO buyers_buyer ({columns}) SELECT {columns} FROM demo_buyers ON CONFLICT DO NOTHING")  # noqa: S608


def seed_demo_buyers(
    *,
    merchant_account: MerchantAccount,
    total: int,
    batch_size: int = DEFAULT_BATCH_SIZE,
    on_progress: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Bring the account's demo buyers up to `total`, inserting in batches; never duplicates one."""
    with seeding_lock("buyers", merchant_account):
        before = demo_buyers(merchant_account).count()
        clock = DemoClock(now=timezone.now(), total=total)
        existing = Buyer.objects.order_by()[:BULK_LOAD_MIN_ROWS].count()
        with bulk_load("buyers_buyer", new_rows=total - before, existing_rows=existing):
            # Batches go in in order: an interrupted run leaves demo buyers 1..n and the next carries on at n + 1.
            _insert_numbers(merchant_account, range(before + 1, total + 1), batch_size, clock, on_progress)
        after = demo_buyers(merchant_account).count()
        if after < total:
            # Gaps below `before` (a deleted demo buyer, or a merchant's own buyer using a demo identifier):
            # one more pass fills them, skipping every identifier that exists.
            _insert_numbers(merchant_account, range(1, before + 1), batch_size, clock, on_progress)
            after = demo_buyers(merchant_account).count()
    return DemoResult(before=before, after=after)


def seed_demo_buyers_run(run: DemoRun) -> DemoResult:
    """`seed_demo --buyers N`."""
    return seed_demo_buyers(
        merchant_account=run.merchant_account, total=run.total, batch_size=run.batch_size, on_progress=run.on_progress
    )


def _insert_numbers(
    merchant_account: MerchantAccount,
    numbers: range,
    batch_size: int,
    clock: DemoClock,
    on_progress: Callable[[int, int], None] | None,
) -> None:
    for first in range(numbers.start, numbers.stop, batch_size):
        batch = range(first, min(first + batch_size, numbers.stop))
        _insert(merchant_account, batch, clock)
        if on_progress is not None:
            on_progress(batch[-1], numbers.stop - 1)
