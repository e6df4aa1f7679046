"""Staff groups for the admin, kept in step with the models after every migration."""

from django.contrib.auth.models import Group, Permission
from django.db import transaction

SUPPORT = "Support"
PAYMENTS_OPERATOR = "Payments operator"
PROJECT_APPS = ("payments", "buyers", "giftcards", "checkout", "transactions")
# Custom permissions (declared in model Meta) that let an operator move money from the admin.
OPERATOR_PERMISSIONS = ("transactions.operate_transaction", "giftcards.deactivate_issuedgiftcard")


@transaction.atomic
def roles_sync() -> list[Group]:
    """Support views everything and changes nothing; operators also run the money actions."""
    view = Permission.objects.filter(content_type__app_label__in=PROJECT_APPS, codename__startswith="view_")
    support, _ = Group.objects.get_or_create(name=SUPPORT)
    support.permissions.set(view)
    operator, _ = Group.objects.get_or_create(name=PAYMENTS_OPERATOR)
    operate = [
        perm
        for label in OPERATOR_PERMISSIONS
        for perm in Permission.objects.filter(content_type__app_label=label.split(".")[0], codename=label.split(".")[1])
    ]
    operator.permissions.set([*view, *operate])
    return [support, operator]
