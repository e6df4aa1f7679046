"""The HTTP sessions the processors' libraries send through (Stripe's, Adyen's and PayPal's, all on `requests`).

One per library, thread and process: its pool keeps the connections to a processor open from one call, and one
payment, to the next, so a call pays no TCP (or TLS) handshake. One per library, since a library may set its
session's adapters as it likes (PayPal's can set their retries per call); one per thread, since a `requests.Session`
is not promised to be thread-safe; one per process, so a forked worker never writes on its parent's sockets.

It does not read the environment on each call, as `requests` does by default: every variable scanned for a proxy, and
`~/.netrc` for a password, about a tenth of a Stripe payment's CPU. A host's proxy is read once instead
(`proxy_known`); a `.netrc` password would only have replaced the credential the library sends.
"""

from __future__ import annotations

import os
import threading
from typing import cast
from urllib.parse import urlsplit

import requests

_sessions = threading.local()


def thread_session(library: str) -> requests.Session:
    """This thread's session for one library's calls (`stripe`, `adyen`, `paypal`)."""
    if getattr(_sessions, "pid", None) != os.getpid():
        _sessions.by_library = {}
        _sessions.pid = os.getpid()
    by_library = cast(dict[str, requests.Session], _sessions.by_library)
    if library not in by_library:
        session = by_library[library] = requests.Session()
        session.trust_env = False
    return by_library[library]


def proxy_known(session: requests.Session, url: str) -> None:
    """The proxy the environment names for `url`'s host (HTTPS_PROXY, ALL_PROXY, and NO_PROXY's exceptions, as
    requests reads them), kept in `session`'s own proxies under that host, which requests looks at first: an empty
    one (none named, or the host is an exception) connects directly."""
    parts = urlsplit(url)
    host = f"{parts.scheme}://{parts.hostname}"
    if host not in session.proxies:
        session.proxies[host] = requests.utils.select_proxy(url, requests.utils.get_environ_proxies(url)) or ""
