"""A URLconf for the rate-limit tests only: generic views carrying the throttles, so the plumbing is tested on
its own.

`/limited/notes` writes one row per admitted request (a merchant account named `limited-...`), opened to
embed tokens and limited per token, so a test can see that a refused request writes nothing.
`/limited/sessions/{session_id}/fields` stands in for an endpoint whose URL is the credential: no
authentication, limited per URL parameter.
"""

import uuid

from django.urls import path
from rest_framework import status, viewsets
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from config.urls import urlpatterns as project_urlpatterns
from payments.accounts.models import MerchantAccount
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin, UrlParameterThrottle
from payments.rest.fields import StrictCharField, StrictSerializer, validated

WRITTEN_PREFIX = "limited-"


class NoteInput(StrictSerializer):
    display_name = StrictCharField(max_length=200)


class NoteViewSet(viewsets.GenericViewSet):
    scope_resource = "notes"
    embed_actions = ("create",)

    def create(self, request):
        data = validated(NoteInput(data=request.data))
        MerchantAccount.objects.create(id=f"{WRITTEN_PREFIX}{uuid.uuid4().hex}", display_name=data["display_name"])
        return Response({}, status=status.HTTP_201_CREATED)


class LimitedNoteViewSet(RateLimitedMixin, NoteViewSet):
    rate_limits = {"create": (EmbedTokenThrottle,)}


class SessionThrottle(UrlParameterThrottle):
    rate_setting = "RATELIMIT_CHECKOUT_FIELDS"
    scope = "test-sessions"
    url_kwarg = "session_id"
    subject_kind = "session"
    description = "session"


class LimitedFieldsView(RateLimitedMixin, APIView):
    authentication_classes = []
    permission_classes = []
    rate_limits = {"put": (SessionThrottle,), "post": (SessionThrottle,)}

    def put(self, request, session_id):
        return Response(status=status.HTTP_204_NO_CONTENT)

    def rate_limit_merchant_account_id(self) -> str | None:
        return "default" if self.kwargs["session_id"].startswith("known-") else None

    def post(self, request, session_id):
        return Response(status=status.HTTP_204_NO_CONTENT)


router = SimpleRouter(trailing_slash=False)
router.register("limited/notes", LimitedNoteViewSet, basename="limited-note")
router.register("limited/other-notes", LimitedNoteViewSet, basename="limited-other-note")
router.register("unlimited/notes", NoteViewSet, basename="unlimited-note")

urlpatterns = [
    *router.urls,
    path("limited/sessions/<str:session_id>/fields", LimitedFieldsView.as_view()),
    *project_urlpatterns,
]
