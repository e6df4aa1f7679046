"""The official `gr4vy` SDK, unchanged, against a running server: a card's type, country and issuer from the BIN
table on the transactions and stored methods it makes, and `GET /card-details` with a token the SDK signs (upstream
leaves that operation out of its SDKs, so it is called over HTTP; docs/card-details.md)."""

from io import StringIO
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command
from gr4vy import auth, models

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLE = Path(__file__).resolve().parents[1] / "payments" / "bins" / "data" / "sample-ranges.csv"
CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


@pytest.fixture
def table(db):
    call_command("refresh_bin_table", str(SAMPLE), stdout=StringIO())


def test_a_transaction_and_a_stored_method_show_what_the_table_says(sdk, table):
    paid = sdk.transactions.create(amount=1299, currency="USD", payment_method=CARD)

    assert isinstance(paid.payment_method, models.TransactionPaymentMethod)
    assert paid.payment_method.country == "US"
    assert paid.payment_method.details.card_type == "credit"
    assert paid.payment_method.details.card_issuer_name == "Example Bank of Testing"
    assert sdk.transactions.get(transaction_id=paid.id).payment_method.country == "US"

    stored = sdk.payment_methods.create(
        request_body={"method": "card", "number": "4000056655665556", "expiration_date": "12/39"}
    )
    assert (stored.country, stored.details.card_type) == ("US", "debit")
    assert sdk.payment_methods.get(payment_method_id=stored.id).details.card_issuer_name == "Example Debit Union"


def test_card_details_with_a_token_the_sdk_signs(live_server, api_key, private_key_pem, table):
    token = auth.get_token(private_key_pem, scopes=[auth.JWTScope.BIN_CHECKER_READ])
    headers = {"authorization": f"Bearer {token}", "x-gr4vy-merchant-account-id": "default"}

    with httpx.Client(base_url=live_server.url, headers=headers) as client:
        answer = client.get("/card-details", params={"currency": "USD", "bin": "55555555"})
        refused = client.get("/card-details", params={"currency": "USD", "bin": "5555555555554444"})

    assert answer.status_code == 200, answer.text
    assert {key: answer.json()[key] for key in ("type", "id", "scheme", "card_type", "country")} == {
        "type": "card-detail",
        "id": "55555555",
        "scheme": "mastercard",
        "card_type": "credit",
        "country": "DE",
    }
    assert refused.status_code == 400
    assert refused.json()["details"][0]["pointer"] == "/bin"
    assert "5555555555554444" not in refused.text
