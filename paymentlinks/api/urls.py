from paymentlinks.api.views import PaymentLinkViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("payment-links", PaymentLinkViewSet, basename="payment-link")

urlpatterns = router.urls
