"""Staff groups for the admin, assembled from what each app declares and kept in step after every migration."""

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q

from payments.staff.config import StaffAppConfig

SUPPORT = "Support"
PAYMENTS_OPERATOR = "Payments operator"


def staff_apps() -> list[StaffAppConfig]:
    """The installed apps whose models staff work with."""
    return [config for config in apps.get_app_configs() if isinstance(config, StaffAppConfig)]


@transaction.atomic
def roles_sync() -> list[Group]:
    """Support views what it works with and changes nothing; operators view everything and also run the money actions
    each app declares."""
    configs = staff_apps()
    view = Permission.objects.filter(
        content_type__app_label__in=[config.label for config in configs], codename__startswith="view_"
    )
    hidden = Q(pk__in=[])
    for config in configs:
        if config.support_hidden:
            hidden |= Q(content_type__app_label=config.label, content_type__model__in=config.support_hidden)
    support, _ = Group.objects.get_or_create(name=SUPPORT)
    support.permissions.set(view.exclude(hidden))
    operate = Q(pk__in=[])
    for config in configs:
        if config.operator_permissions:
            operate |= Q(content_type__app_label=config.label, codename__in=config.operator_permissions)
    operator, _ = Group.objects.get_or_create(name=PAYMENTS_OPERATOR)
    operator.permissions.set([*view, *Permission.objects.filter(operate)])
    return [support, operator]
