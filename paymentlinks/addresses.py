"""The address of a link's page: its `url`, made as every public URL of this server is."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse

from paymentlinks.models import PaymentLink


def payment_link_page_url(link: PaymentLink, request: HttpRequest | None) -> str:
    """PUBLIC_BASE_URL, else the request's own host, then the page's path."""
    page = reverse("payment-link-page", kwargs={"payment_link_id": link.pk})
    if settings.PUBLIC_BASE_URL:
        return settings.PUBLIC_BASE_URL.rstrip("/") + page
    return request.build_absolute_uri(page) if request is not None else page
