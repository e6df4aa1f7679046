"""The derivation keeps a document's facts and nothing else, refuses what it does not know, writes one way, and its
check names a contract that drifted from its document. The committed contracts are what it makes of them."""

import copy
import json
from pathlib import Path

import pytest

import contracts
from contracts import derive
from contracts.derive import ContractError, Derived

# A small document with one of each thing a contract keeps, and prose wherever the vendors put it.
DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "2", "description": "All about the shop.", "contact": {"name": "Us"}},
    "tags": [{"name": "Orders", "description": "Orders and what they do."}],
    "externalDocs": {"url": "https://docs.example"},
    "servers": [{"url": "https://api.example/v2", "description": "Production"}],
    "paths": {
        "/orders/{id}": {
            "summary": "One order",
            "x-sortIndex": 3,
            "post": {
                "operationId": "order-update",
                "summary": "Update an order",
                "description": "Updates it.",
                "tags": ["Orders"],
                "security": [{"ApiKey": []}],
                "parameters": [
                    {
                        "name": "id",
                        "in": "path",
                        "required": True,
                        "description": "The order's id.",
                        "example": "o-1",
                        "schema": {"type": "string", "maxLength": 36, "pattern": "^o-"},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/Order"},
                            "examples": {"basic": {"$ref": "#/components/examples/order"}},
                        }
                    },
                },
                "responses": {
                    "200": {
                        "description": "The order, updated.",
                        "headers": {"Idempotency-Key": {"description": "Echoed.", "schema": {"type": "string"}}},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}},
                    },
                    "422": {"$ref": "#/components/responses/Invalid"},
                },
            },
        }
    },
    "webhooks": {
        "ORDER_PAID": {
            "post": {
                "summary": "Paid",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
                "responses": {"200": {"description": "Accepted."}},
            }
        }
    },
    "components": {
        "schemas": {
            "Order": {
                "title": "An order",
                "description": "What was bought.",
                "type": "object",
                "required": ["id", "kind"],
                "additionalProperties": False,
                "discriminator": {"propertyName": "kind", "mapping": {"card": "#/components/schemas/CardOrder"}},
                "properties": {
                    "id": {"type": "string", "format": "uuid", "readOnly": True, "examples": ["o-1"]},
                    "kind": {"type": "string", "enum": ["card", "bank"], "default": "card"},
                    "amount": {"type": "integer", "minimum": 0, "maximum": 99999999, "x-addedInVersion": "2"},
                    "description": {"type": ["string", "null"], "maxLength": 255},
                    "reason": {"type": "string", "enum": ["FRAUD", "CUSTOMER REQUEST"]},
                    "message": {"type": "string", "enum": ["The order could not be found.", "Try again later."]},
                    "note": {"type": "string", "default": "Whatever the buyer wrote"},
                    "lines": {"type": "array", "minItems": 1, "items": {"oneOf": [{"type": "string"}, {"const": 1}]}},
                },
            },
            "CardOrder": {"allOf": [{"$ref": "#/components/schemas/Order"}], "nullable": True},
        },
        "responses": {"Invalid": {"description": "Refused.", "content": {"application/json": {"schema": {}}}}},
        "examples": {"order": {"summary": "An order", "value": {"id": "o-1"}}},
        "securitySchemes": {
            "ApiKey": {"type": "apiKey", "name": "X-API-Key", "in": "header", "description": "A key."},
            "OAuth": {
                "type": "oauth2",
                "flows": {"clientCredentials": {"tokenUrl": "/token", "scopes": {"orders": "Read and write orders."}}},
            },
        },
    },
}


def _contract() -> dict:
    return derive.derive(copy.deepcopy(DOCUMENT), source="shop.json")


def test_a_contract_keeps_the_facts():
    contract = _contract()
    operation = contract["paths"]["/orders/{id}"]["post"]
    order = contract["components"]["schemas"]["Order"]

    assert operation["operationId"] == "order-update"
    assert operation["security"] == [{"ApiKey": []}]
    assert operation["parameters"] == [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 36, "pattern": "^o-"}}
    ]
    assert operation["requestBody"] == {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}},
    }
    assert operation["responses"]["200"]["headers"] == {"Idempotency-Key": {"schema": {"type": "string"}}}
    assert operation["responses"]["422"] == {"$ref": "#/components/responses/Invalid"}
    assert contract["webhooks"]["ORDER_PAID"]["post"]["responses"] == {"200": {"description": ""}}
    assert (order["required"], order["additionalProperties"]) == (["id", "kind"], False)
    assert order["discriminator"] == {"propertyName": "kind", "mapping": {"card": "#/components/schemas/CardOrder"}}
    assert order["properties"]["id"] == {"type": "string", "format": "uuid", "readOnly": True}
    assert order["properties"]["kind"] == {"type": "string", "enum": ["card", "bank"], "default": "card"}
    assert order["properties"]["amount"] == {"type": "integer", "minimum": 0, "maximum": 99999999}
    assert order["properties"]["description"] == {"type": ["string", "null"], "maxLength": 255}  # a field's name
    assert order["properties"]["reason"]["enum"] == ["FRAUD", "CUSTOMER REQUEST"]  # codes, though two words
    assert order["properties"]["lines"]["items"] == {"oneOf": [{"type": "string"}, {"const": 1}]}
    assert contract["components"]["schemas"]["CardOrder"]["nullable"] is True
    assert contract["servers"] == [{"url": "https://api.example/v2"}]
    assert contract["components"]["securitySchemes"]["OAuth"]["flows"]["clientCredentials"]["scopes"] == {"orders": ""}


def test_a_contract_drops_the_prose_and_the_examples():
    contract = _contract()
    text = json.dumps(contract)
    order = contract["components"]["schemas"]["Order"]

    for words in ("All about", "Orders and", "docs.example", "Production", "One order", "Update an", "Updates it",
                  "The order's id", "o-1", "The order, updated", "Echoed", "Paid", "Accepted", "An order",
                  "What was bought", "Refused", "A key", "Read and write", "sortIndex", "addedInVersion"):  # fmt: skip
        assert words not in text, words
    assert set(contract) == {"openapi", "info", "servers", "paths", "webhooks", "components"}
    assert set(contract["info"]) == {"title", "version", "x-derived-from"}
    assert "examples" not in contract["components"]
    # Sentences where a value goes are prose too: the enum or default goes, the type stays.
    assert order["properties"]["message"] == {"type": "string"}
    assert order["properties"]["note"] == {"type": "string"}


def test_a_contract_says_what_it_was_derived_from():
    assert _contract()["info"]["x-derived-from"].startswith("Derived from shop.json by contracts/derive.py")


def test_a_keyword_the_derivation_does_not_know_stops_it():
    document = copy.deepcopy(DOCUMENT)
    document["components"]["schemas"]["Order"]["properties"]["id"]["xml"] = {"name": "id"}

    pointer = "#/components/schemas/Order/properties/id"
    with pytest.raises(ContractError, match=rf"^shop.json: {pointer}: 'xml' is not a keyword"):
        derive.derive(document, source="shop.json")


def test_a_reference_to_what_the_contract_dropped_stops_it():
    document = copy.deepcopy(DOCUMENT)
    document["components"]["schemas"]["Order"]["properties"]["id"] = {"$ref": "#/components/examples/order"}

    with pytest.raises(ContractError, match="refers to #/components/examples/order, which the contract does not hold"):
        derive.derive(document, source="shop.json")


def test_the_output_is_the_same_bytes_whatever_the_order_of_the_document():
    reordered = json.loads(json.dumps(DOCUMENT, sort_keys=True))
    reordered["paths"] = dict(reversed(reordered["paths"].items()))
    reordered["components"]["schemas"] = dict(reversed(reordered["components"]["schemas"].items()))

    rendered = derive.render(_contract())
    assert derive.render(derive.derive(reordered, source="shop.json")) == rendered
    assert rendered.endswith(b"}\n")
    assert rendered == derive.render(json.loads(rendered))


@pytest.fixture
def shop(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """A reference folder with the shop's document and licence, and where their contract and licence go."""
    reference, target = tmp_path / "reference", tmp_path / "contracts"
    reference.mkdir()
    (reference / "shop.json").write_text(json.dumps(DOCUMENT))
    (reference / "shop-LICENSE").write_text("Shop licence\n")
    monkeypatch.setattr(derive, "REPOSITORY", tmp_path)
    monkeypatch.setattr(derive, "CONTRACTS", (Derived("shop.json", target / "shop" / "v2.json"),))
    monkeypatch.setattr(derive, "LICENCES", (Derived("shop-LICENSE", target / "shop" / "LICENSE"),))
    return reference, target


def test_deriving_writes_each_contract_and_licence_and_the_check_then_passes(shop, capsys):
    reference, target = shop

    assert derive.main(["--reference", str(reference)]) == 0
    assert derive.main(["--check", "--reference", str(reference)]) == 0

    assert json.loads((target / "shop" / "v2.json").read_text()) == _contract()
    assert (target / "shop" / "LICENSE").read_text() == "Shop licence\n"
    assert "match" in capsys.readouterr().out


def test_the_check_names_a_contract_its_document_no_longer_derives_and_how_to_mend_it(shop, capsys):
    reference, _ = shop
    derive.main(["--reference", str(reference)])
    changed = copy.deepcopy(DOCUMENT)
    changed["components"]["schemas"]["Order"]["properties"]["amount"]["maximum"] = 5
    (reference / "shop.json").write_text(json.dumps(changed))
    capsys.readouterr()

    assert derive.main(["--check", "--reference", str(reference)]) == 1

    error = capsys.readouterr().err
    assert f"contracts/shop/v2.json is not what {reference / 'shop.json'} derives" in error
    assert "make contracts" in error
    assert '+            "maximum": 5,' in error


def test_the_check_fails_when_a_document_is_missing_from_the_reference_folder(shop, capsys):
    reference, _ = shop
    (reference / "shop.json").unlink()

    assert derive.main(["--check", "--reference", str(reference)]) == 1
    assert "shop.json is missing" in capsys.readouterr().err


def test_without_the_reference_folder_the_check_has_nothing_to_compare_and_passes(tmp_path, capsys):
    assert derive.main(["--check", "--reference", str(tmp_path / "absent")]) == 0
    assert "nothing to compare" in capsys.readouterr().out


@pytest.mark.parametrize("item", derive.CONTRACTS, ids=lambda item: item.source)
def test_each_committed_contract_is_what_the_derivation_makes_of_it(item):
    """Deriving a contract again changes nothing: no prose, no unknown keyword and no broken reference in it, and
    written the one way. (Against its document, `make test` checks it where the document is.)"""
    committed = item.target.read_bytes()

    assert derive.render(derive.derive(json.loads(committed), source=item.source)) == committed


@pytest.mark.parametrize("folder", ["gr4vy", "adyen", "paypal"])
def test_each_folder_of_contracts_says_where_they_come_from(folder):
    notice = (contracts.DIRECTORY / folder / "NOTICE").read_text()
    for item in derive.CONTRACTS:
        if item.target.parent.name == folder:
            assert item.target.name in notice
            assert item.source.rsplit("/", 1)[-1] in notice
    for item in derive.LICENCES:
        if item.target.parent.name == folder:
            assert item.target.exists()
