"""The record of who was limited, for support staff: one row per subject, endpoint and window."""

from datetime import datetime

from payments.ratelimits.models import RateLimitEvent
from payments.vault.crypto import keyed_hash
from payments.vault.masking import mask_card_numbers

# The HKDF label of the key `subject_key` is an HMAC under.
SUBJECT_KEY_PURPOSE = "payments.ratelimits.subject"


def rate_limit_event_record(
    *,
    subject_kind: str,
    subject: str,
    endpoint: str,
    rate: str,
    window_start: datetime,
    window_end: datetime,
    merchant_account_id: str | None = None,
    label: str = "",
) -> None:
    """Note that `subject` was limited on `endpoint`: one row per window, however many processes report it.

    `label` is what support may see of the subject; a card number in it is masked whatever the caller passed.
    """
    event = RateLimitEvent(
        subject_kind=subject_kind[:32],
        # Only a keyed digest of the counter key is kept, so a row never holds more than the columns below show,
        # even for a subject derived from card data (a gift card number's hash): no guess can be tested against it.
        subject_key=keyed_hash(f"{subject_kind}:{subject}", purpose=SUBJECT_KEY_PURPOSE),
        subject_label=mask_card_numbers(label)[:255],
        endpoint=endpoint[:255],
        rate=rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
    )
    RateLimitEvent.objects.bulk_create([event], ignore_conflicts=True)
