"""`GET /card-scheme-definitions` and `GET /payment-method-definitions`: derived from the processors' registry and the
vault, never a list kept beside them, each entry's icon a file this server serves."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.staticfiles import finders

from payments.tests.assertions import assert_error
from payments.vault.cards import SCHEME_NAMES
from paymentservices import catalogues, processors
from paymentservices.processors import PROCESSORS, processor_get
from paymentservices.processors.seam import Processor

pytestmark = pytest.mark.django_db

SCHEMES = "/card-scheme-definitions"
METHODS = "/payment-method-definitions"


@pytest.fixture
def reader(api_client):
    return api_client(scopes=["card-scheme-definitions.read", "payment-method-definitions.read"])


def _ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["items"]]


def test_card_schemes_are_every_scheme_the_vault_tells_apart_that_a_processor_takes(reader):
    body = reader.get(SCHEMES).json()

    assert [item["id"] for item in body["items"]] == sorted(SCHEME_NAMES)
    visa = next(item for item in body["items"] if item["id"] == "visa")
    assert visa == {
        "type": "card-scheme-definition",
        "id": "visa",
        "display_name": "Visa",
        "icon_url": "http://testserver/static/paymentservices/icons/card-schemes/visa.svg",
    }


def test_payment_methods_are_the_processors_ways_of_paying_and_the_gift_card_program(reader):
    body = reader.get(METHODS).json()

    assert body["items"] == [
        {
            "id": "card",
            "display_name": "Card",
            "long_display_name": "Credit or debit card",
            "method": "card",
            "icon_url": "http://testserver/static/paymentservices/icons/payment-methods/card.svg",
        },
        {
            "id": "gift-card",
            "display_name": "Gift card",
            "long_display_name": None,
            "method": "gift-card",
            "icon_url": "http://testserver/static/paymentservices/icons/payment-methods/gift-card.svg",
        },
        {
            "id": "paypal",
            "display_name": "PayPal",
            "long_display_name": None,
            "method": "paypal",
            "icon_url": "http://testserver/static/paymentservices/icons/payment-methods/paypal.svg",
        },
    ]


def _declaring(definition_id: str, **declared: Any) -> Processor:
    """The registered processor of `definition_id`, declaring otherwise what `declared` says (a processor as its
    folder would write it: the registry's tests keep other folders' modules out of here)."""
    registered = type(processor_get(definition_id))
    return type(f"Declaring{registered.__name__}", (registered,), declared)()


def _wallet() -> Processor:
    return _declaring(
        "paypal-paypal",
        id="wallet-wallet",
        method="wallet",
        method_display_name="Wallet",
        method_long_display_name="A buyer's wallet",
    )


def test_the_card_schemes_follow_what_the_registered_processors_declare(reader, monkeypatch):
    sandbox = _declaring("mock-card", card_schemes=frozenset({"visa"}))
    stripe = _declaring("stripe-card", card_schemes=frozenset({"visa", "mastercard"}))
    paypal = _declaring("paypal-paypal", card_schemes=frozenset({"amex"}))
    monkeypatch.setattr(processors, "PROCESSORS", (sandbox, stripe, paypal))
    assert _ids(reader.get(SCHEMES)) == ["mastercard", "visa"]

    monkeypatch.setattr(processors, "PROCESSORS", (sandbox,))
    assert _ids(reader.get(SCHEMES)) == ["visa"]

    # A processor of another way of paying takes no card, whatever it declares.
    monkeypatch.setattr(processors, "PROCESSORS", (paypal,))
    assert _ids(reader.get(SCHEMES)) == []


def test_a_scheme_the_vault_cannot_tell_apart_is_not_listed_even_when_declared(reader, monkeypatch):
    elo = _declaring("stripe-card", card_schemes=frozenset({"visa", "elo"}))
    monkeypatch.setattr(processors, "PROCESSORS", (elo,))

    assert _ids(reader.get(SCHEMES)) == ["visa"]


def test_the_payment_methods_follow_what_the_registered_processors_declare(reader, monkeypatch):
    stripe, paypal = processor_get("stripe-card"), processor_get("paypal-paypal")
    monkeypatch.setattr(processors, "PROCESSORS", (stripe, _wallet()))
    body = reader.get(METHODS).json()

    assert [item["id"] for item in body["items"]] == ["card", "gift-card", "wallet"]
    wallet = body["items"][2]
    assert (wallet["display_name"], wallet["long_display_name"], wallet["method"]) == (
        "Wallet",
        "A buyer's wallet",
        "wallet",
    )
    assert wallet["icon_url"].endswith("/static/paymentservices/icons/payment-methods/wallet.svg")

    monkeypatch.setattr(processors, "PROCESSORS", (paypal,))
    assert _ids(reader.get(METHODS)) == ["gift-card", "paypal"]


def test_icons_are_absolute_urls_on_the_public_base_url_when_one_is_set(reader, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.com/"

    (amex, *_) = reader.get(SCHEMES).json()["items"]
    (card, *_) = reader.get(METHODS).json()["items"]

    assert amex["icon_url"] == "https://pay.example.com/static/paymentservices/icons/card-schemes/amex.svg"
    assert card["icon_url"] == "https://pay.example.com/static/paymentservices/icons/payment-methods/card.svg"


def test_every_entry_of_the_registry_has_its_icon_a_small_svg_of_its_own_name():
    """Static files the app serves; a processor declaring a new way of paying brings its icon."""
    entries = catalogues.card_scheme_definitions() + catalogues.payment_method_definitions()
    for entry in entries:
        found = finders.find(entry.icon)
        assert found is not None, entry.icon
        with open(found, encoding="utf-8") as icon:
            svg = icon.read()
        assert svg.startswith("<svg ")
        assert f"<title>{entry.display_name}</title>" in svg
        assert len(svg) < 2048


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_declares_only_schemes_the_vault_tells_apart(processor):
    assert processor.card_schemes is None or processor.card_schemes <= set(SCHEME_NAMES)


def test_processors_of_one_way_of_paying_name_it_alike():
    names: dict[str, tuple[str, str | None]] = {}
    for processor in PROCESSORS:
        said = (processor.method_display_name, processor.method_long_display_name)
        assert names.setdefault(processor.method, said) == said, processor.id


@pytest.mark.parametrize("path", [SCHEMES, METHODS])
@pytest.mark.parametrize(
    ("scopes", "status"),
    [
        (["*.read"], 200),
        (["{resource}.read"], 200),
        (["{resource}.write"], 403),
        (["*.write"], 403),
        (["payment-service-definitions.read"], 403),
        (["embed"], 403),
    ],
    ids=["any-read", "own-read", "own-write", "any-write", "other-read", "embed"],
)
def test_reading_a_catalogue_takes_its_read_scope(api_client, path, scopes, status):
    resource = path.lstrip("/")
    client = api_client(scopes=[scope.format(resource=resource) for scope in scopes])

    response = client.get(path)

    if status == 200:
        assert response.status_code == 200
    else:
        body = assert_error(response, status)
        assert f"{resource}.read" in body["message"]


@pytest.mark.parametrize("path", [SCHEMES, METHODS])
def test_no_token_is_401(client, path):
    assert_error(client.get(path), 401)


@pytest.mark.parametrize("path", [SCHEMES, METHODS])
@pytest.mark.parametrize("query", ["limit=2", "cursor=abc", "method=card"])
def test_a_catalogue_reads_no_query_parameter(reader, path, query):
    """Upstream pages neither: a paging parameter would be silently ignored, so it is refused by name."""
    name = query.split("=")[0]
    assert_error(reader.get(f"{path}?{query}"), 400, f"/{name}", location="query")


@pytest.mark.parametrize("path", [SCHEMES, METHODS])
def test_a_catalogue_is_read_only(api_client, path):
    writer = api_client(scopes=["*.read", "*.write"])
    assert_error(writer.post(path, {}, format="json"), 405)


@pytest.mark.parametrize("path", [SCHEMES, METHODS])
def test_a_catalogue_asks_the_database_nothing_once_the_key_is_known(reader, settings, django_assert_num_queries, path):
    settings.API_KEY_CACHE_SECONDS = 3600
    assert reader.get(path).status_code == 200

    with django_assert_num_queries(0):
        assert reader.get(path).status_code == 200
