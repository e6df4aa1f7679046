"""Stripe's answers lost on the way back: the kept session's read times out below the library, which turns it into the
error it raises for a lost answer (as it would for a real timeout), so the connector meets what it meets in
production."""

from __future__ import annotations

from fnmatch import fnmatchcase
from urllib.parse import urlsplit

import pytest
import requests

from paymentservices.processors.sessions import thread_session


def answers_lost(monkeypatch: pytest.MonkeyPatch, *calls: tuple[str, str], acted: bool = True) -> None:
    """The answer to each of these calls (method, path; `*` matches any part, as in `/v1/payment_intents/*/capture`)
    never comes. Stripe acted on the call first, unless `acted` is False. `monkeypatch.undo()` lets answers through."""
    session = thread_session("stripe")
    send = session.request

    def request(method, url, *args, **kwargs):  # type: ignore[no-untyped-def]
        path = urlsplit(url).path
        if not any(method.upper() == lost and fnmatchcase(path, pattern) for lost, pattern in calls):
            return send(method, url, *args, **kwargs)
        if acted:
            send(method, url, *args, **kwargs)
        raise requests.exceptions.ReadTimeout("read timed out")

    monkeypatch.setattr(session, "request", request)
