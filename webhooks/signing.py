"""Upstream's webhook signature: hex HMAC-SHA256 of `"{timestamp}.{body}"` under each live secret."""

import hashlib
import hmac

# The headers every delivery carries; names as upstream sends them.
ID_HEADER = "X-Gr4vy-Webhook-Id"
TIMESTAMP_HEADER = "X-Gr4vy-Webhook-Timestamp"
SIGNATURES_HEADER = "X-Gr4vy-Webhook-Signatures"


def signature(secret: str, *, timestamp: int, body: str) -> str:
    """The signature a receiver recomputes with `secret` (the official SDKs' `verify_webhook` does)."""
    return hmac.new(secret.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256).hexdigest()


def signatures_header(secrets: list[str], *, timestamp: int, body: str) -> str:
    """One signature per live secret, comma separated without spaces (receivers split on the comma alone)."""
    return ",".join(signature(secret, timestamp=timestamp, body=body) for secret in secrets)
