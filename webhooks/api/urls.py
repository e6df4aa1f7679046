from payments.rest.routers import ApiRouter
from webhooks.api.views import WebhookSubscriptionViewSet

router = ApiRouter()
router.register("webhook-subscriptions", WebhookSubscriptionViewSet, basename="webhook-subscription")

urlpatterns = router.urls
