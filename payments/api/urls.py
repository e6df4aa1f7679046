"""The shared app's own API routes, found where every app's are (`<app>.api.urls`)."""

from payments.api.merchant_accounts import MerchantAccountViewSet
from payments.audit.api import AuditLogViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("audit-logs", AuditLogViewSet, basename="audit-log")
router.register("merchant-accounts", MerchantAccountViewSet, basename="merchant-account")

urlpatterns = router.urls
