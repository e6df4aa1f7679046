"""The record of who was limited, for support staff: one row per subject, endpoint and window."""

import hashlib
from datetime import datetime

from payments.ratelimits.models import RateLimitEvent
from payments.vault.masking import mask_card_numbers


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
        # Only a digest of the counter key is kept, so a row never holds more than the columns below show.
        subject_key=hashlib.sha256(f"{subject_kind}:{subject}".encode()).hexdigest(),
        subject_label=mask_card_numbers(label)[:255],
        endpoint=endpoint[:255],
        rate=rate,
        window_start=window_start,
        window_end=window_end,
        merchant_account_id=merchant_account_id,
    )
    RateLimitEvent.objects.bulk_create([event], ignore_conflicts=True)
