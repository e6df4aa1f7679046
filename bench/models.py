"""The peer's model: the buyers' table and columns with Django's stock fields, so the peer reads its rows as a stock
Django REST framework service would (the project's own JSON column reads with orjson: payments/json_column.py).
Unmanaged: the table is the project's, made by its migrations."""

from django.db import models

from payments.accounts.models import MerchantAccount


class PeerBuyer(models.Model):
    id = models.UUIDField(primary_key=True)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.DO_NOTHING, related_name="+")
    display_name = models.CharField(max_length=200, null=True)
    external_identifier = models.CharField(max_length=200, null=True)
    account_number = models.CharField(max_length=200, null=True)
    billing_details = models.JSONField(null=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    # Declared: the type checker reads the project's settings, where this app is not installed.
    objects: models.Manager["PeerBuyer"] = models.Manager()

    class Meta:
        managed = False
        db_table = "buyers_buyer"

    def __str__(self) -> str:
        return str(self.id)
