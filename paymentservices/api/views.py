"""HTTP for payment services and their definitions: validate, call one service or selector, render."""

from __future__ import annotations

from typing import Any

import django_filters
from django.conf import settings
from django.core import signing
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.errors import DomainError, NotFound
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import validated
from payments.rest.filters import TrueFalseFilter
from payments.rest.permissions import request_merchant_account
from paymentservices import processors
from paymentservices.api.serializers import (
    PaymentServiceCreateInput,
    PaymentServiceDefinitionOutput,
    PaymentServiceDefinitionsOutput,
    PaymentServiceOutput,
    PaymentServiceUpdateInput,
    VerifyCredentialsInput,
)
from paymentservices.models import PaymentService
from paymentservices.notifications import notification_receive
from paymentservices.processors.seam import Processor
from paymentservices.selectors import payment_service_get, payment_service_list
from paymentservices.services import (
    payment_service_create,
    payment_service_credentials_verify,
    payment_service_delete,
    payment_service_update,
)

SESSIONS_REFUSED = (
    "{operation} is not supported: no payment service definition of this server needs a session with its processor."
)


class SessionsRefused(DomainError):
    """Upstream's session operations: no definition here needs one."""


class PaymentServiceFilter(django_filters.FilterSet):
    method = django_filters.CharFilter(method="filter_method", max_length=50)
    deleted = TrueFalseFilter(method="filter_deleted")
    # `false` leaves each service's non-secret `fields` out of the answer (the official SDK sends `true`).
    include_fields = TrueFalseFilter(method="filter_include_fields")

    def filter_method(self, queryset: QuerySet[PaymentService], name: str, value: str) -> QuerySet[PaymentService]:
        ids = [processor.id for processor in processors.PROCESSORS if processor.method == value]
        return queryset.filter(definition_id__in=ids)

    def filter_deleted(self, queryset: QuerySet[PaymentService], name: str, value: bool) -> QuerySet[PaymentService]:
        return queryset  # validated here; read by the view, since leaving it out means false

    def filter_include_fields(
        self, queryset: QuerySet[PaymentService], name: str, value: bool
    ) -> QuerySet[PaymentService]:
        return queryset  # validated here; read by the output serializer


class PaymentServiceViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """`/payment-services`: the processors a merchant account pays through."""

    scope_resource = "payment-services"
    # As upstream, a session with a processor is part of paying: it needs the transactions scope.
    action_scopes = {"session": ("transactions.write",)}
    queryset = PaymentService.objects.none()  # names the model for the schema; requests use get_queryset()
    serializer_class = PaymentServiceOutput
    filterset_class = PaymentServiceFilter
    lookup_url_kwarg = "payment_service_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self) -> QuerySet[PaymentService]:
        return payment_service_list(
            merchant_account=request_merchant_account(self.request),
            deleted=self.request.query_params.get("deleted") == "true",
        )

    def get_object(self) -> PaymentService:
        return payment_service_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["payment_service_id"]
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """List payment services

        The merchant account's payment services, newest first, a page at a time; `deleted=true` lists the deleted
        ones instead. Secret credentials are never shown. Needs `payment-services.read`."""
        return super().list(request, *args, **kwargs)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Get a payment service

        One payment service of the merchant account, its secret credentials left out. A deleted service, like
        another account's, is a 404, exactly like a missing one."""
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(request=PaymentServiceCreateInput, responses={201: PaymentServiceOutput})
    def create(self, request: Request) -> Response:
        """Create a payment service

        Connects a processor for the merchant account from a definition (`GET /payment-service-definitions`), with
        the credential fields it requires, the currencies and countries it takes, and its `position` in the routing
        order (default: last; later services move down one place). Secret fields are sealed and never shown again.
        A production server refuses `mock-card` unless SANDBOX_PAYMENTS is set."""
        data = validated(PaymentServiceCreateInput(data=request.data))
        service = payment_service_create(
            merchant_account=request_merchant_account(request),
            definition_id=data.pop("payment_service_definition_id"),
            **data,
        )
        return Response(self._render(service), status=status.HTTP_201_CREATED)

    @extend_schema(request=PaymentServiceUpdateInput, responses={200: PaymentServiceOutput})
    def update(self, request: Request, payment_service_id: str | None = None) -> Response:
        """Update a payment service

        Changes what the body names: fields left out or `null` keep their value. `fields` replace single credential
        fields (an empty value clears an optional one); `position` moves the service in the routing order.

        404: The payment service has been deleted."""
        data = validated(PaymentServiceUpdateInput(data=request.data))
        service = payment_service_update(service=self.get_object(), **data)
        return Response(self._render(service))

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Delete a payment service

        Takes the service out of routing at once; it is then gone to the API (404) but for the list's
        `deleted=true`, and the payments it authorized can still be captured, voided and refunded through it."""
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance: PaymentService) -> None:
        payment_service_delete(service=instance)

    @extend_schema(request=VerifyCredentialsInput, responses={200: {"type": "object"}})
    @action(detail=False, methods=["post"], url_path="verify")
    def verify(self, request: Request) -> Response:
        """Verify payment service credentials

        Checks credentials with the processor without storing anything (Stripe: one authenticated call). With
        `payment_service_id`, the fields not sent are that service's own. A refused credential is a 400 naming the
        field.

        404: `payment_service_id` names no payment service of the merchant account.
        502: The processor could not be reached to check the credentials."""
        data = validated(VerifyCredentialsInput(data=request.data))
        account = request_merchant_account(request)
        service_id = data.get("payment_service_id")
        service = None if service_id is None else payment_service_get(merchant_account=account, id=service_id)
        payment_service_credentials_verify(
            merchant_account=account,
            definition_id=data["payment_service_definition_id"],
            fields=data["fields"],
            service=service,
        )
        return Response({})

    @extend_schema(request={"application/json": {"type": "object"}}, responses={200: {"type": "object"}})
    @action(detail=True, methods=["post"], url_path="sessions")
    def session(self, request: Request, payment_service_id: str | None = None) -> Response:
        """Create a session for a payment service

        Not supported: no payment service definition of this server needs a session with its processor, so this is
        always a 400 naming the operation (after the service is found)."""
        request.data  # noqa: B018 - a malformed body is refused as such first, as on every operation that takes one
        self.get_object()
        raise SessionsRefused(SESSIONS_REFUSED.format(operation="POST /payment-services/{payment_service_id}/sessions"))

    def _render(self, service: PaymentService) -> dict[str, Any]:
        return dict(PaymentServiceOutput(service, context={"request": self.request}).data)


DEFINITION_ID = OpenApiParameter(
    "payment_service_definition_id",
    str,
    OpenApiParameter.PATH,
    description="A definition's id, one of those the definitions list names.",
)


def _shipped() -> str:
    """The shipped definitions' ids, as the registry lists them, the sandbox's said as such."""
    return "; ".join(f"`{p.id}`" + (", the sandbox" if p.sandbox else "") for p in processors.PROCESSORS)


class PaymentServiceDefinitionViewSet(viewsets.GenericViewSet):
    """`/payment-service-definitions`: the kinds of payment service this server ships."""

    scope_resource = "payment-service-definitions"
    action_scopes = {"session": ("transactions.write",)}
    serializer_class = PaymentServiceDefinitionOutput
    pagination_class = None  # a fixed, short list: paged by position below
    filterset_class = None
    lookup_url_kwarg = "payment_service_definition_id"
    query_parameters = frozenset({"cursor", "limit"})

    def get_queryset(self) -> Any:  # no rows: definitions are code
        return PaymentService.objects.none()

    @extend_schema(
        parameters=[
            OpenApiParameter("cursor", str, description="A `next_cursor` or `previous_cursor` from an earlier page."),
            OpenApiParameter("limit", int, description="Items per page, 1 to 100 (default 20)."),
        ],
        responses={200: PaymentServiceDefinitionsOutput},
    )
    def list(self, request: Request) -> Response:
        items = sorted(processors.PROCESSORS, key=lambda processor: processor.id)
        limit = _limit(request)
        start = _cursor(request)
        page = items[start : start + limit]
        signer = _definitions_signer()
        body = {
            "items": page,
            "limit": limit,
            "next_cursor": signer.sign(str(start + limit)) if start + limit < len(items) else None,
            "previous_cursor": signer.sign(str(max(start - limit, 0))) if start > 0 else None,
        }
        return Response(PaymentServiceDefinitionsOutput(body).data)

    # The API docs' text, its list of definitions taken from the registry (docs/architecture.md, "Adding a processor").
    list.__doc__ = f"""List payment service definitions

        The kinds of payment service this server can connect ({_shipped()}): the fields each needs, the currencies and
        countries it supports, what it can do."""

    @extend_schema(parameters=[DEFINITION_ID], responses={200: PaymentServiceDefinitionOutput})
    def retrieve(self, request: Request, payment_service_definition_id: str) -> Response:
        """Get a payment service definition

        One definition by id, one of those the list names. An id this server does not ship is a 404."""
        return Response(PaymentServiceDefinitionOutput(_definition(payment_service_definition_id)).data)

    @extend_schema(
        parameters=[DEFINITION_ID],
        request={"application/json": {"type": "object"}},
        responses={200: {"type": "object"}},
    )
    @action(detail=True, methods=["post"], url_path="sessions")
    def session(self, request: Request, payment_service_definition_id: str) -> Response:
        """Create a session for a payment service definition

        Not supported: no definition of this server needs a session with its processor, so this is always a 400
        naming the operation (an unknown definition is a 404)."""
        request.data  # noqa: B018 - a malformed body is refused as such first, as on every operation that takes one
        _definition(payment_service_definition_id)
        raise SessionsRefused(
            SESSIONS_REFUSED.format(
                operation="POST /payment-service-definitions/{payment_service_definition_id}/sessions"
            )
        )


def _definition(definition_id: str) -> Processor:
    processor = processors.processor_get(definition_id)
    if processor is None:
        raise NotFound("The payment service definition could not be found.")
    return processor


def _definitions_signer() -> signing.Signer:
    return signing.Signer(key=settings.CURSOR_SIGNING_KEY, salt="paymentservices.definitions.cursor")


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit", "20")
    limit = int(raw) if raw.isdigit() else 0
    if not 1 <= limit <= 100:
        raise QueryValidationError({"limit": ["Must be a whole number from 1 to 100."]}, code="invalid")
    return limit


def _cursor(request: Request) -> int:
    raw = request.query_params.get("cursor")
    if raw is None:
        return 0
    try:
        return int(_definitions_signer().unsign(raw))
    except (signing.BadSignature, ValueError):
        raise QueryValidationError({"cursor": ["Not a cursor issued for this list."]}, code="invalid") from None


class PaymentServiceNotificationView(APIView):
    """A processor's notification to a payment service's `webhook_url` (not part of the merchant API).

    The processor authenticates by its signature (Stripe: `Stripe-Signature`, checked against the service's
    `webhook_secret`), so no bearer token is asked for. A notification that fails verification is a 400 and changes
    nothing; a resent one is acknowledged again."""

    authentication_classes = ()
    permission_classes = ()
    schema = None  # the processors' side, not the merchant API: left out of the API document
    parser_classes = ()  # the body is verified byte for byte, so it is read raw

    def post(self, request: Request, payment_service_id: str) -> Response:
        notification_receive(service_id=payment_service_id, payload=request.body, headers=request.headers)
        return Response({"received": True})


notification_view = PaymentServiceNotificationView.as_view()
