"""`GET /audit-logs`: the merchant account's audit log, as upstream serves it."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from rest_framework import mixins, serializers, viewsets

from payments.audit.models import AuditLogEntry
from payments.audit.selectors import audit_log_list
from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer
from payments.rest.permissions import request_merchant_account


class AuditLogEntryResourceOutput(OutputSerializer):
    type = serializers.CharField(source="resource_type")
    id = serializers.CharField(source="resource_id")
    name = serializers.CharField(source="resource_name")


# What a merchant sees of a staff actor: that staff acted, and a stable id (so `user_id` filters and a question to
# support can name the person), never the person's name or email address, which the admin shows to staff.
STAFF_NAME = "Staff"


class _ActorName(serializers.CharField):
    def to_representation(self, value: AuditLogEntry) -> str:  # type: ignore[override]
        return STAFF_NAME if value.user_is_staff else value.user_name


class _ActorEmail(serializers.CharField):
    def to_representation(self, value: AuditLogEntry) -> str | None:  # type: ignore[override]
        return None if value.user_is_staff else value.user_email


class AuditLogEntryUserOutput(OutputSerializer):
    type = ConstantField("user")
    id = serializers.UUIDField(source="user_id", allow_null=True)
    name = _ActorName(source="*")
    email_address = _ActorEmail(source="*", allow_null=True)
    is_staff = serializers.BooleanField(source="user_is_staff")
    # The actor as it was when it acted; a revoked key or a departed user is not looked up again.
    status = ConstantField("active")


# This server's actions that upstream's closed list lacks, as the API serves them: an increment is upstream's
# `updated` of the transaction (what upstream itself records it as), and `action=updated` finds it. A lock-out is
# written only on entries the API never serves.
SERVED_AS = {AuditLogEntry.Action.INCREMENTED: AuditLogEntry.Action.UPDATED}
API_ACTIONS = [
    (value, label)
    for value, label in AuditLogEntry.Action.choices
    if value not in SERVED_AS and value != AuditLogEntry.Action.LOCKED_OUT
]


class _ApiAction(serializers.ChoiceField):
    def to_representation(self, value: str) -> str:
        return str(SERVED_AS.get(AuditLogEntry.Action(value), value))


class AuditLogEntryOutput(OutputSerializer):
    """The upstream `AuditLogEntry`."""

    type = ConstantField("audit-log")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    resource = AuditLogEntryResourceOutput(source="*")
    action = _ApiAction(choices=API_ACTIONS)
    user = AuditLogEntryUserOutput(source="*")
    timestamp = TimestampField(source="created_at")


# django-filter ships no types, so its classes are Any to mypy: subclassing one is allowed here on purpose.
class AuditLogFilter(django_filters.FilterSet):  # type: ignore[misc]
    action = django_filters.ChoiceFilter(field_name="action", choices=API_ACTIONS, method="filter_action")
    user_id = django_filters.UUIDFilter(field_name="user_id")
    resource_type = django_filters.CharFilter(field_name="resource_type", max_length=64)

    def filter_action(self, queryset: QuerySet[AuditLogEntry], name: str, value: str) -> QuerySet[AuditLogEntry]:
        """The entries served as `value`: this server's own actions served as it too."""
        served = [value, *(own for own, upstream in SERVED_AS.items() if upstream == value)]
        return queryset.filter(action__in=served)


class AuditLogViewSet(mixins.ListModelMixin, viewsets.GenericViewSet[AuditLogEntry]):
    """The audit log.

    list:
        List audit log entries
        What was changed in the merchant account, by whom and when, newest first, a page at a time: every
        write made through this API (the actor is the API key, by the name people gave it, else its key id) and
        every change made by staff in the admin. Filter by `action`, `user_id` or `resource_type`. Needs the
        `audit-logs.read` scope; entries of other merchant accounts are never listed.
    """

    queryset = AuditLogEntry.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "audit-logs"
    serializer_class = AuditLogEntryOutput
    filterset_class = AuditLogFilter

    def get_queryset(self) -> QuerySet[AuditLogEntry]:
        return audit_log_list(merchant_account=request_merchant_account(self.request))
