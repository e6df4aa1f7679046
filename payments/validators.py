"""Validators for the ISO codes and money shapes every resource shares."""

from functools import cache

import pycountry
from django.core.exceptions import ValidationError

MAX_AMOUNT = 99_999_999


@cache
def all_countries() -> list[str]:
    """Every ISO 3166-1 alpha-2 code, sorted."""
    return sorted(country.alpha_2 for country in pycountry.countries)


@cache
def all_currencies() -> list[str]:
    """Every ISO 4217 code, sorted."""
    return sorted(currency.alpha_3 for currency in pycountry.currencies)


@cache
def _countries() -> frozenset[str]:
    return frozenset(all_countries())


@cache
def _currencies() -> frozenset[str]:
    return frozenset(all_currencies())


def validate_country(value: str) -> None:
    """ISO 3166-1 alpha-2, upper case."""
    if value not in _countries():
        raise ValidationError(f"Unknown ISO 3166-1 alpha-2 country code: {value}", code="invalid_country")


def validate_currency(value: str) -> None:
    """ISO 4217 alphabetic code, upper case."""
    if value not in _currencies():
        raise ValidationError(f"Unknown ISO 4217 currency code: {value}", code="invalid_currency")


# Codes ISO 4217 lists that are not money anyone is paid in: no card is charged, no gift card is loaded in them.
# The X-codes that are not a country's currency (XAF, XCD, XCG, XOF and XPF are, and stay payable), and the
# fund codes (ISO's "fund" flag): indexed units of account and same-day/next-day variants of a currency.
NOT_PAYABLE_CURRENCIES = {
    "XXX": "the code for transactions where no currency is involved",
    "XTS": "a code reserved for testing",
    "XAU": "gold, not a currency",
    "XAG": "silver, not a currency",
    "XPD": "palladium, not a currency",
    "XPT": "platinum, not a currency",
    "XDR": "the IMF's special drawing right, a unit of account",
    "XBA": "a bond markets unit of account",
    "XBB": "a bond markets unit of account",
    "XBC": "a bond markets unit of account",
    "XBD": "a bond markets unit of account",
    "XSU": "the SUCRE, a unit of account between central banks",
    "XUA": "the African Development Bank's unit of account",
    "XAD": "the Arab Monetary Fund's accounting dinar, a unit of account",
    "BOV": "a fund code (Bolivia's Mvdol)",
    "CHE": "a fund code (WIR euro)",
    "CHW": "a fund code (WIR franc)",
    "CLF": "a fund code (Chile's Unidad de Fomento)",
    "COU": "a fund code (Colombia's Unidad de Valor Real)",
    "MXV": "a fund code (Mexico's Unidad de Inversion)",
    "USN": "a fund code (US dollar, next day)",
    "UYI": "a fund code (Uruguay's indexed peso)",
    "UYW": "a fund code (Uruguay's Unidad Previsional)",
}


def validate_payment_currency(value: str) -> None:
    """An ISO 4217 code a payment can be made in: a currency, not a test code, metal, fund or unit of account."""
    validate_currency(value)
    reason = NOT_PAYABLE_CURRENCIES.get(value)
    if reason is not None:
        raise ValidationError(
            f"{value} cannot be used for a payment: ISO 4217 lists it as {reason}.", code="currency_not_payable"
        )
