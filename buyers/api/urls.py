from rest_framework.routers import SimpleRouter

from buyers.api.views import BuyerViewSet

router = SimpleRouter(trailing_slash=False)
router.register("buyers", BuyerViewSet, basename="buyer")

urlpatterns = router.urls
