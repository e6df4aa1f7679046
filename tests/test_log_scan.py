"""The session's log scan (tests/logscan.py) is real: it learns the credentials the tests make and finds them in
what the project's logging writes. Each test here plants a leak on purpose, checks the scan finds it, then drops
its own lines so the end-of-session check judges only the rest of the suite."""

import logging

import pytest
from django.db import IntegrityError, transaction

from checkout.services import checkout_session_create
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.accounts.keys import mint_token
from tests.logscan import LogScan, find_database_rows, find_leaks
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

logger = logging.getLogger("payments.planted")


@pytest.fixture
def planted(request, log_scan):
    """The leaks this test finds through the session's scan; its own lines are forgotten afterwards."""

    def leaks_of(kind: str) -> list:
        return [leak for leak in log_scan.leaks(test=request.node.nodeid) if leak.kind == kind]

    yield leaks_of
    log_scan.forget_test_lines(request.node.nodeid)


def test_a_checkout_session_id_in_any_logger_is_found(planted, merchant_account):
    session = checkout_session_create(merchant_account=merchant_account)

    logger.warning("Session %s looked up", session.id)

    [leak] = planted("checkout session id")
    assert str(session.id) in leak.line


def test_a_token_in_a_json_field_is_found(planted, private_key_pem, api_key):
    token = mint_token(private_key_pem, scopes=["buyers.read"])

    # Only the JSON format writes `extra=` fields: both renderings are scanned.
    logger.info("request refused", extra={"authorization": f"Bearer {token}"})

    [leak] = planted("bearer token")
    assert token.rsplit(".", 1)[1] in leak.line


def test_a_gift_card_pin_is_found_as_a_whole_number_only(planted, log_scan, merchant_account):
    card = IssuedGiftCardFactory(merchant_account=merchant_account)

    logger.info("code 9%s9 is a longer number, not the PIN", card.pin)
    assert planted("gift card PIN") == []
    logger.info("PIN tried: %s", card.pin)

    [leak] = planted("gift card PIN")
    assert leak.line.endswith(f"PIN tried: {card.pin}") or card.pin in leak.line


def test_a_masked_card_number_is_not_a_leak_but_one_outside_the_message_masking_is(planted, log_scan):
    # The project's handler masks card numbers in the message: what is written holds no number.
    logger.warning("card %s declined", "4111111111111111")
    assert planted("test card number") == []

    # A line the scan reads from outside the process (a server's output) is not masked by anyone but the server.
    log_scan.add_lines(["card 4111111111111111 declined"], source="server")

    [leak] = planted("test card number")
    assert leak.credential == "4111111111111111"


def test_a_django_request_line_names_the_route_not_the_session_id(planted, anonymous_client, merchant_account):
    session = checkout_session_create(merchant_account=merchant_account)

    response = anonymous_client.put(f"/checkout/sessions/{session.id}/fields", "{", content_type="application/json")

    assert response.status_code == 400
    assert planted("checkout session id") == []


def test_the_end_of_session_check_fails_on_a_leak():
    lines = [("t::one", "nothing here"), ("t::two", "GET /checkout/sessions/abcdef0123456789/fields")]

    [leak] = find_leaks(lines, {"abcdef0123456789": "checkout session id"})

    assert (leak.test, leak.kind) == ("t::two", "checkout session id")
    # A scan of its own: the session's holds every line of the run so far, which would take a minute to read.
    scan = LogScan()
    scan.add_lines(["abcdef0123456789"], source="planted")
    scan.remember("checkout session id", "abcdef0123456789")
    with pytest.raises(pytest.fail.Exception, match=r"credential\(s\) or database row\(s\) written to the logs"):
        scan.report()


def test_a_database_row_in_a_line_is_found_in_both_formats():
    lines = [
        ("t::plain", "DETAIL:  Failing row contains (0f2c, 1299, USD, 411111, 1111, fingerprint)."),
        ("t::json", '{"exception":"...IntegrityError: violates check constraint \\"c\\"\\nDETAIL:  Failing row"}'),
        ("t::key", "psycopg.errors.UniqueViolation: duplicate key value\nKey (card_fingerprint)=(abc) already exists."),
        ("t::clean", 'IntegrityError: new row violates check constraint "c" [database detail withheld]'),
        ("t::words", "DETAIL: one space, no database"),
    ]

    assert [leak.test for leak in find_database_rows(lines)] == ["t::plain", "t::json", "t::key"]


@pytest.mark.postgres
def test_a_constraint_violation_logged_through_the_project_handler_is_not_a_leak(planted, log_scan, merchant_account):
    TransactionFactory(merchant_account=merchant_account, external_identifier="order-44120")
    try:
        with transaction.atomic():
            Transaction.objects.filter(external_identifier="order-44120").update(amount=-1)
    except IntegrityError:
        logger.exception("Could not record the payment")
    assert planted("database row") == []

    # A server's output the scan reads as written: nobody but the server withholds its rows.
    log_scan.add_lines(["DETAIL:  Failing row contains (order-44120, -1)."], source="server")

    [leak] = planted("database row")
    assert "order-44120" in leak.line
