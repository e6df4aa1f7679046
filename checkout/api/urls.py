from django.urls import path

from checkout.api.views import (
    CheckoutSessionAcquirerView,
    CheckoutSessionCardDetailsView,
    CheckoutSessionFieldsView,
    CheckoutSessionViewSet,
)
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("checkout/sessions", CheckoutSessionViewSet, basename="checkout-session")

urlpatterns = [
    *router.urls,
    # A UUID converter: one spelling per session, so the per-session rate limit cannot be dodged by case.
    path(
        "checkout/sessions/<uuid:session_id>/fields",
        CheckoutSessionFieldsView.as_view(),
        name="checkout-session-fields",
    ),
    path(
        "checkout/sessions/<uuid:session_id>/card-details",
        CheckoutSessionCardDetailsView.as_view(),
        name="checkout-session-card-details",
    ),
    path(
        "checkout/sessions/<uuid:session_id>/acquirer",
        CheckoutSessionAcquirerView.as_view(),
        name="checkout-session-acquirer",
    ),
]
