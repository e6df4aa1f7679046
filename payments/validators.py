"""Validators for the ISO codes and money shapes every resource shares."""

from functools import cache

import pycountry
from django.core.exceptions import ValidationError

MAX_AMOUNT = 99_999_999


@cache
def _countries() -> frozenset[str]:
    return frozenset(country.alpha_2 for country in pycountry.countries)


@cache
def _currencies() -> frozenset[str]:
    return frozenset(currency.alpha_3 for currency in pycountry.currencies)


def validate_country(value: str) -> None:
    """ISO 3166-1 alpha-2, upper case."""
    if value not in _countries():
        raise ValidationError(f"Unknown ISO 3166-1 alpha-2 country code: {value}", code="invalid_country")


def validate_currency(value: str) -> None:
    """ISO 4217 alphabetic code, upper case."""
    if value not in _currencies():
        raise ValidationError(f"Unknown ISO 4217 currency code: {value}", code="invalid_currency")
