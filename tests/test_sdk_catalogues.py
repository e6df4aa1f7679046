"""The official `gr4vy` SDK, unchanged, against a running server: the card schemes listed, each icon fetched from this
server. Upstream leaves `GET /payment-method-definitions` out of its SDK (`x-speakeasy-ignore`), so that list is read
over plain HTTP, as a merchant's server would."""

import httpx
import pytest
from gr4vy import errors, models

from payments.vault.cards import SCHEME_NAMES

pytestmark = pytest.mark.django_db(transaction=True)


def _icon(url: str) -> httpx.Response:
    response = httpx.get(url)
    assert response.status_code == 200, url
    assert response.headers["content-type"].startswith("image/svg+xml")
    return response


def test_the_card_schemes_and_their_icons(sdk, merchant_account, live_server):
    listed = sdk.card_scheme_definitions.list()

    assert isinstance(listed, models.CardSchemeDefinitions)
    assert [item.id for item in listed.items] == sorted(SCHEME_NAMES)
    for item in listed.items:
        assert item.display_name == SCHEME_NAMES[item.id]
        assert item.icon_url.startswith(f"{live_server.url}/static/")
        assert f"<title>{item.display_name}</title>" in _icon(item.icon_url).text


def test_the_card_schemes_take_their_scope(sdk_client, merchant_account):
    assert sdk_client(scopes=["card-scheme-definitions.read"]).card_scheme_definitions.list().items
    with pytest.raises(errors.Error403):
        sdk_client(scopes=["buyers.read"]).card_scheme_definitions.list()


def test_the_payment_methods_and_their_icons(merchant):
    response = merchant.get("/payment-method-definitions")

    assert response.status_code == 200
    items = response.json()["items"]
    assert [item["id"] for item in items] == ["card", "gift-card", "paypal"]
    for item in items:
        assert f"<title>{item['display_name']}</title>" in _icon(item["icon_url"]).text
