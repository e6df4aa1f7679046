"""The staff start page's panel: transactions over the last 24 hours, 7 days or 30 days
(payments.staff.site.register_panel)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from payments.money import format_money
from payments.staff.dates import desk_datetime
from paymentservices.processors.declines import explain
from transactions.selectors import TREND_WINDOWS, TrendSummary, transaction_trends

CHART_WIDTH, CHART_HEIGHT, BAR_GAP = 720, 160, 4
LABEL_WIDTH = 36  # room for "29 Nov" or "23:00" at the chart's font size
WINDOW_PARAMETER = "trend"


def chart_bars(summary: TrendSummary) -> list[dict[str, Any]]:
    """One stacked bar per hour or day (approvals below, declines and failures above), scaled to the busiest."""
    busiest = max((approved + refused for _, approved, refused in summary.per_period), default=0) or 1
    width = CHART_WIDTH / len(summary.per_period)
    label_every = max(1, len(summary.per_period) // 8)
    hourly = summary.window == "24h"
    bars = []
    for index, (period, approved, refused) in enumerate(summary.per_period):
        approved_height = CHART_HEIGHT * approved / busiest
        refused_height = CHART_HEIGHT * refused / busiest
        x = round(index * width + BAR_GAP / 2, 1)
        label = period.strftime("%H:00") if hourly else f"{period.day} {period:%b}"
        bars.append(
            {
                "x": x,
                "width": round(width - BAR_GAP, 1),
                "approved_y": round(CHART_HEIGHT - approved_height, 1),
                "approved_height": round(approved_height, 1),
                "refused_y": round(CHART_HEIGHT - approved_height - refused_height, 1),
                "refused_height": round(refused_height, 1),
                "label": label,
                "title": f"{label}{' UTC' if hourly else ''}: {approved} approved, {refused} declined or failed",
                "show_label": index % label_every == 0 and x + LABEL_WIDTH <= CHART_WIDTH,  # none cut at the edge
            }
        )
    return bars


def trends_panel(request: HttpRequest) -> SafeString:
    """Volume and count by currency, approval rate, declines by reason, approvals and declines per hour or day, and
    the newest failures, over the window `?trend=` names; empty for staff who may not view transactions."""
    if not request.user.has_perm("transactions.view_transaction"):
        return mark_safe("")
    asked = request.GET.get(WINDOW_PARAMETER, "24h")
    window = asked if asked in TREND_WINDOWS else "24h"
    summary = transaction_trends(now=timezone.now(), window=window)
    rate = summary.approval_rate
    context = {
        "summary": summary,
        "windows": [(key, label, key == window) for key, label in TREND_WINDOWS.items()],
        "window_label": TREND_WINDOWS[window],
        "unknown_window": asked if asked != window else None,
        "parameter": WINDOW_PARAMETER,
        "counted_at": desk_datetime(summary.counted_at) if summary.counted_at else None,
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
    return mark_safe(render_to_string("admin/transactions/trends.html", context, request=request))  # noqa: S308 - a template rendered with autoescaping
