"""The link's page (HTML); the API lives in `paymentlinks/api/urls.py`."""

from django.urls import path

from paymentlinks import page

urlpatterns = [
    path("l/<uuid:payment_link_id>", page.payment_link_page, name="payment-link-page"),
]
