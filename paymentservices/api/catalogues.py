"""HTTP for the catalogues of what this server takes (`paymentservices.catalogues`): card schemes and ways of paying,
each a short list of code, not rows, answered whole (upstream pages neither)."""

from __future__ import annotations

from django.conf import settings
from django.templatetags.static import static
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from payments.rest.outputs import ConstantField, OutputSerializer
from paymentservices.catalogues import CatalogueEntry, card_scheme_definitions, payment_method_definitions


def icon_url(entry: CatalogueEntry, request: Request | None) -> str:
    """An entry's icon as an absolute URL on this server (`PUBLIC_BASE_URL` when set, else the request's host)."""
    path = static(entry.icon)
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    if base:
        return f"{base}{path}"
    return str(request.build_absolute_uri(path)) if request is not None else path


class CatalogueEntryOutput(OutputSerializer):
    """What every catalogue entry shows: its id, names and icon."""

    id = serializers.CharField()
    icon_url = serializers.SerializerMethodField()
    display_name = serializers.CharField()

    @extend_schema_field(OpenApiTypes.STR)
    def get_icon_url(self, entry: CatalogueEntry) -> str:
        return icon_url(entry, self.context.get("request"))


class CardSchemeDefinitionOutput(CatalogueEntryOutput):
    """Upstream's `CardSchemeDefinition`."""

    type = ConstantField("card-scheme-definition")


class CardSchemeDefinitionsOutput(OutputSerializer):
    """Upstream's `CardSchemeDefinitions`: every scheme at once."""

    items = CardSchemeDefinitionOutput(many=True)


class PaymentMethodDefinitionOutput(CatalogueEntryOutput):
    """Upstream's `PaymentMethodDefinition`; `method` is the way of paying's id, as payment services name it."""

    long_display_name = serializers.CharField(allow_null=True)
    method = serializers.CharField(source="id")


class PaymentMethodDefinitionsOutput(OutputSerializer):
    """Upstream's `PaymentMethodDefinitions`: every way of paying at once."""

    items = PaymentMethodDefinitionOutput(many=True)


def _listed(output: type[OutputSerializer], items: list[CatalogueEntry], request: Request) -> Response:
    return Response(output({"items": items}, context={"request": request}).data)


class CardSchemeDefinitionViewSet(viewsets.ViewSet):
    """`/card-scheme-definitions`."""

    scope_resource = "card-scheme-definitions"

    @extend_schema(responses={200: CardSchemeDefinitionsOutput})
    def list(self, request: Request) -> Response:
        """List card scheme definitions

        The card schemes this server takes: those its card processors take and its vault tells apart by number,
        each with its icon (served by this server)."""
        return _listed(CardSchemeDefinitionsOutput, card_scheme_definitions(), request)


class PaymentMethodDefinitionViewSet(viewsets.ViewSet):
    """`/payment-method-definitions`."""

    scope_resource = "payment-method-definitions"

    @extend_schema(responses={200: PaymentMethodDefinitionsOutput})
    def list(self, request: Request) -> Response:
        """List payment method definitions

        The ways of paying this server takes: those of its processors, and gift cards of its own program, each with
        its icon (served by this server)."""
        return _listed(PaymentMethodDefinitionsOutput, payment_method_definitions(), request)
