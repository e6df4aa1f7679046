"""The one lookup of the BIN table: what a card is, from at most its first 8 digits."""

from __future__ import annotations

import time
from threading import Lock

from django.conf import settings

from payments.bins.facts import MAX_BIN_LENGTH, UNKNOWN, CardFacts
from payments.bins.models import BinRange

# BIN -> (monotonic expiry, facts): every card payment asks, and the table changes when it is replaced whole
# (`manage.py refresh_bin_table`), so each process keeps what it read for `BIN_CACHE_SECONDS`.
_known: dict[str, tuple[float, CardFacts]] = {}
_lock = Lock()
# Enough for the BINs one process meets; a full map starts over rather than grow without bound.
MAX_CACHED_BINS = 10_000


def bin_lookup(bin: str) -> CardFacts:
    """What the table says of cards starting with `bin` (1 to 8 ASCII digits; a caller holding more passes the first
    8), as this process read it at most `BIN_CACHE_SECONDS` ago (at once after a refresh made in this process)."""
    if not (bin.isascii() and bin.isdigit() and 1 <= len(bin) <= MAX_BIN_LENGTH):
        raise ValueError("A BIN is 1 to 8 digits.")
    now = time.monotonic()
    cached = _known.get(bin)
    if cached is not None and cached[0] > now:
        return cached[1]
    facts = _read(bin)
    with _lock:
        if len(_known) >= MAX_CACHED_BINS:
            _known.clear()
        _known[bin] = (now + settings.BIN_CACHE_SECONDS, facts)
    return facts


def _read(bin: str) -> CardFacts:
    """One indexed query: of the ranges covering every card starting with `bin`, the most specific published one
    (longest start, then longest prefix) wins. A BIN no range covers is `UNKNOWN` (every part None)."""
    candidates = BinRange.objects.filter(prefix__in=[bin[:n] for n in range(1, len(bin) + 1)]).only(
        "prefix", "range_start", "scheme", "card_type", "country", "issuer_name"
    )
    best = max(candidates, key=lambda row: (len(row.range_start), len(row.prefix), row.pk), default=None)
    if best is None:
        return UNKNOWN
    return CardFacts(scheme=best.scheme, card_type=best.card_type, country=best.country, issuer_name=best.issuer_name)


def forget_bin_lookups() -> None:
    """Drop this process's lookups (after the table is replaced; tests)."""
    with _lock:
        _known.clear()
