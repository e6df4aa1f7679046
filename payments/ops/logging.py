"""Log filters and formatters: card numbers masked, database rows withheld and raw paths replaced on every record,
JSON lines for log collectors."""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from django.http import HttpRequest

from payments.database_detail import withhold_database_detail
from payments.middleware.routes import UNMATCHED, loggable_route, route_template
from payments.vault.masking import mask_card_numbers


def _render_message(record: logging.LogRecord) -> str:
    """Return the record's formatted message, falling back to a plain rendering when its arguments do not fit."""
    try:
        return record.getMessage()
    except Exception:
        # A format string that does not match its arguments must still not let those arguments out unmasked.
        return f"{record.msg} {record.args!r}"


class _RewritingFilter(logging.Filter):
    """Rewrites a record's message (its arguments rendered into it), exception text and stack text in place, so no
    handler can render what the rewriting takes out; never drops a record."""

    def rewriter(self, record: logging.LogRecord) -> Callable[[str], str]:
        """How to rewrite each text of `record`, decided before anything of it changes."""
        raise NotImplementedError

    def filter(self, record: logging.LogRecord) -> bool:
        rewrite = self.rewriter(record)
        # Formatting first means values passed as arguments, even inside containers, are rewritten too.
        record.msg = rewrite(_render_message(record))
        record.args = ()
        if record.exc_info and not record.exc_text:
            # Formatters reuse a cached exc_text, so rendering the traceback here keeps them from rebuilding it raw.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = rewrite(record.exc_text)
        if record.stack_info:
            record.stack_info = rewrite(record.stack_info)
        return True


class CardDataMaskingFilter(_RewritingFilter):
    """Masks card numbers in a record's message, arguments, exception text and stack text."""

    def rewriter(self, record: logging.LogRecord) -> Callable[[str], str]:
        return mask_card_numbers


def _errors_of(record: logging.LogRecord) -> list[BaseException]:
    """The exceptions a record carries: its exc_info, and any passed as the message or as an argument."""
    args = record.args.values() if isinstance(record.args, Mapping) else record.args or ()
    candidates = [record.msg, *args, record.exc_info[1] if record.exc_info else None]
    return [candidate for candidate in candidates if isinstance(candidate, BaseException)]


class DatabaseDetailFilter(_RewritingFilter):
    """Withholds what a database error quotes (PostgreSQL's DETAIL: the failing row) from a record's message,
    arguments, exception text and stack text; the error's message, naming its table and constraint, stays.

    Runs before any filter that renders the message: the exceptions among the arguments are read here.
    """

    def rewriter(self, record: logging.LogRecord) -> Callable[[str], str]:
        return functools.partial(withhold_database_detail, errors=_errors_of(record))


class RequestPathFilter(logging.Filter):
    """Names the route template instead of the raw path on records that carry the request.

    Django's `django.request` and `django.security` lines (`Not Found: /checkout/sessions/<id>/fields`) quote
    `request.path`, and a path can hold a credential: the Secure Fields URL carries the checkout session id.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the path in `record`'s arguments and message in place; never drops a record."""
        request = getattr(record, "request", None)
        if not isinstance(request, HttpRequest) or request.path in ("", "/"):
            return True
        path, route = request.path, loggable_route(request)
        # Django escapes the arguments it logs (`\x00` for a NUL byte), so the escaped path is replaced too.
        quoted = {path, path.encode("unicode_escape").decode("ascii")}
        if isinstance(record.args, tuple):
            record.args = tuple(route if isinstance(arg, str) and arg in quoted else arg for arg in record.args)
        if isinstance(record.msg, str):
            for text in quoted:
                record.msg = record.msg.replace(text, route)
        return True


# A path in a development server line: after a space, a quote or the line's start (never the `/1.1` of `HTTP/1.1`),
# with its query string.
_LOGGED_PATH = re.compile(r"(?:(?<=[\s\"'(])|^)/[^\s\"']*")


def path_route(path: str) -> str:
    """The route template of a raw request target (`/checkout/sessions/<id>/fields?x=1`), query dropped; what
    logs name for a path that matches no route, or that cannot be resolved."""
    from django.urls import Resolver404, resolve

    try:
        return route_template(str(resolve(path.split("?", 1)[0].split("#", 1)[0]).route))
    except (Resolver404, ValueError, TypeError):
        return UNMATCHED


class DevServerRequestFilter(logging.Filter):
    """Names route templates instead of raw paths in the development server's lines (`django.server`).

    `manage.py runserver` (what `make run` starts) logs each request line it answers with a 4xx or 5xx as it
    came, `"PUT /checkout/sessions/<id>/fields HTTP/1.1" 404 ...`: the Secure Fields URL carries the session id,
    the endpoint's credential, and a query string can carry anything. Its records carry the socket, not Django's
    request, so `RequestPathFilter` cannot tell the route: each path in the line is resolved here instead, and the
    line reads like the access log's (`PUT /checkout/sessions/{session_id}/fields`).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite `record`'s message in place; never drops a record."""
        if record.name != "django.server":
            return True
        message = _render_message(record)
        record.msg = _LOGGED_PATH.sub(lambda match: path_route(match.group(0)), message)
        record.args = ()
        return True


# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
# Set by other filters and formatters, or objects whose repr could carry secrets (Django's `request`).
_NOT_FIELDS = frozenset({"request", "request_id"})
_JSON_SCALARS = (str, int, float, bool, type(None))


def _redacted(text: str, errors: list[BaseException] | None = None) -> str:
    """`text` with card numbers masked and what database errors quote withheld, as the filters leave it."""
    return mask_card_numbers(withhold_database_detail(text, errors or ()))


def _masked(value: object) -> object:
    """Return `value` with every string it contains `_redacted`."""
    if isinstance(value, str):
        return _redacted(value)
    if isinstance(value, dict):
        return {str(key): _masked(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_masked(item) for item in value]
    return value


def _is_json_value(value: object) -> bool:
    if isinstance(value, dict):
        return all(_is_json_value(item) for item in value.values())
    if isinstance(value, list | tuple):
        return all(_is_json_value(item) for item in value)
    return isinstance(value, _JSON_SCALARS)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, message, then the record's `extra=` fields.

    Only plain JSON values from `extra=` are kept (never an object's repr), and card numbers are masked and
    database detail withheld in them, in the message and in the exception, as the filters do.
    """

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", None),
            "message": _redacted(record.getMessage()),
        }
        for name, value in vars(record).items():
            if name not in _RECORD_ATTRIBUTES and name not in _NOT_FIELDS and _is_json_value(value):
                entry[name] = _masked(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = _redacted(record.exc_text, _errors_of(record))
        if record.stack_info:
            entry["stack"] = _redacted(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """ISO 8601 in UTC with milliseconds, whatever the server's time zone."""
        return datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds")
