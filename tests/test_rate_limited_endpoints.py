"""The real limited endpoints carry the throttles: each embed endpoint and Secure Fields admit their budget,
then refuse with 429 and write nothing; server tokens pass. Runs on both configurations, in one process;
the multi-process proof is tests/test_rate_limits_concurrency.py and the machinery is tested in
payments/tests/test_throttling.py.
"""

import uuid

import pytest

from checkout.services import checkout_session_create
from giftcards.models import GiftCard
from giftcards.services import issued_card_create
from payments.vault.models import VaultedCard
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

LIMIT = 3
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}
PAYMENT = {"amount": 1299, "currency": "USD"}


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.RATELIMIT_CACHE_PREFIX = f"rl-test-{uuid.uuid4().hex}:"
    settings.RATELIMIT_EMBED = f"{LIMIT}/d"
    settings.RATELIMIT_CHECKOUT_FIELDS = f"{LIMIT}/d"


@pytest.fixture
def gift_card(merchant_account):
    return issued_card_create(merchant_account=merchant_account, amount=1000, currency="USD")


def _embed_requests(gift_card):
    """(path, body, rows a request writes when admitted) for each endpoint an embed token may call."""
    card = {"number": gift_card.number, "pin": gift_card.pin}
    return {
        "/gift-cards": (card, GiftCard.objects.all()),
        "/gift-cards/balances": ({"items": [card]}, None),
        "/transactions": ({**PAYMENT, "payment_method": CARD}, Transaction.objects.all()),
    }


@pytest.mark.parametrize("path", ["/gift-cards", "/gift-cards/balances", "/transactions"])
def test_an_embed_token_is_refused_past_its_budget_and_the_refusals_write_nothing(api_client, gift_card, path):
    body, written = _embed_requests(gift_card)[path]
    client = api_client(scopes=["embed"], embed=PAYMENT)

    responses = [client.post(path, body, format="json") for _ in range(LIMIT + 2)]

    assert [response.status_code < 300 for response in responses] == [True] * LIMIT + [False] * 2
    assert [response["RateLimit-Remaining"] for response in responses] == ["2", "1", "0", "0", "0"]
    refused = responses[-1]
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_requests"
    assert f"embed token on POST {path}" in refused.json()["message"]
    assert int(refused["Retry-After"]) >= 1
    if written is not None:
        assert written.count() == (1 if path == "/gift-cards" else LIMIT)  # storing a card again keeps one row


@pytest.mark.parametrize(
    ("path", "scopes"),
    [
        ("/gift-cards", ["gift-cards.write"]),
        ("/gift-cards/balances", ["gift-cards.read"]),
        ("/transactions", ["transactions.write"]),
    ],
)
def test_a_server_token_is_not_limited_on_the_embed_endpoints(api_client, gift_card, path, scopes):
    body, _ = _embed_requests(gift_card)[path]
    client = api_client(scopes=scopes)

    responses = [client.post(path, body, format="json") for _ in range(10 * LIMIT)]

    assert all(response.status_code < 300 for response in responses)
    assert not any(response.has_header("RateLimit-Limit") for response in responses)


@pytest.mark.parametrize("method", ["put", "post"])
def test_secure_fields_are_refused_past_the_session_budget_and_the_refusals_write_nothing(
    anonymous_client, merchant_account, method
):
    session = checkout_session_create(merchant_account=merchant_account)
    url = f"/checkout/sessions/{session.id}/fields"
    send = getattr(anonymous_client, method)

    statuses = [send(url, {"payment_method": CARD}, format="json").status_code for _ in range(LIMIT)]
    stored = VaultedCard.objects.get()
    refused = send(url, {"payment_method": {**CARD, "number": "5555555555554444"}}, format="json")

    assert statuses == [204] * LIMIT
    assert refused.status_code == 429
    assert "checkout session on PUT/POST /checkout/sessions/{session_id}/fields" in refused.json()["message"]
    assert list(VaultedCard.objects.values_list("pk", "last4")) == [(stored.pk, "1111")]
