from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from payments.bins.services import bin_table_refresh
from payments.bins.sources import RangeFileError, read_ranges


class Command(BaseCommand):
    help = "Replace the BIN table with the ranges of a CSV in binlist's ranges.csv columns (docs/card-details.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="The CSV file (UTF-8, with a header line).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with options["file"].open(encoding="utf-8", newline="") as lines:
                ranges = read_ranges(lines)
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"Cannot read {options['file']}: {exc}") from exc
        except RangeFileError as exc:
            raise CommandError(f"{options['file']}: {exc} Nothing was changed.") from exc
        rows = bin_table_refresh(ranges=ranges)
        self.stdout.write(f"The BIN table holds {len(ranges)} ranges ({rows} prefixes).")
