from django.urls import path

from giftcards.api.views import (
    BuyerGiftCardViewSet,
    GiftCardActivationViewSet,
    GiftCardIssuanceViewSet,
    GiftCardViewSet,
)
from giftcards.pages import views as pages
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("gift-cards/issuances", GiftCardIssuanceViewSet, basename="gift-card-issuance")
router.register("gift-cards/activations", GiftCardActivationViewSet, basename="gift-card-activation")
router.register("gift-cards", GiftCardViewSet, basename="gift-card")

# config/urls.py includes this module before the buyers router, whose `buyers/{buyer_id}` would
# otherwise take `buyers/gift-cards` for a buyer id.
urlpatterns = [
    path("buyers/gift-cards", BuyerGiftCardViewSet.as_view({"get": "list"}), name="buyer-gift-card-list"),
    # The page that shows an issued card's number and PIN once (HTML, not the API).
    path("gift-card-issuances/<uuid:issuance_id>/<str:token>", pages.issuance_page, name="gift-card-issuance-page"),
    *router.urls,
]
