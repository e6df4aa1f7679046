import pytest

from payments.staff.cards import card_facts_words, country_name


@pytest.mark.parametrize(
    ("facts", "words"),
    [
        (("visa", "debit", "FR", "Some Bank"), "Visa debit card issued in France by Some Bank"),
        (("amex", "credit", "US", None), "American Express credit card issued in United States by —"),
        (("visa", None, None, None), "Visa card (type —) issued in — by —"),
        ((None, "prepaid", "GB", "Other Bank"), "Prepaid card issued in United Kingdom by Other Bank"),
        (("other", None, None, None), "Card (type —) issued in — by —"),
    ],
)
def test_a_card_reads_as_words_with_a_dash_for_what_is_unknown(facts, words):
    assert card_facts_words(*facts) == words


def test_a_country_is_named_as_people_name_it():
    assert country_name("KR") == "South Korea"
    assert country_name("fr") == "France"
    assert country_name("ZZ") == "ZZ"  # not listed by ISO: the code, never an empty cell
    assert country_name(None) == "—"
