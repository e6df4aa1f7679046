"""Downloading a report Adyen announced (REPORT_AVAILABLE) with the report user's API key.

Adyen serves report files from its Customer Area hosts, `ca-test.adyen.com` and `ca-live.adyen.com`; a URL anywhere
else (or under the operator's REPORT_BASE, exactly as configured) is never kept nor fetched (`report_url_allowed`,
asked before the URL is stored and again before it is used). Adyen's library has no report operation, so the download
is one GET on the session Adyen's calls share (paymentservices/processors/sessions.py: the environment's proxy read
once, `~/.netrc` never), with the key in the `X-API-Key` header as Adyen's report download takes it, and redirects
refused: a redirect would carry the key to a host nobody checked.
"""

from __future__ import annotations

import requests

from paymentservices.processors.config import processor_settings
from paymentservices.processors.hosts import url_allowed
from paymentservices.processors.sessions import proxy_known, thread_session

REPORT_DOMAINS = ("ca-test.adyen.com", "ca-live.adyen.com")


class ReportUnread(Exception):
    """The report was not downloaded: the message says why, safe to show (never the key)."""


def report_url_allowed(url: str) -> bool:
    return url_allowed(url, domains=REPORT_DOMAINS, configured=processor_settings("adyen").get("REPORT_BASE", ""))


def report_download(*, url: str, api_key: str) -> bytes:
    """The report's bytes, or `ReportUnread`."""
    if not report_url_allowed(url):
        raise ReportUnread("The report URL is not on Adyen's report hosts; nothing was sent.")
    session = thread_session("adyen")
    proxy_known(session, url)
    try:
        response = session.get(
            url,
            headers={"X-API-Key": api_key},
            timeout=processor_settings("adyen")["TIMEOUT_SECONDS"],
            allow_redirects=False,
        )
    except requests.RequestException as error:
        raise ReportUnread(f"Adyen's report host did not answer ({type(error).__name__}).") from None
    if response.status_code != 200:
        raise ReportUnread(f"Adyen's report host answered {response.status_code}, not the report.")
    return response.content
