"""Adyen's library, sending through the processors' kept session (paymentservices/processors/sessions.py).

The library's own HTTP client calls `requests.request`, which makes a session for the one call and closes it: every
call to Adyen opened a new connection (and TLS handshake) and read the environment again.
"""

from __future__ import annotations

from typing import Any

import requests
from Adyen import AdyenClient
from Adyen.httpclient import HTTPClient

from paymentservices.processors.sessions import proxy_known, thread_session


class SessionHTTPClient(HTTPClient):  # type: ignore[misc] # the library is untyped
    """The library's `requests` client, with the call sent on the thread's kept session."""

    def _requests_request(
        self,
        method: str,
        url: str,
        json: Any = None,
        data: Any = None,
        username: str = "",
        password: str = "",
        xapikey: str = "",
        headers: dict[str, str] | None = None,
    ) -> tuple[str, Any, int, Any]:
        # What the library's own does (basic auth or the API key, its User-Agent), then the kept session's call.
        headers = dict(headers or {})
        auth = requests.auth.HTTPBasicAuth(username, password) if username and password else None
        if auth is None and xapikey:
            headers["x-api-key"] = xapikey
        headers["User-Agent"] = self.user_agent
        session = thread_session("adyen")
        proxy_known(session, url)
        response = session.request(
            method=method, url=url, auth=auth, data=data, json=json, headers=headers, timeout=self.timeout
        )
        return response.text, json, response.status_code, response.headers


class SessionClient(AdyenClient):  # type: ignore[misc] # the library is untyped
    """Adyen's client, with `SessionHTTPClient` in place of the library's HTTP client."""

    def _init_http_client(self) -> None:
        suffix = self.USER_AGENT_SUFFIX
        if self.application_name:
            suffix = f"{self.application_name} {suffix}"
        self.http_client = SessionHTTPClient(
            user_agent_suffix=suffix, lib_version=self.LIB_VERSION, force_request="requests", timeout=self.http_timeout
        )
        self.http_init = True
