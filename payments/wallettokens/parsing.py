"""Strict readers of a token's parts: anything not in the published shape is a MalformedToken naming the field."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from payments.wallettokens.errors import MalformedToken


def json_object(value: str | bytes | Mapping[str, Any], *, name: str) -> Mapping[str, Any]:
    """`value` as a JSON object: a mapping passes through, text is parsed."""
    if isinstance(value, Mapping):
        return value
    try:
        parsed = json.loads(value)
    except (ValueError, TypeError) as error:
        raise MalformedToken(f"{name} is not JSON.") from error
    if not isinstance(parsed, dict):
        raise MalformedToken(f"{name} is not a JSON object.")
    return parsed


def text(container: Mapping[str, Any], key: str, *, name: str) -> str:
    """The non-empty string at `key`."""
    value = container.get(key)
    if not isinstance(value, str) or not value:
        raise MalformedToken(f"{name}.{key} is missing or not a string.")
    return value


def optional_text(container: Mapping[str, Any], key: str, *, name: str) -> str | None:
    """The string at `key`, or None when absent."""
    if container.get(key) is None:
        return None
    return text(container, key, name=name)


def card_number(container: Mapping[str, Any], key: str, *, name: str) -> str:
    """A card or device account number: 12 to 19 digits."""
    number = text(container, key, name=name)
    if not number.isascii() or not number.isdigit() or not 12 <= len(number) <= 19:
        raise MalformedToken(f"{name}.{key} is not 12 to 19 digits.")
    return number


def b64(container: Mapping[str, Any], key: str, *, name: str) -> bytes:
    """The standard base64 at `key`, decoded; padding and alphabet are checked."""
    try:
        return base64.b64decode(text(container, key, name=name), validate=True)
    except ValueError as error:  # binascii.Error, or a character outside ASCII
        raise MalformedToken(f"{name}.{key} is not base64.") from error


def hex_bytes(container: Mapping[str, Any], key: str, *, name: str) -> bytes:
    """The hexadecimal string at `key`, decoded."""
    try:
        return bytes.fromhex(text(container, key, name=name))
    except ValueError as error:
        raise MalformedToken(f"{name}.{key} is not hexadecimal.") from error


def millis(container: Mapping[str, Any], key: str, *, name: str) -> int:
    """A time in milliseconds since the epoch, written as a string of digits."""
    value = text(container, key, name=name)
    if not value.isascii() or not value.isdigit():
        raise MalformedToken(f"{name}.{key} is not a time in milliseconds.")
    return int(value)


def length_prefixed(*parts: bytes) -> bytes:
    """Google's signed-bytes encoding: each part preceded by its length as 4 little-endian bytes."""
    return b"".join(len(part).to_bytes(4, "little") + part for part in parts)
