"""The API's JSON renderer: DRF's `JSONRenderer` output, byte for byte, written by orjson.

DRF renders with the standard library's encoder (compact separators, UTF-8 rather than `\\u` escapes, U+2028 and
U+2029 escaped for JavaScript); orjson writes the same text several times faster. What orjson does not know
(Decimal, lazy translations, anything else DRF's encoder handles) goes through DRF's own encoder, and whatever orjson
refuses (an integer beyond 64 bits, an indented answer asked for in `Accept`) is rendered by DRF itself.
"""

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_default = JSONEncoder().default
# Dates, times and dataclasses as DRF writes them (`Z` for UTC, not orjson's `+00:00`), through its encoder.
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
# What DRF's renderer escapes after encoding: valid JSON, but line breaks in JavaScript before ES2019.
_ESCAPES = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


def render_json(data: Any) -> bytes:
    """`data` as the API's JSON text (what DRF's compact `JSONRenderer` would write)."""
    try:
        text = orjson.dumps(data, default=_default, option=_OPTIONS)
    except orjson.JSONEncodeError:
        return JSONRenderer().render(data)
    for raw, escaped in _ESCAPES:
        if raw in text:
            text = text.replace(raw, escaped)
    return text


class FastJSONRenderer(JSONRenderer):
    """`application/json` answers written by orjson (`render_json`)."""

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        return render_json(data)
