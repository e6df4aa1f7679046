"""Gift card input and output shapes, field for field as the upstream `GiftCardCreate`,
`GiftCardBalanceRequest`, `GiftCard` and `GiftCardSummary` schemas.

Error messages never repeat the number or the PIN.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from buyers.outputs import BuyerOutput
from giftcards.issuances import page_url
from giftcards.services import MAX_NUMBER_LENGTH, MAX_PIN_LENGTH, MIN_NUMBER_LENGTH
from payments.rest.fields import (
    AmountField,
    PaymentCurrencyField,
    StrictCharField,
    StrictSerializer,
    TimestampField,
    optional_text,
)
from payments.rest.outputs import ConstantField, OutputSerializer

MAX_BALANCE_ITEMS = 10


class GiftCardNumberField(serializers.CharField):
    """16 to 19 ASCII digits, sent as a JSON string (a JSON number would lose leading zeros)."""

    default_error_messages = {
        "not_a_string": "Must be a string of digits.",
        "not_digits": "Must contain only the digits 0-9.",
    }

    def __init__(self, **kwargs) -> None:
        super().__init__(min_length=MIN_NUMBER_LENGTH, max_length=MAX_NUMBER_LENGTH, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        if not (data.isascii() and data.isdigit()):
            self.fail("not_digits")
        return super().to_internal_value(data)


class PinField(serializers.CharField):
    """A non-empty string; upstream does not constrain PINs further, so neither do we beyond a sane length."""

    default_error_messages = {"not_a_string": "Must be a string."}

    def __init__(self, **kwargs) -> None:
        super().__init__(min_length=1, max_length=MAX_PIN_LENGTH, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


class GiftCardCreateInput(StrictSerializer):
    """Body of `POST /gift-cards`."""

    number = GiftCardNumberField()
    pin = PinField()
    buyer_id = serializers.UUIDField(required=False, allow_null=True)
    buyer_external_identifier = optional_text(200)

    def validate(self, attrs: dict) -> dict:
        if attrs.get("buyer_id") is not None and attrs.get("buyer_external_identifier") is not None:
            raise serializers.ValidationError(
                {"buyer_external_identifier": ["Give either buyer_id or buyer_external_identifier, not both."]}
            )
        return attrs


class GiftCardBalanceItemInput(StrictSerializer):
    """One item of `POST /gift-cards/balances`: `{number, pin}` to check, or `{id}` of a stored card."""

    number = GiftCardNumberField(required=False)
    pin = PinField(required=False)
    id = serializers.UUIDField(required=False)

    def validate(self, attrs: dict) -> dict:
        if "id" in attrs:
            extra = [name for name in ("number", "pin") if name in attrs]
            if extra:
                raise serializers.ValidationError({name: ["Not allowed together with id."] for name in extra})
            return attrs
        missing = [name for name in ("number", "pin") if name not in attrs]
        if missing:
            raise serializers.ValidationError(
                {name: ["This field is required unless id is given."] for name in missing}
            )
        return attrs


class GiftCardBalancesInput(StrictSerializer):
    """Body of `POST /gift-cards/balances`."""

    # With many=True DRF builds a ListSerializer, which takes max_length; the stubs type the child's arguments.
    items = GiftCardBalanceItemInput(  # type: ignore[call-arg]
        many=True, allow_empty=True, max_length=MAX_BALANCE_ITEMS
    )


class GiftCardIssuanceCreateInput(StrictSerializer):
    """Body of `POST /gift-cards/issuances` (upstream `GiftCardIssuanceCreate`)."""

    theme = StrictCharField(min_length=1, max_length=200, trim_whitespace=False)
    amount = AmountField()
    currency = PaymentCurrencyField()
    external_identifier = optional_text(200)


@extend_schema_field({"type": "boolean", "default": False, "example": True})
class StoreField(serializers.BooleanField):
    """`store`; the document's example stores, since its example body names a buyer, which only a stored card has."""


class GiftCardActivationCreateInput(StrictSerializer):
    """Body of `POST /gift-cards/activations` (upstream `GiftCardActivationCreate`)."""

    number = GiftCardNumberField()
    pin = PinField(required=False, allow_null=True)
    amount = AmountField(required=False, allow_null=True)
    currency = PaymentCurrencyField(required=False, allow_null=True)
    external_identifier = optional_text(200)
    store = StoreField(required=False, default=False)
    buyer_id = serializers.UUIDField(required=False, allow_null=True)
    buyer_external_identifier = optional_text(200)

    def validate(self, attrs: dict) -> dict:
        if attrs.get("buyer_id") is not None and attrs.get("buyer_external_identifier") is not None:
            raise serializers.ValidationError(
                {"buyer_external_identifier": ["Give either buyer_id or buyer_external_identifier, not both."]}
            )
        return attrs


class GiftCardServiceOutput(OutputSerializer):
    """The upstream `GiftCardService` a stored card belongs to."""

    type = ConstantField("gift-card-service")
    id = serializers.UUIDField()
    gift_card_service_definition_id = serializers.CharField(source="provider")
    display_name = serializers.CharField()


class GiftCardOutput(OutputSerializer):
    """The upstream `GiftCard`: a card stored for a buyer, shown by its displayable digits only."""

    type = ConstantField("gift-card")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    gift_card_service = GiftCardServiceOutput(source="issued_card.service")
    bin = serializers.CharField(source="issued_card.bin")
    sub_bin = serializers.CharField(source="issued_card.sub_bin")
    last4 = serializers.CharField(source="issued_card.last4")
    expiration_date = TimestampField(source="issued_card.expires_at", allow_null=True)
    buyer = BuyerOutput(allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()
    last_used_at = TimestampField(allow_null=True)
    usage_count = serializers.IntegerField()
    # Gift cards are only ever used by the buyer at checkout: every use is customer initiated.
    cit_last_used_at = TimestampField(source="last_used_at", allow_null=True)
    cit_usage_count = serializers.IntegerField(source="usage_count")


class GiftCardSummaryOutput(OutputSerializer):
    """The upstream `GiftCardSummary`, rendered from a `giftcards.selectors.GiftCardBalance`."""

    type = ConstantField("gift-card")
    id = serializers.UUIDField(allow_null=True)
    merchant_account_id = serializers.CharField()
    bin = serializers.CharField()
    sub_bin = serializers.CharField()
    last4 = serializers.CharField()
    currency = serializers.CharField(allow_null=True)
    expiration_date = TimestampField(allow_null=True)
    balance = serializers.IntegerField(allow_null=True)
    balance_error_code = serializers.CharField(allow_null=True)
    # This program answers directly, so there is never a raw provider code or message to pass on.
    balance_raw_error_code = ConstantField(None, schema={"type": "string", "nullable": True})
    balance_raw_error_message = ConstantField(None, schema={"type": "string", "nullable": True})
    last_used_at = TimestampField(allow_null=True)
    usage_count = serializers.IntegerField()
    cit_last_used_at = TimestampField(source="last_used_at", allow_null=True)
    cit_usage_count = serializers.IntegerField(source="usage_count")


class GiftCardSummariesOutput(OutputSerializer):
    """The upstream `GiftCardSummaries`: `{"items": [...]}`, unpaginated."""

    items = GiftCardSummaryOutput(many=True)


class BuyerGiftCardsQuery(serializers.Serializer):
    """Query string of `GET /buyers/gift-cards`: exactly one of the buyer fields, optional sorting."""

    buyer_id = serializers.UUIDField(required=False)
    buyer_external_identifier = serializers.CharField(required=False, min_length=1, max_length=200)
    sort_by = serializers.ChoiceField(
        choices=["last_used_at", "usage_count", "cit_last_used_at", "cit_usage_count"], required=False
    )
    order_by = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")

    def validate(self, attrs: dict) -> dict:
        given = [name for name in ("buyer_id", "buyer_external_identifier") if name in attrs]
        if len(given) != 1:
            pointer = "buyer_external_identifier" if len(given) == 2 else "buyer_id"
            raise serializers.ValidationError({pointer: ["Give exactly one of buyer_id or buyer_external_identifier."]})
        return attrs


class GiftCardIssuanceOutput(OutputSerializer):
    """The upstream `GiftCardIssuance`: the card's terms and the address of the page that shows it once; never its
    number or PIN."""

    type = ConstantField("gift-card-issuance")
    id = serializers.UUIDField()
    merchant_account_id = serializers.CharField()
    gift_card_service = GiftCardServiceOutput(source="issued_card.service")
    # The program is the service: its id for the card it issued.
    gift_card_service_payment_issuance_id = serializers.CharField(source="issued_card_id")
    url = serializers.SerializerMethodField()
    amount = serializers.IntegerField()
    currency = serializers.CharField()
    external_identifier = serializers.CharField(allow_null=True)
    created_at = TimestampField()
    updated_at = TimestampField()

    def get_url(self, issuance) -> str:
        return page_url(issuance.pk, self.context.get("request"))
