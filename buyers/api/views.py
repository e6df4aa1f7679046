"""HTTP for buyers: validate, call one service or selector, render."""

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import BuyerAccess, buyer_access
from buyers.api.serializers import BuyerInput, ShippingDetailsListOutput
from buyers.models import Buyer, ShippingDetails
from buyers.outputs import BuyerOutput
from buyers.selectors import buyer_get, buyer_list, buyer_search, shipping_details_get, shipping_details_list
from buyers.services import (
    buyer_create,
    buyer_delete,
    buyer_update,
    shipping_details_create,
    shipping_details_delete,
    shipping_details_update,
)
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account, request_principal
from payments.shapes.addresses import ShippingDetailsSerializer
from payments.shapes.order import ShippingDetailsOutput


def _access(request: Request) -> BuyerAccess:
    """Which buyers the request may touch (`buyers.access`): an embed token, its pinned buyer only, whatever it may
    read; only `buyers.write` lifts it."""
    return buyer_access(request_principal(request), resource="buyers")


class BuyerFilter(django_filters.FilterSet):
    search = django_filters.CharFilter(method="filter_search", max_length=200)
    external_identifier = django_filters.CharFilter(field_name="external_identifier", max_length=200)

    def filter_search(self, queryset, name, value):
        return buyer_search(queryset, value)


class BuyerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Buyers: the people who pay, kept so their details and payments can be found again.

    list:
        List buyers
        The merchant account's buyers, newest first, a page at a time. `search` matches the display name or the
        external identifier; `external_identifier` finds one buyer by the merchant's own id.

    retrieve:
        Get a buyer
        One buyer of the merchant account, with its billing details.

    destroy:
        Delete a buyer
        Removes the buyer. Its transactions stay, each with its own copy of what it needs of the buyer.
    """

    scope_resource = "buyers"
    # Names the model for the OpenAPI schema only; requests always go through the scoped get_queryset.
    queryset = Buyer.objects.none()
    serializer_class = BuyerOutput
    filterset_class = BuyerFilter
    lookup_url_kwarg = "buyer_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self):
        return _access(self.request).confine(
            buyer_list(merchant_account=request_merchant_account(self.request)), path=None
        )

    def get_object(self):
        return buyer_get(
            merchant_account=request_merchant_account(self.request),
            id=self.kwargs["buyer_id"],
            access=_access(self.request),
        )

    @extend_schema(request=BuyerInput, responses={201: BuyerOutput})
    def create(self, request):
        """Create a buyer

        Stores a buyer for the merchant account: a display name, the merchant's own `external_identifier`, and
        billing details (name, email, phone in E.164, address with an ISO 3166-1 country, tax id). Every field is
        optional.

        409: Another buyer of the merchant account already has this `external_identifier`.
        """
        data = validated(BuyerInput(data=request.data))
        buyer = buyer_create(merchant_account=request_merchant_account(request), **data)
        return Response(BuyerOutput(buyer).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=BuyerInput, responses={200: BuyerOutput})
    def update(self, request, buyer_id=None):
        """Update a buyer

        Changes the fields the body carries; a field set to `null` is cleared, a field left out stays as it is.

        409: Another buyer of the merchant account already has this `external_identifier`.
        """
        data = validated(BuyerInput(data=request.data))
        buyer = buyer_update(buyer=self.get_object(), **data)
        return Response(BuyerOutput(buyer).data)

    def perform_destroy(self, instance):
        buyer_delete(buyer=instance)


class ShippingDetailsViewSet(viewsets.GenericViewSet):
    """A buyer's shipping details: `/buyers/{buyer_id}/shipping-details[/{shipping_details_id}]`."""

    scope_resource = "buyers"
    queryset = ShippingDetails.objects.none()  # names the model for the schema; requests use the buyer's details
    serializer_class = ShippingDetailsOutput
    pagination_class = None  # upstream's list has no pages; a buyer has few (MAX_SHIPPING_DETAILS_PER_BUYER)
    lookup_url_kwarg = "shipping_details_id"

    def _buyer(self) -> Buyer:
        return buyer_get(
            merchant_account=request_merchant_account(self.request),
            id=self.kwargs["buyer_id"],
            access=_access(self.request),
        )

    def get_object(self) -> ShippingDetails:
        return shipping_details_get(
            merchant_account=request_merchant_account(self.request),
            buyer_id=self.kwargs["buyer_id"],
            id=self.kwargs["shipping_details_id"],
            access=_access(self.request),
        )

    @extend_schema(responses={200: ShippingDetailsListOutput})
    def list(self, request: Request, buyer_id: str) -> Response:
        """List a buyer's shipping details

        All the shipping details stored for the buyer, newest first, in one answer (a buyer keeps at most 50).
        Needs the `buyers.read` scope. An unknown buyer, or one of another merchant account, is a 404.
        """
        items = list(shipping_details_list(buyer=self._buyer()))
        return Response(ShippingDetailsListOutput({"items": items}).data)

    @extend_schema(request=ShippingDetailsSerializer, responses={201: ShippingDetailsOutput})
    def create(self, request: Request, buyer_id: str) -> Response:
        """Add shipping details to a buyer

        Stores a name, email address, E.164 phone number and address the buyer ships to, validated as a buyer's
        billing details are (without a tax id). Pass the returned `id` as `shipping_details_id` when creating a
        transaction for this buyer. Needs the `buyers.write` scope.

        409: The buyer already has 50 shipping details: delete one first.
        """
        data = validated(ShippingDetailsSerializer(data=request.data))
        details = shipping_details_create(buyer=self._buyer(), **data)
        return Response(ShippingDetailsOutput(details).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: ShippingDetailsOutput})
    def retrieve(self, request: Request, buyer_id: str, shipping_details_id: str) -> Response:
        """Get a buyer's shipping details

        One set of the buyer's shipping details. Needs the `buyers.read` scope. Details of another buyer are a
        404, exactly like missing ones.
        """
        return Response(ShippingDetailsOutput(self.get_object()).data)

    @extend_schema(request=ShippingDetailsSerializer, responses={200: ShippingDetailsOutput})
    def update(self, request: Request, buyer_id: str, shipping_details_id: str) -> Response:
        """Update a buyer's shipping details

        Changes the fields sent; a field left out keeps its value and `null` clears it. Transactions made with
        these details keep the copy they took. Needs the `buyers.write` scope.
        """
        data = validated(ShippingDetailsSerializer(data=request.data))
        details = shipping_details_update(shipping_details=self.get_object(), **data)
        return Response(ShippingDetailsOutput(details).data)

    def destroy(self, request: Request, buyer_id: str, shipping_details_id: str) -> Response:
        """Delete a buyer's shipping details

        Removes the details at once; transactions made with them keep the copy they took. Deleting the buyer
        deletes all of their shipping details. Needs the `buyers.write` scope. Answers 204 with no body.
        """
        shipping_details_delete(shipping_details=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
