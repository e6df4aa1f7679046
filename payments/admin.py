"""Admin for the payments platform's own records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import django_tasks_db.admin  # registers the backend's own page first, so it can be replaced below
from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Model, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django_tasks_db.models import DBTaskResult

from payments.accounts.models import ApiKey, MerchantAccount
from payments.accounts.services import api_key_revoke, merchant_account_create, merchant_account_update
from payments.audit import display as audit_display
from payments.audit.models import AuditLogEntry
from payments.jobs.models import BackgroundTask
from payments.ratelimits.models import RateLimitEvent
from payments.staff.account_settings import account_settings
from payments.staff.filters import recent_values_filter
from payments.staff.mixins import ReadOnlyAdminMixin
from payments.staff.pagination import CappedCountPaginator
from payments.staff.permissions import DeskPermissionsMixin

if TYPE_CHECKING:
    # ModelAdmin is generic in django-stubs only: Django's own class cannot be subscripted at run time.
    RateLimitEventAdminBase = admin.ModelAdmin[RateLimitEvent]
    MerchantAccountAdminBase = admin.ModelAdmin[MerchantAccount]
    ApiKeyAdminBase = admin.ModelAdmin[ApiKey]
    AuditLogEntryAdminBase = admin.ModelAdmin[AuditLogEntry]
    UserAdminBase = UserAdmin[User]
else:
    UserAdminBase = UserAdmin
    RateLimitEventAdminBase = MerchantAccountAdminBase = ApiKeyAdminBase = AuditLogEntryAdminBase = admin.ModelAdmin


# The task backend's page labels its model "Task Results" and its columns by their field names: the desk shows the
# same rows as background tasks, in its own words, instead.
admin.site.unregister(DBTaskResult)


# The roles' pages offer permissions in the desk's words (payments/staff/permissions.py).
admin.site.unregister(Group)
admin.site.unregister(User)


@admin.register(Group)
class DeskGroupAdmin(DeskPermissionsMixin, GroupAdmin):
    pass


@admin.register(User)
class DeskUserAdmin(DeskPermissionsMixin, UserAdminBase):
    permissions_field = "user_permissions"


@admin.register(BackgroundTask)
class BackgroundTaskAdmin(ReadOnlyAdminMixin, django_tasks_db.admin.DBTaskResultAdmin):
    desk_internal = True  # last on the start page, under Internals

    list_display = ("task", "status", "enqueued_at", "started_at", "finished_at", "priority", "queue_name")  # type: ignore[assignment]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        return [
            "task",
            "status",
            "enqueued_at",
            "display_run_after",
            "started_at",
            "finished_at",
            "priority",
            "queue_name",
            "arguments",
            "workers",
            "return_value",
            "exception_class_path",
            "formatted_traceback",
        ]

    @admin.display(description="Task", ordering="task_path")
    def task(self, result: BackgroundTask) -> str:
        return result.task_name

    @admin.display(description="Workers")
    def workers(self, result: BackgroundTask) -> str:
        return ", ".join(result.worker_ids) or "-"

    @admin.display(description="Arguments")
    def arguments(self, result: BackgroundTask) -> str:
        return format_html("<pre>{}</pre>", result.args_kwargs)


@admin.register(RateLimitEvent)
class RateLimitEventAdmin(ReadOnlyAdminMixin, RateLimitEventAdminBase):
    """Who hit an enumeration limit, for support staff: a read-only list, written only by the throttles."""

    desk_internal = True

    list_display = ("created_at", "subject_kind", "subject_label", "merchant_account", "endpoint", "rate", "window_end")
    list_filter = ("merchant_account", ("created_at", admin.DateFieldListFilter), "subject_kind", "endpoint")
    date_hierarchy = "created_at"
    search_fields = ("=subject_label",)
    list_select_related = ("merchant_account",)
    # The digest that keeps one row per window identifies nothing to a person; it stays out of the page.
    exclude = ("subject_key",)
    show_full_result_count = False


@admin.register(AuditLogEntry)
class AuditLogEntryAdmin(ReadOnlyAdminMixin, AuditLogEntryAdminBase):
    """Who changed what and when, API keys and staff alike: read-only, written only by `audit_record`."""

    # Four columns that fit 1280 px: when, who, what changed (linked to the resource), for which account.
    list_display = ("created_at", "who", "what_changed", "merchant_account")
    # No `date_hierarchy` and no plain "resource_type" filter: each is a DISTINCT over every row of a table that only
    # grows (docs/performance.md, the scale stage). The date filter and the recent types answer the same questions.
    list_filter = (
        "action",
        "user_is_staff",
        # Types are slugs ("payment-method"); the filter offers them as words.
        recent_values_filter("resource_type", "resource type", label=lambda slug: slug.replace("-", " ")),
        "merchant_account",
        ("created_at", admin.DateFieldListFilter),
    )
    search_fields = ("resource_id", "user_name", "resource_name")  # shows the box; the lookups are exact, below
    search_help_text = "An object's id, an actor's name or API key id, or a resource's name, exactly as shown."
    list_select_related = ("merchant_account",)
    ordering = ("-created_at", "-id")
    paginator = CappedCountPaginator
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[AuditLogEntry], search_term: str
    ) -> tuple[QuerySet[AuditLogEntry], bool]:
        """Exact matches on indexed columns only: Django's own search is a case-folded LIKE per column, which
        reads every row of the table."""
        term = search_term.strip()
        if not term:
            return queryset, False
        matches = Q(resource_id=term) | Q(user_name=term) | Q(resource_name=term)
        return queryset.filter(matches), False

    @admin.display(description="Who", ordering="user_name")
    def who(self, entry: AuditLogEntry) -> str:
        return audit_display.actor(entry)

    @admin.display(description="What changed")
    def what_changed(self, entry: AuditLogEntry) -> str:
        return audit_display.change(entry)


class MerchantAccountForm(forms.ModelForm[MerchantAccount]):
    """The account's fields, and those apps keep for it (payments.staff.account_settings), shown with its values."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            for setting in account_settings():
                self.initial.setdefault(setting.name, setting.value(self.instance))


@admin.register(MerchantAccount)
class MerchantAccountAdmin(MerchantAccountAdminBase):
    """Tenants. The slug id is fixed once created; saves go through the merchant account services."""

    list_display = ("id", "display_name", "created_at")
    search_fields = ("=id", "display_name")
    readonly_fields = ("created_at", "updated_at")
    ordering = ("id",)

    def get_readonly_fields(self, request: HttpRequest, obj: MerchantAccount | None = None) -> tuple[str, ...]:
        # Every resource and API key refers to the id: renaming it would orphan them.
        return (*self.readonly_fields, "id") if obj else self.readonly_fields

    def get_form(
        self, request: HttpRequest, obj: MerchantAccount | None = None, change: bool = False, **kwargs: Any
    ) -> type[forms.ModelForm[MerchantAccount]]:
        fields = {setting.name: setting.field() for setting in account_settings()}
        kwargs["form"] = type("MerchantAccountForm", (MerchantAccountForm,), fields)
        return super().get_form(request, obj, change, **kwargs)

    def save_model(
        self, request: HttpRequest, obj: MerchantAccount, form: forms.ModelForm[MerchantAccount], change: bool
    ) -> None:
        if change:
            account = merchant_account_update(
                account=obj, display_name=obj.display_name, allowed_origins=list(obj.allowed_origins or [])
            )
        else:
            account = merchant_account_create(
                id=obj.id, display_name=obj.display_name, allowed_origins=list(obj.allowed_origins or [])
            )
        for setting in account_settings():
            if setting.name in form.changed_data:
                setting.save(account, form.cleaned_data[setting.name])


@admin.register(ApiKey)
class ApiKeyAdmin(ReadOnlyAdminMixin, ApiKeyAdminBase):
    """Public keys by the name people gave them, read-only: keys are made with `manage.py create_api_key` (the first
    one) or over the API (`/api-key-pairs`), where the private half is shown once; never in a web page. The one change
    allowed is revoking, through the same service as the command."""

    list_display = ("__str__", "kid", "scope", "role_names", "is_active", "created_at", "last_used_at", "revoked_at")
    list_filter = ("is_active", "algorithm", "all_merchant_accounts", "merchant_accounts")
    search_fields = ("=kid", "display_name")
    fields = (
        "display_name",
        "kid",
        "scope",
        "role_names",
        "created_by",
        "algorithm",
        "is_active",
        "public_key_pem",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = fields
    actions = ("revoke",)
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ApiKey]:
        return super().get_queryset(request).prefetch_related("merchant_accounts")

    @admin.display(description="Merchant accounts")
    def scope(self, api_key: ApiKey) -> str:
        """The accounts by name; a key that reaches none (its accounts changed since) says so."""
        if api_key.all_merchant_accounts:
            return "all accounts"
        return ", ".join(account.display_name for account in api_key.reach) or "none"

    @admin.display(description="Roles")
    def role_names(self, api_key: ApiKey) -> str:
        return ", ".join(role.name for role in api_key.role_list) or "none"

    @admin.display(description="Public key")
    def public_key_pem(self, api_key: ApiKey) -> str:
        return format_html("<pre>{}</pre>", api_key.public_key)

    @admin.action(description="Revoke selected API keys", permissions=("revoke",))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        revoked = [api_key_revoke(kid=api_key.kid) for api_key in queryset.filter(is_active=True)]
        for api_key in revoked:
            self.log_change(request, api_key, "Revoked")
        self.message_user(request, f"Revoked {len(revoked)} API key(s).", messages.SUCCESS)

    def has_revoke_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("payments.change_apikey")
