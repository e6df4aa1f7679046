"""HTTP for webhook subscriptions: validate, call one service or selector, render."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from payments.rest.fields import validated
from payments.rest.permissions import request_merchant_account
from webhooks.api.serializers import (
    WebhookSubscriptionCreateInput,
    WebhookSubscriptionOutput,
    WebhookSubscriptionRotateSecretInput,
    WebhookSubscriptionUpdateInput,
)
from webhooks.models import WebhookSubscription
from webhooks.selectors import webhook_subscription_get, webhook_subscription_list
from webhooks.services.subscriptions import (
    webhook_subscription_create,
    webhook_subscription_delete,
    webhook_subscription_rotate_secret,
    webhook_subscription_update,
)


class WebhookSubscriptionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Webhook subscriptions: where the merchant account's events are delivered.

    list:
        List webhook subscriptions
        The merchant account's webhook subscriptions, newest first, a page at a time.

    retrieve:
        Get a webhook subscription
        One subscription: its URL, whether it is active, and its signing secrets (the current one, and the
        previous one while a rotation overlaps).
    """

    queryset = WebhookSubscription.objects.none()  # names the model for the schema; requests use get_queryset()
    scope_resource = "webhook-subscriptions"
    serializer_class = WebhookSubscriptionOutput
    lookup_url_kwarg = "subscription_id"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self) -> QuerySet[WebhookSubscription]:
        return webhook_subscription_list(merchant_account=request_merchant_account(self.request))

    def get_object(self) -> WebhookSubscription:
        return webhook_subscription_get(
            merchant_account=request_merchant_account(self.request), id=self.kwargs["subscription_id"]
        )

    @extend_schema(request=WebhookSubscriptionCreateInput, responses={201: WebhookSubscriptionOutput})
    def create(self, request: Request) -> Response:
        """Create a webhook subscription

        Sends every event of the merchant account to `url` (HTTPS on a public host), signed with a secret the
        answer carries (`X-Gr4vy-Webhook-Signatures`), optionally with basic authentication.
        """
        data = validated(WebhookSubscriptionCreateInput(data=request.data))
        subscription = webhook_subscription_create(merchant_account=request_merchant_account(request), **data)
        return Response(WebhookSubscriptionOutput(subscription).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=WebhookSubscriptionUpdateInput, responses={200: WebhookSubscriptionOutput})
    def update(self, request: Request, subscription_id=None) -> Response:
        """Update a webhook subscription

        Changes the fields the body carries: the URL, the authentication, or `active` to pause and resume
        deliveries.
        """
        serializer = WebhookSubscriptionUpdateInput(data=request.data)
        validated(serializer)
        subscription = webhook_subscription_update(subscription=self.get_object(), **serializer.changes())
        return Response(WebhookSubscriptionOutput(subscription).data)

    @extend_schema(responses={204: None})
    def destroy(self, request: Request, subscription_id=None) -> Response:
        """Delete a webhook subscription

        Stops every delivery to the subscription's URL, pending ones included.
        """
        webhook_subscription_delete(subscription=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=WebhookSubscriptionRotateSecretInput, responses={200: WebhookSubscriptionOutput})
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, subscription_id=None) -> Response:
        """Rotate a webhook subscription's secret

        Makes a new signing secret. For `delta` minutes (optional) deliveries are signed with both the old and
        the new secret, so a receiver can switch over without dropping one.
        """
        data = validated(WebhookSubscriptionRotateSecretInput(data=request.data if request.data is not None else {}))
        subscription = webhook_subscription_rotate_secret(
            subscription=self.get_object(), delta_minutes=data.get("delta")
        )
        return Response(WebhookSubscriptionOutput(subscription).data)
