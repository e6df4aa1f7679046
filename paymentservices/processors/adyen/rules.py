"""The shapes of an `adyen-card` service's fields (`adyen.processor`), from what Adyen documents of each; the
connector and the notifications hold values to them again."""

from __future__ import annotations

from paymentservices.processors.fields import OPAQUE_SECRET, FieldRule

# The API key: Adyen documents no format for it (its keys carry any printable character), and it only ever travels in
# the `X-API-Key` header of a call to a checked host.
API_KEY = OPAQUE_SECRET
# The merchant account code: Adyen gives account codes as ASCII letters, digits and underscores (a dash is let through:
# it is harmless in a JSON body, and refusing a real account code would be worse).
MERCHANT_ACCOUNT = FieldRule(
    pattern=r"[A-Za-z0-9][A-Za-z0-9_-]*",
    max_length=255,
    shape="is an Adyen merchant account code: ASCII letters, digits, '_' and '-'",
    example="YourCompanyECOM",
)
# The live URL prefix: "a hex-encoded random part and your company name" joined by a dash (Adyen's "Live endpoints"),
# the first label of the host `<prefix>-checkout-live.adyenpayments.com`; at most 49 characters, so that label stays
# within DNS's 63.
LIVE_URL_PREFIX = FieldRule(
    pattern=r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*",
    max_length=63 - len("-checkout-live"),
    shape="is Adyen's live URL prefix (Developers > API URLs): ASCII letters and digits in parts joined by single '-'",
    example="1797a841fbb37ca7-AdyenDemo",
)
# The HMAC key of a standard webhook: hexadecimal bytes (Adyen's library decodes it with `binascii.a2b_hex`).
HMAC_KEY = FieldRule(
    pattern=r"(?:[0-9A-Fa-f]{2})+",
    max_length=128,
    shape="is the webhook's HMAC key: hexadecimal digits, two per byte",
    example="44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056",
)
# The report user's API key (Customer Area > Developers > API credentials, a `report@...` user with the role to
# download reports): Adyen documents no format for it either, and it only ever travels in the `X-API-Key` header of a
# download from one of Adyen's report hosts (adyen/reports.py).
REPORT_API_KEY = OPAQUE_SECRET
