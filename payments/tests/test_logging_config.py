"""Card numbers are masked end to end through the project's LOGGING setting, whatever logger they go to."""

import logging

import pytest
from django.conf import settings

from payments.ops.logging import CardDataMaskingFilter
from payments.tests.conftest import is_test_capture

PAN = "4111111111111111"
MASKED = "411111******1111"
DJANGO_LOGGERS = ["django", "django.request", "django.server", "django.security.csrf", "django.db.backends"]


def handlers_reached_from(logger: logging.Logger) -> list[logging.Handler]:
    """Every handler a record logged on `logger` reaches, as `Logger.callHandlers` walks the hierarchy."""
    found, current = [], logger
    while current is not None:
        found += current.handlers
        current = current.parent if current.propagate else None
    return found


def test_every_configured_handler_carries_the_card_data_filter():
    assert settings.LOGGING["handlers"]
    for name, handler in settings.LOGGING["handlers"].items():
        assert "card_data" in handler.get("filters", []), name
    assert settings.LOGGING["filters"]["card_data"]["()"] == "payments.ops.logging.CardDataMaskingFilter"


@pytest.mark.parametrize("logger_name", ["", "payments", "checkout.services", *DJANGO_LOGGERS])
def test_no_logger_reaches_a_handler_without_the_filter(configured, logger_name):
    handlers = [h for h in handlers_reached_from(logging.getLogger(logger_name)) if not is_test_capture(h)]
    assert handlers, f"{logger_name or 'root'} would fall back to logging.lastResort, which masks nothing"
    for handler in handlers:
        assert any(isinstance(f, CardDataMaskingFilter) for f in handler.filters), (logger_name, handler)


@pytest.mark.parametrize("configured", ["plain", "json"], indirect=True)
def test_card_numbers_are_masked_in_what_is_written(configured):
    logging.getLogger("django.request").warning("Bad Request: /checkout/sessions?number=%s", PAN)
    logging.getLogger("django.server").error('"PUT /fields?n=%s HTTP/1.1" 500', PAN)
    logging.getLogger("checkout").info("card %s", {"number": "4111 1111 1111 1111"})
    try:
        raise ValueError(f"connector refused {PAN}")
    except ValueError:
        logging.getLogger("payments.connectors").exception("authorization failed")

    written = configured.getvalue()
    # The development server's line names its route, query dropped: the number is not even masked there.
    assert written.count(MASKED) == 2
    assert "PUT (unmatched path) HTTP/1.1" in written
    assert "4111 11** **** 1111" in written
    assert PAN not in written
    assert PAN not in written.replace(" ", "")


def test_every_configured_handler_names_routes_not_raw_paths():
    for name, handler in settings.LOGGING["handlers"].items():
        assert "request_path" in handler.get("filters", []), name
    assert settings.LOGGING["filters"]["request_path"]["()"] == "payments.ops.logging.RequestPathFilter"
