"""Browser pages of the transactions app (the API lives in `transactions/api/urls.py`)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import path, reverse

from transactions.pages import views

urlpatterns = [
    path("three-d-secure/challenges/<str:token>", views.challenge_page, name="three-d-secure-challenge"),
    # Where PayPal sends the buyer back after approving the payment, or after canceling it.
    path("buyer-approvals/<str:token>/return", views.approval_return, name="buyer-approval-return"),
    path("buyer-approvals/<str:token>/cancel", views.approval_cancel, name="buyer-approval-cancel"),
]


def approval_url(token: str, request: HttpRequest | None) -> str:
    """The absolute address of a challenge page, made as every public URL of this server: PUBLIC_BASE_URL, else
    the request's own host."""
    page = reverse("three-d-secure-challenge", kwargs={"token": token})
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL.rstrip("/") + page
    return request.build_absolute_uri(page) if request is not None else page
