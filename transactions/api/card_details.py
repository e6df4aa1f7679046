"""`GET /card-details`: what a card is, by its BIN or a stored payment method, from the BIN table
(docs/card-details.md).

It lives beside payment options: both answer a checkout about to pay (its currency, amount and country), and both
would apply the merchant's checkout rules, of which this server has none (`required_fields` is null).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from buyers.access import buyer_access
from paymentmethods.selectors import payment_method_get
from payments.bins.facts import CardFacts
from payments.bins.models import BinRange
from payments.bins.selectors import bin_lookup
from payments.choices import PaymentIntent, PaymentSource
from payments.ratelimits.throttles import EmbedTokenThrottle, RateLimitedMixin
from payments.rest.envelope import QueryValidationError
from payments.rest.fields import CountryField, PaymentCurrencyField, UnsupportedField
from payments.rest.outputs import NULL_STRING, ConstantField, OutputSerializer
from payments.rest.permissions import request_merchant_account, request_principal
from payments.rest.query import query_values
from payments.shapes.cards import BinField
from payments.validators import MAX_AMOUNT
from payments.vault import cards
from transactions.api.pinning import pinned_checkout_values

_FLAG = ("true", "false")


class CardDetailsQuery(serializers.Serializer[Any]):
    """Query string of `GET /card-details`: the card (`bin`, or a stored `payment_method_id`) and the checkout."""

    currency = PaymentCurrencyField(min_length=3, max_length=3)
    bin = BinField(required=False)
    payment_method_id = serializers.UUIDField(required=False)
    country = CountryField(required=False, min_length=2, max_length=2)
    amount = serializers.IntegerField(required=False, min_value=0, max_value=MAX_AMOUNT)
    intent = serializers.ChoiceField(choices=PaymentIntent.choices, required=False)
    is_subsequent_payment = serializers.ChoiceField(choices=_FLAG, required=False)
    merchant_initiated = serializers.ChoiceField(choices=_FLAG, required=False)
    payment_source = serializers.ChoiceField(choices=PaymentSource.choices, required=False)
    metadata = UnsupportedField("there are no checkout rules to evaluate metadata against.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("bin" in attrs) == ("payment_method_id" in attrs):
            raise serializers.ValidationError({"bin": ["Give either bin or payment_method_id."]})
        return attrs


class CardDetailOutput(OutputSerializer):
    """The upstream `CardDetail`: what the BIN table says of the card; the scheme from the card's prefix where the
    table does not say. No checkout rules, so no `required_fields`; no additional schemes or icons are known."""

    type = ConstantField("card-detail")
    id = serializers.CharField(allow_null=True, help_text="The BIN asked about (at most 8 digits).")
    card_type = serializers.CharField(allow_null=True)
    scheme = serializers.CharField(allow_null=True)
    additional_schemes = ConstantField(None, schema={"type": "array", "items": {"type": "string"}, "nullable": True})
    additional_schemes_details = ConstantField(
        None, schema={"type": "array", "items": {"type": "object"}, "nullable": True}
    )
    scheme_icon_url = ConstantField(None, schema=NULL_STRING)
    country = serializers.CharField(allow_null=True)
    required_fields = ConstantField(None, schema={"type": "object", "nullable": True})


def card_detail(bin: str, facts: CardFacts, *, scheme: str | None = None) -> dict[str, Any]:
    """The answer's values: `facts` of the card whose first digits are `bin`, its scheme the table's, else `scheme`,
    else the one the prefix tells (`payments.vault.cards`)."""
    return {
        "id": bin,
        "card_type": facts.card_type,
        "scheme": facts.scheme or scheme or cards.card_scheme(bin),
        "country": facts.country,
    }


class CardDetailsViewSet(RateLimitedMixin, viewsets.GenericViewSet):
    """`GET /card-details`."""

    queryset = BinRange.objects.none()  # names the table it reads, for the schema; reads go through the lookup
    scope_resource = "bin-checker"
    embed_actions = ("list",)
    # Card details are asked from the browser as the buyer types: per embed token, like every embed call.
    rate_limits = {"list": (EmbedTokenThrottle,)}
    pagination_class = None
    filterset_class = None
    query_parameters = frozenset(CardDetailsQuery().fields)

    @extend_schema(parameters=[CardDetailsQuery], responses={200: CardDetailOutput})
    def list(self, request: Request) -> Response:
        """Get card details

        What a card is, by its BIN (`bin`, the first 6 to 8 digits of its number) or a stored payment method
        (`payment_method_id`): scheme, type (credit, debit or prepaid), issuing country, from this server's BIN
        table. A BIN the table does not know answers its scheme by prefix and nulls. There are no checkout rules, so
        `required_fields` is null and `metadata` is refused. Needs the `bin-checker.read` or the `embed` scope; an
        embed token answers for the amount and currency it pins and is rate limited.

        404: the `payment_method_id` names no stored payment method this caller may read.
        """
        query = CardDetailsQuery(data=query_values(request))
        if not query.is_valid():
            raise QueryValidationError(query.errors)
        data = query.validated_data
        pinned_checkout_values(request_principal(request), {"amount": data.get("amount"), "currency": data["currency"]})
        if "bin" in data:
            return Response(CardDetailOutput(card_detail(data["bin"], bin_lookup(data["bin"]))).data)
        method = payment_method_get(
            merchant_account=request_merchant_account(request),
            id=data["payment_method_id"],
            access=buyer_access(request_principal(request), resource="payment-methods"),
        )
        card = method.card
        facts = CardFacts(card_type=card.card_type, country=card.country, issuer_name=card.issuer_name)
        return Response(CardDetailOutput(card_detail(card.bin, facts, scheme=card.scheme)).data)
