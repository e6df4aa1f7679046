"""The suite's log scan: every log line every test writes is checked for every credential the tests used.

The root conftest installs one `LogScan` for the whole session. It

- keeps each record as the project's handler writes it (the console handler's own filters: request id, raw
  paths replaced by route templates, card numbers masked), in the plain and the JSON format;
- learns the credentials as the tests make them: every token signed (`jwt.encode`, which both our minting and
  the official SDK call), every checkout session created, every gift card number and PIN issued, every card
  number sealed in the vault, every secret payment service credential sealed, and the sandbox's test card numbers;
- at the end of the session, fails if any line holds any of them, or holds a database row: what PostgreSQL's
  errors quote (`DETAIL:  Failing row contains (...)`, `Key (...)=(...)`), which the logging withholds
  (`payments.database_detail`).

A credential made only of digits (a PIN, a card number) counts only as a whole run of characters: `12345678`
inside a longer id or number is not that PIN. Security codes (3 or 4 digits) cannot be told from any other
number in a line, so they are not scanned; they never reach a log by construction (docs/card-data.md).
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import jwt
import pytest
from django.db.models.signals import post_save

from payments.ops.logging import JsonFormatter

PLAIN = logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
JSON = JsonFormatter()
# Shorter values (a 3-digit code, an empty signature) would match by chance; no credential made here is this short.
MIN_LENGTH = 8
# A database error's quote of its data: the field PostgreSQL adds (also inside a JSON line, after an escaped
# newline), or the words it quotes a row or a key with.
DATABASE_ROW = re.compile(r"(?:^|\\n)\s*(?:DETAIL|CONTEXT):  |Failing row contains \(|\bKey \([^)]*\)=\(")


@dataclass(frozen=True)
class Leak:
    """A credential found in a line: which test wrote the line, what kind of credential, and the line."""

    test: str
    kind: str
    credential: str
    line: str

    def __str__(self) -> str:
        shown = self.credential[:4] + "…" + self.credential[-4:]
        return f"{self.test}: a {self.kind} ({shown}) in: {self.line[:300]}"


def find_leaks(lines: Iterable[tuple[str, str]], credentials: dict[str, str]) -> list[Leak]:
    """Each credential (value -> kind) found in `lines` ((test, text) pairs), at most once per credential."""
    lines = list(lines)
    text = "\n".join(line for _, line in lines)
    starts, offset = [], 0
    for _, line in lines:
        starts.append(offset)
        offset += len(line) + 1
    leaks = []
    for value, kind in credentials.items():
        index = _find(text, value)
        if index is not None:
            number = bisect.bisect_right(starts, index) - 1
            test, line = lines[number]
            leaks.append(Leak(test, kind, value, line))
    return leaks


def find_database_rows(lines: Iterable[tuple[str, str]]) -> list[Leak]:
    """Each line of `lines` ((test, text) pairs) that quotes a database row."""
    leaks = []
    for test, line in lines:
        match = DATABASE_ROW.search(line)
        if match is not None:
            leaks.append(Leak(test, "database row", match.group(0).strip() or line, line))
    return leaks


def _find(text: str, value: str) -> int | None:
    index = text.find(value)
    while index != -1:
        if not value.isdigit() or _whole(text, index, index + len(value)):
            return index
        index = text.find(value, index + 1)
    return None


def _whole(text: str, start: int, end: int) -> bool:
    """True when the digits at text[start:end] are not part of a longer run of letters and digits."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not before.isalnum() and not after.isalnum()


class _CaptureHandler(logging.Handler):
    def __init__(self, scan: LogScan) -> None:
        super().__init__(level=logging.NOTSET)
        self.scan = scan

    def emit(self, record: logging.LogRecord) -> None:
        try:
            rendered = f"{PLAIN.format(record)}\n{JSON.format(record)}"
        except Exception:  # a record that cannot be rendered is kept raw, so it is still scanned
            rendered = f"{record.msg!r} {record.args!r}"
        for line in rendered.splitlines():
            self.scan.lines.append((self.scan.test, line))


class LogScan:
    """The session's log lines and credentials (see the module docstring)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []
        self.credentials: dict[str, str] = {}
        self.test = "(session)"
        self.handler = _CaptureHandler(self)

    # --- credentials ---

    def remember(self, kind: str, value: object) -> None:
        """Count `value` as a credential from now on (too short a value would match by chance: skipped)."""
        text = str(value) if value is not None else ""
        if len(text) >= MIN_LENGTH:
            self.credentials.setdefault(text, kind)

    def remember_token(self, token: str) -> None:
        # The signature is what makes a token usable; a line holding it holds the token.
        self.remember("bearer token", token.rsplit(".", 1)[-1])

    # --- lines ---

    def attach(self) -> None:
        """Put the handler on the root logger, with the filters the project's handler has (once)."""
        root = logging.getLogger()
        if self.handler in root.handlers:
            return
        self.handler.filters = [f for h in root.handlers if h is not self.handler for f in h.filters] or []
        root.addHandler(self.handler)

    def add_lines(self, lines: Iterable[str], *, source: str) -> None:
        """Lines written elsewhere (a server process the test started) join the scan."""
        self.lines.extend((f"{self.test} [{source}]", line) for line in lines)

    def forget_test_lines(self, test: str) -> None:
        """Drop what one test wrote (the scan's own test plants leaks on purpose)."""
        self.lines = [(name, line) for name, line in self.lines if not name.startswith(test)]

    def leaks(self, *, test: str = "") -> list[Leak]:
        """What the lines hold; only those one test wrote when `test` names it (a scan of the whole session's lines
        at the end of a long run takes a minute)."""
        lines = [(name, line) for name, line in self.lines if name.startswith(test)] if test else self.lines
        return find_leaks(lines, self.credentials) + find_database_rows(lines)

    def report(self) -> None:
        """Fail when any line holds a credential or a database row."""
        leaks = self.leaks()
        if leaks:
            shown = "\n".join(str(leak) for leak in leaks[:20])
            pytest.fail(f"{len(leaks)} credential(s) or database row(s) written to the logs:\n{shown}", pytrace=False)

    # --- learning credentials as the tests make them ---

    @contextmanager
    def learning(self) -> Iterator[None]:
        """Wrap the places credentials are made, for as long as the session runs."""
        from checkout.models import CheckoutSession
        from giftcards import services as giftcard_services
        from payments.vault import services as vault_services
        from paymentservices import services as payment_service_services
        from paymentservices.processors.sandbox import TEST_CARDS

        for number in TEST_CARDS:
            self.remember("test card number", number)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jwt, "encode", self._wrap(jwt.encode, self._signed))
            patch.setattr(giftcard_services, "_issue", self._wrap(giftcard_services._issue, self._issued))
            patch.setattr(vault_services, "_seal", self._wrap(vault_services._seal, self._sealed))
            patch.setattr(
                payment_service_services, "_seal", self._wrap(payment_service_services._seal, self._credentials)
            )
            post_save.connect(self._session_saved, sender=CheckoutSession, dispatch_uid="tests.logscan")
            try:
                yield
            finally:
                post_save.disconnect(sender=CheckoutSession, dispatch_uid="tests.logscan")

    @staticmethod
    def _wrap(function: Callable[..., Any], learn: Callable[[Any, tuple, dict], None]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = function(*args, **kwargs)
            learn(result, args, kwargs)
            return result

        return wrapper

    def _signed(self, token: Any, args: tuple, kwargs: dict) -> None:
        self.remember_token(token)

    def _issued(self, secrets: Any, args: tuple, kwargs: dict) -> None:
        for secret in secrets:
            self.remember("gift card number", secret.number)
            self.remember("gift card PIN", secret.pin)

    def _sealed(self, result: Any, args: tuple, kwargs: dict) -> None:
        self.remember("card number", kwargs.get("number"))

    def _credentials(self, result: Any, args: tuple, kwargs: dict) -> None:
        _service, definition, values = args
        for field in definition.fields:
            if field.secret and values.get(field.key):
                self.remember("payment service credential", values[field.key])

    def _session_saved(self, sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
        if created:
            self.remember("checkout session id", instance.pk)
            self.remember("checkout session id", instance.pk.hex)
