"""The support desk's start-page panel: settlement lines that matched none of our payments, lines that do not match
their payment (settled grosser than captured), refused files, and announced reports not fetched."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from payments.money import format_money
from payments.staff.dates import desk_date, desk_datetime
from settlements.selectors import (
    mismatched_ledger_entries,
    refused_settlement_files,
    report_fetches_to_look_into,
    unmatched_ledger_entries,
)

SHOWN = 10


def unmatched_entries_panel(request: HttpRequest) -> SafeString:
    """The newest unmatched lines and refused files, with links to all of them; nothing when there are none or the
    user may not view the ledger."""
    if not request.user.has_perm("settlements.view_ledgerentry"):
        return mark_safe("")
    unmatched = list(unmatched_ledger_entries()[: SHOWN + 1])
    refused = list(refused_settlement_files()[:SHOWN])
    unfetched = list(report_fetches_to_look_into()[:SHOWN])
    mismatched = list(mismatched_ledger_entries()[:SHOWN])
    if not unmatched and not refused and not unfetched and not mismatched:
        return mark_safe("")
    rows = format_html_join(
        "",
        "<li>{} {} {} ({}, {})</li>",
        (
            (
                desk_date(e.posted_at),
                e.get_kind_display(),
                format_money(e.amount, e.currency),
                e.source,
                e.processor_reference or e.merchant_reference or e.entry_key,
            )
            for e in unmatched[:SHOWN]
        ),
    )
    mismatches = format_html_join(
        "",
        "<li>{} {} ({}, {}): {}</li>",
        (
            (
                desk_date(e.posted_at),
                format_money(e.amount, e.currency),
                e.source,
                e.processor_reference or e.merchant_reference or e.entry_key,
                e.mismatch,
            )
            for e in mismatched
        ),
    )
    files = format_html_join(
        "", "<li>{} {}: {}</li>", ((desk_datetime(f.created_at), f.name, f.message) for f in refused)
    )
    reports = format_html_join(
        "",
        "<li>{} {} ({} attempts): {}</li>",
        ((desk_datetime(f.updated_at), f.name, f.attempts, f.message) for f in unfetched),
    )
    entries_url = reverse("admin:settlements_ledgerentry_changelist") + "?matched=no"
    files_url = reverse("admin:settlements_settlementreportfile_changelist") + "?status__exact=refused"
    return format_html(
        '<div class="module" id="settlement-desk"><h2>Settlements to look into</h2>'
        '<h3>Unmatched settlement lines{}</h3><ul>{}</ul><p><a href="{}">All unmatched lines</a></p>'
        '<h3>Settlement lines that do not match their payment</h3><ul>{}</ul><p><a href="{}">All of them</a></p>'
        '<h3>Refused settlement files</h3><ul>{}</ul><p><a href="{}">All refused files</a></p>'
        '<h3>Reports not fetched</h3><ul>{}</ul><p><a href="{}">All announced reports</a></p></div>',
        " (more than 10)" if len(unmatched) > SHOWN else "",
        rows or mark_safe("<li>None</li>"),
        entries_url,
        mismatches or mark_safe("<li>None</li>"),
        reverse("admin:settlements_ledgerentry_changelist") + "?matched=mismatch",
        files or mark_safe("<li>None</li>"),
        files_url,
        reports or mark_safe("<li>None</li>"),
        reverse("admin:settlements_reportfetch_changelist"),
    )
