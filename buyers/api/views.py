"""HTTP for buyers: validate, call one service or selector, render."""

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response

from buyers.api.serializers import BuyerInput, BuyerOutput
from buyers.models import Buyer
from buyers.selectors import buyer_get, buyer_list, buyer_search
from buyers.services import buyer_create, buyer_delete, buyer_update
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account


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
        return buyer_list(merchant_account=request_merchant_account(self.request))

    def get_object(self):
        return buyer_get(merchant_account=request_merchant_account(self.request), id=self.kwargs["buyer_id"])

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
