from collections.abc import Callable
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.vault import cards
from payments.vault.cards import (
    CardDataError,
    card_display,
    card_scheme,
    luhn_valid,
    parse_expiration_date,
    security_code_length,
    validate_card_number,
    validate_security_code,
)

digit_strings = st.text(alphabet="0123456789", min_size=1, max_size=30)


def fullwidth(digits: str) -> str:
    """The same digits in the Unicode fullwidth forms, which str.isdigit() also accepts."""
    return "".join(chr(0xFF10 + int(d)) for d in digits)


def reference_luhn(number: str) -> bool:
    """Textbook Luhn: double every second digit from the right and sum the digits of each product."""
    total = 0
    for index, char in enumerate(reversed(number)):
        product = int(char) * (2 if index % 2 else 1)
        total += sum(int(d) for d in str(product))
    return total % 10 == 0


def raised_error(check: Callable[..., object], *args: object) -> CardDataError | None:
    try:
        check(*args)
    except CardDataError as error:
        return error
    return None


def with_check_digit(payload: str) -> str:
    return next(payload + d for d in "0123456789" if reference_luhn(payload + d))


KNOWN_CARDS = [
    pytest.param("4111111111111111", "visa", id="visa-16"),
    pytest.param("4012888888881881", "visa", id="visa-16-b"),
    pytest.param("4222222222222", "visa", id="visa-13"),
    pytest.param("4000056655665556", "visa", id="visa-debit"),
    pytest.param("5555555555554444", "mastercard", id="mastercard-55"),
    pytest.param("5105105105105100", "mastercard", id="mastercard-51"),
    pytest.param("2223003122003222", "mastercard", id="mastercard-2-series"),
    pytest.param("378282246310005", "amex", id="amex-37"),
    pytest.param("371449635398431", "amex", id="amex-37-b"),
    pytest.param("6011111111111117", "discover", id="discover-6011"),
    pytest.param("6011000990139424", "discover", id="discover-6011-b"),
    pytest.param("6445644564456445", "discover", id="discover-644"),
    pytest.param("6500000000000002", "discover", id="discover-65"),
    pytest.param("3530111333300000", "jcb", id="jcb-3530"),
    pytest.param("3566002020360505", "jcb", id="jcb-3566"),
    pytest.param("30569309025904", "diners-club", id="diners-305"),
    pytest.param("38520000023237", "diners-club", id="diners-38"),
    pytest.param("36227206271667", "diners-club", id="diners-36"),
    pytest.param("6200000000000005", "unionpay", id="unionpay"),
    pytest.param("6759649826438453", "maestro", id="maestro-6759"),
    pytest.param("5018000000000009", "maestro", id="maestro-50"),
    pytest.param("6304000000000000", "maestro", id="maestro-6304"),
]


class TestLuhn:
    @pytest.mark.parametrize(("number", "scheme"), KNOWN_CARDS)
    def test_known_test_cards_pass(self, number: str, scheme: str) -> None:
        assert luhn_valid(number)

    @pytest.mark.parametrize(
        ("number", "expected"),
        [
            pytest.param("79927398713", True, id="classic-example"),
            pytest.param("79927398710", False, id="classic-example-wrong-check-digit"),
            pytest.param("0", True, id="single-zero"),
            pytest.param("4111111111111112", False, id="visa-off-by-one"),
            pytest.param("", False, id="empty"),
            pytest.param("4111 1111 1111 1111", False, id="spaces"),
            pytest.param("4111-1111-1111-1111", False, id="dashes"),
            pytest.param("41111111111111a1", False, id="letter"),
            pytest.param(fullwidth("4111111111111111"), False, id="fullwidth-digits"),
            pytest.param("\u00b20", False, id="superscript-digit"),
            pytest.param("-4111111111111111", False, id="sign"),
            pytest.param("4111111111111111\n", False, id="trailing-newline"),
        ],
    )
    def test_table(self, number: str, expected: bool) -> None:
        assert luhn_valid(number) is expected

    def test_non_string_is_invalid(self) -> None:
        assert luhn_valid(4111111111111111) is False  # type: ignore[arg-type]

    @given(digit_strings)
    def test_agrees_with_reference(self, number: str) -> None:
        assert luhn_valid(number) is reference_luhn(number)

    @given(st.text(alphabet="0123456789", max_size=25))
    def test_exactly_one_check_digit_completes_any_payload(self, payload: str) -> None:
        assert sum(luhn_valid(payload + d) for d in "0123456789") == 1

    @given(st.text(alphabet="0123456789", min_size=1, max_size=18), st.data())
    def test_any_single_digit_change_is_detected(self, payload: str, data: st.DataObject) -> None:
        number = with_check_digit(payload)
        index = data.draw(st.integers(0, len(number) - 1), label="index")
        replacement = data.draw(st.sampled_from([d for d in "0123456789" if d != number[index]]), label="digit")
        assert not luhn_valid(number[:index] + replacement + number[index + 1 :])

    @given(st.text(alphabet="0123456789", min_size=1, max_size=18), st.data())
    def test_adjacent_transpositions_are_detected_except_09(self, payload: str, data: st.DataObject) -> None:
        number = with_check_digit(payload)
        index = data.draw(st.integers(0, len(number) - 2), label="index")
        pair = number[index : index + 2]
        swapped = number[:index] + pair[::-1] + number[index + 2 :]
        if pair[0] != pair[1] and pair not in ("09", "90"):
            assert not luhn_valid(swapped)
        else:
            assert luhn_valid(swapped)


class TestCardScheme:
    @pytest.mark.parametrize(("number", "scheme"), KNOWN_CARDS)
    def test_known_test_cards(self, number: str, scheme: str) -> None:
        assert card_scheme(number) == scheme

    @pytest.mark.parametrize(
        ("prefix", "scheme"),
        [
            pytest.param("4", "visa", id="visa"),
            pytest.param("2220", None, id="before-mastercard-2-series"),
            pytest.param("2221", "mastercard", id="mastercard-2-series-first"),
            pytest.param("2720", "mastercard", id="mastercard-2-series-last"),
            pytest.param("2721", None, id="after-mastercard-2-series"),
            pytest.param("50", "maestro", id="maestro-50"),
            pytest.param("51", "mastercard", id="mastercard-51"),
            pytest.param("55", "mastercard", id="mastercard-55"),
            pytest.param("56", "maestro", id="maestro-56"),
            pytest.param("58", "maestro", id="maestro-58"),
            pytest.param("59", None, id="after-maestro-58"),
            pytest.param("34", "amex", id="amex-34"),
            pytest.param("37", "amex", id="amex-37"),
            pytest.param("35", None, id="35-too-short-for-jcb"),
            pytest.param("3527", None, id="before-jcb"),
            pytest.param("3528", "jcb", id="jcb-first"),
            pytest.param("3589", "jcb", id="jcb-last"),
            pytest.param("3590", None, id="after-jcb"),
            pytest.param("300", "diners-club", id="diners-300"),
            pytest.param("305", "diners-club", id="diners-305"),
            pytest.param("306", None, id="after-diners-305"),
            pytest.param("36", "diners-club", id="diners-36"),
            pytest.param("38", "diners-club", id="diners-38"),
            pytest.param("6011", "discover", id="discover-6011"),
            pytest.param("6012", None, id="after-discover-6011"),
            pytest.param("643", None, id="before-discover-644"),
            pytest.param("644", "discover", id="discover-644"),
            pytest.param("649", "discover", id="discover-649"),
            pytest.param("65", "discover", id="discover-65"),
            pytest.param("62", "unionpay", id="unionpay"),
            pytest.param("6304", "maestro", id="maestro-6304"),
            pytest.param("6759", "maestro", id="maestro-6759"),
            pytest.param("6761", "maestro", id="maestro-6761"),
            pytest.param("6763", "maestro", id="maestro-6763"),
            pytest.param("6764", None, id="after-maestro-6763"),
            pytest.param("1", None, id="unknown-1"),
            pytest.param("9", None, id="unknown-9"),
        ],
    )
    def test_prefix_ranges(self, prefix: str, scheme: str | None) -> None:
        assert card_scheme(prefix + "0" * (16 - len(prefix))) == scheme

    @pytest.mark.parametrize(
        "number",
        [
            pytest.param("", id="empty"),
            pytest.param("4111 1111 1111 1111", id="spaces"),
            pytest.param("x4111111111111111", id="leading-letter"),
            pytest.param(fullwidth("4111"), id="fullwidth-digits"),
        ],
    )
    def test_non_digit_input_has_no_scheme(self, number: str) -> None:
        assert card_scheme(number) is None

    def test_prefix_shorter_than_range_does_not_match(self) -> None:
        assert card_scheme("3") is None
        assert card_scheme("222") is None


class TestSecurityCode:
    @pytest.mark.parametrize(
        ("scheme", "length"),
        [
            pytest.param("amex", 4, id="amex"),
            pytest.param("visa", 3, id="visa"),
            pytest.param("mastercard", 3, id="mastercard"),
            pytest.param("discover", 3, id="discover"),
            pytest.param(None, 3, id="unknown"),
        ],
    )
    def test_length(self, scheme: str | None, length: int) -> None:
        assert security_code_length(scheme) == length

    @pytest.mark.parametrize(
        ("code", "scheme"),
        [
            pytest.param("123", "visa", id="visa"),
            pytest.param("000", "mastercard", id="mastercard-zeros"),
            pytest.param("1234", "amex", id="amex"),
            pytest.param("987", None, id="unknown-scheme"),
        ],
    )
    def test_accepts(self, code: str, scheme: str | None) -> None:
        validate_security_code(code, scheme)

    @pytest.mark.parametrize(
        ("code", "scheme", "error_code"),
        [
            pytest.param("1234", "visa", "invalid_length", id="four-digits-for-visa"),
            pytest.param("123", "amex", "invalid_length", id="three-digits-for-amex"),
            pytest.param("12", "visa", "invalid_length", id="too-short"),
            pytest.param("12345", "amex", "invalid_length", id="too-long"),
            pytest.param("", "visa", "invalid_characters", id="empty"),
            pytest.param("12a", "visa", "invalid_characters", id="letter"),
            pytest.param(" 123", "visa", "invalid_characters", id="leading-space"),
            pytest.param(fullwidth("123"), "visa", "invalid_characters", id="fullwidth-digits"),
        ],
    )
    def test_rejects(self, code: str, scheme: str | None, error_code: str) -> None:
        with pytest.raises(CardDataError) as excinfo:
            validate_security_code(code, scheme)
        assert excinfo.value.code == error_code

    @given(st.text(alphabet="0123456789", min_size=1, max_size=8), st.sampled_from(["visa", "amex", None]))
    def test_error_never_repeats_the_code(self, code: str, scheme: str | None) -> None:
        error = raised_error(validate_security_code, code, scheme)
        # Single digits can occur in the length hint, so only longer codes are meaningful here.
        if error is not None and len(code) >= 2:
            assert code not in str(error)


class TestValidateCardNumber:
    @pytest.mark.parametrize(("number", "scheme"), KNOWN_CARDS)
    def test_accepts_known_test_cards(self, number: str, scheme: str) -> None:
        validate_card_number(number)

    @pytest.mark.parametrize(
        ("number", "error_code"),
        [
            pytest.param("", "invalid_characters", id="empty"),
            pytest.param("4111 1111 1111 1111", "invalid_characters", id="spaces"),
            pytest.param("4111-1111-1111-1111", "invalid_characters", id="dashes"),
            pytest.param(fullwidth("4111111111111111"), "invalid_characters", id="fullwidth-digits"),
            pytest.param("411111111111111a", "invalid_characters", id="letter"),
            pytest.param("4111111111111111\n", "invalid_characters", id="trailing-newline"),
            pytest.param(with_check_digit("41111111111"), "invalid_length", id="twelve-digits"),
            pytest.param(with_check_digit("4" * 19), "invalid_length", id="twenty-digits"),
            pytest.param("4111111111111112", "invalid_checksum", id="bad-check-digit"),
            pytest.param("1234567890123", "invalid_checksum", id="thirteen-digits-bad-checksum"),
        ],
    )
    def test_rejects(self, number: str, error_code: str) -> None:
        with pytest.raises(CardDataError) as excinfo:
            validate_card_number(number)
        assert excinfo.value.code == error_code

    def test_boundary_lengths_accepted(self) -> None:
        validate_card_number(with_check_digit("4" * 12))
        validate_card_number(with_check_digit("4" * 18))

    def test_error_is_a_value_error(self) -> None:
        with pytest.raises(ValueError, match="invalid"):
            validate_card_number("4111111111111112")

    @given(st.text(alphabet="0123456789 -x", min_size=8, max_size=25))
    def test_error_never_repeats_the_input(self, number: str) -> None:
        error = raised_error(validate_card_number, number)
        if error is not None:
            assert number not in str(error)
            assert number not in repr(error)


TODAY = date(2025, 6, 15)


class TestParseExpirationDate:
    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            pytest.param("06/25", (6, 2025), id="current-month-still-valid"),
            pytest.param("07/25", (7, 2025), id="next-month"),
            pytest.param("12/25", (12, 2025), id="december"),
            pytest.param("01/26", (1, 2026), id="next-year"),
            pytest.param("01/99", (1, 2099), id="far-future"),
        ],
    )
    def test_accepts(self, value: str, expected: tuple[int, int]) -> None:
        assert parse_expiration_date(value, today=TODAY) == expected

    @pytest.mark.parametrize(
        ("value", "error_code"),
        [
            pytest.param("05/25", "expired", id="last-month"),
            pytest.param("12/24", "expired", id="last-year"),
            pytest.param("01/00", "expired", id="year-2000"),
            pytest.param("00/26", "invalid_month", id="month-zero"),
            pytest.param("13/26", "invalid_month", id="month-thirteen"),
            pytest.param("99/26", "invalid_month", id="month-ninety-nine"),
            pytest.param("6/25", "invalid_format", id="single-digit-month"),
            pytest.param("06/2025", "invalid_format", id="four-digit-year"),
            pytest.param("0625", "invalid_format", id="no-slash"),
            pytest.param("06-25", "invalid_format", id="dash"),
            pytest.param(" 06/25", "invalid_format", id="leading-space"),
            pytest.param("06/25 ", "invalid_format", id="trailing-space"),
            pytest.param("06/25\n", "invalid_format", id="trailing-newline"),
            pytest.param("0a/25", "invalid_format", id="letter"),
            pytest.param("\u0660\u0666/\u0662\u0665", "invalid_format", id="arabic-indic-digits"),
            pytest.param("", "invalid_format", id="empty"),
        ],
    )
    def test_rejects(self, value: str, error_code: str) -> None:
        with pytest.raises(CardDataError) as excinfo:
            parse_expiration_date(value, today=TODAY)
        assert excinfo.value.code == error_code

    @pytest.mark.parametrize(
        ("today", "valid"),
        [
            pytest.param(date(2025, 6, 1), True, id="first-day-of-month"),
            pytest.param(date(2025, 6, 30), True, id="last-day-of-month"),
            pytest.param(date(2025, 7, 1), False, id="day-after-month-ends"),
        ],
    )
    def test_valid_through_end_of_expiry_month(self, today: date, valid: bool) -> None:
        if valid:
            assert parse_expiration_date("06/25", today=today) == (6, 2025)
        else:
            with pytest.raises(CardDataError, match="expired"):
                parse_expiration_date("06/25", today=today)

    def test_non_string_is_malformed(self) -> None:
        with pytest.raises(CardDataError, match="MM/YY"):
            parse_expiration_date(625, today=TODAY)  # type: ignore[arg-type]

    @given(st.integers(1, 12), st.integers(0, 99), st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)))
    def test_expired_exactly_when_month_is_before_today(self, month: int, yy: int, today: date) -> None:
        value = f"{month:02d}/{yy:02d}"
        if (2000 + yy, month) >= (today.year, today.month):
            assert parse_expiration_date(value, today=today) == (month, 2000 + yy)
        else:
            with pytest.raises(CardDataError, match="expired"):
                parse_expiration_date(value, today=today)


class TestCardDisplay:
    @pytest.mark.parametrize(
        ("number", "expected"),
        [
            pytest.param("4111111111111111", {"bin": "411111", "last4": "1111", "scheme": "visa"}, id="visa-16"),
            pytest.param("378282246310005", {"bin": "378282", "last4": "0005", "scheme": "amex"}, id="amex-15"),
            pytest.param("4222222222222", {"bin": "422222", "last4": "2222", "scheme": "visa"}, id="visa-13"),
            pytest.param(
                "6200000000000000005", {"bin": "620000", "last4": "0005", "scheme": "unionpay"}, id="unionpay-19"
            ),
            pytest.param("9111111111111111", {"bin": "911111", "last4": "1111", "scheme": None}, id="unknown-scheme"),
        ],
    )
    def test_parts(self, number: str, expected: dict[str, str | None]) -> None:
        assert card_display(number) == expected

    @pytest.mark.parametrize(
        "number",
        [
            pytest.param("411111111111", id="too-short-would-reveal-most-digits"),
            pytest.param("4" * 20, id="too-long"),
            pytest.param("4111 1111 1111 1111", id="spaces"),
            pytest.param("", id="empty"),
        ],
    )
    def test_rejects_malformed_numbers(self, number: str) -> None:
        with pytest.raises(CardDataError):
            card_display(number)

    @given(st.text(alphabet="0123456789", min_size=13, max_size=19))
    def test_never_reveals_more_than_ten_digits(self, number: str) -> None:
        shown = card_display(number)
        assert len(shown["bin"]) == 6
        assert len(shown["last4"]) == 4
        assert number.startswith(shown["bin"])
        assert number.endswith(shown["last4"])


def test_every_scheme_the_ranges_tell_apart_has_a_name_and_no_name_is_of_no_range() -> None:
    """The card scheme definitions are the named schemes: one told apart without a name would be missing from them."""
    assert {scheme for *_, scheme in cards._SCHEME_RANGES} == set(cards.SCHEME_NAMES)
