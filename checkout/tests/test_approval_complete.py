"""The page a 3-D Secure challenge inside Embed returns to, as plain HTTP (tests/browser/test_three_d_secure.py drives
it in Chromium): it posts one message naming the transaction, to the one origin named, framed only by that origin."""

import json
import re
import uuid

import pytest
from django.test import Client

from payments.tests.assertions import assert_error

SHOP = "https://shop.example"
URL = "/embed/approval-complete"
CHANNEL = "Abc123_-xyz789"


@pytest.fixture
def client(settings):
    settings.ALLOWED_HOSTS = ["api.example"]
    return Client(HTTP_HOST="api.example")


def params(**overrides) -> dict:
    values = {
        "parent_origin": SHOP,
        "channel": CHANNEL,
        "transaction_id": str(uuid.uuid4()),
        "transaction_status": "capture_succeeded",
    }
    return {name: value for name, value in {**values, **overrides}.items() if value is not None}


def script_data(response, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', response.content.decode())
    assert match, response.content
    return json.loads(match.group(1))


def test_the_page_tells_the_drop_in_at_its_origin_which_transaction_returned(client):
    query = params()

    response = client.get(URL, query)

    assert response.status_code == 200
    assert script_data(response, "approval-message") == {
        "type": "gr4vy-embed:approval-complete",
        "channel": CHANNEL,
        "transactionId": query["transaction_id"],
    }
    # The status in the query is not passed on: the drop-in reads the transaction itself.
    assert b"capture_succeeded" not in response.content
    assert script_data(response, "approval-parent-origin") == SHOP
    policy = response["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    assert f'<script nonce="{nonce}">' in response.content.decode()
    assert f"frame-ancestors {SHOP}" in policy
    assert "default-src 'none'" in policy
    assert "X-Frame-Options" not in response
    assert (response["Cache-Control"], response["Referrer-Policy"]) == ("no-store", "no-referrer")


@pytest.mark.parametrize(
    ("overrides", "pointer"),
    [
        ({"parent_origin": None}, "/parent_origin"),
        ({"parent_origin": "https://shop.example/path"}, "/parent_origin"),
        ({"parent_origin": "javascript:alert(1)"}, "/parent_origin"),
        ({"channel": None}, "/channel"),
        ({"channel": "short"}, "/channel"),
        ({"channel": "<script>alert(1)</script>"}, "/channel"),
        ({"transaction_id": None}, "/transaction_id"),
        ({"transaction_id": "not-a-uuid"}, "/transaction_id"),
    ],
    ids=[
        "no parent origin",
        "parent origin with a path",
        "parent origin not http",
        "no channel",
        "short channel",
        "channel with markup",
        "no transaction",
        "transaction not a uuid",
    ],
)
def test_bad_queries_are_refused_by_name(client, overrides, pointer):
    assert_error(client.get(URL, params(**overrides)), 400, pointer)


def test_only_get_and_head(client):
    assert client.head(URL, params()).status_code == 200
    response = client.post(URL, params())
    assert_error(response, 405)
    assert response["Allow"] == "GET, HEAD"
