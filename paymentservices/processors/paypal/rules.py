"""The shapes of a `paypal-paypal` service's fields (`paypal.processor`), from what PayPal shows of each in its
developer dashboard (Apps & Credentials); the connector holds values to them again."""

from __future__ import annotations

from paymentservices.processors.fields import FieldRule

# The REST app's client ID and secret: base64url-style strings (letters, digits, '-' and '_'), 80 characters today;
# they only travel in the Basic authorization of the token call to a checked host.
CLIENT_ID = FieldRule(
    pattern=r"[A-Za-z0-9_-]+",
    max_length=128,
    shape="is the REST app's client ID (Apps & Credentials): ASCII letters, digits, '-' and '_'",
    example="AeA1QIZXiflr1_-r0U2UbWTziOWX1GRQer5n9cP-1TxhGtQ3m9e7ZkV8Z2aVWbB7ns7Y6bW-7EXAMPLE",
)
CLIENT_SECRET = FieldRule(
    pattern=r"[A-Za-z0-9_-]+",
    max_length=128,
    shape="is the REST app's secret (Apps & Credentials): ASCII letters, digits, '-' and '_'",
    example="ECYYrrSHdKfk_Q0EdvzdGkzj58a66kKaUQ5dZAEv4HvvtDId2_DpSuYDB088BZxGuMji7G4-EXAMPLE",
)
# The id PayPal gives the webhook the merchant subscribed for this service's `webhook_url`: upper-case letters and
# digits (17 to 25 of them today); its notifications are verified by asking PayPal with it.
WEBHOOK_ID = FieldRule(
    pattern=r"[A-Z0-9]+",
    max_length=64,
    shape="is the webhook's ID (Apps & Credentials > Webhooks): upper-case ASCII letters and digits",
    example="8PT597110X687430LKGECATA",
)
