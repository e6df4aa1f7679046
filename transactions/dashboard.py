"""The staff start page's panel: the last 24 hours of transactions (payments.staff.site.register_panel)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from payments.money import format_money
from paymentservices.processors.declines import explain
from transactions.selectors import DaySummary, transaction_day_summary

CHART_WIDTH, CHART_HEIGHT, BAR_GAP = 720, 160, 4


def chart_bars(summary: DaySummary) -> list[dict[str, Any]]:
    """One stacked bar per hour (approvals below, declines and failures above), scaled to the busiest hour."""
    busiest = max((approved + refused for _, approved, refused in summary.per_hour), default=0) or 1
    width = CHART_WIDTH / len(summary.per_hour)
    bars = []
    for index, (hour, approved, refused) in enumerate(summary.per_hour):
        approved_height = CHART_HEIGHT * approved / busiest
        refused_height = CHART_HEIGHT * refused / busiest
        bars.append(
            {
                "x": round(index * width + BAR_GAP / 2, 1),
                "width": round(width - BAR_GAP, 1),
                "approved_y": round(CHART_HEIGHT - approved_height, 1),
                "approved_height": round(approved_height, 1),
                "refused_y": round(CHART_HEIGHT - approved_height - refused_height, 1),
                "refused_height": round(refused_height, 1),
                "label": hour.strftime("%H:00"),
                "title": f"{hour:%H:00} UTC: {approved} approved, {refused} declined or failed",
                "show_label": index % 3 == 0 and index < len(summary.per_hour) - 2,  # none cut at the right edge
            }
        )
    return bars


def last_24_hours_panel(request: HttpRequest) -> SafeString:
    """Volume and count by currency, approval rate, declines by reason, approvals and declines per hour, and the
    newest failures; empty for staff who may not view transactions."""
    if not request.user.has_perm("transactions.view_transaction"):
        return mark_safe("")
    summary = transaction_day_summary(now=timezone.now())
    rate = summary.approval_rate
    context = {
        "summary": summary,
        "approval_rate": f"{rate:.1%}" if rate is not None else "-",
        "currencies": [(code, count, format_money(volume, code)) for code, count, volume in summary.by_currency],
        "bars": chart_bars(summary),
        "chart_width": CHART_WIDTH,
        "chart_height": CHART_HEIGHT,
        "declines": [(code, explain(code), count) for code, count in summary.declines_by_reason],
        "failures": [
            (txn, format_money(txn.amount, txn.currency), explain(txn.error_code) if txn.error_code else None)
            for txn in summary.recent_failures
        ],
    }
    return mark_safe(render_to_string("admin/transactions/last_24_hours.html", context, request=request))  # noqa: S308 - a template rendered with autoescaping
