"""What the proxy in front says about a request (`X-Forwarded-For`, `-Proto`), believed only from that proxy.

Behind nginx (config/nginx.conf) every connection comes from the proxy, so the admin sign-in limit
(payments/ratelimits/logins.py) and a transaction's `ip_address` would all see one address. nginx hands the
client's address on in `X-Forwarded-For`; a client can send that header too, so it is believed only from the
addresses in `FORWARDED_ALLOW_IPS` (the setting gunicorn reads for `X-Forwarded-Proto`, one list for both).
Everything that reads `REMOTE_ADDR` after this middleware reads the client's address.

`X-Forwarded-Proto` decides whether Django takes a request as HTTPS (`SECURE_PROXY_SSL_HEADER`). gunicorn ignores
it from an untrusted peer for its own scheme but still hands it to the application, where Django would believe
it: from any address but the proxy's, both headers are removed here, before SecurityMiddleware reads them.
"""

from __future__ import annotations

import ipaddress
from functools import cache

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from payments.middleware import GetResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def trusted_proxies(allowed: str) -> tuple[Network, ...] | None:
    """`FORWARDED_ALLOW_IPS` as networks (addresses or CIDR ranges, comma separated); None for `*` (any)."""
    entries = [entry.strip() for entry in allowed.split(",") if entry.strip()]
    if "*" in entries:
        return None
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _parse(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.strip())
    except ValueError:
        return None


def _is_trusted(address: str, proxies: tuple[Network, ...] | None) -> bool:
    if proxies is None:
        return True
    parsed = _parse(address)
    return parsed is not None and any(parsed in network for network in proxies)


def client_address(remote_addr: str, forwarded_for: str, allowed: str) -> str:
    """The client's address: walking `X-Forwarded-For` from the right (each proxy appends the address it saw),
    the first hop that is not a trusted proxy. An entry that is no address ends the walk at the hop before it."""
    proxies = trusted_proxies(allowed)
    if not forwarded_for or not _is_trusted(remote_addr, proxies):
        return remote_addr
    address = remote_addr
    for hop in reversed(forwarded_for.split(",")):
        parsed = _parse(hop)
        if parsed is None:
            break
        address = str(parsed)
        if not _is_trusted(address, proxies):
            break
    return address


class ProxyHeadersMiddleware:
    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        meta = request.META
        remote_addr = meta.get("REMOTE_ADDR", "")
        if not _is_trusted(remote_addr, trusted_proxies(settings.FORWARDED_ALLOW_IPS)):
            meta.pop("HTTP_X_FORWARDED_PROTO", None)
            meta.pop("HTTP_X_FORWARDED_FOR", None)
        elif forwarded_for := meta.get("HTTP_X_FORWARDED_FOR", ""):
            meta["REMOTE_ADDR"] = client_address(remote_addr, forwarded_for, settings.FORWARDED_ALLOW_IPS)
        return self.get_response(request)
