"""Browser pages of the checkout app (the API lives in `checkout/api/urls.py`)."""

from django.urls import path

from checkout import views

app_name = "checkout"

urlpatterns = [
    path("checkout/secure-fields/frame/", views.secure_field_frame, name="secure-field-frame"),
    path("embed/approval-complete", views.embed_approval_complete, name="embed-approval-complete"),
    path("demo/checkout/", views.demo_checkout, name="demo-checkout"),
]
