from django.urls import path

from buyers.api.views import BuyerViewSet, ShippingDetailsViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("buyers", BuyerViewSet, basename="buyer")

shipping_details_list = ShippingDetailsViewSet.as_view({"get": "list", "post": "create"})
shipping_details_detail = ShippingDetailsViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})

urlpatterns = [
    *router.urls,
    path("buyers/<str:buyer_id>/shipping-details", shipping_details_list, name="buyer-shipping-details-list"),
    path(
        "buyers/<str:buyer_id>/shipping-details/<str:shipping_details_id>",
        shipping_details_detail,
        name="buyer-shipping-details-detail",
    ),
]
