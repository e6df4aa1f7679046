from django.urls import path
from rest_framework.routers import SimpleRouter

from checkout.api.views import CheckoutSessionFieldsView, CheckoutSessionViewSet

router = SimpleRouter(trailing_slash=False)
router.register("checkout/sessions", CheckoutSessionViewSet, basename="checkout-session")

urlpatterns = [
    *router.urls,
    # A UUID converter: one spelling per session, so the per-session rate limit cannot be dodged by case.
    path(
        "checkout/sessions/<uuid:session_id>/fields",
        CheckoutSessionFieldsView.as_view(),
        name="checkout-session-fields",
    ),
]
