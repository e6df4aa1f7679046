"""The gift card program (issued cards and their ledger) and the gift cards buyers store.

Card numbers and PINs are never stored: only keyed hashes (see `giftcards.hashing`) and the digits the
API may show (`bin`, `sub_bin`, `last4`).
"""

import uuid

from django.db import models
from django.utils import timezone

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel

BUILTIN_PROVIDER = "mock-gift-card"


class GiftCardService(TimestampedModel):
    """A merchant account's gift card service: which provider checks, redeems and refunds its cards."""

    class Provider(models.TextChoices):
        # Upstream's definition id for a service whose cards live in the platform, not at a processor.
        BUILTIN = BUILTIN_PROVIDER, "Built-in gift card program"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.OneToOneField(MerchantAccount, on_delete=models.PROTECT, related_name="gift_card_service")
    provider = models.CharField(max_length=64, choices=Provider.choices, default=Provider.BUILTIN)
    display_name = models.CharField(max_length=200, default="Gift cards")
    # The theme codes `POST /gift-cards/issuances` accepts, as the merchant configured them; empty: any theme is
    # taken and kept on the issuance as given (docs/gift-cards.md, "Themes").
    themes = JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"{self.display_name} ({self.merchant_account_id})"


class IssuedGiftCard(TimestampedModel):
    """A card of the program: the issuer's record of its money. Its balance is the sum of its ledger."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        INACTIVE = "inactive", "Inactive"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(GiftCardService, on_delete=models.PROTECT, related_name="issued_cards", db_index=False)
    number_hash = models.CharField(max_length=64, editable=False)
    pin_hash = models.CharField(max_length=64, editable=False)
    bin = models.CharField(max_length=6, editable=False)
    sub_bin = models.CharField(max_length=3, editable=False)
    last4 = models.CharField(max_length=4, editable=False)
    currency = models.CharField(max_length=3)
    balance = models.BigIntegerField()
    # The last instant the card can be used; null: it never expires.
    expires_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # A pre-printed card, issued inactive, that `POST /gift-cards/activations` may make active; a card staff
    # deactivated is inactive too, but never awaits activation, so the API cannot bring it back.
    awaiting_activation = models.BooleanField(default=False, editable=False)
    # Set when failed checks of this number use up their budget (RATELIMIT_GIFTCARD_PIN_FAILURES): until
    # then every check answers like a wrong PIN. Kept on the row that every check reads anyway.
    locked_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "issued gift card"
        constraints = [
            models.UniqueConstraint(fields=["service", "number_hash"], name="issued_gift_card_unique_number"),
            models.CheckConstraint(condition=models.Q(balance__gte=0), name="issued_gift_card_balance_not_negative"),
            models.CheckConstraint(
                condition=models.Q(status__in=["active", "inactive"]), name="issued_gift_card_status_valid"
            ),
        ]
        permissions = [("deactivate_issuedgiftcard", "Can deactivate issued gift cards")]

    def __str__(self) -> str:
        return f"Gift card ending {self.last4}"

    def is_expired(self, now=None) -> bool:
        return self.expires_at is not None and (now or timezone.now()) > self.expires_at

    def is_locked(self, now=None) -> bool:
        return self.locked_until is not None and (now or timezone.now()) < self.locked_until


class LedgerEntryQuerySet(models.QuerySet):
    """Ledger rows are facts: bulk updates and deletes are refused, like single ones."""

    def update(self, **kwargs):
        raise TypeError("Ledger entries are append-only.")

    def delete(self):
        raise TypeError("Ledger entries are append-only.")


class LedgerEntry(models.Model):
    """One movement of a card's money (issue: +, redemption: -, refund: +), never changed once written."""

    class Kind(models.TextChoices):
        ISSUE = "issue", "Issue"
        REDEMPTION = "redemption", "Redemption"
        REFUND = "refund", "Refund"

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    card = models.ForeignKey(IssuedGiftCard, on_delete=models.PROTECT, related_name="ledger", db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    amount = models.BigIntegerField(help_text="Signed minor units: credits positive, debits negative.")
    balance_after = models.BigIntegerField()
    # Who moved the money and why, e.g. a transaction id; refunds are limited per reference.
    reference = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        # Named apart from the settlement ledger's entries: the desk's start page lists both.
        verbose_name = "gift card ledger entry"
        verbose_name_plural = "gift card ledger entries"
        constraints = [
            models.CheckConstraint(condition=models.Q(balance_after__gte=0), name="ledger_balance_not_negative"),
            models.CheckConstraint(condition=~models.Q(amount=0), name="ledger_amount_not_zero"),
            models.CheckConstraint(
                condition=models.Q(kind="redemption", amount__lt=0)
                | models.Q(kind__in=["issue", "refund"], amount__gt=0),
                name="ledger_amount_sign_matches_kind",
            ),
        ]
        indexes = [
            models.Index(fields=["card", "created_at"], name="ledger_card_history"),
            models.Index(fields=["card", "reference"], name="ledger_card_reference"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount:+d}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise TypeError("Ledger entries are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("Ledger entries are append-only.")


class GiftCard(TimestampedModel):
    """A gift card stored for a buyer (the API's `GiftCard`): a reference to an issued card, not its money."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="gift_cards", db_index=False
    )
    buyer = models.ForeignKey(
        "buyers.Buyer", null=True, blank=True, on_delete=models.CASCADE, related_name="gift_cards"
    )
    issued_card = models.ForeignKey(IssuedGiftCard, on_delete=models.PROTECT, related_name="stored_cards")
    usage_count = models.PositiveIntegerField(default=0)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "stored gift card"
        constraints = [
            # Storing a card twice for the same buyer (or twice without one) gives back the first record.
            models.UniqueConstraint(
                fields=["merchant_account", "buyer", "issued_card"],
                condition=models.Q(buyer__isnull=False),
                name="gift_card_unique_per_buyer",
            ),
            models.UniqueConstraint(
                fields=["merchant_account", "issued_card"],
                condition=models.Q(buyer__isnull=True),
                name="gift_card_unique_without_buyer",
            ),
        ]
        indexes = [models.Index(fields=["merchant_account", "-created_at", "-id"], name="gift_card_page")]

    def __str__(self) -> str:
        return f"Stored gift card {self.id}"


class GiftCardIssuance(TimestampedModel):
    """A card issued over the API (`GiftCardIssuance`): its terms, and for a bounded time the card's number and PIN
    sealed by the vault, shown once on the issuance's page and then forgotten (docs/gift-cards.md, "Issuing over
    the API")."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="gift_card_issuances")
    issued_card = models.OneToOneField(IssuedGiftCard, on_delete=models.PROTECT, related_name="issuance")
    theme = models.CharField(max_length=200)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    # The vault's ciphertext of the number and PIN; null once shown, or once `reveal_until` passed and the purge ran.
    sealed_secret = models.TextField(null=True, blank=True, editable=False)
    reveal_until = models.DateTimeField(editable=False)
    revealed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "gift card issuance"
        indexes = [
            # The purge job's scan: only rows still holding a sealed copy.
            models.Index(
                fields=["reveal_until"],
                condition=models.Q(sealed_secret__isnull=False),
                name="gift_card_issuance_sealed",
            )
        ]

    def __str__(self) -> str:
        return f"Gift card issuance {self.id}"
