"""The payment services' pivot (payments.staff.pivots): a stored method's tokens at processors, each with its state."""

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from payments.staff import pivots
from payments.staff.dates import desk_date
from paymentservices.models import PaymentServiceToken


def _token(token: PaymentServiceToken) -> SafeString:
    url = reverse("admin:paymentservices_paymentservice_change", args=[token.payment_service_id])
    when = desk_date(token.revoked_at or token.created_at)
    return format_html(
        '<a href="{}">{}</a>: {} since {}{}',
        url,
        token.payment_service,
        token.state,
        when,
        f" ({token.reason})" if token.reason else "",
    )


def register() -> None:
    pivots.register(
        pivots.Pivot(
            target="paymentmethods.paymentmethod",
            title="Tokens at processors",
            model=PaymentServiceToken,
            lookup="payment_method_id",
            describe=_token,
            select_related=("payment_service",),
        )
    )
