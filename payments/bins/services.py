"""Replacing the BIN table: the one writer of `BinRange`."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from payments.bins.facts import covering_prefixes
from payments.bins.models import BinRange
from payments.bins.selectors import forget_bin_lookups
from payments.bins.sources import PublishedRange

BATCH_SIZE = 1000


@transaction.atomic
def bin_table_refresh(*, ranges: Sequence[PublishedRange]) -> int:
    """Replace the whole table with `ranges` in one transaction, so a lookup sees the old table or the new one, never
    a mix; returns how many prefix rows it holds now. This process forgets its lookups at once and again when the new
    table commits (a lookup in between may have read the old one); others within `BIN_CACHE_SECONDS`."""
    forget_bin_lookups()
    transaction.on_commit(forget_bin_lookups)
    BinRange.objects.all().delete()
    rows = [
        BinRange(
            prefix=prefix,
            range_start=published.start,
            range_end=published.end,
            scheme=published.facts.scheme,
            card_type=published.facts.card_type,
            country=published.facts.country,
            issuer_name=published.facts.issuer_name,
        )
        for published in ranges
        for prefix in covering_prefixes(published.start, published.end)
    ]
    BinRange.objects.bulk_create(rows, batch_size=BATCH_SIZE)
    return len(rows)
