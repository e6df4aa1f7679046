"""Reading a published list of issuer ranges: binlist's `ranges.csv` columns (docs/card-details.md)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass

from payments.bins.facts import MAX_BIN_LENGTH, CardFacts

# The columns the table reads; the file may carry more (binlist's brand, number length, bank phone, ...).
REQUIRED_COLUMNS = ("iin_start", "iin_end", "scheme", "type", "prepaid", "country", "bank_name")

# A published scheme name, upper-cased, to upstream's `CardScheme`; any other name is upstream's `other`.
SCHEMES = {
    "VISA": "visa",
    "MASTERCARD": "mastercard",
    "AMEX": "amex",
    "AMERICAN EXPRESS": "amex",
    "DINERS": "diners-club",
    "DINERS CLUB": "diners-club",
    "DINERS-CLUB": "diners-club",
    "DISCOVER": "discover",
    "JCB": "jcb",
    "UNIONPAY": "unionpay",
    "CHINA UNIONPAY": "unionpay",
    "MAESTRO": "maestro",
    "ELO": "elo",
    "HIPERCARD": "hipercard",
    "MIR": "mir",
    "RUPAY": "rupay",
    "DANKORT": "dankort",
    "CARTE-BANCAIRE": "carte-bancaire",
    "CARTE BANCAIRE": "carte-bancaire",
    "EFTPOS-AUSTRALIA": "eftpos-australia",
    "UATP": "uatp",
}
# A published type to upstream's `CardType` (a charge card is paid off like a credit card); a prepaid flag wins.
TYPES = {"CREDIT": "credit", "CHARGE": "credit", "DEBIT": "debit", "PREPAID": "prepaid"}
PREPAID = {"Y", "YES", "TRUE", "1"}
ISSUER_MAX_LENGTH = 200
_DIGITS = re.compile(rf"[0-9]{{1,{MAX_BIN_LENGTH}}}")
_COUNTRY = re.compile(r"[A-Z]{2}")


class RangeFileError(ValueError):
    """The file cannot be read as a list of ranges; the message names the line, never more of the file than a BIN."""


@dataclass(frozen=True)
class PublishedRange:
    """One line of the file: the range's first and last prefix (one length, at most 8 digits) and its facts."""

    start: str
    end: str
    facts: CardFacts


def read_ranges(lines: Iterable[str]) -> list[PublishedRange]:
    """Every range of a CSV in binlist's `ranges.csv` columns, or `RangeFileError` naming the first bad line: a file
    is taken whole or not at all, so a truncated download never leaves half a table."""
    reader = csv.DictReader(lines)
    missing = [name for name in REQUIRED_COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise RangeFileError(f"The file has no column {', '.join(missing)}.")
    ranges = [_range(row, line=reader.line_num) for row in reader]
    if not ranges:
        raise RangeFileError("The file holds no range.")
    return ranges


def _range(row: dict[str, str | None], *, line: int) -> PublishedRange:
    start = (row.get("iin_start") or "").strip()
    end = (row.get("iin_end") or "").strip() or start
    if not _DIGITS.fullmatch(start) or not _DIGITS.fullmatch(end) or len(end) != len(start) or end < start:
        raise RangeFileError(
            f"Line {line}: iin_start and iin_end must be 1 to {MAX_BIN_LENGTH} digits of one length, start first."
        )
    country = (row.get("country") or "").strip().upper() or None
    if country is not None and not _COUNTRY.fullmatch(country):
        raise RangeFileError(f"Line {line}: country must be an ISO 3166-1 alpha-2 code.")
    return PublishedRange(start=start, end=end, facts=_facts(row, country=country))


def _facts(row: dict[str, str | None], *, country: str | None) -> CardFacts:
    scheme = (row.get("scheme") or "").strip().upper()
    prepaid = (row.get("prepaid") or "").strip().upper() in PREPAID
    card_type = "prepaid" if prepaid else TYPES.get((row.get("type") or "").strip().upper())
    issuer = " ".join((row.get("bank_name") or "").split())[:ISSUER_MAX_LENGTH] or None
    return CardFacts(
        scheme=SCHEMES.get(scheme, "other") if scheme else None,
        card_type=card_type,
        country=country,
        issuer_name=issuer,
    )
