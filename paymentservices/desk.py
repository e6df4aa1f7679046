"""The support desk's start-page panel: how many processors' notifications named nothing of ours, linking to them."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from paymentservices.selectors import unmatched_notifications


def unmatched_notifications_panel(request: HttpRequest) -> SafeString:
    """The count of unmatched notifications with a link to them; nothing when there are none or the user may not
    view notifications."""
    if not request.user.has_perm("paymentservices.view_inboundnotification"):
        return mark_safe("")
    count = unmatched_notifications().count()
    if not count:
        return mark_safe("")
    return format_html(
        '<div class="module" id="unmatched-notifications"><h2>Processor notifications to look into</h2>'
        '<p><a href="{}">{} not matched</a>: they name no payment, dispute or payout of ours.</p></div>',
        reverse("admin:paymentservices_inboundnotification_changelist") + "?matched=no",
        count,
    )
