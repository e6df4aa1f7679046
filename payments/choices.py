"""Enumerations shared by checkout sessions and transactions, with the upstream API's values."""

from django.db import models


class PaymentIntent(models.TextChoices):
    AUTHORIZE = "authorize"
    CAPTURE = "capture"


class PaymentSource(models.TextChoices):
    ECOMMERCE = "ecommerce"
    MOTO = "moto"
    RECURRING = "recurring"
    INSTALLMENT = "installment"
    CARD_ON_FILE = "card_on_file"
