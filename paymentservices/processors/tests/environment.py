"""What the processors' HTTP session reads of the process's environment."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from paymentservices.processors.sessions import thread_session


def environment_reads(monkeypatch: pytest.MonkeyPatch, library: str) -> list[str]:
    """The URLs whose proxy `requests` looks up in the environment from now on, starting from a session of `library`
    that has read none."""
    reads: list[str] = []
    original = requests.utils.get_environ_proxies

    def spy(url: str, no_proxy: Any = None) -> Any:
        reads.append(url)
        return original(url, no_proxy=no_proxy)

    # requests' sessions read it through their own name for it, when they trust the environment
    monkeypatch.setattr(requests.utils, "get_environ_proxies", spy)
    monkeypatch.setattr(requests.sessions, "get_environ_proxies", spy)
    thread_session(library).proxies.clear()
    return reads
