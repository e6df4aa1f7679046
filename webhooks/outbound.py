"""Sending to a URL a merchant chose, without letting it reach what it must not.

- `url_check` decides whether a URL may be a receiver: `http(s)` only; a link-local or cloud metadata address
  is always refused; with `DEBUG` off the URL must be `https` and every address its host resolves to must be
  public (no loopback, private, shared, site-local or reserved range). An IPv6 address that carries an IPv4
  address (NAT64, 6to4, Teredo, IPv4-compatible, IPv4-mapped or -translated) is judged by what it carries as
  well. Hosts in `WEBHOOK_ALLOWED_HOSTS` are exempt from the production rules (tests, local receivers), never
  from the first.
- `post` checks again at every send and connects only to the addresses it has just vetted (its network
  backend ignores the name it is given), so a host that re-resolves to an internal address between the
  check and the connect (DNS rebinding) gets nowhere. TLS still verifies the certificate against the name.
- No redirect is followed (httpcore has no such feature), at most `WEBHOOK_RESPONSE_MAX_BYTES` of the answer
  are read, and the whole attempt, connect included, ends at one deadline.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

import httpcore
from django.conf import settings

MAX_URL_LENGTH = 2048
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Never a receiver, whatever the settings: link-local (where cloud metadata services live) and the metadata
# addresses that are not link-local.
_ALWAYS_REFUSED = [
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
    ipaddress.ip_network("fd00:ec2::254/128"),
]

# IPv6 addresses that carry an IPv4 address a gateway, a tunnel or the host's own stack will reach: each is
# judged by the IPv4 address it carries, or the metadata address is one NAT64 prefix away.
_IPV4_MAPPED = ipaddress.ip_network("::ffff:0:0/96")
_SIIT = ipaddress.ip_network("::ffff:0:0:0/96")  # IPv4-translated (RFC 2765)
_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: prefixes of /48 to /96 inside it
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated (RFC 4291), still routed by some stacks
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
# Deprecated (RFC 3879) but still routed inside some networks: as private as fc00::/7. Python's `is_private`
# does not count it.
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")


def _rfc6052(address: ipaddress.IPv6Address, prefix_length: int) -> ipaddress.IPv4Address:
    """The IPv4 address a NAT64 prefix of `prefix_length` bits embeds (RFC 6052 2.2: bits 64-71 are skipped)."""
    packed = address.packed
    octets = [index for index in range(prefix_length // 8, 16) if index != 8][:4]
    return ipaddress.IPv4Address(bytes(packed[index] for index in octets))


def _embedded(address: ipaddress.IPv6Address) -> tuple[tuple[ipaddress.IPv4Address, ...], bool]:
    """The IPv4 addresses `address` may reach, and whether it is nothing but a spelling of them (then it is
    judged by them alone; otherwise the IPv6 address is judged too)."""
    if address in _IPV4_MAPPED or address in _SIIT or address in _NAT64_WELL_KNOWN:
        return (ipaddress.IPv4Address(address.packed[12:]),), True
    if address in _NAT64_LOCAL_USE:
        # The operator picks the prefix length; every reading is judged, and the range is not public anyway.
        return tuple(dict.fromkeys(_rfc6052(address, length) for length in (48, 56, 64, 96))), False
    if address in _SIX_TO_FOUR:
        return (ipaddress.IPv4Address(address.packed[2:6]),), False
    if address in _TEREDO:
        teredo = address.teredo
        return (teredo if teredo is not None else ()), False
    if address in _IPV4_COMPATIBLE and int(address) > 1:  # not :: or ::1, which are IPv6's own
        return (ipaddress.IPv4Address(address.packed[12:]),), False
    return (), False


class UnsafeUrl(ValueError):
    """The URL may not be a receiver; the message says why, without echoing credentials."""


@dataclass(frozen=True)
class Destination:
    """A vetted URL and the addresses its host resolved to when it was vetted."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """What a receiver did with one request: its status and the start of its body, or why there was none."""

    status_code: int | None
    excerpt: str
    error: str
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        """A 2xx within the timeout: anything else is retried."""
        return not self.error and self.status_code is not None and 200 <= self.status_code < 300


def _parts(url: str) -> SplitResult:
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(f"Must be a URL of at most {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise UnsafeUrl("Must be a valid URL.") from None
    if parts.scheme not in ("http", "https"):
        raise UnsafeUrl("Must be an http or https URL.")
    if not parts.hostname:
        raise UnsafeUrl("Must name a host.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeUrl("Must not carry credentials; use `authentication` instead.")
    if any(character.isspace() or ord(character) < 0x20 for character in url):
        raise UnsafeUrl("Must not contain spaces or control characters.")
    return parts


def _allowed_anyway(host: str) -> bool:
    return host.lower() in {name.lower() for name in settings.WEBHOOK_ALLOWED_HOSTS}


def _refusal(address: IPAddress, *, strict: bool) -> str | None:
    """Why `address` may not be a receiver's, or None: an IPv6 address that carries an IPv4 address (NAT64,
    6to4, Teredo, IPv4-compatible, IPv4-mapped or -translated) is refused for what it carries too."""
    judged: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        carried, spelling = _embedded(address)
        judged = [*carried] if spelling else [address, *carried]
    reasons = (_refusal_of_one(each, strict=strict) for each in judged)
    return next((reason for reason in reasons if reason is not None), None)


def _refusal_of_one(address: IPAddress, *, strict: bool) -> str | None:
    if any(address in network for network in _ALWAYS_REFUSED):
        return "a link-local or cloud metadata address"
    if address.is_multicast:
        return "a multicast address"
    if not strict:
        return None
    if address.is_loopback or address.is_unspecified:
        return "a loopback address"
    if address.is_private or address in _SITE_LOCAL:
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "an address that is not public"
    return None


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (an address literal resolves to itself)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def url_check(url: str) -> Destination:
    """The URL as a destination a delivery may be sent to now; `UnsafeUrl` says why it may not."""
    parts = _parts(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    strict = not settings.DEBUG and not _allowed_anyway(host)
    if strict and parts.scheme != "https":
        raise UnsafeUrl("Must be an https URL.")
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError):
        raise UnsafeUrl(f"The host {host!r} could not be resolved.") from None
    if not addresses:
        raise UnsafeUrl(f"The host {host!r} could not be resolved.")
    for address in addresses:
        reason = _refusal(ipaddress.ip_address(address.split("%")[0]), strict=strict)
        if reason is not None:
            raise UnsafeUrl(f"The host {host!r} resolves to {reason}.")
    return Destination(url=url, host=host, port=port, addresses=tuple(addresses))


# --- sending -----------------------------------------------------------------------------------------------


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the attempt's deadline, however slowly bytes trickle."""

    def __init__(self, stream: httpcore.NetworkStream, deadline: float) -> None:
        self._stream = stream
        self._deadline = deadline

    def _left(self, timeout: float | None, error: type[httpcore.TimeoutException]) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise error("The receiver did not answer in time.")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._stream.start_tls(ssl_context, server_hostname, self._left(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _VettedBackend(httpcore.NetworkBackend):
    """Connects to the addresses `url_check` vetted, never to what the name resolves to by then."""

    def __init__(self, addresses: Iterable[str], deadline: float) -> None:
        self._addresses = tuple(addresses)
        self._deadline = deadline
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        error: Exception = httpcore.ConnectError("No address to connect to.")
        for address in self._addresses:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise httpcore.ConnectTimeout("The receiver did not accept a connection in time.")
            try:
                stream = self._backend.connect_tcp(address, port, timeout=min(left, timeout or left))
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
                continue
            return _DeadlineStream(stream, self._deadline)
        raise error

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("Receivers are reached over TCP only.")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def _error_text(exc: Exception) -> str:
    if isinstance(exc, httpcore.TimeoutException):
        return "Timed out."
    if isinstance(exc, httpcore.RemoteProtocolError):
        return "The receiver closed the connection without a valid answer."
    if isinstance(exc, httpcore.ConnectError):
        return f"Could not connect: {exc}"[:255]
    if isinstance(exc, httpcore.NetworkError):
        return "The connection failed."
    return f"{type(exc).__name__}: {exc}"[:255]


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process: building one loads the CA bundle (tens of milliseconds), which
    used to cost more than the delivery itself. Contexts are safe to share between connections."""
    return ssl.create_default_context()


def post(url: str, *, body: bytes, headers: dict[str, str]) -> Answer:
    """POST `body` to `url` once, checking the URL again first; never raises for what the receiver does."""
    started = time.monotonic()
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    deadline = started + timeout

    def answer(status_code: int | None = None, excerpt: str = "", error: str = "") -> Answer:
        duration_ms = round((time.monotonic() - started) * 1000)
        return Answer(status_code=status_code, excerpt=excerpt, error=error, duration_ms=duration_ms)

    try:
        destination = url_check(url)
    except UnsafeUrl as exc:
        return answer(error=f"Not sent: {exc}")
    cap = settings.WEBHOOK_RESPONSE_MAX_BYTES
    pool = httpcore.ConnectionPool(
        ssl_context=_tls_context(),
        network_backend=_VettedBackend(destination.addresses, deadline),
        max_connections=1,
        retries=0,
    )
    try:
        with (
            pool,
            pool.stream(
                "POST",
                url,
                headers=list(headers.items()),
                content=body,
                extensions={"timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}},
            ) as response,
        ):
            received = b""
            for chunk in response.iter_stream():
                received += chunk
                if len(received) >= cap:
                    break  # the rest is never read: leaving the block closes the connection
            excerpt = received[:cap].decode("utf-8", errors="replace")
            if time.monotonic() > deadline:
                return answer(response.status, excerpt, "Timed out.")
            error = "" if 200 <= response.status < 300 else f"The receiver answered HTTP {response.status}."
            if 300 <= response.status < 400:
                error += " Redirects are not followed."
            return answer(response.status, excerpt, error)
    except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError, OSError, ssl.SSLError) as exc:
        return answer(error=_error_text(exc))
