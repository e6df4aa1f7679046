"""Where a connector may send a request: its processor's own domains, or exactly the API base the operator configured
(`STRIPE_API_BASE`, `ADYEN_API_BASE`: the tests point them at their doubles). Each connector asks `url_allowed`
before it sends anything, so a value that made its way into a URL (a credential stored before its field had a rule,
a row written past the services) can never send a request, with its API key and card data, anywhere else.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# A host name as DNS writes it, lower case: nothing that could end the host early or change how it is read.
_HOST_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?", flags=re.ASCII)


def url_allowed(url: str, *, domains: tuple[str, ...], configured: str = "") -> bool:
    """Whether `url` is under the operator's `configured` base (scheme, host and port as given), or an `https` URL
    (default port, no user information) whose host is one of `domains` or a name under one of them."""
    if not url.isascii() or not url.isprintable() or any(c in url for c in " \\"):
        return False
    if configured and (url == configured.rstrip("/") or url.startswith(configured.rstrip("/") + "/")):
        return True
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = parts.hostname or ""
    if parts.scheme != "https" or port not in (None, 443) or parts.username is not None or parts.password is not None:
        return False
    if parts.netloc.lower() not in (host, f"{host}:443") or _HOST_NAME.fullmatch(host) is None or ".." in host:
        return False
    return any(host == domain or host.endswith("." + domain) for domain in domains)
