"""No log line and no error answer carries a database row: PostgreSQL's DETAIL (`Failing row contains (...)`, with a
transaction's card fingerprint, BIN, last 4 and ids) is withheld from every logged error, whichever way it is
logged (a request's unhandled error, Django's request logger, a worker's task), in both log formats; the message,
which names the constraint, stays."""

import json
import logging

import pytest
from django.conf import settings
from django.core.handlers.exception import response_for_exception
from django.db import IntegrityError, transaction
from django.test import RequestFactory
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from payments.database_detail import WITHHELD, withhold_database_detail
from payments.jobs.tasks import run_scheduled_job
from payments.ops.logging import DatabaseDetailFilter
from payments.rest.envelope import envelope
from tests.plumbing.failing_urls import DATABASE_BOOM_REFERENCE
from transactions.models import Transaction
from transactions.tests.factories import TransactionFactory

CONSTRAINT = "transaction_amounts_not_negative"
FINGERPRINT = "5eb1f1e1d2c3b4a59687766554433221100ffeeddccbbaa99887766554433221"
BIN = "476173"
ROW = "Failing row contains"


@pytest.fixture
def paid(merchant_account):
    """A captured card payment whose row holds card data that must never reach a log."""
    return TransactionFactory(
        merchant_account=merchant_account,
        captured=True,
        card_fingerprint=FINGERPRINT,
        card_bin=BIN,
        external_identifier=DATABASE_BOOM_REFERENCE,
    )


def break_constraint() -> None:
    """A service's bug: a write its table's check constraint refuses (the job run by the worker test too)."""
    with transaction.atomic():
        Transaction.objects.filter(external_identifier=DATABASE_BOOM_REFERENCE).update(captured_amount=-700)


def database_error() -> IntegrityError:
    try:
        break_constraint()
    except IntegrityError as error:
        return error
    raise AssertionError("the write was not refused")


def assert_no_row(written: str, paid: Transaction) -> None:
    for value in (FINGERPRINT, BIN, str(paid.id), DATABASE_BOOM_REFERENCE, ROW):
        assert value not in written, value


def assert_logged_without_row(written: str, paid: Transaction, *expected: str) -> None:
    """The lines name the constraint (and each of `expected`), never the row."""
    for text in (CONSTRAINT, *expected):
        assert text in written, text
    assert_no_row(written, paid)


# --- through the project's handlers, on PostgreSQL (whose errors quote the row) ---


@pytest.mark.postgres
def test_the_error_itself_quotes_the_row(paid):
    # What the rest of this file takes out: without it every traceback below would hold the row.
    text = str(database_error())

    assert ROW in text
    assert FINGERPRINT in text
    assert CONSTRAINT in text


@pytest.mark.postgres
@pytest.mark.urls("tests.plumbing.failing_urls")
@pytest.mark.parametrize("configured", ["plain", "json"], indirect=True)
def test_a_request_that_breaks_a_constraint_logs_and_answers_no_row(configured, client, paid):
    response = client.post("/test-only/api-database-boom")

    assert response.status_code == 500
    assert response.json()["message"] == "Request could not be processed"
    assert_no_row(response.content.decode(), paid)
    written = configured.getvalue()
    assert "Unhandled error on POST /test-only/api-database-boom" in written
    assert f'violates check constraint \\"{CONSTRAINT}\\"' in written or f'check constraint "{CONSTRAINT}"' in written
    assert WITHHELD in written
    assert_no_row(written, paid)


@pytest.mark.postgres
def test_djangos_request_logger_writes_no_row(configured, paid):
    error = database_error()
    try:
        raise error
    except IntegrityError:
        # Django's own handling of an exception no middleware answered: it logs to `django.request` with the
        # traceback.
        response = response_for_exception(RequestFactory().post("/transactions"), error)

    assert response.status_code == 500
    assert_logged_without_row(configured.getvalue(), paid, "ERROR django.request", "Traceback")


@pytest.mark.postgres
@pytest.mark.parametrize("configured", ["plain", "json"], indirect=True)
def test_a_worker_task_that_breaks_a_constraint_logs_no_row(configured, paid, settings):
    settings.SCHEDULED_JOBS = {
        "breaks-a-constraint": {"call": f"{__name__}.break_constraint", "every_seconds": 60},
    }
    queued = run_scheduled_job.enqueue("breaks-a-constraint")
    worker = Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=1,
        worker_id="test-worker",
        excluded_queue_names=[],
    )

    worker.run_task(DBTaskResult.objects.get(pk=queued.id))

    stored = DBTaskResult.objects.get(pk=queued.id)
    assert stored.status == "FAILED"
    # The traceback the engine keeps for the admin is withheld the same way.
    assert_logged_without_row(stored.traceback, paid, WITHHELD)
    assert_logged_without_row(configured.getvalue(), paid, "run_scheduled_job", "FAILED")


@pytest.mark.postgres
def test_an_error_passed_as_an_argument_is_withheld_too(configured, paid):
    error = database_error()

    logging.getLogger("payments.connectors").error("Could not record %s", error)
    logging.getLogger("payments.connectors").error(error)
    logging.getLogger("payments.connectors").warning("Could not record: %s", str(error))
    logging.getLogger("payments.connectors").warning("Could not record: %r", error)
    logging.getLogger("payments.connectors").warning("Could not record: %s %s", error)  # a format that does not fit

    written = configured.getvalue()
    assert written.count(CONSTRAINT) == 5
    assert_no_row(written, paid)


@pytest.mark.postgres
def test_an_error_answer_quoting_a_database_error_keeps_its_message_only(paid):
    answer = envelope(400, f"Refused: {database_error()}", [{"location": "body", "pointer": "/", "message": "x"}])

    assert CONSTRAINT in answer["message"]
    assert_no_row(json.dumps(answer), paid)


@pytest.mark.skipif("sqlite" not in settings.DATABASES["default"]["ENGINE"], reason="SQLite's own messages")
def test_sqlites_messages_name_the_constraint_and_quote_no_row(configured, paid):
    error = database_error()
    try:
        raise error
    except IntegrityError:
        logging.getLogger("payments.request").exception("Unhandled error")

    assert str(error) == f"CHECK constraint failed: {CONSTRAINT}"
    assert_no_row(configured.getvalue(), paid)


# --- the rules, without a database ---


class Diag:
    def __init__(self, primary: str) -> None:
        self.message_primary = primary


class PsycopgLikeError(Exception):
    """psycopg's errors carry `diag`, the fields apart; their text joins them, in the server's language."""

    def __init__(self, text: str, primary: str) -> None:
        super().__init__(text)
        self.diag = Diag(primary)


def test_a_known_error_is_cut_to_its_message_whatever_the_servers_language():
    message = "el nuevo registro viola la restricción «x»"
    error = PsycopgLikeError(f"{message}\nDETALLE:  La fila que falla contiene (7, secreto).", message)
    text = f"Traceback (most recent call last):\n  File x\nerrors.CheckViolation: {error}\n"

    assert withhold_database_detail(text, [error]) == (
        f"Traceback (most recent call last):\n  File x\nerrors.CheckViolation: {message} {WITHHELD}\n"
    )
    assert "secreto" in withhold_database_detail(text)  # its field name is not English: only the error knows


def test_a_chained_error_is_found_through_its_cause():
    cause = PsycopgLikeError('violates "c"\nDETAIL:  Key (x)=(secret) already exists.', 'violates "c"')
    try:
        try:
            raise cause
        except PsycopgLikeError as error:
            raise RuntimeError("wrapped") from error
    except RuntimeError as wrapper:
        outer = wrapper

    assert "secret" not in withhold_database_detail(f"... {cause}", [outer])


def test_english_fields_are_withheld_without_the_error_up_to_the_next_chained_traceback():
    text = (
        'django.db.utils.IntegrityError: new row violates check constraint "c"\n'
        "DETAIL:  Failing row contains (1, a\n\nb, secret).\n"
        "CONTEXT:  parameter $1 = '...'\n"
        "\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):"
    )

    kept = withhold_database_detail(text)

    for quoted in ("secret", "b,", "parameter"):
        assert quoted not in kept
    assert kept.startswith('django.db.utils.IntegrityError: new row violates check constraint "c"\n' + WITHHELD)
    assert kept.endswith(
        f"{WITHHELD}\n\nThe above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):"
    )


def test_text_without_database_detail_is_unchanged():
    text = "Scheduled job purge-expired finished in 12 ms; DETAIL: one space is not a field"
    assert withhold_database_detail(text) == text


def test_the_filter_reads_errors_from_mapping_arguments_too():
    error = PsycopgLikeError('violates "c"\nDETALLE:  (secret)', 'violates "c"')
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed: %(error)s", ({"error": error},), None)

    DatabaseDetailFilter().filter(record)

    assert record.getMessage() == f'failed: violates "c" {WITHHELD}'


def test_every_configured_handler_withholds_database_detail_before_rendering_the_message():
    assert settings.LOGGING["filters"]["database_detail"]["()"] == "payments.ops.logging.DatabaseDetailFilter"
    for name, handler in settings.LOGGING["handlers"].items():
        filters = handler.get("filters", [])
        assert "database_detail" in filters, name
        # The filters after it render the message and drop its arguments, where an error may be.
        assert filters.index("database_detail") < min(filters.index("dev_server"), filters.index("card_data")), name
