"""The clients each scenario needs and the objects scenarios make."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient

from buyers.tests.factories import BuyerFactory, ShippingDetailsFactory
from transactions.tests.factories import RefundFactory, TransactionFactory

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}
DECLINED_CARD = {**CARD, "number": "4000000000000002"}
SDK_DEFAULTS = {
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}
THREE_D_SECURE = {
    "version": "2.2.0",
    "cavv": "AAABCZIhcQAAAABZlyFxAAAAAAA=",
    "eci": "05",
    "directory_response": "C",
    "authentication_response": "Y",
    "directory_transaction_id": "c4e59ceb-a382-4d6a-bc87-385d591fa09d",
}


@dataclass
class World:
    """Clients with the scopes each scenario needs, and the account's objects."""

    client: APIClient
    read_only: APIClient
    anonymous: APIClient
    embed: APIClient
    account: Any
    platform: APIClient  # a key made for every merchant account: merchant account administration

    def post(self, path: str, payload: object = None, **headers: str) -> Any:
        return self.client.post(path, payload, format="json", **headers)

    def put(self, path: str, payload: object) -> Any:
        return self.client.put(path, payload, format="json")


def _transaction(world: World, **fields: Any) -> Any:
    return world.post(
        "/transactions", {"amount": 1299, "currency": "USD", "payment_method": CARD, **SDK_DEFAULTS, **fields}
    )


def _authorized(world: World) -> Any:
    return TransactionFactory(merchant_account=world.account, authorized=True)


def _captured(world: World) -> Any:
    return TransactionFactory(merchant_account=world.account, captured=True)


BILLING = {
    "first_name": "Ada",
    "last_name": "Lovelace",
    "email_address": "ada@example.com",
    "phone_number": "+442071234567",
    "address": {"city": "London", "country": "GB", "postal_code": "N1 9GU", "line1": "1 Main St"},
    "tax_id": {"value": "GB123456789", "kind": "gb.vat"},
}
BODY_999 = {"amount": 999, "currency": "USD", "payment_method": CARD, **SDK_DEFAULTS}

SHIPPING = {key: value for key, value in BILLING.items() if key != "tax_id"}


def _buyer(world: World, *, shipping_details: int = 0) -> Any:
    buyer = BuyerFactory(merchant_account=world.account)
    ShippingDetailsFactory.create_batch(shipping_details, buyer=buyer, **SHIPPING)
    return buyer.pk


def _shipping_details(world: World) -> tuple[Any, Any]:
    details = ShippingDetailsFactory(buyer=BuyerFactory(merchant_account=world.account), **SHIPPING)
    return details.buyer_id, details.pk


def _shipping_to(buyer_id: Any, details_id: Any) -> dict[str, str]:
    return {"buyer_id": str(buyer_id), "shipping_details_id": str(details_id)}


def _shipping_path(buyer_id: Any, details_id: Any = None) -> str:
    return f"/buyers/{buyer_id}/shipping-details" + ("" if details_id is None else f"/{details_id}")


Scenario = Callable[[World], Any]


def _number_and_pin(card: Any) -> dict[str, str]:
    return {"number": card.number, "pin": card.pin}


def _refund_path(world: World, path: Callable[[Any], str]) -> Any:
    return world.client.get(path(RefundFactory(transaction__merchant_account=world.account)))
