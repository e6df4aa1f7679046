from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from payments.management.arguments import positive_int
from transactions.services.day_totals import TREND_DAYS, day_totals_recompute


class Command(BaseCommand):
    help = (
        "Count the start page's daily totals again from the transactions, for each of the last --days whole UTC days "
        "(today is always read live): a backfill after a deploy or an import. Safe to run beside the worker's "
        "refresh: each day's count replaces the last one, and two counts of a day take turns."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=positive_int, default=TREND_DAYS)

    def handle(self, *args: Any, **options: Any) -> None:
        today = timezone.now().date()
        for back in range(options["days"], 0, -1):
            rollup = day_totals_recompute(day=today - timedelta(days=back))
            self.stdout.write(f"{rollup.day}: counted")
        self.stdout.write(f"{options['days']} day(s) counted")
