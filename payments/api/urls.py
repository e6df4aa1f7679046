"""The shared app's own API routes, found where every app's are (`<app>.api.urls`)."""

from rest_framework.routers import SimpleRouter

from payments.accounts.api import MerchantAccountViewSet
from payments.audit.api import AuditLogViewSet

router = SimpleRouter(trailing_slash=False)
router.register("audit-logs", AuditLogViewSet, basename="audit-log")
router.register("merchant-accounts", MerchantAccountViewSet, basename="merchant-account")

urlpatterns = router.urls
