"""Columns every app's list shares, labelled in the desk's words."""

from datetime import datetime
from typing import Any

from django.contrib import admin
from django.utils import timezone

from payments.staff.dates import desk_datetime


# Named as the column it replaces, so each list's CSS class stays `field-merchant_account_id`; the label is the
# account, never the database column's name ("Merchant account id"). No join: the id is the row's own.
@admin.display(description="Merchant account", ordering="merchant_account_id")
def merchant_account_id(obj: Any) -> str:
    return str(obj.merchant_account_id)


def held_by(leased_by: str, leased_until: datetime | None) -> str:
    """Which worker holds a row while it works on it, and until when, from the lease's `host:pid`: the desk's words
    for "leased by vm:20200"."""
    if not leased_by or leased_until is None or leased_until <= timezone.now():
        return "No worker holds it"
    host, _, pid = leased_by.rpartition(":")
    worker = f"process {pid} on {host}" if host and pid.isdigit() else leased_by
    return f"The worker {worker}, until {desk_datetime(leased_until)}"
