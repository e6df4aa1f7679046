from django.urls import path

from giftcards.api.views import BuyerGiftCardViewSet, GiftCardViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("gift-cards", GiftCardViewSet, basename="gift-card")

# config/urls.py includes this module before the buyers router, whose `buyers/{buyer_id}` would
# otherwise take `buyers/gift-cards` for a buyer id.
urlpatterns = [
    path("buyers/gift-cards", BuyerGiftCardViewSet.as_view({"get": "list"}), name="buyer-gift-card-list"),
    *router.urls,
]
