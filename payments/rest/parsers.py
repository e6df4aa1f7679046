"""The API's body parser: DRF's strict JSON, refusing documents nested deeper than `API_MAX_JSON_DEPTH`.

Python's decoder recurses once per nesting level, so a body of 100,000 `[` (200 KB, well under the size limit)
raises `RecursionError` deep inside it. The depth is measured before decoding, without recursion, and a body
that is too deep is a 400 naming the body, like any other body the API cannot take.
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

from payments.errors import DomainError

# A JSON string (escapes included), so brackets inside strings are not counted; then the brackets themselves.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JsonTooDeep(DomainError):
    """The body nests arrays and objects deeper than the API accepts."""


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
            return json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
