"""Admin for transactions: everything read-only, cards masked, money in major units; capture, void and refund
as buttons on the transaction's own page.

An action asks for a reason and shows what will happen before anything moves; it runs the same service as
the API, with the admin user (and the reason) as the actor, needs `transactions.operate_transaction` (the
Payments operator group), is POST only, and writes an admin log entry. Its outcome is on the timeline.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from payments.audit.services import audited_staff_write
from payments.errors import DomainError
from payments.money import AmountError, format_money, major_units, parse_money
from payments.staff.cards import card_facts_words
from payments.staff.columns import merchant_account_id
from payments.staff.dates import desk_date, desk_datetime
from payments.staff.export import Column, CsvExportMixin
from payments.staff.filters import recent_values_filter
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from paymentservices.processors import processor_get
from paymentservices.processors.declines import explain
from transactions.badges import dispute_badge, method_badge, refund_badge
from transactions.disputes import transaction_held, transaction_open_disputes, transaction_taken_back
from transactions.models import (
    Capture,
    CaptureStatus,
    Refund,
    RefundStatus,
    Transaction,
    TransactionEvent,
    TransactionStatus,
)
from transactions.related import DISPUTES, redemptions_of
from transactions.selectors import transaction_staff_search, transaction_timeline
from transactions.services.actions import transaction_capture, transaction_void
from transactions.services.refunds import refund_all, refund_create
from transactions.services.state import ALLOWED_FROM, Actor

if TYPE_CHECKING:
    TransactionAdminBase = admin.ModelAdmin[Transaction]
    RefundAdminBase = admin.ModelAdmin[Refund]
else:
    TransactionAdminBase = RefundAdminBase = admin.ModelAdmin

OPERATE_PERMISSION = "transactions.operate_transaction"


def readable(status: str | None) -> str:
    """`capture_succeeded` as `capture succeeded`."""
    return (status or "-").replace("_", " ")


# Where a capture stands, as an agent reads it; a refused one also says why (the decline's label).
CAPTURE_WORDS = {
    CaptureStatus.PENDING: "waiting for the processor's answer",
    CaptureStatus.SUCCEEDED: "captured",
    CaptureStatus.DECLINED: "declined by the processor",
    CaptureStatus.FAILED: "failed",
}
# The transaction page's captures, oldest first, read with the transaction (one query, whatever their number).
CAPTURES_SHOWN = "captures_shown"


def _capture_line(capture: Capture) -> str:
    """ "USD 6.00 captured 28 Nov 2026, 14:03 · processor's reference ch_1": the capture as its processor knows it."""
    words = CAPTURE_WORDS.get(CaptureStatus(capture.status), capture.status)
    if capture.error_code:
        words = f"{words}: {explain(capture.error_code).label}"
    when = desk_datetime(capture.captured_at or capture.created_at)
    reference = capture.payment_service_capture_id or "none yet"
    return format_html(
        '<span class="capture-amount">{}</span> {} {}{} · processor\'s reference <code>{}</code>',
        format_money(capture.amount, capture.currency),
        words,
        when,
        "" if capture.final else " (more may follow)",
        reference,
    )


def decline_words(code: str | None) -> str:
    """A decline or error code as support reads it: what happened, what to do, and the code itself last (the API's
    `error_code`, which the merchant's own systems see)."""
    if not code:
        return "-"
    words = explain(code)
    return format_html(
        '<strong class="decline-label">{}</strong>: {} <span class="decline-next-step">{}</span> <code>{}</code>',
        words.label,
        words.meaning,
        words.next_step,
        code,
    )


def admin_link(obj: Any, text: str) -> str:
    """A link to `obj`'s admin change page."""
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, text)


# Stripe's refund reasons, offered beside free text; the one stored is the label, then the text (the refund's reason).
REFUND_REASONS = (
    ("duplicate", "Duplicate"),
    ("fraudulent", "Fraudulent"),
    ("requested_by_customer", "Requested by customer"),
)


class ActionForm(forms.Form):
    """What an operator gives for capture, void or refund: an amount in major units (capture and refund, empty
    for everything left, never more than is left) and always a reason, recorded on the transaction's events; a
    refund's reason may be one of Stripe's choices, free text, or both."""

    amount = forms.CharField(required=False, max_length=32)
    reason_choice = forms.ChoiceField(
        label="Reason", required=False, choices=(("", "Other (write it below)"), *REFUND_REASONS)
    )
    reason = forms.CharField(max_length=255, widget=forms.TextInput(attrs={"size": 60}))
    # A refund's id, made when the form is shown: the same form sent again (its page's worker died, the browser
    # resent it) answers the refund it made instead of refunding twice, as a retried Idempotency-Key does.
    attempt = forms.UUIDField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, txn: Transaction, action: TransactionAction, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.txn, self.action = txn, action
        if action.takes_amount:
            self.fields["amount"].help_text = action.hint(txn)
        else:
            del self.fields["amount"]
        if action.name == "refund":
            self.fields["reason"].required = False
            self.fields["reason"].label = "Details"
            self.fields["reason"].help_text = "Optional beside a reason above; stored as the refund's reason."
            self.fields["attempt"].initial = uuid.uuid4()
        else:
            del self.fields["reason_choice"], self.fields["attempt"]

    def clean_amount(self) -> int | None:
        text = self.cleaned_data.get("amount") or ""
        if not text.strip():
            return None
        try:
            amount = parse_money(text, self.txn.currency)
        except AmountError as exc:
            raise forms.ValidationError(str(exc)) from exc
        limit = self.action.typed_limit(self.txn)
        if amount > limit:
            raise forms.ValidationError(self.action.too_much(self.txn, amount))
        return amount

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "reason_choice" in self.fields:
            label = dict(REFUND_REASONS).get(cleaned.get("reason_choice") or "")
            text = (cleaned.get("reason") or "").strip()
            if not label and not text:
                self.add_error("reason", "Choose a reason or write one.")
            cleaned["reason"] = f"{label}: {text}" if label and text else (label or text)
        return cleaned


class TransactionAction:
    """One button of the transaction page: when it is offered, what it says it will do, and the service it runs."""

    def __init__(
        self,
        name: str,
        label: str,
        run: Callable[[Transaction, Actor, int | None, uuid.UUID | None], str],
        *,
        takes_amount: bool,
        left: Callable[[Transaction], int],
        audited_model: type[Transaction | Refund] = Transaction,
    ) -> None:
        self.name, self.label, self.run, self.takes_amount, self.left = name, label, run, takes_amount, left
        # What the audit log names, as for the API's action: the transaction, or each refund made.
        self.audited_model = audited_model

    def typed_limit(self, txn: Transaction) -> int:
        """The most a typed amount may be: a typed refund comes off the card only (empty refunds the gift cards too)."""
        return card_refundable_left(txn) if self.name == "refund" else self.left(txn)

    def hint(self, txn: Transaction) -> str:
        """What is left, in the currency's major units, beside the box."""
        verb = {"capture": "capture", "refund": "refund"}[self.name]
        hint = f"Up to {format_money(self.left(txn), txn.currency)} left to {verb}."
        typed = self.typed_limit(txn)
        if typed < self.left(txn):
            hint += f" A typed amount comes off the card, up to {format_money(typed, txn.currency)}."
        return hint + " Empty means everything left."

    def too_much(self, txn: Transaction, amount: int) -> str:
        left = format_money(self.typed_limit(txn), txn.currency)
        where = " on the card" if self.typed_limit(txn) < self.left(txn) else ""
        return f"{format_money(amount, txn.currency)} is more than the {left} left to {self.name}{where}."

    def offered(self, txn: Transaction) -> bool:
        """The service's own rule for the status, and something left to act on."""
        return txn.status in ALLOWED_FROM[self.name] and self.left(txn) > 0

    def promise(self, txn: Transaction) -> str:
        left = format_money(self.left(txn), txn.currency)
        return {
            "capture": f"Capture up to {left} of the authorization. The buyer is charged; this cannot be undone.",
            "void": f"Release the whole authorization of {left}; gift cards get their money back. The transaction "
            "can no longer be captured.",
            "refund": f"Give back up to {left} to the buyer's card and gift cards. Money leaves at once; this "
            "cannot be undone here." + _held_note(txn),
        }[self.name]


def _held_note(txn: Transaction) -> str:
    """Why part of the card is not offered for a refund: what open disputes hold until the bank decides them."""
    held = transaction_held(txn)
    if not held:
        return ""
    ids = ", ".join(dispute.processor_dispute_id for dispute in transaction_open_disputes(txn))
    return f" {format_money(held, txn.currency)} is held by open dispute {ids} until the bank decides it."


def card_refundable_left(txn: Transaction) -> int:
    """What is left to refund on the card: captured, less refunds, what lost disputes took back and what open ones
    hold."""
    if not txn.pays_with_method:
        return 0
    card = txn.captured_amount - txn.refunded_amount - transaction_taken_back(txn) - transaction_held(txn)
    return max(card, 0)


def refundable_amount(txn: Transaction) -> int:
    """What is left to refund: on the card (less what lost disputes took back and what open ones hold), and on each
    gift card (one query)."""
    gift_cards = sum(redemption.refundable_amount for redemption in redemptions_of(txn))
    card = txn.captured_amount - txn.refunded_amount - transaction_taken_back(txn) - transaction_held(txn)
    return max(card, 0) + gift_cards


# What the desk says of an operation the processor did not answer in time (docs/transactions.md, "A processor that
# does not answer"): not a success, not a failure; the server finds out.
_UNANSWERED = (
    "The processor did not answer the {what} in time, and could not be asked whether it happened: it may have. "
    "The server asks the processor what it did and records its answer (the pending sweep); until then the "
    "{subject} stays {status}."
)


def _capture(txn: Transaction, actor: Actor, amount: int | None, attempt: uuid.UUID | None) -> str:
    outcome = transaction_capture(txn=txn, actor=actor, amount=amount)
    txn, capture = outcome.transaction, outcome.capture
    if capture is not None and capture.status == CaptureStatus.PENDING:
        what = f"capture of {format_money(capture.amount, txn.currency)}"
        return _UNANSWERED.format(what=what, subject="transaction", status=readable(txn.status))
    return f"Captured {format_money(txn.captured_amount, txn.currency)}; the transaction is {readable(txn.status)}."


def _void(txn: Transaction, actor: Actor, amount: int | None, attempt: uuid.UUID | None) -> str:
    txn = transaction_void(txn=txn, actor=actor).transaction
    if txn.status == TransactionStatus.AUTHORIZATION_VOID_PENDING:
        return _UNANSWERED.format(what="void", subject="transaction", status=readable(txn.status))
    return f"Voided the authorization; the transaction is {readable(txn.status)}."


def _refund(txn: Transaction, actor: Actor, amount: int | None, attempt: uuid.UUID | None) -> str:
    # A form sent again finds the refunds its attempt made (none: they are made now).
    again = attempt is not None
    refunds = (
        [refund_create(txn=txn, actor=actor, amount=amount, reason=actor.reason, id=attempt, resumed=again)]
        if amount
        else refund_all(txn=txn, actor=actor, reason=actor.reason, id=attempt, resumed=again)
    )
    parts = ", ".join(f"{format_money(refund.amount, refund.currency)} {readable(refund.status)}" for refund in refunds)
    unanswered = [refund for refund in refunds if refund.status == RefundStatus.PROCESSING]
    if unanswered:
        what = f"refund of {format_money(unanswered[0].amount, unanswered[0].currency)}"
        return f"Refund: {parts}. " + _UNANSWERED.format(what=what, subject="refund", status="processing")
    return f"Refund: {parts}."


ACTIONS = {
    action.name: action
    for action in (
        TransactionAction("capture", "Capture", _capture, takes_amount=True, left=lambda t: t.authorized_amount),
        TransactionAction("void", "Void", _void, takes_amount=False, left=lambda t: t.amount),
        TransactionAction(
            "refund", "Refund", _refund, takes_amount=True, left=lambda t: refundable_amount(t), audited_model=Refund
        ),
    )
}


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdminMixin, CsvExportMixin, TransactionAdminBase):
    """Find a transaction by what a customer says; see whether it went through and why not; act on it."""

    desk_everyday = 1  # first on the start page (payments.staff.site.desk_sections)

    # Narrow enough for 1280 px beside the filters: the decline reason and the refund badge ride in the status
    # cell; on a phone each row becomes a card (transaction-list.css), never a table to scroll sideways.
    list_display = (
        "short_id",
        "created_shown",
        "status_shown",
        "amount_shown",
        "card",
        "buyer_shown",
        merchant_account_id,
    )
    list_filter = (
        "status",
        recent_values_filter("error_code", "decline reason", label=lambda code: explain(code).label),
        recent_values_filter("currency", "currency"),
        recent_values_filter("method", "method"),
        ("created_at", admin.DateFieldListFilter),
        "merchant_account",
    )
    search_help_text = (
        "A transaction id, card last 4 (narrow with the BIN, 411111…1111, or the expiry, 1111 12/29), buyer email "
        "address, amount (120.00 or JPY 500), external identifier or buyer name."
    )
    search_fields = ("external_identifier",)  # shows the box; the lookups are transaction_staff_search's
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    change_form_template = "admin/transactions/transaction/change_form.html"
    # "Export CSV" (payments.staff.export): the filtered list, every row, in these columns; amounts in major units.
    export_columns: tuple[Column, ...] = (
        ("ID", lambda txn: txn.pk),
        ("Created (UTC)", lambda txn: txn.created_at.isoformat()),
        ("Status", lambda txn: txn.status),
        ("Amount", lambda txn: major_units(txn.amount, txn.currency)),
        ("Captured", lambda txn: major_units(txn.captured_amount, txn.currency)),
        ("Refunded", lambda txn: major_units(txn.refunded_amount, txn.currency)),
        ("Currency", lambda txn: txn.currency),
        ("Method", lambda txn: txn.method),
        ("Card", lambda txn: f"{txn.card_scheme} {txn.card_bin}… {txn.card_last4}" if txn.card_last4 else None),
        ("Buyer email", lambda txn: txn.buyer_email_address),
        ("Buyer external identifier", lambda txn: txn.buyer_external_identifier),
        ("Processor reference", lambda txn: txn.payment_service_transaction_id),
        ("External identifier", lambda txn: txn.external_identifier),
        ("Decline reason", lambda txn: txn.error_code),
        ("Merchant account", lambda txn: txn.merchant_account_id),
    )

    class Media:
        css = {"all": ("transactions/admin/transaction-list.css",)}

    # What an agent reads first comes first: the status and why, the amounts, then (in the template) the timeline;
    # the processor's raw answer and the timestamps are folded below, one click away.
    fieldsets = (
        (None, {"fields": ("status_shown", "decline_shown", "id", "created_at", "merchant_account", "intent")}),
        ("Amounts", {"fields": ("amount_shown", "authorized", "captured", "refunded", "disputes", "settlement")}),
        ("Buyer", {"fields": ("buyer_link", "buyer_external_identifier", "buyer_email_address")}),
        (
            "Payment method",
            {"fields": ("method", "card", "card_facts", "card_expiration_date", "stored_method", "session")},
        ),
        (
            "Processor",
            {"fields": ("payment_service", "processor_reference", "external_identifier", "metadata")},
        ),
        (
            "The processor's raw answer",
            {
                "classes": ("collapse",),
                "fields": (
                    "raw_response_code",
                    "raw_response_description",
                    "cvv_response_code",
                    "auth_response_code",
                    "avs_response_code",
                    "scheme_transaction_id",
                    "merchant_advice_code",
                    "iso_response_code",
                ),
            },
        ),
        (
            "Times",
            {
                "classes": ("collapse",),
                "fields": ("authorized_at", "captured_at", "voided_at", "canceled_at", "updated_at"),
            },
        ),
    )
    # The fieldsets above the timeline (status and amounts); the rest follow it.
    fieldsets_before_timeline = 2

    def get_fieldsets(self, request: HttpRequest, obj: Transaction | None = None) -> Any:
        # "Why it failed" only where something failed: a dash on every paid transaction is noise.
        if obj is None or obj.error_code:
            return self.fieldsets
        first, *rest = self.fieldsets
        shown = tuple(field for field in first[1]["fields"] if field != "decline_shown")
        return ((first[0], {**first[1], "fields": shown}), *rest)

    def get_readonly_fields(self, request: HttpRequest, obj: Transaction | None = None) -> list[str]:
        return [str(field) for _, options in self.fieldsets for field in options["fields"]]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Transaction]:
        return super().get_queryset(request).select_related("buyer", "merchant_account", "payment_service")

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> Transaction | None:
        # Read once per request: change_view below and Django's own view both ask for it.
        cache: dict[str, Transaction | None] = request.__dict__.setdefault("_transactions", {})
        if object_id not in cache:
            queryset = (
                self.get_queryset(request)
                .select_related("payment_method__card")
                .prefetch_related(DISPUTES, Prefetch("captures", Capture.objects.order_by("sequence"), CAPTURES_SHOWN))
            )
            try:
                cache[object_id] = queryset.get(pk=uuid.UUID(str(object_id)))
            except (Transaction.DoesNotExist, ValueError):
                cache[object_id] = None
        return cache[object_id]

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Transaction], search_term: str
    ) -> tuple[QuerySet[Transaction], bool]:
        if not search_term.strip():
            return queryset, False
        return transaction_staff_search(queryset, search_term), False

    # --- columns and fields -----------------------------------------------------------------------------

    @admin.display(description="Transaction", ordering="id")
    def short_id(self, txn: Transaction) -> str:
        # The first block of the id is what people read out; the full id is on the page and in the search.
        return str(txn.pk).split("-")[0]

    @admin.display(description="Created", ordering="created_at")
    def created_shown(self, txn: Transaction) -> str:
        return desk_datetime(txn.created_at)

    @admin.display(description="Status", ordering="status")
    def status_shown(self, txn: Transaction) -> str:
        reason = ""
        if txn.error_code:
            words = explain(txn.error_code)
            reason = format_html(' <span class="decline-reason" title="{}">{}</span>', words.sentence, words.label)
        return format_html("{}{}{}{}", readable(txn.status), reason, method_badge(txn), refund_badge(txn))

    @admin.display(description="Why it failed")
    def decline_shown(self, txn: Transaction) -> str:
        return decline_words(txn.error_code)

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, txn: Transaction) -> str:
        return format_money(txn.amount, txn.currency)

    @admin.display(description="Authorized")
    def authorized(self, txn: Transaction) -> str:
        return format_money(txn.authorized_amount, txn.currency)

    @admin.display(description="Captured")
    def captured(self, txn: Transaction) -> str:
        """The total, then each capture (a processor may take several of one authorization) with its amount, where it
        stands and the processor's reference of it: what an agent compares with the processor's dashboard."""
        total = format_money(txn.captured_amount, txn.currency)
        captures: list[Capture] = getattr(txn, CAPTURES_SHOWN, [])
        if not captures:
            return total
        lines = format_html_join("", "<li>{}</li>", ((_capture_line(capture),) for capture in captures))
        return format_html('{}<ul class="capture-list">{}</ul>', total, lines)

    @admin.display(description="Refunded")
    def refunded(self, txn: Transaction) -> str:
        return format_money(txn.refunded_amount, txn.currency)

    @admin.display(description="Disputes")
    def disputes(self, txn: Transaction) -> str:
        """Where its disputes stand (the badge), what lost ones took back and what open ones hold (why a refund of it
        is not offered), beside captured and refunded, and a link to them (docs/disputes.md)."""
        states = [dispute.state for dispute in getattr(txn, DISPUTES).all()]
        if not states:
            return "None"
        url = reverse("admin:disputes_dispute_changelist") + f"?transaction__id__exact={txn.pk}"
        held = transaction_held(txn)
        return format_html(
            '{} taken back{}{} (<a href="{}">{} dispute(s)</a>)',
            format_money(transaction_taken_back(txn), txn.currency),
            f", {format_money(held, txn.currency)} held by an open dispute until the bank decides it: not refundable"
            if held
            else "",
            dispute_badge(states),
            url,
            len(states),
        )

    @admin.display(description="Settled")
    def settlement(self, txn: Transaction) -> str:
        """The net the processor paid, from its settlement records, and a link to their lines (fees, payout)."""
        if not txn.settled or txn.settled_currency is None or txn.settled_at is None:
            return "Not settled yet"
        lines = reverse("admin:settlements_ledgerentry_changelist") + f"?transaction__id__exact={txn.pk}"
        return format_html(
            '{} net, first posted {} (<a href="{}">settlement lines: gross, fees, payout</a>)',
            format_money(txn.settled_amount, txn.settled_currency),
            desk_date(txn.settled_at),
            lines,
        )

    @admin.display(description="Card")
    def card(self, txn: Transaction) -> str:
        if not txn.pays_by_card:
            return txn.method or "-"
        return f"{txn.card_scheme or 'card'} {txn.card_bin}… •••• {txn.card_last4}"

    @admin.display(description="Card type and issuer")
    def card_facts(self, txn: Transaction) -> str:
        # The transaction's own copy of what the BIN table said when the card was stored: no join, no lookup.
        if not txn.pays_by_card:
            return "-"
        return card_facts_words(txn.card_scheme, txn.card_type, txn.card_country, txn.card_issuer_name)

    @admin.display(description="Buyer")
    def buyer_shown(self, txn: Transaction) -> str:
        # From the transaction's own copy of the buyer: no join on the list.
        name = (txn.buyer_details or {}).get("display_name") if isinstance(txn.buyer_details, dict) else None
        return " · ".join(part for part in (name, txn.buyer_email_address) if part) or "-"

    @admin.display(description="Buyer")
    def buyer_link(self, txn: Transaction) -> str:
        if txn.buyer is None:
            return self.buyer_shown(txn)
        url = reverse("admin:buyers_buyer_profile", args=[txn.buyer.pk])
        return format_html('<a href="{}">{}</a>', url, txn.buyer.display_name or str(txn.buyer.pk))

    @admin.display(description="Processor's reference")
    def processor_reference(self, txn: Transaction) -> str:
        """The processor's id of the payment, linked to the processor's own dashboard when its processor declares one
        (`Processor.dashboard_url`): the desk names no processor."""
        reference = txn.payment_service_transaction_id
        if not reference:
            return "-"
        service = txn.payment_service
        processor = processor_get(service.definition_id) if service is not None else None
        url = None
        if service is not None and processor is not None:
            url = processor.dashboard_url(reference=reference, fields=service.fields or {})
        if url is None:
            return reference
        return format_html('<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>', url, reference)

    @admin.display(description="Stored payment method")
    def stored_method(self, txn: Transaction) -> str:
        if txn.payment_method is None:
            return "-"
        return admin_link(txn.payment_method, str(txn.payment_method.card))

    @admin.display(description="Checkout session")
    def session(self, txn: Transaction) -> str:
        if txn.checkout_session_id is None:
            return "-"
        url = reverse("admin:checkout_checkoutsession_change", args=[txn.checkout_session_id])
        return format_html('<a href="{}">{}</a>', url, txn.checkout_session_id)

    # --- the page: timeline and buttons -----------------------------------------------------------------

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        txn = self.get_object(request, object_id)
        extra: dict[str, Any] = dict(extra_context or {})
        if txn is not None:
            extra["subtitle"] = f"{format_money(txn.amount, txn.currency)}, {readable(txn.status)}"
            extra["timeline"] = _timeline_rows(txn)
            extra["fieldsets_before_timeline"] = self.fieldsets_before_timeline
            if self.has_operate_permission(request):
                extra["actions_offered"] = [
                    (action, reverse(f"admin:transactions_transaction_{action.name}", args=[txn.pk]))
                    for action in ACTIONS.values()
                    if action.offered(txn)
                ]
        return super().change_view(request, object_id, form_url, extra)

    def has_operate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(OPERATE_PERMISSION)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.action_view)
        own = [
            path(f"<uuid:object_id>/{name}/", view, {"action": name}, name=f"transactions_transaction_{name}")
            for name in ACTIONS
        ]
        return own + super().get_urls()

    def action_view(self, request: HttpRequest, object_id: uuid.UUID, action: str) -> HttpResponse:
        """GET: what will happen, and the form; POST: run the service, say the outcome, back to the page."""
        if not self.has_operate_permission(request):
            raise PermissionDenied
        txn = get_object_or_404(Transaction, pk=object_id)
        chosen = ACTIONS[action]
        form = ActionForm(request.POST if request.method == "POST" else None, txn=txn, action=chosen)
        if request.method != "POST" or not form.is_valid():
            return self._confirmation(request, txn, chosen, form)
        actor = Actor.admin(request.user.get_username(), reason=form.cleaned_data["reason"])
        with audited_staff_write(
            user=request.user,  # type: ignore[arg-type]
            merchant_account_id=txn.merchant_account_id,
            view_action=chosen.name,
            resource_model=chosen.audited_model,
        ):
            try:
                outcome = chosen.run(txn, actor, form.cleaned_data.get("amount"), form.cleaned_data.get("attempt"))
            except DomainError as exc:
                if exc.details and exc.details[0]["pointer"] == "/amount":
                    # Less was left by the time it ran (another refund): the form again, the amount kept, in units.
                    txn.refresh_from_db()
                    form.add_error("amount", chosen.too_much(txn, form.cleaned_data["amount"]))
                    return self._confirmation(request, txn, chosen, form)
                self.message_user(request, f"Nothing was done. {exc.message}", messages.ERROR)
                return self._redirect_to(object_id)
            self.log_change(request, txn, f"{outcome} Reason: {actor.reason}")
        self.message_user(request, outcome, messages.SUCCESS)
        return self._redirect_to(object_id)

    def _redirect_to(self, object_id: uuid.UUID) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:transactions_transaction_change", args=[object_id]))

    def _confirmation(
        self, request: HttpRequest, txn: Transaction, action: TransactionAction, form: ActionForm
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": f"{action.label} transaction {str(txn.pk).split('-')[0]}",
            "opts": self.model._meta,
            "original": txn,
            "action": action,
            "promise": action.promise(txn),
            "amount": format_money(txn.amount, txn.currency),
            "form": form,
        }
        return TemplateResponse(request, "admin/transactions/transaction/action.html", context)


# Events that move money say so with the amount ("Refund of USD 5.00 succeeded"): their status rarely changes.
_MONEY_EVENTS = {
    "refund_requested": ("Refund", "requested"),
    "refund_succeeded": ("Refund", "succeeded"),
    "refund_failed": ("Refund", "failed"),
    "capture_requested": ("Capture", "requested"),
    "capture_succeeded": ("Capture", "succeeded"),
    "capture_failed": ("Capture", "failed"),
}


def event_words(event: TransactionEvent, currency: str) -> str:
    """What an event did, in words: the money it moved, and the status it left only when the status changed."""
    what = readable(event.name)
    if event.name in _MONEY_EVENTS and event.amount is not None:
        noun, outcome = _MONEY_EVENTS[event.name]
        what = f"{noun} of {format_money(event.amount, currency)} {outcome}"
    if event.from_status and event.from_status != event.to_status:
        return f"{what} ({readable(event.from_status)} → {readable(event.to_status)})"
    if not event.from_status and event.name != event.to_status:
        return f"{what} (now {readable(event.to_status)})"
    return what


def _timeline_rows(txn: Transaction) -> list[dict[str, Any]]:
    """The timeline as the template shows it: when, what, how much, who, and a link where there is a page."""
    rows = []
    for entry in transaction_timeline(txn=txn):
        item: Any = entry.item
        row: dict[str, Any] = {"at": entry.at, "kind": entry.kind, "who": "", "amount": "", "link": ""}
        if entry.kind == "event":
            row["what"] = event_words(item, txn.currency)
            row["who"] = f"{item.get_actor_type_display()} {item.actor}".strip()
            row["amount"] = format_money(item.amount, txn.currency) if item.amount is not None else ""
            # An operator's reason, or why a processor's word was refused (a dispute in another currency).
            details = item.details if isinstance(item.details, dict) else {}
            row["note"] = details.get("reason") or details.get("refused") or ""
        elif entry.kind == "refund":
            row["what"] = f"refund to {item.get_target_type_display().lower()}, {readable(item.status)}"
            row["amount"] = format_money(item.amount, item.currency)
            row["note"] = item.reason or ""
            row["link"] = admin_link(item, "refund")
        elif entry.kind == "redemption":
            row["what"] = f"gift card •••• {item.last4} redeemed, {readable(item.status)}"
            row["amount"] = format_money(item.amount, txn.currency)
            row["note"] = item.error_code or ""
        else:
            row["what"] = item.what
            row["note"] = item.note
            row["link"] = admin_link(item.row, item.link_text)
        rows.append(row)
    return rows


@admin.register(Refund)
class RefundAdmin(ReadOnlyAdminMixin, RefundAdminBase):
    desk_everyday = 3

    list_display = ("short_id", "transaction_link", "amount_shown", "target_type", "status", "reason", "created_at")
    list_filter = ("status", "target_type", "merchant_account")
    search_fields = ("=id", "=transaction__id", "=external_identifier")
    list_select_related = ("transaction",)
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "id",
        "transaction_link",
        "merchant_account",
        "amount_shown",
        "target_type",
        "redemption",
        "status",
        "reason",
        "external_identifier",
        "payment_service_refund_id",
        "decline_shown",
        "raw_response_code",
        "raw_response_description",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Refund]:
        return super().get_queryset(request).select_related("transaction", "merchant_account", "redemption")

    @admin.display(description="Why it failed")
    def decline_shown(self, refund: Refund) -> str:
        return decline_words(refund.error_code)

    @admin.display(description="Refund", ordering="id")
    def short_id(self, refund: Refund) -> str:
        return str(refund.pk).split("-")[0]

    @admin.display(description="Transaction")
    def transaction_link(self, refund: Refund) -> str:
        return admin_link(refund.transaction, str(refund.transaction_id).split("-")[0])

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, refund: Refund) -> str:
        return format_money(refund.amount, refund.currency)
