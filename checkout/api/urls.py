from django.urls import path
from rest_framework.routers import SimpleRouter

from checkout.api.views import CheckoutSessionFieldsView, CheckoutSessionViewSet

router = SimpleRouter(trailing_slash=False)
router.register("checkout/sessions", CheckoutSessionViewSet, basename="checkout-session")

urlpatterns = [
    *router.urls,
    path(
        "checkout/sessions/<str:session_id>/fields", CheckoutSessionFieldsView.as_view(), name="checkout-session-fields"
    ),
]
