from django.urls import path, re_path
from rest_framework.routers import SimpleRouter

from payments.rest.routers import UUID_PATTERN
from paymentservices.api.catalogues import CardSchemeDefinitionViewSet, PaymentMethodDefinitionViewSet
from paymentservices.api.tokens import PaymentServiceTokenViewSet
from paymentservices.api.views import PaymentServiceDefinitionViewSet, PaymentServiceViewSet, notification_view

router = SimpleRouter(trailing_slash=False)
router.register("payment-services", PaymentServiceViewSet, basename="payment-service")
router.register("payment-service-definitions", PaymentServiceDefinitionViewSet, basename="payment-service-definition")
router.register("card-scheme-definitions", CardSchemeDefinitionViewSet, basename="card-scheme-definition")
router.register("payment-method-definitions", PaymentMethodDefinitionViewSet, basename="payment-method-definition")

urlpatterns = [
    # The processors' side: each service's `webhook_url` (docs/payment-services.md).
    path(
        "inbound/payment-services/<str:payment_service_id>/notifications",
        notification_view,
        name="payment-service-notifications",
    ),
    *router.urls,
    re_path(
        rf"^payment-methods/(?P<payment_method_id>{UUID_PATTERN})/payment-service-tokens$",
        PaymentServiceTokenViewSet.as_view({"get": "list", "post": "create"}),
        name="payment-method-payment-service-token-list",
    ),
    re_path(
        rf"^payment-methods/(?P<payment_method_id>{UUID_PATTERN})/payment-service-tokens/"
        rf"(?P<payment_service_token_id>{UUID_PATTERN})$",
        PaymentServiceTokenViewSet.as_view({"delete": "destroy"}),
        name="payment-method-payment-service-token-detail",
    ),
]
