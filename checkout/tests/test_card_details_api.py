"""`POST /checkout/sessions/{id}/card-details`: what the card the buyer is typing is, with the session id as the only
credential (docs/card-details.md)."""

import uuid
from io import StringIO

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

from checkout.tests.factories import CheckoutSessionFactory
from payments.bins.services import bin_table_refresh
from payments.bins.sources import read_ranges
from payments.tests.assertions import assert_error

pytestmark = pytest.mark.django_db

RANGES = (
    "iin_start,iin_end,number_length,scheme,brand,type,prepaid,country,bank_name\n400005,,16,VISA,,DEBIT,,GB,Bank\n"
)


@pytest.fixture
def session(merchant_account):
    bin_table_refresh(ranges=read_ranges(StringIO(RANGES)))
    return CheckoutSessionFactory()


def ask(session_id, body):
    return APIClient().post(f"/checkout/sessions/{session_id}/card-details", body, format="json")


def test_the_table_answers_with_no_token(session):
    response = ask(session.id, {"bin": "40000566"})

    assert response.status_code == 200, response.content
    assert response.json() == {
        "bin": "40000566",
        "card_type": "debit",
        "scheme": "visa",
        "scheme_icon_url": None,
        "additional_schemes": [],
    }


def test_an_unknown_bin_answers_its_scheme_by_prefix(session):
    assert ask(session.id, {"bin": "378282"}).json() | {"additional_schemes": []} == {
        "bin": "378282",
        "card_type": None,
        "scheme": "amex",
        "scheme_icon_url": None,
        "additional_schemes": [],
    }


BAD = [
    ({}, "/bin"),
    ({"bin": "40000"}, "/bin"),
    ({"bin": "400005661"}, "/bin"),
    ({"bin": "4000056655665556"}, "/bin"),
    ({"bin": "40000x"}, "/bin"),
    ({"bin": 400005}, "/bin"),
    ({"bin": "400005", "number": "4000056655665556"}, "/number"),
]


@pytest.mark.parametrize(("body", "pointer"), BAD, ids=[f"{p}-{i}" for i, (_, p) in enumerate(BAD)])
def test_bad_input_is_400_naming_the_field(session, body, pointer):
    response = ask(session.id, body)

    assert_error(response, 400, pointer, location="body")
    assert "4000056655665556" not in response.content.decode()


def test_an_unknown_or_expired_session_is_404(session):
    assert_error(ask(uuid.uuid4(), {"bin": "400005"}), 404)


def test_it_is_limited_per_session(session, settings):
    settings.RATELIMIT_CHECKOUT_FIELDS = "2/m"
    caches["ratelimit"].clear()

    assert ask(session.id, {"bin": "400005"}).status_code == 200
    assert ask(session.id, {"bin": "400005"}).status_code == 200
    assert_error(ask(session.id, {"bin": "400005"}), 429)
