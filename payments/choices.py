"""Enumerations shared by checkout sessions and transactions, with the upstream API's values, and the words every
processor's notifications share for where a dispute stands and what a defence's document shows (processors and the
disputes app both read them)."""

from django.db import models


class PaymentIntent(models.TextChoices):
    AUTHORIZE = "authorize"
    CAPTURE = "capture"


class PaymentSource(models.TextChoices):
    ECOMMERCE = "ecommerce"
    MOTO = "moto"
    RECURRING = "recurring"
    INSTALLMENT = "installment"
    CARD_ON_FILE = "card_on_file", "Card on file"


class DisputeState:
    """Where a dispute stands, in words every processor's notifications share (docs/disputes.md)."""

    INQUIRY = "inquiry"  # the bank asks for information; no money moved yet
    NEEDS_RESPONSE = "needs_response"  # a chargeback the merchant may answer before the due date
    UNDER_REVIEW = "under_review"  # answered: the bank is deciding
    WON = "won"  # decided for the merchant (any money taken back is returned)
    LOST = "lost"  # decided for the buyer: the money stays with the bank
    ACCEPTED = "accepted"  # the merchant conceded it: the money stays with the bank

    OPEN = (INQUIRY, NEEDS_RESPONSE, UNDER_REVIEW)
    CLOSED = (WON, LOST, ACCEPTED)
    # Closed for the buyer: the disputed amount is taken back from the payment.
    TAKEN_BACK = (LOST, ACCEPTED)
    ALL = OPEN + CLOSED


class EvidenceKind(models.TextChoices):
    """What a document sent in defence of a dispute shows, in words every processor's dispute API can be told in its
    own types (each processor's `disputes.py` maps them; one with no types of its own sends every kind alike)."""

    RECEIPT = "receipt", "Receipt or invoice"
    SHIPPING = "shipping", "Proof of shipment"
    DELIVERY = "delivery", "Proof of delivery"
    SERVICE = "service", "Proof the service was given"
    REFUND = "refund", "Proof of a refund"
    REFUND_POLICY = "refund_policy", "Refund or return policy"
    AGREEMENT = "agreement", "The buyer's agreement"
    DESCRIPTION = "description", "Description of what was sold"
    OTHER = "other", "Other"
