"""Shapes of the values a 3DS server is sent about the merchant (EMV 3DS AReq fields)."""

from __future__ import annotations

import re
from functools import cache

import pycountry
from django.core.exceptions import ValidationError

_DIGITS = re.compile(r"[0-9]+")


@cache
def _numeric_countries() -> frozenset[str]:
    return frozenset(country.numeric for country in pycountry.countries)


def validate_numeric_country(value: str) -> None:
    """ISO 3166-1 numeric: three digits naming a country (the AReq's `merchantCountryCode`), such as 826."""
    if value not in _numeric_countries():
        raise ValidationError("Must be an ISO 3166-1 numeric country code of three digits, such as 826.")


def validate_acquirer_bin(value: str) -> None:
    """An acquirer BIN is digits only (the AReq's `acquirerBIN`, at most 11)."""
    if not _DIGITS.fullmatch(value):
        raise ValidationError("Must be digits only.")


def validate_category_code(value: str) -> None:
    """A merchant category code (ISO 18245) is four digits."""
    if not (len(value) == 4 and _DIGITS.fullmatch(value)):
        raise ValidationError("Must be four digits (ISO 18245).")
