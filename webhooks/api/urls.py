from rest_framework.routers import SimpleRouter

from webhooks.api.views import WebhookSubscriptionViewSet

router = SimpleRouter(trailing_slash=False)
router.register("webhook-subscriptions", WebhookSubscriptionViewSet, basename="webhook-subscription")

urlpatterns = router.urls
