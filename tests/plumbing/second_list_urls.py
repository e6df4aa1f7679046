"""A URLconf for the pagination tests only: the same list mounted at a second path, to prove cursors
are bound to the endpoint that issued them."""

from rest_framework.routers import SimpleRouter

from buyers.api.views import BuyerViewSet
from config.urls import urlpatterns as project_urlpatterns

router = SimpleRouter(trailing_slash=False)
router.register("customers", BuyerViewSet, basename="customer")

urlpatterns = [*router.urls, *project_urlpatterns]
