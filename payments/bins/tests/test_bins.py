"""The BIN table: reading a published range file, replacing the table, and the one lookup (longest range wins)."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from payments.bins.facts import UNKNOWN, CardFacts, covering_prefixes
from payments.bins.models import BinRange
from payments.bins.selectors import bin_lookup
from payments.bins.services import bin_table_refresh
from payments.bins.sources import RangeFileError, read_ranges

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-ranges.csv"
HEADER = "iin_start,iin_end,number_length,scheme,brand,type,prepaid,country,bank_name\n"


def load(text: str) -> int:
    return bin_table_refresh(ranges=read_ranges(StringIO(HEADER + text)))


@pytest.mark.parametrize(
    ("start", "end", "prefixes"),
    [
        ("4", "4", ["4"]),
        ("400000", "499999", ["4"]),
        ("411111", "411111", ["411111"]),
        ("400000", "400009", ["40000"]),
        ("510000", "559999", ["51", "52", "53", "54", "55"]),
        ("222100", "222299", ["2221", "2222"]),
        (
            "222150",
            "222249",
            ["22215", "22216", "22217", "22218", "22219", "22220", "22221", "22222", "22223", "22224"],
        ),
    ],
)
def test_a_range_is_the_fewest_prefixes_covering_exactly_its_cards(start, end, prefixes):
    assert covering_prefixes(start, end) == prefixes


def test_mastercards_two_series_is_a_few_prefixes_and_covers_exactly_its_bins():
    prefixes = covering_prefixes("222100", "272099")
    covered = {number for number in range(200000, 300000) if any(str(number).startswith(p) for p in prefixes)}
    assert covered == set(range(222100, 272100))
    assert len(prefixes) < 40


def test_the_longest_range_wins_and_a_shorter_one_answers_the_rest():
    load("4,,,VISA,,,,,\n411111,,,VISA,,CREDIT,N,US,Example Bank\n41111112,,,VISA,,DEBIT,,GB,Narrow Bank\n")

    assert bin_lookup("41111112") == CardFacts(
        scheme="visa", card_type="debit", country="GB", issuer_name="Narrow Bank"
    )
    assert bin_lookup("41111113") == CardFacts(
        scheme="visa", card_type="credit", country="US", issuer_name="Example Bank"
    )
    assert bin_lookup("411111") == CardFacts(
        scheme="visa", card_type="credit", country="US", issuer_name="Example Bank"
    )
    assert bin_lookup("42424242") == CardFacts(scheme="visa")


def test_a_range_published_wider_than_it_is_specific_loses_to_a_more_specific_one():
    # 400000-499999 is stored as the prefix "4" but was published with 6 digits: it beats a 1-digit range.
    load("4,,,VISA,,CREDIT,,US,\n400000,499999,,VISA,,DEBIT,,FR,\n")

    assert bin_lookup("45000000").card_type == "debit"


def test_a_short_bin_is_answered_only_by_ranges_covering_all_its_cards():
    load("411111,,,VISA,,CREDIT,,US,Example Bank\n")

    assert bin_lookup("4111") == UNKNOWN
    assert bin_lookup("411111").country == "US"


def test_an_unknown_bin_is_unknown():
    load("411111,,,VISA,,CREDIT,,US,\n")

    assert bin_lookup("55555555") == UNKNOWN


def test_the_lookup_is_one_query(django_assert_num_queries):
    load("4,,,VISA,,,,,\n411111,,,VISA,,CREDIT,,US,\n")

    with django_assert_num_queries(1):
        bin_lookup("41111111")


def test_a_process_answers_a_bin_it_read_lately_without_a_query(django_assert_num_queries):
    load("411111,,,VISA,,CREDIT,,US,\n")
    first = bin_lookup("41111111")

    with django_assert_num_queries(0):
        again = bin_lookup("41111111")

    assert again == first
    assert again.card_type == "credit"


def test_a_refresh_makes_the_process_forget_what_it_read():
    load("411111,,,VISA,,CREDIT,,US,\n")
    assert bin_lookup("41111111").card_type == "credit"

    load("411111,,,VISA,,DEBIT,,US,\n")

    assert bin_lookup("41111111").card_type == "debit"


def test_what_a_process_read_is_read_again_after_bin_cache_seconds(settings, django_assert_num_queries):
    load("411111,,,VISA,,CREDIT,,US,\n")
    settings.BIN_CACHE_SECONDS = 0
    bin_lookup("41111111")

    with django_assert_num_queries(1):
        bin_lookup("41111111")


@pytest.mark.parametrize("bin", ["", "411111111", "4111a1", "٤١١١١١"], ids=["empty", "nine", "letter", "arabic"])
def test_the_lookup_takes_only_up_to_8_ascii_digits(bin):
    with pytest.raises(ValueError, match="1 to 8 digits"):
        bin_lookup(bin)


def test_published_words_become_upstreams():
    (visa, diners, charge, prepaid, odd) = read_ranges(
        StringIO(
            HEADER
            + "411111,,,visa,,debit,,us,  Example   Bank \n"
            + "360000,369999,,DINERS,,CREDIT,,,\n"
            + "370000,,,AMEX,,CHARGE,,,\n"
            + "400000,,,VISA,,DEBIT,Y,,\n"
            + "900000,,,NEWSCHEME,,,,,\n"
        )
    )
    assert visa.facts == CardFacts(scheme="visa", card_type="debit", country="US", issuer_name="Example Bank")
    assert (diners.start, diners.end, diners.facts.scheme) == ("360000", "369999", "diners-club")
    assert charge.facts.card_type == "credit"
    assert prepaid.facts.card_type == "prepaid"
    assert odd.facts.scheme == "other"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("iin_start,scheme\n4,VISA\n", "no column iin_end"),
        (HEADER, "no range"),
        (HEADER + "41x111,,,VISA,,,,,\n", "Line 2: iin_start"),
        (HEADER + "411111,41,,VISA,,,,,\n", "Line 2: iin_start"),
        (HEADER + "411112,411111,,VISA,,,,,\n", "Line 2: iin_start"),
        (HEADER + "411111111,,,VISA,,,,,\n", "Line 2: iin_start"),
        (HEADER + "4,,,VISA,,,,,\n411111,,,VISA,,,,USA,\n", "Line 3: country"),
    ],
    ids=["columns", "empty", "letter", "end-length", "end-before-start", "nine-digits", "country"],
)
def test_a_bad_file_is_refused_by_line(text, message):
    with pytest.raises(RangeFileError, match=message):
        read_ranges(StringIO(text))


def test_the_command_replaces_the_table_with_the_file(tmp_path):
    load("99,,,VISA,,,,,\n")
    out = StringIO()

    call_command("refresh_bin_table", str(SAMPLE), stdout=out)

    assert "ranges" in out.getvalue()
    assert not BinRange.objects.filter(prefix="99").exists()
    assert bin_lookup("41111111").issuer_name == "Example Bank of Testing"
    assert bin_lookup("40000566").card_type == "debit"
    assert bin_lookup("40000000").card_type == "prepaid"
    assert bin_lookup("22230000").scheme == "mastercard"


def test_a_bad_file_leaves_the_table_as_it_was(tmp_path):
    load("411111,,,VISA,,CREDIT,,US,\n")
    bad = tmp_path / "ranges.csv"
    bad.write_text(HEADER + "4,,,VISA,,,,,\nnot-a-bin,,,VISA,,,,,\n")

    with pytest.raises(CommandError, match="Line 3"):
        call_command("refresh_bin_table", str(bad))

    assert bin_lookup("411111").country == "US"


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("refresh_bin_table", str(tmp_path / "absent.csv"))
