"""An audit log entry as a support agent reads it: who acted (a staff user, or an API key by the name people gave
it and what it may act for), and what changed, linked to the resource's own page while it exists."""

from __future__ import annotations

import re

from django.apps import apps
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from payments.accounts.models import ApiKey
from payments.audit.models import AuditLogEntry
from payments.audit.services import AUDITED_RESOURCES

KID_SHOWN = 8  # enough of a key's thumbprint to tell keys apart on a page; the full one is on the key's page
_THUMBPRINT = re.compile(r"[A-Za-z0-9_-]{43}")  # an RFC 7638 SHA-256 thumbprint: what an unnamed key is called


def actor(entry: AuditLogEntry) -> SafeString:
    if entry.user_is_staff:
        return format_html("{} <small>(staff)</small>", entry.user_name)
    account = entry.merchant_account_id or "every account"
    # A key nobody named is named by its thumbprint: enough of it to tell keys apart, never the whole id as text.
    name = f"{entry.user_name[:KID_SHOWN]}…" if _THUMBPRINT.fullmatch(entry.user_name) else entry.user_name
    if entry.user_id is None:
        return format_html("API key {} <small>of {}</small>", name, account)
    # The key's page by its id (the name may have changed since); a deleted key's page says it is gone.
    url = reverse(f"admin:{ApiKey._meta.app_label}_{ApiKey._meta.model_name}_change", args=[entry.user_id])
    return format_html(
        '<a href="{}" title="{}">API key {}</a> <small>of {}</small>', url, entry.user_name, name, account
    )


def change(entry: AuditLogEntry) -> SafeString:
    """ "captured transaction Jane Doe USD 12.00", the resource linked unless it was deleted."""
    label = entry.get_action_display()
    url = None if entry.action == AuditLogEntry.Action.DELETED else resource_url(entry)
    name = entry.resource_name if entry.resource_name != entry.resource_type else entry.resource_id[:KID_SHOWN]
    if url is None:
        return format_html("{} {} <span>{}</span>", label, entry.resource_type, name)
    return format_html('{} {} <a href="{}">{}</a>', label, entry.resource_type, url, name)


def resource_url(entry: AuditLogEntry) -> str | None:
    """The admin page of the entry's resource, when the resource type has one."""
    label = next((label for label, kind in AUDITED_RESOURCES.items() if kind == entry.resource_type), None)
    if label is None:
        model = next((m for m in apps.get_models() if m._meta.model_name == entry.resource_type), None)
        label = model._meta.label_lower if model else None
    if label is None or not entry.resource_id:
        return None
    app_label, model_name = label.split(".")
    try:
        return reverse(f"admin:{app_label}_{model_name}_change", args=[entry.resource_id])
    except NoReverseMatch:
        return None
