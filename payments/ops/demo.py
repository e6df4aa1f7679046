"""Demo data, app by app, without `payments` knowing the apps.

Each app registers, from its `AppConfig.ready`, how to seed its own demo rows:

    demo.register(DemoSeeder(name="buyers", help="...", seed=seed_demo_buyers_run, has_data=..., local_total=50))

`manage.py seed_demo` offers one `--<name>` option per seeder (`--gift-cards` for `gift_cards`) and runs
them in registration order, which is `INSTALLED_APPS` order: an app's demo data may use the demo data
of the apps before it. `setup_local` seeds `local_total` of each into an empty development account.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.db import connection, transaction

from payments.accounts.models import MerchantAccount

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class DemoRun:
    """What one seeder is asked to do: bring `merchant_account`'s demo rows up to `total`."""

    merchant_account: MerchantAccount
    total: int
    batch_size: int
    on_progress: ProgressCallback | None = None
    # Where a seeder that creates secrets (gift card numbers and PINs) writes them: a new file, mode 0600.
    secrets_path: Path | None = None


@dataclass(frozen=True)
class DemoResult:
    """How many demo rows the account had before and after the run, and anything else worth saying."""

    before: int
    after: int
    note: str = ""

    @property
    def created(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class DemoSeeder:
    """One app's demo data."""

    name: str  # the option is `--<name>` with dashes: `gift_cards` is `--gift-cards`
    help: str
    seed: Callable[[DemoRun], DemoResult]
    # Whether the account has any rows of this kind at all, demo or not (`seed_demo --if-empty`).
    has_data: Callable[[MerchantAccount], bool]
    # How many `setup_local` seeds into a fresh development account (0: none).
    local_total: int = 0
    # The seeder writes secrets to `DemoRun.secrets_path`: `--<name>-out` names the file.
    writes_secrets: bool = False

    @property
    def option(self) -> str:
        return self.name.replace("_", "-")

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


_seeders: dict[str, DemoSeeder] = {}


def register(seeder: DemoSeeder) -> None:
    """Offer `seeder` to `seed_demo`; registering a name again replaces it, so `ready()` may run twice."""
    _seeders[seeder.name] = seeder


def registered_seeders() -> list[DemoSeeder]:
    """Every seeder, in registration (`INSTALLED_APPS`) order."""
    return list(_seeders.values())


# --- bulk writing, shared by the seeders --------------------------------------------------------------------

# Demo rows are spread over this window before the run, oldest first, so lists and charts look like real traffic.
DEMO_HISTORY = timedelta(days=365)


@dataclass(frozen=True)
class DemoClock:
    """Distinct, realistic creation times: row `n` of `total` sits at its place in the `history` before `now`,
    with a sub-step offset of its own, so no two rows share a timestamp and the newest is `now`."""

    now: datetime
    total: int
    history: timedelta = DEMO_HISTORY

    @property
    def step_us(self) -> int:
        return max(int(self.history.total_seconds() * 1_000_000) // max(self.total, 1), 1)

    def at(self, number: int) -> datetime:
        step = self.step_us
        # A fixed scramble of the number, smaller than a step: times stay strictly increasing with `number`.
        offset = (number * 2_654_435_761) % step if step > 1 else 0
        return self.now - timedelta(microseconds=(self.total - number) * step + step - 1 - offset)


def copy_text(value: object) -> str:
    """One value in PostgreSQL's COPY text format (NULL as `\\N`, the four special characters escaped)."""
    if value is None:
        return "\\N"
    text = value.isoformat() if isinstance(value, datetime) else str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return text


def copy_lines(table: str, columns: Sequence[str], lines: Iterable[str]) -> None:
    """COPY already formatted lines (`\\t`-separated, each ending in `\\n`) into `table`: the fastest way
    PostgreSQL takes rows. Table and column names are the caller's constants, never input."""
    with connection.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        chunk: list[str] = []
        for line in lines:
            chunk.append(line)
            if len(chunk) == 2_000:
                copy.write("".join(chunk))
                chunk.clear()
        if chunk:
            copy.write("".join(chunk))


@contextmanager
def seeding_lock(name: str, merchant_account: MerchantAccount) -> Iterator[None]:
    """One seeding of `name` into an account at a time (PostgreSQL advisory lock): a second run started
    alongside waits, then counts what the first made and carries on, instead of making it again."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [f"seed_demo:{name}:{merchant_account.pk}"])
        try:
            yield
        finally:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [f"seed_demo:{name}:{merchant_account.pk}"])


# Below this many new rows, and below the rows already there, indexes are kept up row by row as usual.
BULK_LOAD_MIN_ROWS = 100_000


@contextmanager
def bulk_load(table: str, *, new_rows: int, existing_rows: int) -> Iterator[bool]:
    """Load many rows into `table` in one transaction, building its secondary indexes once at the end instead of
    updating them row by row, which costs most of a large load (the way `pg_restore` does it).

    Only on PostgreSQL, and only when the load at least doubles the table and adds `BULK_LOAD_MIN_ROWS` or more:
    the table is locked for the load, so this is for demo and benchmark databases. Unique indexes stay (they keep
    the data valid); the others are dropped and created again from their own definitions before the commit. An
    interrupted load rolls back whole, indexes included. Yields whether the indexes were deferred.
    """
    if connection.vendor != "postgresql" or new_rows < max(BULK_LOAD_MIN_ROWS, existing_rows):
        yield False
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT index.relname, pg_get_indexdef(index.oid) FROM pg_index"
            " JOIN pg_class index ON index.oid = pg_index.indexrelid"
            " WHERE pg_index.indrelid = %s::regclass AND NOT pg_index.indisunique",
            [table],
        )
        definitions = cursor.fetchall()
        # Django's foreign keys are deferred to the commit; checked as each row goes in instead, they leave no
        # pending trigger events, which CREATE INDEX refuses to run beside.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for name, _ in definitions:
            cursor.execute(f'DROP INDEX "{name}"')
        yield True
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for _, definition in definitions:
            cursor.execute(definition)
