"""The API's renderer writes what DRF's JSONRenderer writes, byte for byte, however the data is made."""

import datetime
import decimal
import uuid

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from payments.rest.renderers import FastJSONRenderer, render_json

VALUES = [
    {"type": "buyer", "id": uuid.UUID("6a2b4c1e-0000-4000-8000-000000000001"), "items": [1, 2, None, True, False]},
    {"display_name": "Zoë «Ünïcode» 支付 🙂", "quote": 'a "b" \\ c\n\t\x01'},
    {"separators": "\u2028 and \u2029 inside"},
    {"amount": decimal.Decimal("12.50"), "when": datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.UTC)},
    {"date": datetime.date(2026, 1, 2), "lazy": gettext_lazy("Not found."), "float": 1.5},
    {1: "integer key", "nested": {"deep": [{"x": []}, {}]}},
    {"huge": 2**70},
    [],
    "plain",
]


@pytest.mark.parametrize(
    "data",
    VALUES,
    ids=["uuid", "unicode", "js-separators", "decimal-datetime", "date-lazy", "int-keys", "bigint", "list", "str"],
)
def test_the_bytes_are_drf_s(data):
    assert render_json(data) == JSONRenderer().render(data)
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


def test_an_indented_answer_asked_for_is_drf_s():
    context: dict = {}
    media_type = "application/json; indent=2"

    rendered = FastJSONRenderer().render({"a": [1]}, media_type, context)

    assert rendered == JSONRenderer().render({"a": [1]}, media_type, context)
    assert b"\n" in rendered


def test_no_data_is_an_empty_body():
    assert FastJSONRenderer().render(None) == b""


def test_the_api_answers_through_it(api_client, merchant_account, monkeypatch):
    calls: list[object] = []
    monkeypatch.setattr("payments.rest.renderers.orjson.dumps", lambda *a, **k: calls.append(a[0]) or b"{}")

    response = api_client(scopes=["buyers.read"]).get("/buyers")

    assert response.status_code == 200
    assert response.content == b"{}"
    assert "items" in calls[0]
