"""The masked card a payment or a payout names (upstream's `TransactionPaymentMethod` of a card), rendered from the
display copy a resource keeps of it: never the number or the security code."""

from __future__ import annotations

from rest_framework import serializers

from payments.rest.outputs import NULL_STRING, ConstantField, OutputSerializer


class CardDetailsOutput(OutputSerializer):
    """What is known of a card beyond its number: the BIN, and its type and issuer as the BIN table said when the
    card was used (null where it does not say; docs/card-details.md)."""

    bin = serializers.CharField(source="card_bin", allow_null=True)
    card_type = serializers.CharField(allow_null=True)
    card_issuer_name = serializers.CharField(allow_null=True)


class MaskedCardOutput(OutputSerializer):
    """A card, masked. A resource's subclass declares `id`: which stored payment method the card is."""

    type = ConstantField("payment-method")
    method = ConstantField("card")
    mode = ConstantField("card")
    scheme = serializers.CharField(source="card_scheme", allow_null=True)
    # A field named like Field.label: DRF's metaclass moves declared fields off the class, so nothing is shadowed.
    label = serializers.CharField(  # type: ignore[assignment]
        source="card_last4", allow_null=True, help_text="The card's last 4 digits."
    )
    expiration_date = serializers.CharField(source="card_expiration_date", allow_null=True, help_text="MM/YY")
    fingerprint = serializers.CharField(source="card_fingerprint", allow_null=True)
    details = CardDetailsOutput(source="*")
    approval_url = ConstantField(None, schema=NULL_STRING)
    country = serializers.CharField(source="card_country", allow_null=True, help_text="The card's issuing country.")
    currency = ConstantField(None, schema=NULL_STRING)
    external_identifier = ConstantField(None, schema=NULL_STRING)
