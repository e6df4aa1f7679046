import io
import logging
import re
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payments.ops.logging import CardDataMaskingFilter
from payments.vault.cards import luhn_valid
from payments.vault.masking import mask_card_numbers

PAN = "4111111111111111"
MASKED_PAN = "411111******1111"


def with_check_digit(payload: str) -> str:
    return next(payload + d for d in "0123456789" if luhn_valid(payload + d))


# A UUID with a letter in it: an identifier, whose digit groups are never taken for a card.
UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def luhn_valid_windows(text: str) -> list[str]:
    """Every 13-19 digit run outside a UUID, written whole or as groups split by single spaces or dashes, that passes
    Luhn."""
    text = UUID.sub(lambda match: match.group() if match.group().replace("-", "").isdigit() else "|", text)
    found = []
    for chain in re.findall(r"[0-9]+(?:[ -][0-9]+)*", text):
        groups = re.split(r"[ -]", chain)
        for first in range(len(groups)):
            for last in range(first, len(groups)):
                digits = "".join(groups[first : last + 1])
                if 13 <= len(digits) <= 19 and luhn_valid(digits):
                    found.append(digits)
    return found


def make_record(msg: object, args: object = (), exc_info: object = None) -> logging.LogRecord:
    return logging.LogRecord("payments.test", logging.INFO, __file__, 1, msg, args, exc_info)  # type: ignore[arg-type]


card_numbers = st.builds(with_check_digit, st.text(alphabet="0123456789", min_size=12, max_size=18))
noisy_text = st.text(alphabet="0123456789 -x*:\n", max_size=120)
# Surroundings that cannot join a card number's digits into a longer run.
surroundings = st.text(alphabet="abc xyz:=\n", max_size=10).map(lambda s: f"{s}|")


class TestMaskCardNumbers:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            pytest.param(PAN, MASKED_PAN, id="visa-bare"),
            pytest.param(f"card={PAN};", f"card={MASKED_PAN};", id="visa-in-text"),
            pytest.param("4111 1111 1111 1111", "4111 11** **** 1111", id="visa-spaced"),
            pytest.param("4111-1111-1111-1111", "4111-11**-****-1111", id="visa-dashed"),
            pytest.param("4111-1111 1111-1111", "4111-11** ****-1111", id="visa-mixed-separators"),
            pytest.param("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "4 1 1 1 1 1 * * * * * * 1 1 1 1", id="one-by-one"),
            pytest.param("3782 822463 10005", "3782 82**** *0005", id="amex-spaced"),
            pytest.param("378282246310005", "378282*****0005", id="amex-bare"),
            pytest.param("4222222222222", "422222***2222", id="thirteen-digits"),
            pytest.param("6200000000000000000", "620000*********0000", id="nineteen-digits"),
            pytest.param(f"{PAN} and 5555555555554444", f"{MASKED_PAN} and 555555******4444", id="two-cards"),
            pytest.param(f"ref 1234 {PAN}", f"ref 1234 {MASKED_PAN}", id="number-before-card"),
            pytest.param("ref 1234 4111 1111 1111 1111", "ref 1234 4111 11** **** 1111", id="group-before-card"),
            pytest.param(f"{PAN} 99", f"{MASKED_PAN} 99", id="number-after-card"),
            pytest.param(
                f"{PAN} ecf5dc59-3916-4449-8412-4bf4e5516f93",
                f"{MASKED_PAN} ecf5dc59-3916-4449-8412-4bf4e5516f93",
                id="card-beside-a-uuid",
            ),
            pytest.param(
                "41111111-1111-1111-1111-111111111111", "411111**-****-1111-1111-111111111111", id="uuid-of-digits"
            ),
        ],
    )
    def test_masks(self, text: str, expected: str) -> None:
        assert mask_card_numbers(text) == expected

    @pytest.mark.parametrize(
        "text",
        [
            pytest.param("4111111111111112", id="fails-luhn"),
            pytest.param("411111111111", id="twelve-digits"),
            pytest.param("41111111111111111111", id="twenty-digits"),
            pytest.param("4111  1111  1111  1111", id="double-spaces"),
            pytest.param("4111_1111_1111_1111", id="underscores"),
            pytest.param("4111.1111.1111.1111", id="dots"),
            pytest.param("2025-06-15 12:30:45", id="timestamp"),
            pytest.param("amount=1000 currency=USD", id="amount"),
            pytest.param("", id="empty"),
            pytest.param("no digits here", id="no-digits"),
            # 3916 4449 8412 4 passes Luhn: an identifier's digit groups, not a card's.
            pytest.param("ecf5dc59-3916-4449-8412-4bf4e5516f93", id="uuid"),
            pytest.param("ECF5DC59-3916-4449-8412-4BF4E5516F93", id="uuid-upper-case"),
        ],
    )
    def test_leaves_alone(self, text: str) -> None:
        assert mask_card_numbers(text) == text

    def test_masked_output_is_stable(self) -> None:
        assert mask_card_numbers(MASKED_PAN) == MASKED_PAN

    def test_digits_left_visible_cannot_combine_into_a_card(self) -> None:
        # After the card is masked its first six digits join "1234567" into a 13-digit run; that run must be
        # checked as well, whatever its checksum happens to be.
        for prefix in range(10_000_000):
            text = f"{prefix:07d} {PAN}"
            if luhn_valid(f"{prefix:07d}411111"):
                break
        masked = mask_card_numbers(text)
        assert luhn_valid_windows(masked) == []
        assert masked.endswith("1111")

    @given(noisy_text)
    def test_no_luhn_valid_number_survives(self, text: str) -> None:
        assert luhn_valid_windows(mask_card_numbers(text)) == []

    @given(st.lists(st.one_of(noisy_text, card_numbers), max_size=6).map("".join))
    def test_no_luhn_valid_number_survives_with_cards_mixed_in(self, text: str) -> None:
        assert luhn_valid_windows(mask_card_numbers(text)) == []

    @given(noisy_text)
    def test_only_digits_change_and_length_is_kept(self, text: str) -> None:
        masked = mask_card_numbers(text)
        assert len(masked) == len(text)
        for before, after in zip(text, masked, strict=True):
            assert after == before or (before.isdigit() and after == "*")

    @given(noisy_text)
    def test_idempotent(self, text: str) -> None:
        once = mask_card_numbers(text)
        assert mask_card_numbers(once) == once

    @given(surroundings, card_numbers, surroundings)
    def test_keeps_first_six_and_last_four(self, before: str, number: str, after: str) -> None:
        masked = mask_card_numbers(before + number + after)
        assert masked == before + number[:6] + "*" * (len(number) - 10) + number[-4:] + after


class TestCardDataMaskingFilter:
    def test_masks_message(self) -> None:
        record = make_record(f"charging {PAN}")
        assert CardDataMaskingFilter().filter(record) is True
        assert record.getMessage() == f"charging {MASKED_PAN}"

    @pytest.mark.parametrize(
        ("msg", "args", "expected"),
        [
            pytest.param("card %s", (PAN,), f"card {MASKED_PAN}", id="positional"),
            pytest.param("card %(pan)s", ({"pan": PAN},), f"card {MASKED_PAN}", id="mapping"),
            pytest.param("card %d", (int(PAN),), f"card {MASKED_PAN}", id="integer"),
            pytest.param("payload %s", ({"number": PAN},), f"payload {{'number': '{MASKED_PAN}'}}", id="nested"),
            pytest.param("%s-%s", ("1234567890", "123456"), "1234567890-123456", id="not-a-card"),
            pytest.param("%s-%s", ("4111111111", "111111"), "411111****-**1111", id="dashed-across-args"),
            pytest.param("%s%s", ("41111111", "11111111"), MASKED_PAN, id="split-across-args"),
            pytest.param("100%% of %s", ("x",), "100% of x", id="escaped-percent"),
        ],
    )
    def test_masks_arguments_after_formatting(self, msg: str, args: object, expected: str) -> None:
        record = make_record(msg, args)
        CardDataMaskingFilter().filter(record)
        assert record.msg == expected
        assert record.args == ()
        assert record.getMessage() == expected

    def test_non_string_message(self) -> None:
        record = make_record(ValueError(f"declined {PAN}"))
        CardDataMaskingFilter().filter(record)
        assert record.getMessage() == f"declined {MASKED_PAN}"

    def test_arguments_that_do_not_fit_are_still_masked(self) -> None:
        record = make_record("card %d", (PAN,))
        assert CardDataMaskingFilter().filter(record) is True
        assert PAN not in record.getMessage()
        assert MASKED_PAN in record.getMessage()

    def test_masks_exception_text(self) -> None:
        try:
            raise ValueError(f"bad card {PAN}")
        except ValueError:
            record = make_record("failed", exc_info=sys.exc_info())
        CardDataMaskingFilter().filter(record)
        assert record.exc_text is not None
        assert PAN not in record.exc_text
        assert f"ValueError: bad card {MASKED_PAN}" in record.exc_text

    def test_masks_existing_exception_text(self) -> None:
        record = make_record("failed")
        record.exc_text = f"Traceback...\nValueError: {PAN}"
        CardDataMaskingFilter().filter(record)
        assert record.exc_text == f"Traceback...\nValueError: {MASKED_PAN}"

    def test_masks_stack_info(self) -> None:
        record = make_record("failed")
        record.stack_info = f"Stack (most recent call last):\n  charge('{PAN}')"
        CardDataMaskingFilter().filter(record)
        assert PAN not in record.stack_info

    def test_record_without_card_data_is_unchanged(self) -> None:
        record = make_record("order %s paid %d", ("ord_1", 1000))
        CardDataMaskingFilter().filter(record)
        assert record.getMessage() == "order ord_1 paid 1000"
        assert record.exc_text is None

    @given(st.text(max_size=80), st.lists(st.one_of(card_numbers, st.text(max_size=20), st.integers()), max_size=3))
    def test_always_passes_records_through(self, msg: str, args: list[object]) -> None:
        record = make_record(msg, tuple(args))
        assert CardDataMaskingFilter().filter(record) is True
        assert luhn_valid_windows(record.getMessage()) == []


class TestThroughAHandler:
    @pytest.fixture
    def logger_and_stream(self) -> Iterator[tuple[logging.Logger, io.StringIO]]:
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
        handler.addFilter(CardDataMaskingFilter())
        logger = logging.getLogger("payments.tests.card_masking")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        yield logger, stream
        logger.removeHandler(handler)

    def test_message_and_traceback_are_masked(self, logger_and_stream: tuple[logging.Logger, io.StringIO]) -> None:
        logger, stream = logger_and_stream
        logger.info("tokenizing %s", PAN)
        try:
            raise RuntimeError(f"gateway rejected 4111-1111-1111-1111 with cvv {PAN[:3]}")
        except RuntimeError:
            logger.exception("charge failed for %s", PAN)
        output = stream.getvalue()
        assert PAN not in output
        assert "4111-1111-1111-1111" not in output
        assert f"INFO tokenizing {MASKED_PAN}" in output
        assert f"ERROR charge failed for {MASKED_PAN}" in output
        assert "RuntimeError: gateway rejected 4111-11**-****-1111" in output
        assert luhn_valid_windows(output) == []
