"""HTTP for stored gift cards and balance checks: validate, call one service or selector, render.

`create` and `balances` are the two actions an embed token may call; they are plain viewset actions so
the rate limits can be attached per action (`payments.ratelimits.throttles.RateLimitedMixin`).
"""

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from buyers.access import BuyerAccess, buyer_access
from giftcards.api.serializers import (
    BuyerGiftCardsQuery,
    GiftCardActivationCreateInput,
    GiftCardBalancesInput,
    GiftCardCreateInput,
    GiftCardIssuanceCreateInput,
    GiftCardIssuanceOutput,
    GiftCardOutput,
    GiftCardSummariesOutput,
)
from giftcards.issuances import gift_card_issuance_create
from giftcards.models import GiftCard, GiftCardIssuance, IssuedGiftCard
from giftcards.selectors import gift_card_balances, gift_card_get, gift_card_list, gift_card_summaries_for_buyer
from giftcards.services import Activation, gift_card_delete, gift_card_store, issued_card_activate
from payments.errors import Forbidden
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import validated
from payments.rest.idempotency import idempotency_reserved_id, idempotent
from payments.rest.permissions import request_merchant_account, request_principal
from payments.rest.query import query_values


def _access(request) -> BuyerAccess:
    """Which buyer's gift cards the request may touch (`buyers.access`): an embed token, its pinned buyer's only."""
    return buyer_access(request_principal(request), resource="gift-cards")


class GiftCardFilter(django_filters.FilterSet):
    buyer_id = django_filters.UUIDFilter(field_name="buyer_id")
    buyer_external_identifier = django_filters.CharFilter(field_name="buyer__external_identifier", max_length=200)

    class Meta:
        model = GiftCard
        fields = ["buyer_id", "buyer_external_identifier"]


class GiftCardViewSet(
    RateLimitedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Gift cards stored for buyers, and balance checks.

    list:
        List stored gift cards
        The gift cards stored in the merchant account, newest first, a page at a time, each with its current
        balance; `buyer_id` or `buyer_external_identifier` narrows the list to one buyer's cards.

    retrieve:
        Get a stored gift card
        One stored gift card: its masked number (BIN and last four digits), currency, balance and expiry.

    destroy:
        Delete a stored gift card
        Forgets the stored card. The card itself, and its balance, are untouched: it can be stored again.
    """

    queryset = GiftCard.objects.none()  # the model, for the schema; requests use get_queryset()
    scope_resource = "gift-cards"
    embed_actions = ("create",)
    action_scopes = {"balances": ("gift-cards.read", "embed")}
    # Per embed token, a budget on each of the two (docs/rate-limits.md); server tokens are never limited.
    rate_limits = {"create": (EmbedTokenThrottle,), "balances": (EmbedTokenThrottle,)}
    serializer_class = GiftCardOutput
    filterset_class = GiftCardFilter
    lookup_url_kwarg = "gift_card_id"

    def get_queryset(self):
        return _access(self.request).confine(gift_card_list(merchant_account=request_merchant_account(self.request)))

    def get_object(self):
        return gift_card_get(
            merchant_account=request_merchant_account(self.request),
            id=self.kwargs["gift_card_id"],
            access=_access(self.request),
        )

    @extend_schema(request=GiftCardCreateInput, responses={201: GiftCardOutput})
    def create(self, request):
        """Store a gift card

        Checks the card's number and PIN against the gift card program and stores the card, optionally for a
        buyer (`buyer_id` or `buyer_external_identifier`). A wrong number and a wrong PIN give the same 400, and
        repeated wrong PINs lock the card for a while. An embed token may store cards only for the buyer its
        `embed` claim names.
        """
        data = validated(GiftCardCreateInput(data=request.data))
        gift_card = gift_card_store(
            merchant_account=request_merchant_account(request),
            endpoint="POST /gift-cards",
            access=_access(request),
            **data,
        )
        return Response(GiftCardOutput(gift_card).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        gift_card_delete(gift_card=instance)

    @extend_schema(request=GiftCardBalancesInput, responses={200: GiftCardSummariesOutput})
    @action(detail=False, methods=["post"], url_path="balances")
    def balances(self, request):
        """Check gift card balances

        Answers, for each item (a number and PIN, or the `id` of a stored card), the card's balance, or a
        `balance_error_code` saying why it has none. One bad item does not fail the others. An embed token names
        only stored cards of the buyer it is pinned to: another buyer's `id` is missing (400), and a token that
        pins no buyer names no stored card (403).
        """
        data = validated(GiftCardBalancesInput(data=request.data))
        balances = gift_card_balances(
            merchant_account=request_merchant_account(request),
            items=data["items"],
            endpoint="POST /gift-cards/balances",
            access=_access(request),
        )
        return Response(GiftCardSummariesOutput({"items": balances}).data)


class BuyerGiftCardViewSet(viewsets.GenericViewSet):
    """`GET /buyers/gift-cards`: a buyer's stored cards with their balances, unpaginated as upstream.

    list:
        List a buyer's gift cards
        Every gift card stored for one buyer, named by exactly one of `buyer_id` or `buyer_external_identifier`,
        with its balance, in one answer (no pages). `sort_by` and `order_by` order the cards.
    """

    queryset = GiftCard.objects.none()  # the model, for the schema
    scope_resource = "gift-cards"
    pagination_class = None
    filterset_class = None
    query_parameters = frozenset(BuyerGiftCardsQuery().fields)

    @extend_schema(
        parameters=[BuyerGiftCardsQuery],
        responses={200: GiftCardSummariesOutput},
    )
    def list(self, request):
        query = BuyerGiftCardsQuery(data=query_values(request))
        if not query.is_valid():
            raise QueryValidationError(query.errors)
        balances = gift_card_summaries_for_buyer(
            merchant_account=request_merchant_account(request), access=_access(request), **query.validated_data
        )
        return Response(GiftCardSummariesOutput({"items": balances}).data)


class GiftCardIssuanceViewSet(viewsets.GenericViewSet):
    """`POST /gift-cards/issuances`: a new card of the program, shown once at the answer's `url`."""

    queryset = GiftCardIssuance.objects.none()  # the model, for the schema and the audit log
    scope_resource = "gift-cards"

    @extend_schema(request=GiftCardIssuanceCreateInput, responses={201: GiftCardIssuanceOutput})
    @idempotent
    def create(self, request):
        """Issue a gift card

        Issues one active card of the account's gift card program holding `amount`. The answer never holds the
        card's number or PIN: `url` is a page of this server that shows them once, for three days, and then says
        the card is no longer shown (forward it to the buyer). `theme` is kept with the card; when the account has
        configured its themes, another is refused by name. Send an `Idempotency-Key` to retry safely.
        """
        data = validated(GiftCardIssuanceCreateInput(data=request.data))
        issuance = gift_card_issuance_create(
            merchant_account=request_merchant_account(request), id=idempotency_reserved_id(request), **data
        )
        return Response(
            GiftCardIssuanceOutput(issuance, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


class GiftCardActivationViewSet(RateLimitedMixin, viewsets.GenericViewSet):
    """`POST /gift-cards/activations`: a pre-printed card becomes active, optionally loaded and stored."""

    queryset = IssuedGiftCard.objects.none()  # the model it changes, for the audit log
    scope_resource = "gift-cards"
    embed_actions = ("create",)
    rate_limits = {"create": (EmbedTokenThrottle,)}

    @extend_schema(request=GiftCardActivationCreateInput, responses={201: GiftCardOutput})
    @idempotent
    def create(self, request):
        """Activate a gift card

        Makes a pre-printed card (issued inactive) active after checking its number and PIN, as every check is:
        a wrong number and a wrong PIN give the same 400, and repeated wrong PINs lock the card for a while.
        `amount` with `currency` (the card's own) loads money onto it. With `store: true` the card is also stored,
        for the buyer named if any. An embed token may activate and store for its pinned buyer, but not load money.
        """
        data = validated(GiftCardActivationCreateInput(data=request.data))
        data.pop("external_identifier", None)  # accepted as upstream; the program keeps no activation record
        if data.get("amount") is not None and not request_principal(request).has_scope("gift-cards.write"):
            raise Forbidden("Only the merchant's server loads money onto a card: an embed token may not send amount.")
        activation = issued_card_activate(
            merchant_account=request_merchant_account(request),
            endpoint="POST /gift-cards/activations",
            access=_access(request),
            **data,
        )
        return Response(GiftCardOutput(_shown(activation)).data, status=status.HTTP_201_CREATED)


def _shown(activation: Activation) -> GiftCard:
    """The stored card, or, when nothing was stored, the program's card in the `GiftCard` shape under its own id."""
    if activation.stored is not None:
        return activation.stored
    card = activation.card
    return GiftCard(
        id=card.id,
        merchant_account_id=card.service.merchant_account_id,
        issued_card=card,
        buyer=None,
        created_at=card.created_at,
        updated_at=card.updated_at,
    )
