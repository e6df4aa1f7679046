"""Bearer JWT authentication: simplejwt's machinery, verified per API key.

The key is chosen by the token's `kid`; the algorithm is fixed by the stored key, never by the token
header, so `none` and algorithm-confusion tokens fail. Verified tokens are remembered in-process until
they expire, so a client reusing one token pays for one signature check; the key itself (active? which roles,
which accounts?) is read from the shared cache on every request, so a change to it holds at once on every host.
A token acts with the scopes it claims that its key's roles grant.
"""

import hashlib
import re
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import jwt
from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.backends import TokenBackend
from rest_framework_simplejwt.exceptions import TokenBackendError

from payments.accounts.roles import covers, effective_scopes
from payments.accounts.selectors import ActiveKey, api_key_get_active
from payments.accounts.services import api_key_mark_used

if TYPE_CHECKING:
    # Only for annotations: drf_spectacular.openapi imports DRF's views, which import this module (the
    # configured authentication class) while it is still loading.
    from drf_spectacular.openapi import AutoSchema

_KID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class ApiPrincipal:
    """Who is calling: the key that signed the token and what the token allows."""

    api_key_id: uuid.UUID
    kid: str
    name: str  # the key's name, else its kid: how the audit log names the caller
    merchant_account_ids: frozenset[str] | None  # the accounts its key reaches; None: every account
    scopes: frozenset[str]  # what the token claims that its key's roles grant (payments.accounts.roles)
    claims: dict[str, Any] = field(hash=False, compare=False)  # the verified token's claims: any JSON
    token_hash: str = ""

    is_authenticated = True
    is_anonymous = False

    @property
    def is_embed(self) -> bool:
        return "embed" in self.scopes

    @property
    def embed(self) -> dict[str, Any]:
        embed = self.claims.get("embed")
        return embed if isinstance(embed, dict) else {}

    @property
    def checkout_session_id(self) -> str | None:
        session_id = self.claims.get("checkout_session_id")
        return None if session_id is None else str(session_id)

    @property
    def token_id(self) -> str:
        """Stable id for per-token budgets: the `jti`, or a hash of the token when it has none."""
        return str(self.claims.get("jti") or self.token_hash)

    def can_act_for(self, merchant_account_id: str) -> bool:
        return self.merchant_account_ids is None or merchant_account_id in self.merchant_account_ids

    @property
    def sole_merchant_account_id(self) -> str | None:
        """The one account its key reaches, when it reaches exactly one."""
        ids = self.merchant_account_ids
        return next(iter(ids)) if ids is not None and len(ids) == 1 else None

    def has_scope(self, scope: str) -> bool:
        """`<resource>.read` is also granted by `*.read` (and likewise for write)."""
        return covers(self.scopes, scope)


@dataclass(frozen=True)
class VerifiedToken:
    """A token whose signature, lifetime and claims were checked: by which key (`kid`), saying what."""

    kid: str
    claims: dict[str, Any] = field(hash=False, compare=False)


class _VerifiedTokens:
    """Bounded LRU of verified tokens, each valid until its own `exp`. It remembers only that the signature held:
    whether the key is still active, and what it may do, is read afresh on every request."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[float, VerifiedToken]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token_hash: str) -> VerifiedToken | None:
        with self._lock:
            entry = self._entries.get(token_hash)
            if entry is None:
                return None
            if entry[0] <= time.time():
                del self._entries[token_hash]
                return None
            self._entries.move_to_end(token_hash)
            return entry[1]

    def put(self, token_hash: str, verified: VerifiedToken, expires_at: float) -> None:
        with self._lock:
            self._entries[token_hash] = (expires_at, verified)
            self._entries.move_to_end(token_hash)
            while len(self._entries) > settings.VERIFIED_TOKEN_CACHE_SIZE:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


verified_tokens = _VerifiedTokens()
_backends: dict[tuple[str, str], TokenBackend] = {}


def _backend_for(api_key: ActiveKey) -> TokenBackend:
    """One simplejwt backend per key, holding the parsed public key and the key's only algorithm."""
    cache_key = (api_key.kid, api_key.algorithm)
    backend = _backends.get(cache_key)
    if backend is None:
        backend = TokenBackend(
            api_key.algorithm, verifying_key=api_key.public_key, leeway=timedelta(seconds=settings.JWT_LEEWAY_SECONDS)
        )
        _backends[cache_key] = backend
    return backend


def _invalid(message: str) -> exceptions.AuthenticationFailed:
    return exceptions.AuthenticationFailed(message, code="unauthorized")


class ApiKeyJWTAuthentication(JWTAuthentication):
    """Authenticate `Authorization: Bearer <JWT>` against the merchant's registered public keys."""

    www_authenticate_realm = "api"

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'

    # DRF takes any object as the user; simplejwt's annotation narrows it to Django users and its own Token.
    def authenticate(self, request: Request) -> tuple[ApiPrincipal, str] | None:  # type: ignore[override]
        header = self.get_header(request)
        if header is None:
            return None
        raw_token = self.get_raw_token(header)
        token = raw_token.decode("latin-1")
        token_hash = hashlib.sha256(raw_token).hexdigest()
        verified = verified_tokens.get(token_hash)
        # The key is read on every request, a verified token too: deleted or disabled, it stops at once.
        api_key = api_key_get_active(kid=verified.kid) if verified is not None else None
        if verified is None or api_key is None:
            verified, api_key = self._verify(token, token_hash)
        principal = ApiPrincipal(
            api_key_id=api_key.id,
            kid=api_key.kid,
            name=api_key.name,
            merchant_account_ids=api_key.merchant_account_ids,
            scopes=effective_scopes(verified.claims["scopes"], api_key.scopes),
            claims=verified.claims,
            token_hash=token_hash,
        )
        self._note_use(principal)
        return principal, token

    def get_raw_token(self, header: bytes) -> bytes:
        """The token after a case-insensitive `Bearer`; any other shape is a 401, not anonymous."""
        parts = header.split()
        if len(parts) != 2 or parts[0].lower() != b"bearer":
            raise _invalid("Authorization header must be 'Bearer <token>'.")
        return parts[1]

    def _verify(self, token: str, token_hash: str) -> tuple[VerifiedToken, ActiveKey]:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise _invalid("Bearer token is not a valid JWT.") from exc
        kid = header.get("kid")
        # The header is unverified input: only a thumbprint-shaped kid reaches the database.
        api_key = api_key_get_active(kid=kid) if isinstance(kid, str) and _KID.fullmatch(kid) else None
        if api_key is None:
            raise _invalid("Bearer token was not signed by an active API key.")
        claims = self._decode(api_key, token)
        verified = VerifiedToken(kid=api_key.kid, claims=claims)
        verified_tokens.put(token_hash, verified, float(claims["exp"]))
        return verified, api_key

    def _decode(self, api_key: ActiveKey, token: str) -> dict[str, Any]:
        try:
            # simplejwt annotates the argument as its Token class, but passes it straight to jwt.decode (str).
            claims = _backend_for(api_key).decode(token)  # type: ignore[arg-type]
        except TokenBackendError as exc:
            raise _invalid(f"Bearer token rejected: {exc}") from exc
        if not isinstance(claims.get("exp"), int | float):
            raise _invalid("Bearer token rejected: the 'exp' claim is required.")
        scopes = claims.get("scopes")
        if not isinstance(scopes, list) or not all(isinstance(scope, str) for scope in scopes):
            raise _invalid("Bearer token rejected: the 'scopes' claim must be a list of strings.")
        if "embed" in scopes:
            _require_bounded_lifetime(claims)
        return claims

    def _note_use(self, principal: ApiPrincipal) -> None:
        now = timezone.now()
        last = _last_marked.get(principal.kid)
        if last is None or now - last >= timedelta(minutes=1):
            _last_marked[principal.kid] = now
            api_key_mark_used(api_key_id=principal.api_key_id, at=now)


_last_marked: dict[str, datetime] = {}


def _require_bounded_lifetime(claims: dict[str, Any]) -> None:
    """An embed token lives in a browser, where it can leak: it may live at most `EMBED_TOKEN_MAX_LIFETIME_SECONDS`,
    counted from its `iat` (already checked not to lie in the future) or, without one, from now."""
    issued_at = claims.get("iat")
    start = float(issued_at) if isinstance(issued_at, int | float) else time.time()
    if float(claims["exp"]) - start > settings.EMBED_TOKEN_MAX_LIFETIME_SECONDS + settings.JWT_LEEWAY_SECONDS:
        raise _invalid(
            f"Bearer token rejected: an embed token may live at most {settings.EMBED_TOKEN_MAX_LIFETIME_SECONDS} "
            "seconds."
        )


def clear_caches() -> None:
    """Forget verified tokens and parsed keys (tests, key rotation)."""
    verified_tokens.clear()
    _backends.clear()
    _last_marked.clear()


class ApiKeyJWTScheme(OpenApiAuthenticationExtension):
    """Describes the authentication above in the OpenAPI schema as the `BearerAuth` security scheme."""

    target_class = ApiKeyJWTAuthentication
    name = "BearerAuth"

    def get_security_definition(self, auto_schema: "AutoSchema") -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
