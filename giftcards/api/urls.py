from django.urls import path
from rest_framework.routers import SimpleRouter

from giftcards.api.views import BuyerGiftCardViewSet, GiftCardViewSet

router = SimpleRouter(trailing_slash=False)
router.register("gift-cards", GiftCardViewSet, basename="gift-card")

# config/urls.py includes this module before the buyers router, whose `buyers/{buyer_id}` would
# otherwise take `buyers/gift-cards` for a buyer id.
urlpatterns = [
    path("buyers/gift-cards", BuyerGiftCardViewSet.as_view({"get": "list"}), name="buyer-gift-card-list"),
    *router.urls,
]
