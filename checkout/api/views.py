"""HTTP for checkout sessions and Secure Fields: validate, call one service or selector, render."""

import uuid

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response
from rest_framework.views import APIView

from checkout.api.serializers import (
    CheckoutSessionCardDetailsInput,
    CheckoutSessionCardDetailsOutput,
    CheckoutSessionInput,
    CheckoutSessionOutput,
    SecureFieldsInput,
)
from checkout.api.throttles import CheckoutSessionThrottle
from checkout.models import CheckoutSession
from checkout.selectors import checkout_session_get, checkout_session_get_by_id, checkout_session_merchant_account_id
from checkout.services import (
    checkout_session_create,
    checkout_session_delete,
    checkout_session_store_fields,
    checkout_session_store_payment_method,
    checkout_session_update,
)
from payments.bins.selectors import bin_lookup
from payments.errors import DomainError
from payments.ratelimits.throttles import RateLimitedMixin
from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account
from payments.rest.query import KnownQueryParameters
from payments.vault.cards import card_scheme


class CheckoutSessionViewSet(mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Checkout sessions: where a buyer's browser leaves card details (Secure Fields) for a payment to use.

    retrieve:
        Get a checkout session
        The session, its expiry, and once card details arrived the masked card (scheme, BIN, last four digits).
        An expired or deleted session is not found.

    destroy:
        Delete a checkout session
        Ends the session at once; any card details it held are deleted with it.
    """

    scope_resource = "checkout-sessions"
    serializer_class = CheckoutSessionOutput
    queryset = CheckoutSession.objects.none()  # names the model for the schema; reads go through selectors
    lookup_url_kwarg = "session_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_object(self):
        return checkout_session_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["session_id"]
        )

    @extend_schema(request=CheckoutSessionInput, responses={201: CheckoutSessionOutput})
    def create(self, request):
        """Create a checkout session

        Starts a session for a buyer's browser to send card details to (`POST /checkout/sessions/{id}/fields`).
        It lives `expires_in` seconds (3600 to 86400, 3600 by default), and at most 5 minutes once card details
        arrive. The body is optional: amount, currency, cart items and metadata may be set here or later.
        """
        # The body is optional: the SDK sends none at all for an empty create, and `null` is allowed too.
        body = {} if request.data is None else request.data
        session = checkout_session_create(
            merchant_account=request_merchant_account(request), **validated(CheckoutSessionInput(data=body))
        )
        return Response(CheckoutSessionOutput(session).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=CheckoutSessionInput, responses={200: CheckoutSessionOutput})
    def update(self, request, session_id=None):
        """Update a checkout session

        Changes the fields the body carries (amount, currency, cart items, metadata, expiry) on a session that
        has not expired.
        """
        session = self.get_object()
        session = checkout_session_update(session=session, **validated(CheckoutSessionInput(data=request.data)))
        return Response(CheckoutSessionOutput(session).data)

    def perform_destroy(self, instance):
        checkout_session_delete(session=instance)


class CheckoutSessionFieldsView(RateLimitedMixin, APIView):
    """Secure Fields: stores card details on a session. The session id is the credential: no token is read."""

    authentication_classes = []
    # No token, so none of the default permissions; a query parameter it does not read is still refused.
    permission_classes = [KnownQueryParameters]
    # One budget per session id for PUT and POST together, whatever token is sent (docs/rate-limits.md).
    rate_limits = {"put": (CheckoutSessionThrottle,), "post": (CheckoutSessionThrottle,)}

    def rate_limit_merchant_account_id(self) -> str | None:
        """The session's account, for the record of who was limited (read once per window, writes nothing)."""
        return checkout_session_merchant_account_id(id=self.kwargs["session_id"])

    @extend_schema(request=SecureFieldsInput, responses={204: None}, auth=[])
    def put(self, request, session_id: uuid.UUID):
        """Store card details on a checkout session

        Secure Fields: the buyer's browser sends the card number, expiry (`MM/YY`, not in the past) and security
        code (`method: card`), or a stored payment method of the session's account and the security code the
        buyer typed for it (`method: id`). No bearer token: the session id is the credential. Card data is
        encrypted at once; a transaction with `payment_method.method` `checkout-session` then uses it. Limited per
        session.

        404: The session does not exist or has expired; or the stored payment method (`/payment_method/id`) does not
        exist or is another merchant account's.
        """
        session = checkout_session_get_by_id(id=session_id)
        data = validated(SecureFieldsInput(data=request.data))
        method = data["payment_method"]
        if method["method"] == "id":
            checkout_session_store_payment_method(
                session=session,
                payment_method_id=method["id"],
                security_code=method.get("security_code"),
                postal_code=data.get("postal_code"),
            )
            return Response(status=status.HTTP_204_NO_CONTENT)
        checkout_session_store_fields(
            session=session,
            number=method["number"],
            expiration_month=method["expiration_date"].month,
            expiration_year=method["expiration_date"].year,
            security_code=method.get("security_code"),
            postal_code=data.get("postal_code"),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=SecureFieldsInput, responses={204: None}, auth=[])
    def post(self, request, session_id: uuid.UUID):
        """Store card details on a checkout session

        The same as `PUT`, with the same two forms: a card's number, expiry (`MM/YY`, not in the past) and security
        code, or a stored payment method and the security code typed for it, with the session id as the only
        credential. Limited per session.

        404: The session does not exist or has expired; or the stored payment method (`/payment_method/id`) does not
        exist or is another merchant account's.
        """
        return self.put(request, session_id)


class CheckoutSessionCardDetailsView(RateLimitedMixin, APIView):
    """What the card the buyer is typing is, for a session's form: the session id is the credential, as for Secure
    Fields, and the same per-session budget limits both, so the form cannot be used to walk the BIN table."""

    authentication_classes = []
    permission_classes = [KnownQueryParameters]
    rate_limits = {"post": (CheckoutSessionThrottle,)}

    def rate_limit_merchant_account_id(self) -> str | None:
        return checkout_session_merchant_account_id(id=self.kwargs["session_id"])

    @extend_schema(request=CheckoutSessionCardDetailsInput, responses={200: CheckoutSessionCardDetailsOutput}, auth=[])
    def post(self, request, session_id: uuid.UUID):
        """Get checkout session card details

        The scheme and type (credit, debit or prepaid) of the card whose first 6 to 8 digits (`bin`) the buyer has
        typed, from this server's BIN table; a BIN the table does not know answers its scheme by prefix. No bearer
        token: the session id is the credential. Limited per session, with Secure Fields.

        404: The session does not exist or has expired.
        """
        checkout_session_get_by_id(id=session_id)
        bin = validated(CheckoutSessionCardDetailsInput(data=request.data))["bin"]
        facts = bin_lookup(bin)
        answer = {"bin": bin, "card_type": facts.card_type, "scheme": facts.scheme or card_scheme(bin)}
        return Response(CheckoutSessionCardDetailsOutput(answer).data)


class AcquirerDataRefused(DomainError):
    """Upstream's acquirer data of a checkout session: no processor here has it."""


class CheckoutSessionAcquirerView(RateLimitedMixin, APIView):
    """`GET /checkout/sessions/{session_id}/acquirer`: the session id is the credential, as for its card details."""

    authentication_classes = []
    permission_classes = [KnownQueryParameters]
    rate_limits = {"get": (CheckoutSessionThrottle,)}

    def rate_limit_merchant_account_id(self) -> str | None:
        return checkout_session_merchant_account_id(id=self.kwargs["session_id"])

    @extend_schema(responses={200: {"type": "object"}}, auth=[])
    def get(self, request, session_id: uuid.UUID):
        """Get a checkout session's acquirer data

        Not supported: no processor of this server has acquirer data for a checkout session (what a 3-D Secure
        client SDK would be given), so this is always a 400 naming the operation once the session is found. No
        bearer token: the session id is the credential; limited per session, with Secure Fields.

        404: The session does not exist or has expired.
        """
        checkout_session_get_by_id(id=session_id)
        raise AcquirerDataRefused(
            "GET /checkout/sessions/{session_id}/acquirer is not supported: no processor of this server has acquirer"
            " data for a checkout session."
        )
