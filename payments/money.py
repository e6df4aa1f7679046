"""Money as people read and type it: major units with each currency's own number of decimals (ISO 4217).

The API and the database keep integer minor units; only the admin speaks in major units, through these two
functions, so `12000` USD reads `USD 120.00`, `1200` JPY reads `JPY 1,200` and `1234` KWD reads `KWD 1.234`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# ISO 4217 currencies whose minor unit is not the hundredth; every other currency has two decimals.
_ZERO_DECIMALS = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
_THREE_DECIMALS = "BHD IQD JOD KWD LYD OMR TND"
_FOUR_DECIMALS = "CLF UYW"
_EXPONENTS: dict[str, int] = {
    **dict.fromkeys(_ZERO_DECIMALS.split(), 0),
    **dict.fromkeys(_THREE_DECIMALS.split(), 3),
    **dict.fromkeys(_FOUR_DECIMALS.split(), 4),
}
# Digits, at most one decimal point, an optional thousands comma between groups of three: what a person types.
_AMOUNT = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")


class AmountError(ValueError):
    """A typed amount that is not a positive amount of this currency; the message says why, for the form."""


def currency_exponent(currency: str) -> int:
    """How many decimals the currency's minor unit has: 2 for USD, 0 for JPY, 3 for KWD."""
    return _EXPONENTS.get(currency.upper(), 2)


def major_units(amount: int, currency: str) -> Decimal:
    """`amount` minor units as an exact decimal in major units."""
    return Decimal(amount).scaleb(-currency_exponent(currency))


def format_money(amount: int | None, currency: str | None) -> str:
    """`USD 1,234.50`: the code (unambiguous, unlike `$`), then the amount with the currency's decimals."""
    if amount is None or not currency:
        return "-"
    exponent = currency_exponent(currency)
    return f"{currency} {major_units(amount, currency):,.{exponent}f}"


def parse_money(text: str, currency: str) -> int:
    """Minor units of an amount typed in major units (`120.5` USD is 12050); refuses what is not exact."""
    cleaned = text.strip().removeprefix(currency).strip()
    if not _AMOUNT.match(cleaned):
        raise AmountError(f"Enter an amount such as {format_money(12050, currency).split(' ')[1]}.")
    try:
        value = Decimal(cleaned.replace(",", ""))
    except InvalidOperation as exc:  # pragma: no cover - the pattern admits only decimals
        raise AmountError("Enter a number.") from exc
    exponent = currency_exponent(currency)
    minor = value.scaleb(exponent)
    if minor != minor.to_integral_value():
        places = f"{exponent} decimal{'s' if exponent != 1 else ''}" if exponent else "no decimals"
        raise AmountError(f"{currency} amounts have {places}.")
    if minor <= 0:
        raise AmountError("Enter an amount greater than zero.")
    return int(minor)


# The symbols Intl.NumberFormat("en-US", {style: "currency"}) writes (Embed's format in the buyer's browser); any other
# currency is its code and a no-break space, as Intl writes it.
_BUYER_SYMBOLS = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "JPY": "¥",
    "CAD": "CA$",
    "AUD": "A$",
    "NZD": "NZ$",
    "HKD": "HK$",
    "MXN": "MX$",
    "TWD": "NT$",
    "BRL": "R$",
    "INR": "₹",
    "CNY": "CN¥",
    "KRW": "₩",
    "ILS": "₪",
    "VND": "₫",
    "PHP": "₱",
}


def format_money_for_buyers(amount: int, currency: str) -> str:
    """`$12.99`: a page the buyer sees beside Embed writes the amount as Embed does (en-US); staff read `USD 12.99`."""
    exponent = currency_exponent(currency)
    number = f"{major_units(amount, currency):,.{exponent}f}"
    symbol = _BUYER_SYMBOLS.get(currency.upper())
    return f"{symbol}{number}" if symbol else f"{currency.upper()}\xa0{number}"
