"""Demo data, app by app, without `payments` knowing the apps.

Each app registers, from its `AppConfig.ready`, how to seed its own demo rows:

    demo.register(DemoSeeder(name="buyers", help="...", seed=seed_demo_buyers_run, has_data=..., local_total=50))

`manage.py seed_demo` offers one `--<name>` option per seeder (`--gift-cards` for `gift_cards`) and runs
them in registration order, which is `INSTALLED_APPS` order: an app's demo data may use the demo data
of the apps before it. `setup_local` seeds `local_total` of each into an empty development account.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from payments.models import MerchantAccount

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
