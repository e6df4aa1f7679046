"""A URLconf for the rate-limit tests only: the throttles on views that write, before the real endpoints use them.

`/limited/buyers` is the buyers create endpoint opened to embed tokens and limited per token, so a test can
see that a refused request writes nothing. `/limited/sessions/{session_id}/fields` stands in for Secure
Fields: no authentication, limited per session id.
"""

from django.urls import path
from rest_framework import status
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from buyers.api.views import BuyerViewSet
from config.urls import urlpatterns as project_urlpatterns
from payments.throttling import CheckoutSessionThrottle, EmbedTokenThrottle, RateLimitedMixin


class LimitedBuyerViewSet(RateLimitedMixin, BuyerViewSet):
    embed_actions = ("create",)
    rate_limits = {"create": (EmbedTokenThrottle,)}


class LimitedFieldsView(RateLimitedMixin, APIView):
    authentication_classes = []
    permission_classes = []
    rate_limits = {"put": (CheckoutSessionThrottle,), "post": (CheckoutSessionThrottle,)}

    def put(self, request, session_id):
        return Response(status=status.HTTP_204_NO_CONTENT)

    def rate_limit_merchant_account_id(self) -> str | None:
        return "default" if self.kwargs["session_id"].startswith("known-") else None

    def post(self, request, session_id):
        return Response(status=status.HTTP_204_NO_CONTENT)


router = SimpleRouter(trailing_slash=False)
router.register("limited/buyers", LimitedBuyerViewSet, basename="limited-buyer")
router.register("limited/other-buyers", LimitedBuyerViewSet, basename="limited-other-buyer")

urlpatterns = [
    *router.urls,
    path("limited/sessions/<str:session_id>/fields", LimitedFieldsView.as_view()),
    *project_urlpatterns,
]
