"""A URLconf for the error envelope tests only: views that fail in the ways real code can."""

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.urls import path
from rest_framework.decorators import api_view, authentication_classes, permission_classes

from config.urls import urlpatterns as project_urlpatterns
from transactions.models import Transaction

# The transaction `api_database_boom` writes to.
DATABASE_BOOM_REFERENCE = "order-20931"


class SecretBoom(RuntimeError):
    """Stands in for any bug; its message must never reach the client."""


@api_view(["GET"])
@authentication_classes([])
@permission_classes([])
def api_boom(request):
    raise SecretBoom("secret internals: /srv/app/settings.py line 42")


@api_view(["POST"])
@authentication_classes([])
@permission_classes([])
def api_database_boom(request):
    """A write the database refuses, as a service's bug would make one: a negative captured amount fails the
    transaction's check constraint, and PostgreSQL's error quotes the whole row (card fingerprint, BIN, last 4)."""
    with transaction.atomic():
        Transaction.objects.filter(external_identifier=DATABASE_BOOM_REFERENCE).update(captured_amount=-700)


def django_boom(request):
    raise SecretBoom("secret internals: /srv/app/settings.py line 42")


def django_not_found(request):
    raise Http404("no such thing")


def django_forbidden(request):
    raise PermissionDenied


urlpatterns = [
    path("test-only/api-boom", api_boom),
    path("test-only/api-database-boom", api_database_boom),
    path("test-only/django-boom", django_boom),
    path("test-only/not-found", django_not_found),
    path("test-only/forbidden", django_forbidden),
    *project_urlpatterns,
]
