"""HTTP for payment links: validate, call one service or selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from paymentlinks.api.filters import PaymentLinkFilter
from paymentlinks.api.serializers import PaymentLinkCreateInput, PaymentLinkOutput
from paymentlinks.models import PaymentLink
from paymentlinks.selectors import payment_link_get, payment_link_list
from paymentlinks.services import payment_link_create, payment_link_expire
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account


class PaymentLinkViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[PaymentLink]):
    """Payment links: an order the merchant sends to a buyer by any channel, paid once on this server's page.

    list:
        List all payment links
        The merchant account's payment links, newest first, a page at a time, filtered as upstream filters them.
        A link past its `expires_at` shows `expired`. Needs the `payment-links.read` scope.

    retrieve:
        Get payment link
        One payment link of the merchant account with its status: `active` (payable), `processing` (a buyer's
        payment is under way), `completed` (paid) or `expired`. Needs the `payment-links.read` scope.
    """

    scope_resource = "payment-links"
    queryset = PaymentLink.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = PaymentLinkOutput
    filterset_class = PaymentLinkFilter
    lookup_url_kwarg = "payment_link_id"
    http_method_names = ["get", "post"]

    def get_queryset(self) -> QuerySet[PaymentLink]:
        return payment_link_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> PaymentLink:
        return payment_link_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["payment_link_id"]
        )

    @extend_schema(request=PaymentLinkCreateInput, responses={201: PaymentLinkOutput})
    def create(self, request: Request) -> Response:
        """Add a payment link

        A link for a buyer to pay `amount` in `currency` once, on the page at its `url`, with the merchant's
        branding (a colour as `#rrggbb`, https URLs to public hosts, a plain-text message), its cart and the locale
        amounts are shown in; `expires_at`, when given, must lie ahead. `buyer_id`, `store` and `installment_count`
        are refused by name. Needs the `payment-links.write` scope.
        """
        link = payment_link_create(
            merchant_account=request_merchant_account(request), **validated(PaymentLinkCreateInput(data=request.data))
        )
        return Response(PaymentLinkOutput(link, context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["post"])
    def expire(self, request: Request, payment_link_id: str) -> Response:
        """Expire a payment link

        The link takes no more payments from now on. Expiring an expired link again changes nothing; a link that
        has been paid, or whose payment is under way, cannot be expired (409). Needs the `payment-links.write`
        scope.
        """
        payment_link_expire(link=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
