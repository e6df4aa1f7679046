"""Each merchant account's payment services in routing order; operators reorder them and switch them on or off.
The processors' notifications, read-only, with those that named nothing of ours to look into.

Credentials are never shown: secret fields appear as their key and a mask. Every change goes through the services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from payments.errors import DomainError
from payments.staff.filters import recent_values_filter
from payments.staff.mixins import ReadOnlyAdminMixin
from paymentservices.models import InboundNotification, PaymentService, processor_name
from paymentservices.processors import processor_get
from paymentservices.services import payment_service_move, payment_service_update

MASK = "••••••••"


@admin.register(PaymentService)
class PaymentServiceAdmin(admin.ModelAdmin[PaymentService]):
    list_display = (
        "display_name",
        "merchant_account",
        "position",
        "processor",
        "active",
        "cascade_retryable_declines",
        "is_deleted",
    )
    list_filter = (
        recent_values_filter("definition_id", "processor", label=processor_name),
        "active",
        "is_deleted",
    )
    list_select_related = ("merchant_account",)
    # Each account's services together, in the order routing tries them.
    ordering = ("merchant_account", "is_deleted", "position", "created_at")
    search_fields = ("display_name", "merchant_account__id")
    actions = ("move_up", "move_down", "activate", "deactivate", "allow_cascading", "stop_cascading")
    fields = (
        "id",
        "merchant_account",
        "processor",
        "display_name",
        "position",
        "active",
        "accepted_currencies",
        "accepted_countries",
        "cascade_retryable_declines",
        "credentials",
        "is_deleted",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    @admin.display(description="Processor", ordering="definition_id")
    def processor(self, service: PaymentService) -> str:
        return service.processor_name

    @admin.display(description="Credentials")
    def credentials(self, service: PaymentService) -> str:
        processor = processor_get(service.definition_id)
        shown = [f"{key}: {value}" for key, value in sorted(service.fields.items())]
        shown += [f"{key}: {MASK}" for key in sorted(service.sealed_fields)]
        if processor is not None and not processor.fields:
            return "none needed"
        return ", ".join(shown) or "none"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # services are made through the API, where their credentials are checked

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # deleting is the API's (it keeps the row for the payments it authorized)

    def _move(self, request: HttpRequest, queryset: QuerySet[PaymentService], step: int) -> None:
        for service in queryset.filter(is_deleted=False).order_by("position" if step < 0 else "-position"):
            payment_service_move(service=service, position=max(service.position + step, 1))
            self.log_change(request, service, f"Moved to position {service.position}.")
        messages.success(request, "Routing order updated.")

    @admin.action(description="Move up (tried earlier)", permissions=["change"])
    def move_up(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._move(request, queryset, -1)

    @admin.action(description="Move down (tried later)", permissions=["change"])
    def move_down(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._move(request, queryset, 1)

    @admin.action(description="Activate", permissions=["change"])
    def activate(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._set_active(request, queryset, active=True)

    @admin.action(description="Deactivate (leaves routing)", permissions=["change"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._set_active(request, queryset, active=False)

    @admin.action(description="Cascade retryable declines to the next service", permissions=["change"])
    def allow_cascading(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._set_cascading(request, queryset, cascade=True)

    @admin.action(description="Keep every decline final (no cascading)", permissions=["change"])
    def stop_cascading(self, request: HttpRequest, queryset: QuerySet[PaymentService]) -> None:
        self._set_cascading(request, queryset, cascade=False)

    def _set_cascading(self, request: HttpRequest, queryset: QuerySet[PaymentService], *, cascade: bool) -> None:
        for service in queryset.filter(is_deleted=False):
            payment_service_update(service=service, cascade_retryable_declines=cascade)
            self.log_change(
                request,
                service,
                "Retryable declines cascade to the next service." if cascade else "Every decline is final.",
            )
        messages.success(request, "Cascading updated.")

    def _set_active(self, request: HttpRequest, queryset: QuerySet[PaymentService], *, active: bool) -> None:
        for service in queryset.filter(is_deleted=False):
            try:
                payment_service_update(service=service, active=active)
            except DomainError as exc:  # a refusal (the sandbox rule): shown, the others still change
                messages.error(request, f"{service}: {exc.message}")
                continue
            self.log_change(request, service, "Activated." if active else "Deactivated.")


class NotificationMatchedFilter(admin.SimpleListFilter):
    """Notifications that named no payment, dispute or payout of ours (the operator's to look into), and the rest."""

    title = "matched"
    parameter_name = "matched"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("no", "Not matched"), ("yes", "Matched"), ("none", "Nothing to match")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[InboundNotification]) -> QuerySet[InboundNotification]:
        if self.value() == "none":
            return queryset.filter(matched__isnull=True)
        if self.value() in ("no", "yes"):
            return queryset.filter(matched=self.value() == "yes")
        return queryset


@admin.register(InboundNotification)
class InboundNotificationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin[InboundNotification]):
    list_display = ("received_at", "processor", "payment_service", "event_type", "object_id", "matched")
    list_filter = (NotificationMatchedFilter,)
    list_select_related = ("payment_service",)
    ordering = ("-received_at", "-id")
    search_fields = ("event_id", "object_id")
    fields = ("payment_service", "processor", "event_type", "event_id", "object_id", "matched", "received_at")
    readonly_fields = fields

    @admin.display(description="Processor", ordering="payment_service__definition_id")
    def processor(self, notification: InboundNotification) -> str:
        return notification.payment_service.processor_name
