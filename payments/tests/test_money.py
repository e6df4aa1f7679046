"""Amounts in major units with each currency's exponent, both ways."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.money import AmountError, currency_exponent, format_money, format_money_for_buyers, parse_money


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        (12000, "USD", "USD 120.00"),
        (123456789, "EUR", "EUR 1,234,567.89"),
        (1200, "JPY", "JPY 1,200"),
        (1234, "KWD", "KWD 1.234"),
        (5, "GBP", "GBP 0.05"),
        (0, "USD", "USD 0.00"),
        (None, "USD", "-"),
    ],
    ids=["usd", "thousands", "jpy-no-decimals", "kwd-three", "pence", "zero", "none"],
)
def test_format_money(amount, currency, shown):
    assert format_money(amount, currency) == shown


@pytest.mark.parametrize(
    ("text", "currency", "minor"),
    [
        ("120", "USD", 12000),
        ("120.5", "USD", 12050),
        ("1,234.56", "USD", 123456),
        (" USD 10.00 ", "USD", 1000),
        ("1200", "JPY", 1200),
        ("1.234", "KWD", 1234),
        ("0.01", "EUR", 1),
    ],
)
def test_parse_money(text, currency, minor):
    assert parse_money(text, currency) == minor


@pytest.mark.parametrize(
    ("text", "currency", "message"),
    [
        ("1.234", "USD", "USD amounts have 2 decimals."),
        ("12.5", "JPY", "JPY amounts have no decimals."),
        ("0", "USD", "greater than zero"),
        ("-3", "USD", "Enter an amount such as 120.50"),
        ("1e3", "USD", "Enter an amount"),
        ("12,34", "USD", "Enter an amount"),
        ("", "USD", "Enter an amount"),
        ("NaN", "USD", "Enter an amount"),
    ],
    ids=["too-many-decimals", "jpy-decimals", "zero", "negative", "exponent", "bad-grouping", "empty", "nan"],
)
def test_parse_money_refuses(text, currency, message):
    with pytest.raises(AmountError, match=message):
        parse_money(text, currency)


@given(amount=st.integers(min_value=1, max_value=99_999_999), currency=st.sampled_from(["USD", "JPY", "KWD", "CLF"]))
def test_what_is_shown_parses_back_to_the_same_minor_units(amount, currency):
    assert parse_money(format_money(amount, currency), currency) == amount


def test_exponents():
    assert [currency_exponent(code) for code in ("USD", "JPY", "KWD", "usd")] == [2, 0, 3, 2]


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        (1299, "USD", "$12.99"),
        (123456, "EUR", "€1,234.56"),
        (500, "GBP", "£5.00"),
        (1200, "JPY", "¥1,200"),
        (1299, "CAD", "CA$12.99"),
        (1234, "KWD", "KWD\xa01.234"),
        (1299, "CHF", "CHF\xa012.99"),
    ],
    ids=["usd", "eur", "gbp", "jpy", "cad", "kwd", "chf"],
)
def test_format_money_for_buyers_as_embed_writes_it(amount, currency, shown):
    # What Intl.NumberFormat("en-US", {style: "currency"}) writes in Embed, so a page beside it reads the same.
    assert format_money_for_buyers(amount, currency) == shown
