from payments.rest.routers import ApiRouter
from payouts.api.views import PayoutViewSet

router = ApiRouter()
router.register("payouts", PayoutViewSet, basename="payout")

urlpatterns = router.urls
