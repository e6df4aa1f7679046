"""The shared app's own API routes, found where every app's are (`<app>.api.urls`)."""

from payments.api.api_key_pairs import ApiKeyPairViewSet, RoleViewSet
from payments.api.merchant_accounts import MerchantAccountViewSet
from payments.audit.api import AuditLogViewSet
from payments.rest.routers import ApiRouter

router = ApiRouter()
router.register("api-key-pairs", ApiKeyPairViewSet, basename="api-key-pair")
router.register("audit-logs", AuditLogViewSet, basename="audit-log")
router.register("merchant-accounts", MerchantAccountViewSet, basename="merchant-account")
router.register("roles", RoleViewSet, basename="role")

urlpatterns = router.urls
