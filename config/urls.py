"""Root URLs: the front door, the API at the top level (as upstream), admin, schema and docs."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView

from config.views import favicon, front_door, guide, slash_form_pattern
from payments.ops.views import healthz, readyz

urlpatterns = [
    path("", front_door, name="front-door"),
    path("guides/<slug:slug>", guide, name="guide"),
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="openapi-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="openapi-schema"), name="api-docs"),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    # Gift cards first: their `buyers/gift-cards` must win over the buyers router's `buyers/{buyer_id}`.
    path("", include("giftcards.api.urls")),
    # Likewise `buyers/payment-methods`.
    path("", include("paymentmethods.api.urls")),
    path("", include("buyers.api.urls")),
    path("", include("checkout.api.urls")),
    path("", include("checkout.urls")),  # Secure Fields frame and the debug-only demo shop (HTML pages)
    path("", include("transactions.api.urls")),
    path("", include("transactions.pages.urls")),  # the 3-D Secure challenge page (HTML)
    path("", include("settlements.api.urls")),
    path("", include("disputes.api.urls")),
    path("", include("paymentlinks.api.urls")),
    path("", include("paymentlinks.urls")),  # the link's page (HTML)
    path("", include("paymentservices.api.urls")),
    path("", include("webhooks.api.urls")),
    path("", include("threedsecure.api.urls")),
    path("", include("reports.api.urls")),
    path("", include("payouts.api.urls")),
    path("", include("digitalwallets.api.urls")),
    path("", include("payments.api.urls")),
    # Last: only what nothing above matched. `/buyers/` is redirected to `/buyers`; the rest stays a JSON 404.
    slash_form_pattern(),
]
