"""An embed token touches its own buyer only (`buyers.access`), on every endpoint that takes something of a buyer.

Alice has a stored gift card, a stored card and shipping details. Every endpoint that names a buyer (by id or external
identifier), a stored payment method, a stored gift card or shipping details is called, naming Alice's, with embed
tokens pinned to another buyer (Carol, by id and by external identifier) and pinned to none, each alone and with each
read scope added. Each is refused with the status the docs promise (404, or the endpoint's own "missing" answer,
where the thing belongs to someone else and its existence must not leak; 403 where the token may not name it at
all), no answer shows anything of Alice, and nothing is written or spent.

`POST /payment-options` names no buyer, and checkout sessions keep only a guest buyer of their own (and `embed` opens
none of their operations): neither has anything of a buyer to refuse.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from buyers.models import ShippingDetails
from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from giftcards.models import GiftCard, IssuedGiftCard, LedgerEntry
from giftcards.tests.factories import GiftCardFactory, IssuedGiftCardFactory
from paymentmethods.models import PaymentMethod
from paymentmethods.tests.factories import PaymentMethodFactory
from payments.tests.assertions import assert_error
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

DECLINED_CARD = {"method": "card", "number": "4000000000000002", "expiration_date": "12/39", "security_code": "123"}
PAYMENT = {"amount": 700, "currency": "USD", "intent": "capture"}
READ_SCOPES = [
    [],
    ["buyers.read"],
    ["gift-cards.read"],
    ["payment-methods.read"],
    ["transactions.read"],
    ["payment-options.read"],
    ["*.read"],
]
PINS = ["carol by id", "carol by external identifier", "no buyer"]


@dataclass
class World:
    alice: Any
    carol: Any
    gift_card: GiftCard
    method: PaymentMethod
    shipping: ShippingDetails
    fresh_card: IssuedGiftCard
    alice_transaction: Transaction
    secrets: list[str] = field(default_factory=list)

    def pins(self, kind: str) -> dict[str, str]:
        return {
            "carol by id": {"buyer_id": str(self.carol.pk)},
            "carol by external identifier": {"buyer_external_identifier": self.carol.external_identifier},
            "no buyer": {},
        }[kind]


@pytest.fixture
def world(merchant_account) -> World:
    alice = BuyerFactory(
        merchant_account=merchant_account,
        external_identifier="alice",
        display_name="Alice Liddell",
        billing_details={"email_address": "alice@example.com", "phone_number": "+447700900123"},
    )
    carol = BuyerFactory(merchant_account=merchant_account, external_identifier="carol")
    shipping = ShippingDetailsFactory(buyer=alice, first_name="Alicia", last_name="Wonderland")
    alice_transaction = Transaction.objects.create(
        merchant_account=merchant_account, amount=100, currency="USD", buyer=alice, buyer_external_identifier="alice"
    )
    world = World(
        alice=alice,
        carol=carol,
        gift_card=GiftCardFactory(merchant_account=merchant_account, buyer=alice),
        method=PaymentMethodFactory(merchant_account=merchant_account, buyer=alice),
        shipping=shipping,
        fresh_card=IssuedGiftCardFactory(merchant_account=merchant_account),
        alice_transaction=alice_transaction,
    )
    world.secrets = [
        str(alice.pk),
        "alice@example.com",
        "+447700900123",
        "Liddell",
        "Wonderland",
        str(world.gift_card.pk),
        str(world.method.pk),
        str(shipping.pk),
        str(alice_transaction.pk),
    ]
    return world


@dataclass(frozen=True)
class Case:
    """One request naming Alice's: `admitted` lists the scopes that let the action in at all (anything else is the
    scope check's 403); `other` and `none` are the answers for a token pinned to Carol and to no buyer, each a status
    (and the pointer of its detail, if any), or "empty" for a list that shows nothing."""

    method: str
    path: Callable[[World], str]
    body: Callable[[World, dict[str, str]], Any] | None = None
    admitted: tuple[str, ...] = ("embed",)
    other: tuple[int | str, str | None] = (403, None)
    none: tuple[int | str, str | None] = (403, None)


def _pay(**fields: Any) -> Callable[[World, dict[str, str]], dict[str, Any]]:
    """A payment body; `fields` are built from the world and the token's pins (a pinned buyer is named as pinned,
    so the check reached is the one on the thing named, not on the buyer)."""
    return lambda w, pins: {**PAYMENT, **{k: v(w, pins) if callable(v) else v for k, v in fields.items()}}


def _as_pinned(w: World, pins: dict[str, str]) -> dict[str, str]:
    return dict(pins)


CASES = {
    # POST /transactions: the buyer, and every stored thing of a buyer, it may name
    "transaction naming alice by id": Case(
        "post", lambda w: "/transactions", _pay(payment_method=DECLINED_CARD, buyer_id=lambda w, p: str(w.alice.pk))
    ),
    "transaction naming alice by external identifier": Case(
        "post", lambda w: "/transactions", _pay(payment_method=DECLINED_CARD, buyer_external_identifier="alice")
    ),
    "transaction with alice's shipping details (finding 3)": Case(
        "post",
        lambda w: "/transactions",
        _pay(
            payment_method=DECLINED_CARD,
            buyer_external_identifier="alice",
            shipping_details_id=lambda w, p: str(w.shipping.pk),
        ),
    ),
    "transaction with alice's shipping details, naming the pinned buyer": Case(
        "post",
        lambda w: "/transactions",
        lambda w, pins: {
            **PAYMENT,
            **pins,
            "payment_method": DECLINED_CARD,
            "shipping_details_id": str(w.shipping.pk),
        },
        other=(404, "/shipping_details_id"),
        none=(400, "/shipping_details_id"),  # no buyer named: details belong to a buyer
    ),
    "transaction paying with alice's stored card": Case(
        "post",
        lambda w: "/transactions",
        lambda w, pins: {**PAYMENT, **pins, "payment_method": {"method": "id", "id": str(w.method.pk)}},
        other=(404, "/payment_method/id"),
        none=(403, "/payment_method/id"),
    ),
    "transaction storing a card for alice": Case(
        "post",
        lambda w: "/transactions",
        _pay(payment_method=DECLINED_CARD, buyer_id=lambda w, p: str(w.alice.pk), store=True),
    ),
    "transaction spending alice's stored gift card (finding 1)": Case(
        "post",
        lambda w: "/transactions",
        lambda w, pins: {**PAYMENT, **pins, "gift_cards": [{"id": str(w.gift_card.pk), "amount": 700}]},
        other=(400, "/gift_cards/0/id"),  # the answer for a stored id that does not exist
        none=(403, "/gift_cards/0/id"),
    ),
    # gift cards
    "balance of alice's stored gift card (finding 1)": Case(
        "post",
        lambda w: "/gift-cards/balances",
        lambda w, pins: {"items": [{"id": str(w.gift_card.pk)}]},
        admitted=("embed", "gift-cards.read", "*.read"),
        other=(400, "/items/0/id"),
        none=(403, "/items/0/id"),
    ),
    "storing a gift card for alice": Case(
        "post",
        lambda w: "/gift-cards",
        lambda w, pins: {"number": w.fresh_card.number, "pin": w.fresh_card.pin, "buyer_id": str(w.alice.pk)},
    ),
    "alice's stored gift card": Case(
        "get",
        lambda w: f"/gift-cards/{w.gift_card.pk}",
        admitted=("gift-cards.read", "*.read"),
        other=(404, None),
    ),
    "the stored gift cards": Case(
        "get",
        lambda w: "/gift-cards",
        admitted=("gift-cards.read", "*.read"),
        other=("empty", None),
        none=("empty", None),
    ),
    "alice's gift cards by buyer": Case(
        "get",
        lambda w: f"/buyers/gift-cards?buyer_external_identifier={w.alice.external_identifier}",
        admitted=("gift-cards.read", "*.read"),
        other=("forbidden or empty", None),
    ),
    "deleting alice's stored gift card": Case(
        "delete", lambda w: f"/gift-cards/{w.gift_card.pk}", admitted=(), other=(403, None)
    ),
    # stored payment methods
    "alice's stored card": Case(
        "get",
        lambda w: f"/payment-methods/{w.method.pk}",
        admitted=("payment-methods.read", "*.read"),
        other=(404, None),
    ),
    "alice's stored card's network tokens": Case(
        "get",
        lambda w: f"/payment-methods/{w.method.pk}/network-tokens",
        admitted=("payment-methods.read", "*.read"),
        other=(404, None),
    ),
    "the stored cards": Case(
        "get",
        lambda w: "/payment-methods",
        admitted=("payment-methods.read", "*.read"),
        other=("empty", None),
        none=("empty", None),
    ),
    "deleting alice's stored card (finding 2)": Case(
        "delete", lambda w: f"/payment-methods/{w.method.pk}", other=(404, None)
    ),
    "updating alice's stored card": Case(
        "put", lambda w: f"/payment-methods/{w.method.pk}", lambda w, pins: {"expiration_date": "11/38"}, admitted=()
    ),
    "storing a card for alice": Case(
        "post",
        lambda w: "/payment-methods",
        lambda w, pins: {
            "method": "card",
            "number": "5555555555554444",
            "expiration_date": "12/39",
            "buyer_id": str(w.alice.pk),
        },
        admitted=(),
    ),
    "alice's stored cards by buyer": Case(
        "get",
        lambda w: f"/buyers/payment-methods?buyer_external_identifier={w.alice.external_identifier}",
        other=("forbidden or empty", None),
    ),
    # buyers and their shipping details
    "alice": Case("get", lambda w: f"/buyers/{w.alice.pk}", admitted=("buyers.read", "*.read"), other=(404, None)),
    "the buyers, searched for alice": Case(
        "get",
        lambda w: "/buyers?external_identifier=alice",
        admitted=("buyers.read", "*.read"),
        other=("empty", None),
        none=("empty", None),
    ),
    "alice's shipping details": Case(
        "get",
        lambda w: f"/buyers/{w.alice.pk}/shipping-details",
        admitted=("buyers.read", "*.read"),
        other=(404, None),
    ),
    "one of alice's shipping details": Case(
        "get",
        lambda w: f"/buyers/{w.alice.pk}/shipping-details/{w.shipping.pk}",
        admitted=("buyers.read", "*.read"),
        other=(404, None),
    ),
    "adding shipping details to alice": Case(
        "post",
        lambda w: f"/buyers/{w.alice.pk}/shipping-details",
        lambda w, pins: {"first_name": "Mallory"},
        admitted=(),
    ),
    # transactions made for alice
    "alice's transaction": Case(
        "get",
        lambda w: f"/transactions/{w.alice_transaction.pk}",
        admitted=("embed", "transactions.read", "*.read"),
        other=(404, None),
        none=(404, None),
    ),
    "alice's transaction's events": Case(
        "get",
        lambda w: f"/transactions/{w.alice_transaction.pk}/events",
        admitted=("transactions.read", "*.read"),
        other=(404, None),
        none=(404, None),
    ),
    "alice's transaction's refunds": Case(
        "get",
        lambda w: f"/transactions/{w.alice_transaction.pk}/refunds",
        admitted=("transactions.read", "*.read"),
        other=(404, None),
        none=(404, None),
    ),
    "the transactions, filtered to alice": Case(
        "get",
        lambda w: "/transactions?buyer_external_identifier=alice",
        admitted=("transactions.read", "*.read"),
        other=("empty", None),
        none=("empty", None),
    ),
}


def _snapshot(world: World) -> dict[str, Any]:
    """Everything a refused request must leave as it was."""
    world.gift_card.issued_card.refresh_from_db()
    world.method.refresh_from_db()
    world.shipping.refresh_from_db()
    return {
        "transactions": list(Transaction.objects.values_list("pk", flat=True)),
        "balance": world.gift_card.issued_card.balance,
        "ledger": LedgerEntry.objects.count(),
        "gift cards": list(GiftCard.objects.values_list("pk", "buyer_id")),
        "methods": list(PaymentMethod.objects.values_list("pk", "card__expiration_month")),
        "shipping": list(ShippingDetails.objects.values_list("pk", "first_name")),
    }


def _expected(case: Case, scopes: list[str], pin: str) -> tuple[int | str, str | None]:
    granted = {"embed", *scopes}
    if not granted & set(case.admitted):
        return (403, None)  # the scope check: a read scope never lets a write in
    return case.none if pin == "no buyer" else case.other


@pytest.mark.parametrize("pin", PINS)
@pytest.mark.parametrize("name", CASES)
def test_an_embed_token_touches_nothing_of_another_buyer(api_client, world, name, pin):
    case = CASES[name]
    before = _snapshot(world)
    pins = world.pins(pin)

    for scopes in READ_SCOPES:
        client = api_client(scopes=["embed", *scopes], embed={"amount": 700, "currency": "USD", **pins})
        body = case.body(world, pins) if case.body else None
        response = getattr(client, case.method)(case.path(world), body, format="json" if body is not None else None)

        status, pointer = _expected(case, scopes, pin)
        text = response.content.decode()
        assert not [secret for secret in world.secrets if secret in text], (scopes, text)
        if status == "empty" or (status == "forbidden or empty" and response.status_code == 200):
            assert response.status_code == 200, (scopes, text)
            assert response.json()["items"] == [], (scopes, text)
        elif status == "forbidden or empty":
            assert_error(response, 403)
        else:
            assert isinstance(status, int)
            assert_error(response, status, pointer)
    assert _snapshot(world) == before


@pytest.mark.parametrize("pin_by", ["buyer_id", "buyer_external_identifier"])
def test_the_pinned_buyer_uses_what_is_theirs(api_client, world, pin_by):
    """The same requests with a token pinned to Alice work: the rule confines, it does not lock out."""
    pins = {"buyer_id": str(world.alice.pk)} if pin_by == "buyer_id" else {"buyer_external_identifier": "alice"}
    client = api_client(scopes=["embed", "*.read"], embed={"amount": 700, "currency": "USD", **pins})

    balance = client.post("/gift-cards/balances", {"items": [{"id": str(world.gift_card.pk)}]}, format="json")
    assert balance.status_code == 200, balance.content
    assert balance.json()["items"][0]["balance"] == 5000
    assert client.get(f"/payment-methods/{world.method.pk}").status_code == 200
    assert client.get(f"/buyers/{world.alice.pk}/shipping-details/{world.shipping.pk}").status_code == 200
    assert [item["id"] for item in client.get("/buyers/payment-methods").json()["items"]] == [str(world.method.pk)]

    paid = client.post(
        "/transactions",
        {**PAYMENT, **pins, "gift_cards": [{"id": str(world.gift_card.pk), "amount": 700}]},
        format="json",
    )
    assert paid.status_code == 201, paid.content
    world.gift_card.issued_card.refresh_from_db()
    assert world.gift_card.issued_card.balance == 4300

    assert client.delete(f"/payment-methods/{world.method.pk}").status_code == 204


def test_server_tokens_are_not_confined(api_client, world):
    """Without `embed` (or with the write scope beside it) nothing changes: the merchant's server sees every buyer."""
    reader = api_client(scopes=["*.read"])
    writer = api_client(scopes=["embed", "payment-methods.write", "payment-methods.read"])

    assert reader.get(f"/payment-methods/{world.method.pk}").status_code == 200
    assert (
        reader.post("/gift-cards/balances", {"items": [{"id": str(world.gift_card.pk)}]}, format="json").json()[
            "items"
        ][0]["balance"]
        == 5000
    )
    assert writer.get(f"/payment-methods/{world.method.pk}").status_code == 200
    assert writer.delete(f"/payment-methods/{world.method.pk}").status_code == 204


def test_the_answers_name_no_card_data(api_client, world):
    """A refusal says why in words, never with the card it refused (log scan and masking cover the rest)."""
    client = api_client(scopes=["embed"], embed={"amount": 700, "currency": "USD"})
    response = client.post(
        "/transactions",
        {**PAYMENT, "payment_method": DECLINED_CARD, "buyer_external_identifier": "alice"},
        format="json",
    )
    assert "4000000000000002" not in json.dumps(response.json())
