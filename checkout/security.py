"""Origins and Content Security Policy for the pages the checkout app serves to browsers.

Origins end up inside CSP headers and `postMessage` target checks, so every one is rebuilt from its
parsed parts: a value that is not a plain `scheme://host[:port]` is refused rather than passed through.
"""

import re
import secrets
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest

_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOSTNAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")
_IPV6 = re.compile(r"[0-9a-f:.]+")
# The two names of the loopback interface: the demo serves its page on one and Secure Fields on the other.
_LOOPBACK_TWINS = {"localhost": "127.0.0.1", "127.0.0.1": "localhost"}


def normalise_origin(value: object) -> str | None:
    """`scheme://host[:port]` (lower case, default port dropped) for an http(s) origin; None for anything else.

    A bare origin may end with one `/`; paths, queries, fragments and credentials are refused, because a
    browser's `location.origin` never carries them.
    """
    if not isinstance(value, str) or len(value) > 300:
        return None
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    if (
        parts.scheme not in _DEFAULT_PORTS
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
        or "?" in value
        or "#" in value
    ):
        return None
    if _HOSTNAME.fullmatch(host):
        netloc = host
    elif ":" in host and _IPV6.fullmatch(host):
        netloc = f"[{host}]"
    else:
        return None
    if port is not None and port != _DEFAULT_PORTS[parts.scheme]:
        netloc = f"{netloc}:{port}"
    return f"{parts.scheme}://{netloc}"


def normalise_origins(values: object) -> list[str]:
    """The valid origins of a merchant account's `allowed_origins`, normalised, without duplicates, in order."""
    if not isinstance(values, list):
        return []
    return list(dict.fromkeys(origin for origin in map(normalise_origin, values) if origin))


def request_origin(request: HttpRequest) -> str:
    """The origin this request was sent to (the host is already checked against ALLOWED_HOSTS)."""
    origin = normalise_origin(f"{request.scheme}://{request.get_host()}")
    if origin is None:  # a host ALLOWED_HOSTS let through but that is no plain host name (e.g. `*`)
        raise ValueError(f"Cannot derive an origin from host {request.get_host()!r}.")
    return origin


def secure_fields_origin(request: HttpRequest) -> str:
    """Where Secure Fields frames are served from: `SECURE_FIELDS_ORIGIN`, else the origin of this request."""
    return normalise_origin(settings.SECURE_FIELDS_ORIGIN) or request_origin(request)


def demo_api_origin(request: HttpRequest) -> str:
    """The API origin for the demo page: `SECURE_FIELDS_ORIGIN`, else the other loopback name on the same port.

    A page on `localhost:8000` gets `127.0.0.1:8000` and the reverse, so the card fields are cross-origin
    even on a laptop. Any other host name keeps its own origin (set SECURE_FIELDS_ORIGIN there).
    """
    configured = normalise_origin(settings.SECURE_FIELDS_ORIGIN)
    if configured:
        return configured
    parts = urlsplit(request_origin(request))
    twin = _LOOPBACK_TWINS.get(parts.hostname or "")
    if twin is None:
        return request_origin(request)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{twin}{port}"


def new_nonce() -> str:
    """A fresh CSP nonce: 128 random bits, base64url (a valid CSP `nonce-` value)."""
    return secrets.token_urlsafe(16)


def content_security_policy(directives: Mapping[str, Iterable[str]]) -> str:
    """Join directives into a header value; each source list must be non-empty (CSP has no empty list)."""
    parts = []
    for name, sources in directives.items():
        sources = list(sources)
        if not sources:
            raise ValueError(f"CSP directive {name} needs at least one source ('none' to allow nothing).")
        parts.append(" ".join([name, *sources]))
    return "; ".join(parts)


def secure_field_frame_policy(*, nonce: str, frame_ancestors: Iterable[str]) -> str:
    """CSP for a Secure Fields frame: own scripts and one same-origin PUT, framed only by `frame_ancestors`."""
    return content_security_policy(
        {
            "default-src": ["'none'"],
            "script-src": ["'self'", f"'nonce-{nonce}'"],
            "style-src": [f"'nonce-{nonce}'"],
            "connect-src": ["'self'"],
            "img-src": ["'self'", "data:"],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
            "frame-ancestors": frame_ancestors,
        }
    )


def demo_page_policy(*, nonce: str, api_origin: str) -> str:
    """CSP for the demo merchant page: its own inline code by nonce; scripts, styles, frames and calls to the API."""
    return content_security_policy(
        {
            "default-src": ["'none'"],
            "script-src": [f"'nonce-{nonce}'", api_origin],
            "style-src": [f"'nonce-{nonce}'", api_origin],
            "frame-src": [api_origin],
            "connect-src": [api_origin],
            "img-src": ["'self'", "data:"],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
            "frame-ancestors": ["'none'"],
        }
    )


def approval_complete_policy(*, nonce: str, parent_origin: str) -> str:
    """CSP for the page that ends a challenge inside Embed: one inline script by nonce, framed only by the drop-in's
    page (`parent_origin`), the one origin it posts its message to."""
    return content_security_policy(
        {
            "default-src": ["'none'"],
            "script-src": [f"'nonce-{nonce}'"],
            "style-src": [f"'nonce-{nonce}'"],
            "base-uri": ["'none'"],
            "form-action": ["'none'"],
            "frame-ancestors": [parent_origin],
        }
    )
