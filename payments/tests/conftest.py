"""Fixtures of the shared app's tests."""

import copy
import io
import logging

import pytest
from django.conf import settings
from django.utils.log import configure_logging


def is_test_capture(handler: logging.Handler) -> bool:
    return type(handler).__module__.startswith("_pytest")


@pytest.fixture
def configured(request):
    """Apply LOGGING (with the named formatter on the console) exactly as Django does at start-up."""
    config = copy.deepcopy(settings.LOGGING)
    config["handlers"]["console"]["formatter"] = getattr(request, "param", "plain")
    configure_logging(settings.LOGGING_CONFIG, config)
    stream = io.StringIO()
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and not is_test_capture(handler):
            handler.setStream(stream)
    yield stream
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)
