from django.urls import path

from paymentmethods.api.views import BuyerPaymentMethodViewSet, PaymentMethodViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("payment-methods", PaymentMethodViewSet, basename="payment-method")

# Listed before the buyers' routes (config/urls.py), so `/buyers/payment-methods` is not read as a buyer id.
urlpatterns = [
    path(
        "buyers/payment-methods",
        BuyerPaymentMethodViewSet.as_view({"get": "list"}),
        name="buyer-payment-method-list",
    ),
    *router.urls,
]
