"""The BIN table: published issuer ranges, stored as the prefixes that cover each one exactly."""

from django.db import models


class BinRange(models.Model):
    """One prefix of a published BIN range, and what the range says of its cards.

    A range (`range_start`..`range_end`, prefixes of one length) is stored as the fewest prefixes that cover exactly
    its cards (222100..272099 becomes 2221..2229, 223..229, 23..26, 270, 271 and 2720), so a lookup is one indexed
    equality on the up to 8 prefixes of a BIN. Where ranges overlap the most specific published range wins: the one
    with the longest `range_start` (`payments.bins.selectors.bin_lookup`). The table is replaced whole by
    `manage.py refresh_bin_table`; nothing else points at its rows.
    """

    prefix = models.CharField(max_length=8)
    range_start = models.CharField(max_length=8)
    range_end = models.CharField(max_length=8)
    scheme = models.CharField(max_length=32, null=True, blank=True)
    card_type = models.CharField(max_length=16, null=True, blank=True)
    country = models.CharField(max_length=2, null=True, blank=True)
    issuer_name = models.CharField(max_length=200, null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["prefix"], name="bin_range_prefix")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(card_type__in=["credit", "debit", "prepaid"]) | models.Q(card_type__isnull=True),
                name="bin_range_card_type",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.range_start}-{self.range_end} ({self.prefix})"
