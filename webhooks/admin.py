"""Admin for webhooks: subscriptions and deliveries read-only (merchants manage subscriptions through the API),
secrets never shown, every attempt listed under its delivery, and "send again" as a logged admin action (POST
only, through `webhook_delivery_resend`, for the Payments operator group)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from payments.errors import Conflict
from payments.staff.columns import held_by
from payments.staff.mixins import ReadOnlyAdminMixin
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services.deliveries import webhook_delivery_resend
from webhooks.services.subscriptions import webhook_subscription_rotating

RESEND_PERMISSION = "webhooks.resend_webhookdelivery"


class FailingFilter(admin.SimpleListFilter):
    """Subscriptions whose every attempt has failed: for a while, or long enough to be reported."""

    title = "failing"
    parameter_name = "failing"

    def lookups(self, request, model_admin):
        return [("reported", "Failing long enough to be reported"), ("now", "Failing now")]

    def queryset(self, request, queryset):
        if self.value() == "reported":
            since = timezone.now() - timedelta(seconds=settings.WEBHOOK_FAILING_REPORT_AFTER_SECONDS)
            return queryset.filter(failing_since__lte=since)
        if self.value() == "now":
            return queryset.filter(failing_since__isnull=False)
        return queryset


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "merchant_account", "url", "active", "auth_kind", "failing_since", "last_delivered_at")
    list_filter = (FailingFilter, "active", "merchant_account")
    search_fields = ("=id", "url")
    show_full_result_count = False
    fields = (
        "id",
        "merchant_account",
        "url",
        "active",
        "auth_kind",
        "auth_username",
        "secret",
        "failing_since",
        "last_delivered_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields

    @admin.display(description="Signing secret")
    def secret(self, subscription: WebhookSubscription) -> str:
        # Staff never see a secret: the merchant reads it through the API.
        return "sealed, rotation in progress" if webhook_subscription_rotating(subscription) else "sealed"


class WebhookAttemptInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    fields = (
        "number",
        "started_at",
        "duration_ms",
        "succeeded",
        "status_code",
        "error",
        "response_excerpt",
        "worker",
        "requested_by",
    )
    readonly_fields = fields


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # The receiver as a column of its own words: Django keeps a foreign key's cell on one line, and a receiver's URL
    # on one line pushed the list's last columns past a 1280 px screen.
    list_display = ("id", "event_name", "receiver", "state", "attempt_count", "next_attempt_at", "created_at")
    list_filter = ("state",)
    search_fields = ("=id", "=event__id", "=subscription__id", "=former_subscription_id", "=event__target_id")
    search_help_text = (
        "A delivery id (X-Gr4vy-Webhook-Id), event id, subscription id or target id (e.g. a transaction)."
    )
    list_select_related = ("event", "subscription")
    show_full_result_count = False
    fields = (
        "id",
        "subscription",
        "former_subscription_id",
        "former_subscription_url",
        "event_name",
        "target",
        "state",
        "attempt_count",
        "next_attempt_at",
        "retry_until",
        "sending",
        "delivered_at",
        "created_at",
        "body",
    )
    readonly_fields = fields
    inlines = (WebhookAttemptInline,)
    actions = ("send_again",)

    @admin.display(description="Event", ordering="event__name")
    def event_name(self, delivery: WebhookDelivery) -> str:
        return delivery.event.name

    @admin.display(description="Receiver", ordering="subscription__url")
    def receiver(self, delivery: WebhookDelivery) -> str:
        return delivery.receiver_url

    @admin.display(description="Being sent by")
    def sending(self, delivery: WebhookDelivery) -> str:
        return held_by(delivery.leased_by, delivery.leased_until)

    @admin.display(description="Target")
    def target(self, delivery: WebhookDelivery) -> str:
        return f"{delivery.event.target_type} {delivery.event.target_id}"

    def has_resend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RESEND_PERMISSION)

    @admin.action(description="Send selected deliveries again", permissions=["resend"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        queued = 0
        for delivery in queryset:
            try:
                webhook_delivery_resend(delivery=delivery, requested_by=request.user.get_username())
            except Conflict as refused:
                self.message_user(request, f"{delivery.pk}: {refused.message}", messages.WARNING)
                continue
            self.log_change(request, delivery, "Sent again.")
            queued += 1
        self.message_user(request, f"{queued} deliveries queued to be sent again.", messages.SUCCESS)
