"""The one lookup of the BIN table: what a card is, from at most its first 8 digits."""

from __future__ import annotations

from payments.bins.facts import MAX_BIN_LENGTH, UNKNOWN, CardFacts
from payments.bins.models import BinRange


def bin_lookup(bin: str) -> CardFacts:
    """What the table says of cards starting with `bin` (1 to 8 ASCII digits; a caller holding more passes the first
    8), in one indexed query: of the ranges covering every such card, the most specific published one (longest start,
    then longest prefix) wins. A BIN no range covers is `UNKNOWN` (every part None)."""
    if not (bin.isascii() and bin.isdigit() and 1 <= len(bin) <= MAX_BIN_LENGTH):
        raise ValueError("A BIN is 1 to 8 digits.")
    candidates = BinRange.objects.filter(prefix__in=[bin[:n] for n in range(1, len(bin) + 1)]).only(
        "prefix", "range_start", "scheme", "card_type", "country", "issuer_name"
    )
    best = max(candidates, key=lambda row: (len(row.range_start), len(row.prefix), row.pk), default=None)
    if best is None:
        return UNKNOWN
    return CardFacts(scheme=best.scheme, card_type=best.card_type, country=best.country, issuer_name=best.issuer_name)
