"""Derive the facts-only contracts in this folder from the published documents beside the repository.

Each document in ../shared/reference/ becomes a contract: the same OpenAPI document holding only what a machine
checks (paths and webhooks, methods, parameters, request bodies, responses with their status codes and headers,
schemas with their types, required fields, enums, formats, limits and references, security schemes) and none of the
vendor's prose or examples. Every keyword is read by the kind of object it sits in: a fact is kept, prose is dropped,
and a keyword this module does not know stops the derivation, so nothing new reaches a contract without a decision
here. The output is sorted and formatted one way, so deriving twice gives the same bytes.

    python -m contracts.derive           write every contract, and the licences that travel with them
    python -m contracts.derive --check   derive again and compare with the committed files (`make test`); without
                                         the documents beside the repository there is nothing to compare
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import contracts

REPOSITORY = contracts.DIRECTORY.parent
REFERENCE = REPOSITORY.parent / "shared" / "reference"


@dataclass(frozen=True)
class Derived:
    """A file this module writes: `target` made from `source` (a path under the reference folder)."""

    source: str
    target: Path


# The contracts, each from its document.
CONTRACTS = (
    Derived("gr4vy-openapi-subset.json", contracts.GR4VY),
    Derived("adyen-checkout-v72.json", contracts.ADYEN_CHECKOUT),
    Derived("adyen-webhooks-v1.json", contracts.ADYEN_WEBHOOKS),
    Derived("adyen-disputes-v30.json", contracts.ADYEN_DISPUTES),
    Derived("adyen-payout-v68.json", contracts.ADYEN_PAYOUT),
    Derived("paypal/checkout_orders_v2.json", contracts.PAYPAL_ORDERS),
    Derived("paypal/payments_payment_v2.json", contracts.PAYPAL_PAYMENTS),
    Derived("paypal/customer_disputes_v1.json", contracts.PAYPAL_DISPUTES),
    Derived("paypal/notifications_webhooks_v1.json", contracts.PAYPAL_WEBHOOKS),
    Derived("paypal/reporting_transactions_v1.json", contracts.PAYPAL_TRANSACTIONS),
)
# The licences the documents are published under, copied word for word beside what is derived from them: Adyen's
# MIT licence asks for its notice in every substantial portion, PayPal's Apache-2.0 for a copy of the licence.
LICENCES = (
    Derived("adyen-LICENSE", contracts.DIRECTORY / "adyen" / "LICENSE"),
    Derived("paypal/LICENSE", contracts.DIRECTORY / "paypal" / "LICENSE"),
)

NOTICE = (
    "Derived from {source} by contracts/derive.py: its facts only (descriptions, summaries, titles, examples and "
    "vendor extensions removed). See NOTICE beside this file."
)

# What each kind of object may hold: each fact keyword with the kind of its value. VALUE is kept as it is (a name,
# a number, an enum, a default); "map:<kind>" maps names (paths, properties, status codes) to objects of a kind;
# "list:<kind>" lists them; "scopes" keeps an OAuth flow's scope names and drops what each one says.
VALUE = "value"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONES = ("items", "additionalProperties", "propertyNames", "not", "if", "then", "else")
SCHEMA_VALUES = (
    "$ref",
    "type",
    "format",
    "enum",
    "const",
    "default",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "required",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "contentMediaType",
    "contentEncoding",
)
KINDS: dict[str, dict[str, str]] = {
    "document": {
        "openapi": VALUE,
        "jsonSchemaDialect": VALUE,
        "info": "info",
        "servers": "list:server",
        "paths": "map:path",
        "webhooks": "map:path",
        "components": "components",
        "security": VALUE,
    },
    # OpenAPI requires both; a title is the API's name.
    "info": {"title": VALUE, "version": VALUE},
    "server": {"url": VALUE, "variables": "map:server-variable"},
    "server-variable": {"enum": VALUE, "default": VALUE},
    "components": {
        "schemas": "map:schema",
        "responses": "map:response",
        "parameters": "map:parameter",
        "requestBodies": "map:request-body",
        "headers": "map:header",
        "securitySchemes": "map:security-scheme",
        "pathItems": "map:path",
    },
    "path": {"$ref": VALUE, "parameters": "list:parameter", "servers": "list:server"}
    | dict.fromkeys(METHODS, "operation"),
    "operation": {
        "operationId": VALUE,
        "parameters": "list:parameter",
        "requestBody": "request-body",
        "responses": "map:response",
        "deprecated": VALUE,
        "security": VALUE,
        "servers": "list:server",
    },
    "parameter": {
        "$ref": VALUE,
        "name": VALUE,
        "in": VALUE,
        "required": VALUE,
        "deprecated": VALUE,
        "allowEmptyValue": VALUE,
        "style": VALUE,
        "explode": VALUE,
        "allowReserved": VALUE,
        "schema": "schema",
        "content": "map:media-type",
        "enum": VALUE,  # beside the schema, where PayPal's disputes put one: a fact, misplaced
    },
    "header": {
        "$ref": VALUE,
        "required": VALUE,
        "deprecated": VALUE,
        "style": VALUE,
        "explode": VALUE,
        "schema": "schema",
        "content": "map:media-type",
    },
    "request-body": {"$ref": VALUE, "required": VALUE, "content": "map:media-type"},
    "response": {"$ref": VALUE, "headers": "map:header", "content": "map:media-type"},
    "media-type": {"schema": "schema", "encoding": "map:encoding"},
    "encoding": {
        "contentType": VALUE,
        "headers": "map:header",
        "style": VALUE,
        "explode": VALUE,
        "allowReserved": VALUE,
    },
    "security-scheme": {
        "$ref": VALUE,
        "type": VALUE,
        "scheme": VALUE,
        "bearerFormat": VALUE,
        "in": VALUE,
        "name": VALUE,
        "flows": "oauth-flows",
        "openIdConnectUrl": VALUE,
    },
    "oauth-flows": dict.fromkeys(("implicit", "password", "clientCredentials", "authorizationCode"), "oauth-flow"),
    "oauth-flow": {"authorizationUrl": VALUE, "tokenUrl": VALUE, "refreshUrl": VALUE, "scopes": "scopes"},
    "discriminator": {"propertyName": VALUE, "mapping": VALUE},
    "schema": dict.fromkeys(SCHEMA_VALUES, VALUE)
    | dict.fromkeys(SCHEMA_LISTS, "list:schema")
    | dict.fromkeys(SCHEMA_ONES, "schema")
    | {
        "properties": "map:schema",
        "patternProperties": "map:schema",
        "$defs": "map:schema",
        "discriminator": "discriminator",
    },
}
# Prose, examples and grouping labels, dropped wherever they appear, as is every vendor extension ("x-...").
DROPPED = frozenset(
    {
        "description",
        "summary",
        "title",
        "example",
        "examples",
        "externalDocs",
        "tags",
        "contact",
        "license",
        "termsOfService",
        "links",
        "$comment",
        "dscription",  # so spelt in one of Gr4vy's parameters
    }
)


# A value of this many words or more is a sentence, not a code ("CUSTOMER REQUEST", "All others" are codes).
SENTENCE_WORDS = 3


class ContractError(Exception):
    """A document this module cannot derive a contract from, or a contract that does not hold together."""


def derive(document: dict[str, Any], *, source: str) -> dict[str, Any]:
    """The facts-only contract of an OpenAPI document; every local `$ref` in it resolves."""
    try:
        contract: dict[str, Any] = _derive(document, "document", "#")
    except ContractError as error:
        raise ContractError(f"{source}: {error}") from None
    contract.setdefault("info", {})["x-derived-from"] = NOTICE.format(source=source)
    for pointer, reference in _references(contract, "#"):
        if not _resolves(contract, reference):
            raise ContractError(f"{source}: {pointer} refers to {reference}, which the contract does not hold")
    return contract


def render(contract: dict[str, Any]) -> bytes:
    """The one way a contract is written: sorted keys, two-space indents, UTF-8, a final newline."""
    return (json.dumps(contract, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def derived_files(reference: Path) -> Iterator[tuple[Derived, bytes]]:
    """Every file this module writes, with its bytes, from the documents under `reference`."""
    for item in CONTRACTS:
        document = json.loads(_source(reference, item).read_text(encoding="utf-8"))
        yield item, render(derive(document, source=item.source))
    for item in LICENCES:
        yield item, _source(reference, item).read_bytes()


def _source(reference: Path, item: Derived) -> Path:
    path = reference / item.source
    if not path.is_file():
        raise ContractError(f"{path} is missing: the reference folder should hold every document in CONTRACTS")
    return path


def _derive(node: Any, kind: str, pointer: str) -> Any:
    if kind == VALUE:
        return node
    if kind == "scopes":
        return dict.fromkeys(_object(node, pointer), "")  # each scope's value is what it means, in words
    if kind.startswith("map:"):
        return {
            name: _derive(value, kind[4:], f"{pointer}/{_escape(name)}")
            for name, value in _object(node, pointer).items()
        }
    if kind.startswith("list:"):
        if not isinstance(node, list):
            raise ContractError(f"{pointer}: expected a list")
        return [_derive(value, kind[5:], f"{pointer}/{index}") for index, value in enumerate(node)]
    if kind == "schema" and isinstance(node, bool):  # `true` / `false` are schemas too
        return node
    return _derive_object(_object(node, pointer), kind, pointer)


def _derive_object(node: dict[str, Any], kind: str, pointer: str) -> dict[str, Any]:
    facts = KINDS[kind]
    derived: dict[str, Any] = {}
    for key, value in node.items():
        if key in facts:
            derived[key] = _derive(value, facts[key], f"{pointer}/{_escape(key)}")
        elif key not in DROPPED and not key.startswith("x-"):
            raise ContractError(
                f"{pointer}: {key!r} is not a keyword contracts/derive.py knows in a {kind}: "
                "add it to KINDS (a fact) or DROPPED (prose)"
            )
    if kind == "response" and "$ref" not in derived:
        derived["description"] = ""  # OpenAPI requires the field; what the vendor wrote in it stays out
    if kind == "schema":
        _drop_sentences(derived)
    return derived


def _drop_sentences(schema: dict[str, Any]) -> None:
    """Sentences are prose even where a schema holds them as values (PayPal enumerates each error's description,
    Gr4vy gives an id a sentence as its default): such an enum, const or default goes, the type stays."""
    for keyword in ("enum", "const", "default"):
        if keyword in schema:
            values = schema[keyword] if keyword == "enum" else [schema[keyword]]
            if any(_is_sentence(value) for value in values):
                del schema[keyword]


def _is_sentence(value: object) -> bool:
    return isinstance(value, str) and len(value.split()) >= SENTENCE_WORDS


def _object(node: Any, pointer: str) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise ContractError(f"{pointer}: expected an object")
    return node


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _references(node: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """Every `$ref` (and discriminator mapping) in a contract, with where it sits."""
    if isinstance(node, list):
        for index, value in enumerate(node):
            yield from _references(value, f"{pointer}/{index}")
    elif isinstance(node, dict):
        for key, value in node.items():
            here = f"{pointer}/{_escape(key)}"
            if key == "$ref" and isinstance(value, str):
                yield here, value
            elif key == "discriminator" and isinstance(value, dict):
                yield from ((f"{here}/mapping/{name}", target) for name, target in value.get("mapping", {}).items())
            elif key not in ("enum", "const", "default"):  # values, not schemas
                yield from _references(value, here)


def _resolves(contract: dict[str, Any], reference: str) -> bool:
    if not reference.startswith("#/"):
        return False
    node: Any = contract
    for part in reference[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _name(path: Path) -> str:
    return str(path.relative_to(REPOSITORY))


def write(reference: Path) -> None:
    """Write every contract and licence from the documents under `reference`."""
    for item, content in derived_files(reference):
        item.target.parent.mkdir(parents=True, exist_ok=True)
        item.target.write_bytes(content)
        print(f"{_name(item.target)} <- {item.source}")


def check(reference: Path) -> list[str]:
    """What differs between the committed files and what the documents under `reference` derive (empty: none)."""
    problems = []
    for item, content in derived_files(reference):
        committed = item.target.read_bytes() if item.target.exists() else b""
        if committed == content:
            continue
        diff = difflib.unified_diff(
            committed.decode().splitlines(),
            content.decode().splitlines(),
            f"{_name(item.target)} (committed)",
            f"{_name(item.target)} (derived from {item.source})",
            lineterm="",
            n=1,
        )
        problems.append(
            f"{_name(item.target)} is not what {reference / item.source} derives. Re-derive it with "
            "`make contracts` (python -m contracts.derive) and commit the result. First differences:\n"
            + "\n".join(line for line, _ in zip(diff, range(20), strict=False))
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m contracts.derive", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    parser.add_argument("--reference", type=Path, default=REFERENCE, help=f"the documents (default: {REFERENCE})")
    arguments = parser.parse_args(argv)
    reference: Path = arguments.reference
    if not reference.is_dir():
        if arguments.check:
            print(f"Contracts: no {reference} beside the repository, so nothing to compare the committed ones with.")
            return 0
        print(f"No documents at {reference}: nothing to derive from.", file=sys.stderr)
        return 2
    try:
        if not arguments.check:
            write(reference)
            return 0
        problems = check(reference)
    except ContractError as error:
        print(f"Contracts: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"Contracts: the {len(CONTRACTS)} committed contracts and their licences match {reference}.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
