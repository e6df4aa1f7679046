"""Writing audit log entries, and the hooks that write one for each API write and staff action."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.admin.models import ADDITION, CHANGE, DELETION, LogEntry
from django.db import models
from django.db.models import Model

from payments.accounts.models import MerchantAccount
from payments.audit.models import AuditLogEntry
from payments.vault.masking import mask_card_numbers

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

Action = AuditLogEntry.Action

# The resources the API writes, by model label, and the type an entry names them by (upstream's spelling). Each
# resource app registers its own from its `AppConfig.ready` (`audit_register_resource`): this package knows none.
AUDITED_RESOURCES: dict[str, str] = {}
# View actions that are more than an update of the resource they save.
_STATE_ACTIONS = {
    "capture": Action.CAPTURED,
    "void": Action.VOIDED,
    "cancel": Action.CANCELED,
    "increment_authorization": Action.INCREMENTED,
}
_STAFF_ACTIONS = {ADDITION: Action.CREATED, CHANGE: Action.UPDATED, DELETION: Action.DELETED}
# Staff users have integer ids; upstream's user id is a UUID, derived stably so `user_id` filters work.
_STAFF_USER_NAMESPACE = uuid.UUID("6f1d3c8e-3a52-4c1b-9d0e-2b7a8f4c5e10")
_NAME_LENGTH = 200


def audit_register_resource(model: type[Model], resource_type: str) -> None:
    """Audit API writes of `model`'s rows, naming them `resource_type`; registering again replaces it."""
    AUDITED_RESOURCES[model._meta.label_lower] = resource_type


@dataclass(frozen=True)
class Actor:
    """Who acted: an API key (by its kid) or a staff user."""

    id: uuid.UUID | None
    name: str
    is_staff: bool
    email: str | None = None


def staff_actor(user: AbstractBaseUser) -> Actor:
    full_name = getattr(user, "get_full_name", lambda: "")()
    return Actor(
        id=uuid.uuid5(_STAFF_USER_NAMESPACE, str(user.pk)),
        name=full_name or user.get_username(),
        email=getattr(user, "email", None) or None,
        is_staff=True,
    )


def audit_record(
    *,
    actor: Actor,
    action: str,
    resource_type: str,
    resource_id: str,
    resource_name: str,
    merchant_account_id: str | None,
) -> AuditLogEntry:
    """Record one action; call it inside the transaction of the change so both commit or neither does.

    The name is masked of anything shaped like a card number: it is shown to people and served by the API.
    """
    return AuditLogEntry.objects.create(
        merchant_account_id=merchant_account_id,
        action=action,
        resource_type=resource_type,
        resource_id=resource_id,
        resource_name=mask_card_numbers(resource_name)[:_NAME_LENGTH] or resource_type,
        user_id=actor.id,
        user_name=actor.name[:_NAME_LENGTH],
        user_email=actor.email,
        user_is_staff=actor.is_staff,
    )


@dataclass
class ApiWrite:
    """The API write in progress on this thread: who makes it, for which account, by which view action, on
    which model (the view's own resource: a refund also updates its transaction, but the write is the refund)."""

    actor: Actor
    merchant_account_id: str
    view_action: str | None
    resource_model: type[Model] | None
    recorded: set[tuple[str, str]] = field(default_factory=set)


_current_write: ContextVar[ApiWrite | None] = ContextVar("audit_api_write", default=None)


def api_write_begin(write: ApiWrite) -> None:
    _current_write.set(write)


@contextmanager
def audited_staff_write(
    *, user: AbstractBaseUser, merchant_account_id: str, view_action: str, resource_model: type[Model]
) -> Iterator[None]:
    """A staff action that runs an API service (capture, void, refund) is recorded as the API records it: by the
    same hook, in the service's transaction, with the same action (`captured`, `voided`, `created` on each
    refund), the staff user as the actor. The admin log entry written inside is not recorded a second time."""
    token = _current_write.set(
        ApiWrite(
            actor=staff_actor(user),
            merchant_account_id=merchant_account_id,
            view_action=view_action,
            resource_model=resource_model,
        )
    )
    try:
        yield
    finally:
        _current_write.reset(token)


def api_write_end(**kwargs: object) -> None:
    """Connected to request_started and request_finished: an entry never borrows an earlier request's actor."""
    _current_write.set(None)


def _display_name(instance: Model, resource_type: str) -> str:
    # Only fields meant for display: a buyer's display name, a payment method's masked label.
    for attribute in ("display_name", "label"):
        value = getattr(instance, attribute, None)
        if isinstance(value, str) and value:
            return value
    return resource_type


def _record_api_change(instance: Model, action: str | None) -> None:
    write = _current_write.get()
    if write is None or type(instance) is not write.resource_model:
        return
    resource_type = AUDITED_RESOURCES.get(instance._meta.label_lower)
    key = (resource_type or "", str(instance.pk))
    if resource_type is None or key in write.recorded:
        return  # not a resource, or already recorded by this request (a resource saved in steps)
    write.recorded.add(key)
    audit_record(
        actor=write.actor,
        action=action or _STATE_ACTIONS.get(write.view_action or "", Action.UPDATED),
        resource_type=resource_type,
        resource_id=str(instance.pk),
        resource_name=_display_name(instance, resource_type),
        merchant_account_id=write.merchant_account_id,
    )


def on_model_saved(sender: type[Model], instance: Model, created: bool, **kwargs: Any) -> None:
    _record_api_change(instance, Action.CREATED if created else None)


def on_model_deleted(sender: type[Model], instance: Model, **kwargs: Any) -> None:
    _record_api_change(instance, Action.DELETED)


def _staff_merchant_account_id(entry: LogEntry) -> str | None:
    model = entry.content_type.model_class() if entry.content_type else None
    if model is None or entry.object_id is None:
        return None
    if model is MerchantAccount:
        return entry.object_id
    if not any(f.name == "merchant_account" for f in model._meta.get_fields()):
        return None
    # A deletion is logged before the row goes, so the row is still there to read.
    account_id: str | None = (
        model._base_manager.filter(pk=entry.object_id).values_list("merchant_account_id", flat=True).first()
    )
    return account_id


def on_log_entry_saved(sender: type[LogEntry], instance: LogEntry, created: bool, **kwargs: Any) -> None:
    """Every staff action the admin logs (additions, changes, deletions, the apps' actions) is audited."""
    if not created or instance.action_flag not in _STAFF_ACTIONS or _current_write.get() is not None:
        return  # (an audited staff write records its change as the API does, not by its admin log entry)
    content_type = instance.content_type
    label = f"{content_type.app_label}.{content_type.model}" if content_type else ""
    audit_record(
        actor=staff_actor(instance.user),
        action=_STAFF_ACTIONS[instance.action_flag],
        resource_type=AUDITED_RESOURCES.get(label) or (content_type.model if content_type else "unknown"),
        resource_id=str(instance.object_id or ""),
        resource_name=instance.object_repr,
        merchant_account_id=_staff_merchant_account_id(instance),
    )


def audit_staff_bulk_deletion(user: AbstractBaseUser, objects: list[Model]) -> None:
    """The admin's bulk delete logs its `LogEntry` rows with one bulk insert, which sends no signal: record its
    deletions here (call it inside the deleting transaction). One object is logged singly, so the hook has it."""
    if len(objects) < 2:
        return
    actor = staff_actor(user)
    for instance in objects:
        resource_type = AUDITED_RESOURCES.get(instance._meta.label_lower) or instance._meta.model_name or "unknown"
        merchant_account_id = instance.pk if isinstance(instance, MerchantAccount) else None
        audit_record(
            actor=actor,
            action=Action.DELETED,
            resource_type=resource_type,
            resource_id=str(instance.pk),
            resource_name=str(instance),
            merchant_account_id=merchant_account_id or getattr(instance, "merchant_account_id", None),
        )


def audit_hooks_connect() -> None:
    from django.core.signals import request_finished, request_started

    models.signals.post_save.connect(on_model_saved, dispatch_uid="payments.audit.saved")
    models.signals.post_delete.connect(on_model_deleted, dispatch_uid="payments.audit.deleted")
    models.signals.post_save.connect(on_log_entry_saved, sender=LogEntry, dispatch_uid="payments.audit.staff")
    request_started.connect(api_write_end, dispatch_uid="payments.audit.started")
    request_finished.connect(api_write_end, dispatch_uid="payments.audit.finished")
