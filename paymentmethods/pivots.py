"""The stored payment methods' pivot (payments.staff.pivots): a buyer's stored cards."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from paymentmethods.admin import DELETE_PERMISSION
from paymentmethods.models import PaymentMethod
from payments.staff import pivots


def _method(method: PaymentMethod) -> SafeString:
    url = reverse("admin:paymentmethods_paymentmethod_change", args=[method.pk])
    return format_html('<a href="{}">{}</a> used {} time(s), {}', url, method.card, method.usage_count, method.status)


def _offered(method: PaymentMethod) -> list[tuple[str, str]]:
    return [("Delete", reverse("admin:paymentmethods_paymentmethod_delete", args=[method.pk]))]


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="buyers.buyer",
            title="Stored payment methods",
            model=PaymentMethod,
            lookup="buyer_id",
            describe=_method,
            changelist_param="buyer__id__exact",
            select_related=("card",),
            actions=pivots.RowActions(DELETE_PERMISSION, _offered),
        )
    )
