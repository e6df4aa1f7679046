"""Permissions as the desk's group and user pages offer them: one line per permission in the desk's words
("Settlement ledger entries: view"), and only those of the lists the desk shows.

Django names a permission once, when it is created, from the model's name of that day ("Can add report fetch" stays
after the model is renamed), and offers those of every installed model (sessions, content types, the task backend's
own table), which grant nothing an operator can open.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db.models import ManyToManyField, QuerySet
from django.http import HttpRequest
from django.utils.text import capfirst

DEFAULT_ACTIONS = ("add", "change", "delete", "view")


def permission_label(permission: Permission) -> str:
    """What the permission lets a person do, after the list it is about: "Transactions: capture, void and refund
    transactions"."""
    model = permission.content_type.model_class()
    if model is None:  # a content type whose model is gone
        return permission.name
    subject = capfirst(str(model._meta.verbose_name_plural))
    action = permission.codename.split("_", 1)[0]
    if action in DEFAULT_ACTIONS and permission.codename == f"{action}_{model._meta.model_name}":
        return f"{subject}: {action}"
    # A custom permission's words are its model's declaration of today, not the name stored when it was created.
    declared = dict(model._meta.permissions).get(permission.codename, permission.name)
    return f"{subject}: {declared.removeprefix('Can ')}"


def desk_permissions() -> QuerySet[Permission]:
    """The permissions of the models registered on the desk, its proxies by their own content type."""
    types = ContentType.objects.get_for_models(*admin.site._registry, for_concrete_models=False)
    return Permission.objects.filter(content_type__in=types.values()).select_related("content_type")


class DeskPermissionsField(forms.ModelMultipleChoiceField[Permission]):
    def label_from_instance(self, obj: Permission) -> str:
        return permission_label(obj)


class DeskPermissionsMixin:
    """For the group and user admins: their permissions field offers the desk's permissions in its words, and a
    save keeps the permissions it does not offer that the group or user already holds."""

    permissions_field = "permissions"

    def formfield_for_manytomany(
        self, db_field: ManyToManyField[Any, Any], request: HttpRequest | None = None, **kwargs: Any
    ) -> forms.ModelMultipleChoiceField[Any] | None:
        if db_field.name == self.permissions_field:
            kwargs.update(queryset=desk_permissions(), form_class=DeskPermissionsField)
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc,no-any-return]

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        if change and self.permissions_field in form.cleaned_data:
            held = getattr(form.instance, self.permissions_field).exclude(pk__in=desk_permissions())
            form.cleaned_data[self.permissions_field] = [*form.cleaned_data[self.permissions_field], *held]
        super().save_related(request, form, formsets, change)  # type: ignore[misc]
