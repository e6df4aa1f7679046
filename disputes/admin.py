"""Disputes on the support desk: the queue of open disputes, the soonest answer due first, each with its amount,
reason, buyer and transaction; a dispute's page with the answer sent and what the processor said of it. Only the
processors' notifications write a dispute's state; the Payments operator role may answer one (`answer_dispute`),
through the same service as the API, each answer in the audit log. The same role opens test disputes on sandbox
payments and decides them (`disputes.sandbox`), as a processor's test mode lets one."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from disputes.forms import DisputeAnswerForm, SandboxDisputeForm
from disputes.models import Dispute, DisputeAnswer
from disputes.sandbox import DECISIONS, TEST_PREFIX, sandbox_dispute_decide, sandbox_dispute_open
from disputes.services import dispute_answer
from payments.audit.services import audited_staff_write
from payments.choices import DisputeState
from payments.errors import DomainError
from payments.money import format_money
from payments.staff.dates import desk_datetime
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from paymentservices.processors import processor_get
from transactions.badges import dispute_badge
from transactions.services.state import Actor

ANSWER_PERMISSION = "disputes.answer_dispute"

if TYPE_CHECKING:
    DisputeAdminBase = admin.ModelAdmin[Dispute]
else:
    DisputeAdminBase = admin.ModelAdmin


class OpenFilter(admin.SimpleListFilter):
    """Open disputes (the queue) unless asked otherwise: what needs an answer is what support looks for."""

    title = "open"
    parameter_name = "open"

    def lookups(self, request, model_admin):
        return [("yes", "Open (the queue)"), ("no", "Closed"), ("all", "All")]

    def choices(self, changelist):
        for lookup, title in self.lookup_choices:
            yield {
                "selected": (self.value() or "yes") == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Dispute]) -> QuerySet[Dispute]:
        value = self.value() or "yes"
        if value == "yes":
            return queryset.filter(state__in=DisputeState.OPEN)
        if value == "no":
            return queryset.filter(state__in=DisputeState.CLOSED)
        return queryset


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyAdminMixin, DisputeAdminBase):
    desk_everyday = 4

    list_display = ("due", "state_shown", "amount_shown", "reason", "buyer", "transaction_link", "payment_service")
    list_filter = (OpenFilter, "state", "merchant_account")
    search_fields = ("=processor_dispute_id", "=transaction__id", "=transaction__payment_service_transaction_id")
    list_select_related = ("transaction", "payment_service")
    # The soonest answer first; a dispute that names no due date last.
    ordering = ("due_at", "created_at", "id")
    paginator = CappedCountPaginator
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "transaction_link",
        "buyer",
        "payment_service",
        "processor_dispute_id",
        "state_shown",
        "answer_shown",
        "reason",
        "amount_shown",
        "due",
        "fact_at",
        "closed_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    class Media:
        # The transactions' badges (the dispute badge is theirs) and their list on a phone.
        css = {"all": ("transactions/admin/transaction-list.css",)}

    def get_urls(self) -> list[URLPattern]:
        site = self.admin_site
        return [
            path("<uuid:object_id>/answer/", site.admin_view(self.answer_view), name="disputes_dispute_answer"),
            path("test/", site.admin_view(self.test_view), name="disputes_dispute_test"),
            path("<uuid:object_id>/decide/", site.admin_view(self.decide_view), name="disputes_dispute_decide"),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        extra: dict[str, Any] = dict(extra_context or {})
        if request.user.has_perm(ANSWER_PERMISSION):
            extra["test_dispute_url"] = reverse("admin:disputes_dispute_test")
        return super().changelist_view(request, extra)

    def test_view(self, request: HttpRequest) -> HttpResponse:
        """GET: the form (its transaction prefilled from `?transaction=`); POST: a test dispute opened on the sandbox
        payment, then its page."""
        if not request.user.has_perm(ANSWER_PERMISSION):
            raise PermissionDenied
        form = SandboxDisputeForm(request.POST or None, initial={"transaction": request.GET.get("transaction")})
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                dispute = sandbox_dispute_open(
                    transaction_id=data["transaction"],
                    amount=data.get("amount"),
                    reason=data["reason"],
                    opened_by=request.user.get_username(),
                )
            except DomainError as exc:
                form.add_error(None, exc.message)
            else:
                self.log_addition(request, dispute, "Opened a test dispute on the sandbox.")
                self.message_user(request, "Test dispute opened: it needs a response within 7 days.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:disputes_dispute_change", args=[dispute.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": "Open a test dispute on the sandbox",
            "opts": self.model._meta,
            "form": form,
        }
        return TemplateResponse(request, "admin/disputes/dispute/test.html", context)

    def decide_view(self, request: HttpRequest, object_id: uuid.UUID) -> HttpResponse:
        """POST only: the bank's decision on a test dispute (won or lost), as the sandbox would notify it."""
        if not request.user.has_perm(ANSWER_PERMISSION) or request.method != "POST":
            raise PermissionDenied
        try:
            dispute = sandbox_dispute_decide(
                dispute_id=object_id, state=request.POST.get("state", ""), decided_by=request.user.get_username()
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        else:
            self.log_change(request, dispute, f"Decided the test dispute: {dispute.state}.")
            self.message_user(request, f"The test dispute is {dispute.state}.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:disputes_dispute_change", args=[object_id]))

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        dispute = self.get_object(request, object_id)
        extra: dict[str, Any] = dict(extra_context or {})
        answerable = dispute is not None and dispute.open and request.user.has_perm(ANSWER_PERMISSION)
        if answerable and dispute is not None and not dispute.answers.exists():
            extra["answer_url"] = reverse("admin:disputes_dispute_answer", args=[dispute.pk])
        if answerable and dispute is not None and dispute.processor_dispute_id.startswith(TEST_PREFIX):
            extra["decide_url"] = reverse("admin:disputes_dispute_decide", args=[dispute.pk])
            extra["decisions"] = DECISIONS
        return super().change_view(request, object_id, form_url, extra)

    def answer_view(self, request: HttpRequest, object_id: uuid.UUID) -> HttpResponse:
        """GET: the dispute and the form; POST: the answer sent through the service (the API's), its outcome said,
        back to the dispute's page, which shows what the processor answered."""
        if not request.user.has_perm(ANSWER_PERMISSION):
            raise PermissionDenied
        dispute = get_object_or_404(Dispute.objects.select_related("payment_service"), pk=object_id)
        form = DisputeAnswerForm(request.POST or None, request.FILES or None)
        if request.method != "POST" or not form.is_valid():
            return self._answer_page(request, dispute, form)
        with audited_staff_write(
            user=request.user,  # type: ignore[arg-type]
            merchant_account_id=dispute.merchant_account_id,
            view_action="create",
            resource_model=DisputeAnswer,
        ):
            try:
                answer = dispute_answer(
                    dispute_id=dispute.pk,
                    action=form.cleaned_data["action"],
                    evidence=form.evidence(),
                    actor=Actor.admin(request.user.get_username()),
                )
            except DomainError as exc:
                form.add_error(None, f"Nothing was sent. {exc.message}")
                return self._answer_page(request, dispute, form)
        self.message_user(request, f"The processor answered: {answer.get_outcome_display().lower()}.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:disputes_dispute_change", args=[dispute.pk]))

    def _answer_page(self, request: HttpRequest, dispute: Dispute, form: DisputeAnswerForm) -> TemplateResponse:
        processor = processor_get(dispute.payment_service.definition_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Answer dispute {dispute.processor_dispute_id}",
            "opts": self.model._meta,
            "original": dispute,
            "processor": processor.display_name if processor else dispute.payment_service.definition_id,
            "amount": format_money(dispute.amount, dispute.currency),
            "due": desk_datetime(dispute.due_at) if dispute.due_at else None,
            "form": form,
        }
        return TemplateResponse(request, "admin/disputes/dispute/answer.html", context)

    @admin.display(description="Answer")
    def answer_shown(self, dispute: Dispute) -> str:
        """What was sent and what the processor said of it; nothing sent yet says so."""
        answer = dispute.answers.prefetch_related("files").first()
        if answer is None:
            return "Not answered"
        files = format_html_join(
            "",
            "<li>{}: {} ({}, {} bytes, SHA-256 {})</li>",
            ((f.get_kind_display(), f.name, f.content_type, f.size, f.sha256) for f in answer.files.all()),
        )
        return format_html(
            '<div class="dispute-answer-shown"><p><strong>{}</strong>: the processor answered <strong>{}</strong>'
            " ({}, by {})</p>{}{}{}</div>",
            answer.get_action_display(),
            answer.get_outcome_display().lower(),
            desk_datetime(answer.created_at),
            answer.answered_by,
            format_html("<p>Defence reason: {}</p>", answer.reason) if answer.reason else "",
            format_html("<blockquote>{}</blockquote>", answer.text) if answer.text else "",
            format_html("<ul>{}</ul>", files) if files else "",
        )

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        # A buyer's page links to the buyer's disputes (disputes.pivots).
        return lookup == "transaction__buyer__id__exact" or super().lookup_allowed(lookup, value, request)

    @admin.display(description="Answer due", ordering="due_at")
    def due(self, dispute: Dispute) -> str:
        return desk_datetime(dispute.due_at) if dispute.due_at else "-"

    @admin.display(description="State", ordering="state")
    def state_shown(self, dispute: Dispute) -> str:
        return dispute_badge([dispute.state])

    @admin.display(description="Amount", ordering="amount")
    def amount_shown(self, dispute: Dispute) -> str:
        return format_money(dispute.amount, dispute.currency)

    @admin.display(description="Buyer")
    def buyer(self, dispute: Dispute) -> str:
        # From the transaction's own copy of the buyer: no join beyond the transaction's.
        txn = dispute.transaction
        details = txn.buyer_details if isinstance(txn.buyer_details, dict) else {}
        parts = (details.get("display_name"), txn.buyer_email_address, txn.buyer_external_identifier)
        return " · ".join(part for part in parts if part) or "-"

    @admin.display(description="Transaction")
    def transaction_link(self, dispute: Dispute) -> str:
        url = reverse("admin:transactions_transaction_change", args=[dispute.transaction_id])
        return format_html('<a href="{}">{}</a>', url, str(dispute.transaction_id).split("-")[0])
