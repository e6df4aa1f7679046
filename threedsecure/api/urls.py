from django.urls import path

from payments.rest.routers import ApiRouter
from threedsecure.api.views import ThreeDSConfigurationViewSet, ThreeDSScenarioViewSet

router = ApiRouter()
router.register("three-ds-scenarios", ThreeDSScenarioViewSet, basename="three-ds-scenario")

configuration_list = ThreeDSConfigurationViewSet.as_view({"get": "list", "post": "create"})
configuration_detail = ThreeDSConfigurationViewSet.as_view({"put": "update", "delete": "destroy"})

urlpatterns = [
    *router.urls,
    path(
        "merchant-accounts/<str:merchant_account_id>/three-ds-configurations",
        configuration_list,
        name="three-ds-configuration-list",
    ),
    path(
        "merchant-accounts/<str:merchant_account_id>/three-ds-configurations/<str:three_ds_configuration_id>",
        configuration_detail,
        name="three-ds-configuration-detail",
    ),
]
