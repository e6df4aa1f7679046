from django.urls import path, re_path

from paymentmethods.api.network_tokens import AccountUpdaterJobViewSet, NetworkTokenViewSet
from paymentmethods.api.views import BuyerPaymentMethodViewSet, PaymentMethodViewSet
from payments.rest.routers import UUID_PATTERN, ApiRouter

_TOKEN = rf"(?P<network_token_id>{UUID_PATTERN})"

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
    re_path(
        rf"^payment-methods/(?P<payment_method_id>{UUID_PATTERN})/network-tokens$",
        NetworkTokenViewSet.as_view({"get": "list", "post": "create"}),
        name="payment-method-network-token-list",
    ),
    re_path(
        rf"^payment-methods/(?P<payment_method_id>{UUID_PATTERN})/network-tokens/{_TOKEN}$",
        NetworkTokenViewSet.as_view({"delete": "destroy"}),
        name="payment-method-network-token-detail",
    ),
    *(
        re_path(
            rf"^payment-methods/(?P<payment_method_id>{UUID_PATTERN})/network-tokens/{_TOKEN}/{action}$",
            NetworkTokenViewSet.as_view({"post": action}),
            name=f"payment-method-network-token-{action}",
        )
        for action in ("suspend", "resume", "cryptogram")
    ),
    path("account-updater/jobs", AccountUpdaterJobViewSet.as_view({"post": "create"}), name="account-updater-jobs"),
]
