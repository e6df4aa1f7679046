"""What a payment link's page may show of the merchant: the one place its branding is bounded.

The page is this server's, shown under its origin, so nothing the merchant sends may become markup, script or a
request to somewhere unexpected: a colour is a plain `#rrggbb`, every URL is https to a public host name (no
credentials, no IP address, no control characters), a message is plain text on one or more lines. The page's
content security policy (`paymentlinks.page`) allows images only from the hosts of the URLs kept here.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2000
_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_HOSTNAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]")


class BrandingError(ValueError):
    """A branding value the page cannot show safely; its message says why, for the API's 400."""


def color_clean(value: str) -> str:
    """`#rrggbb` in lower case (a three-digit `#rgb` is spelled out); anything else is refused."""
    if not _COLOR.fullmatch(value):
        raise BrandingError("Must be a colour as #rrggbb or #rgb.")
    digits = value[1:].lower()
    return "#" + (digits if len(digits) == 6 else "".join(c * 2 for c in digits))


def url_clean(value: str) -> str:
    """An https URL to a public host name, as sent; refused when it could be anything else."""
    if len(value) > MAX_URL_LENGTH:
        raise BrandingError(f"Must be at most {MAX_URL_LENGTH} characters.")
    if any(unicodedata.category(c)[0] in "CZ" for c in value):
        raise BrandingError("Must be a URL without spaces or control characters.")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (a port that is no number raises here)
    except ValueError:
        raise BrandingError("Must be a URL.") from None
    if parts.scheme != "https":
        raise BrandingError("Must be an https URL.")
    if parts.username is not None or parts.password is not None:
        raise BrandingError("Must not carry credentials.")
    if not _HOSTNAME.fullmatch(parts.hostname or ""):
        raise BrandingError("Must name a public host (no IP address, no local name).")
    return value


def message_clean(value: str) -> str:
    """Plain text: line breaks are kept (the page shows them), other control characters are refused."""
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in value):
        raise BrandingError("Must be plain text without control characters.")
    return value


def url_host(value: str | None) -> str | None:
    """The `https://host[:port]` a checked URL loads from (for the page's content security policy)."""
    if not value:
        return None
    parts = urlsplit(value)
    return f"https://{parts.netloc}"
