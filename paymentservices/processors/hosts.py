"""Where a connector may send a request: its processor's own domains, or exactly the API base the operator configured
(`STRIPE_API_BASE`, `ADYEN_API_BASE`: the tests point them at their doubles). Each connector asks `url_allowed`
before it sends anything, so a value that made its way into a URL (a credential stored before its field had a rule,
a row written past the services) can never send a request, with its API key and card data, anywhere else.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, unquote, urlsplit

# A host name as DNS writes it, lower case: nothing that could end the host early or change how it is read.
_HOST_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?", flags=re.ASCII)


def url_allowed(url: str, *, domains: tuple[str, ...], configured: str = "") -> bool:
    """Whether `url` is under the operator's `configured` base (scheme, host and port as given, and its path), or an
    `https` URL (default port, no user information) whose host is one of `domains` or a name under one of them. A
    path with a dot segment (`.` or `..`, percent-encoded too) is never allowed: the host, or a client normalising
    it, would read it as another path than the one checked."""
    if not url.isascii() or not url.isprintable() or any(c in url for c in " \\"):
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if _has_dot_segment(parts.path):
        return False
    if configured and _under(parts, configured):
        return True
    host = parts.hostname or ""
    if parts.scheme != "https" or port not in (None, 443) or parts.username is not None or parts.password is not None:
        return False
    if parts.netloc.lower() not in (host, f"{host}:443") or _HOST_NAME.fullmatch(host) is None or ".." in host:
        return False
    return any(host == domain or host.endswith("." + domain) for domain in domains)


def _has_dot_segment(path: str) -> bool:
    """Whether a segment of `path` is `.` or `..` once percent-decoded (as often as it decodes: `%252e` too; an
    encoded `/` splits segments as a host decoding it would)."""
    decoded = path
    for _ in range(4):
        decoded, previous = unquote(decoded), decoded
        if decoded == previous:
            break
    else:
        return True  # encoded more deeply than any real path is: refused rather than guessed at
    return any(segment in (".", "..") for segment in decoded.split("/"))


def _under(parts: SplitResult, configured: str) -> bool:
    """Whether the parsed URL is the configured base or below it: scheme and host with port compared as parsed, the
    path segment by segment (`/reports` does not cover `/reports-internal`)."""
    try:
        base = urlsplit(configured.rstrip("/"))
    except ValueError:
        return False
    if (parts.scheme, parts.netloc.lower()) != (base.scheme, base.netloc.lower()):
        return False
    return parts.path == base.path or parts.path.startswith(base.path + "/")
