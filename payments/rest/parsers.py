"""The API's body parser: DRF's strict JSON, refusing documents nested deeper than `API_MAX_JSON_DEPTH`, objects
that name a key twice and strings that hold a NUL character.

Python's decoder recurses once per nesting level, so a body of 100,000 `[` (200 KB, well under the size limit)
raises `RecursionError` deep inside it. The depth is measured before decoding, without recursion, and a body
that is too deep is a 400 naming the body, like any other body the API cannot take.

A key given twice would be read as its last value here and perhaps as its first by a firewall or log in front:
the two would disagree about what was asked. A NUL character (`\u0000`) is text no column can store (PostgreSQL
refuses it in `text` and `jsonb`): refused here, for every string of every body, keys included, before any
serializer or model sees it. Both are a 400 whose `details[].pointer` names where in the body they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import accumulate
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.utils import json

from payments.errors import DomainError, detail

# A JSON string (escapes included), so brackets inside strings are not counted; then the brackets themselves.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JsonTooDeep(DomainError):
    """The body nests arrays and objects deeper than the API accepts."""


class UnacceptableJson(DomainError):
    """The body names a key twice in one object, or holds a NUL or half a character in a string; one detail per
    place."""

    def __init__(self, problems: list[tuple[str, str, str]]) -> None:
        super().__init__("Request failed validation")
        self.details = [detail("body", pointer, message, kind) for pointer, message, kind in problems]


NUL = "\x00"
NUL_MESSAGE = "Must not contain a NUL character (\\u0000)."
DUPLICATE_MESSAGE = "This key is given more than once in the same object."
# A `\\ud800`-style escape with no partner decodes to half a character, which no UTF-8 column or log line can hold.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_MESSAGE = "Must not contain a lone UTF-16 surrogate (\\ud800 to \\udfff)."


def _text_problem(text: str) -> tuple[str, str] | None:
    """(message, kind) when `text` holds what no column can store, else None."""
    if NUL in text:
        return NUL_MESSAGE, "null_character"
    if _LONE_SURROGATE.search(text):
        return SURROGATE_MESSAGE, "lone_surrogate"
    return None


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers the keys its text gave more than once."""

    duplicates: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    decoded = _Object(pairs)
    if len(decoded) != len(pairs):
        seen: set[str] = set()
        duplicates: dict[str, None] = {}
        for key, _ in pairs:
            if key in seen:
                duplicates[key] = None
            seen.add(key)
        decoded.duplicates = tuple(duplicates)
    return decoded


def pointer_token(key: str) -> str:
    """`key` as one step of a JSON pointer (RFC 6901: `~` and `/` escaped; half a character written as its escape,
    so that the answer naming it can be sent)."""
    key = key.encode("utf-8", "backslashreplace").decode("utf-8")
    return key.replace("~", "~0").replace("/", "~1")


def unacceptable_json(document: Any) -> list[tuple[str, str, str]]:
    """(pointer, message, kind) of every duplicate key and every string holding a NUL in `document`, walked
    without recursion (its depth is bounded anyway, by the depth check)."""
    problems: list[tuple[str, str, str]] = []
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, str):
            if problem := _text_problem(value):
                problems.append((pointer or "/", *problem))
        elif isinstance(value, dict):
            for key in getattr(value, "duplicates", ()):
                problems.append((f"{pointer}/{pointer_token(key)}", DUPLICATE_MESSAGE, "duplicate_key"))
            for key, item in value.items():
                child = f"{pointer}/{pointer_token(key)}"
                if problem := _text_problem(key):
                    problems.append((child, *problem))
                stack.append((child, item))
        elif isinstance(value, list):
            stack.extend((f"{pointer}/{index}", item) for index, item in enumerate(value))
    return sorted(problems)


def json_loads_checked(text: str) -> Any:
    """`text` decoded as a body is (a query parameter that holds JSON, such as `metadata`): `ValueError` for text
    that is not JSON, `UnacceptableJson` for a key given twice or a NUL in any string."""
    document = json.loads(text, object_pairs_hook=_object)
    problems = unacceptable_json(document)
    if problems:
        raise UnacceptableJson(problems)
    return plain(document)


def plain(value: Any) -> Any:
    """`value` with every decoded object a plain `dict` again (what serializers and `JSONField`s expect)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in `text`, counted without decoding (and without recursion).

    Brackets inside strings do not count. On text that is not JSON the count may be off, which only matters
    for a body the decoder refuses anyway.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def json_depth_exceeds(text: str, *, limit: int) -> bool:
    """Whether `text` nests deeper than `limit`; cheap for the usual text, which has few brackets."""
    return text.count("[") + text.count("{") > limit and json_depth(text) > limit


def require_json_depth(text: str, *, limit: int) -> None:
    """Refuse a body that nests deeper than `limit`."""
    if json_depth_exceeds(text, limit=limit):
        raise JsonTooDeep(f"The JSON body is nested more than {limit} levels deep.", pointer="/")


def _text_encoding(parser_context: Mapping[str, Any]) -> str:
    """The body's charset; a bytes-to-bytes codec (`bz2_codec`) is refused: it would expand the body past the
    size limit after the limit was checked."""
    encoding: str = parser_context.get("encoding") or settings.DEFAULT_CHARSET
    try:
        "".encode(encoding)  # str.encode accepts text encodings only
    except (LookupError, UnicodeError) as exc:
        raise ParseError(f'Unsupported charset "{encoding}" in request Content-Type header.') from exc
    return encoding


class BoundedJSONParser(JSONParser):
    """`application/json` bodies: decoded as DRF decodes them, after the depth check."""

    def parse(
        self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        encoding = _text_encoding(parser_context or {})
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode(encoding)
        except UnicodeError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        require_json_depth(text, limit=settings.API_MAX_JSON_DEPTH)
        try:
            document = json.loads(
                text, parse_constant=json.strict_constant if self.strict else None, object_pairs_hook=_object
            )
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        problems = unacceptable_json(document)
        if problems:
            raise UnacceptableJson(problems)
        return plain(document)
