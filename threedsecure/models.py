"""3-D Secure data of a merchant account: the sandbox's scenarios and the per-scheme configurations."""

import uuid

from django.db import models
from django.db.models import Q

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField
from payments.timestamped import TimestampedModel


class CardScheme(models.TextChoices):
    """Upstream's card schemes (`CardScheme`)."""

    ACCEL = "accel"
    AMEX = "amex"
    BANCONTACT = "bancontact"
    CARTE_BANCAIRE = "carte-bancaire"
    CIRRUS = "cirrus"
    CULIANCE = "culiance"
    DANKORT = "dankort"
    DINERS_CLUB = "diners-club"
    DISCOVER = "discover"
    EFTPOS_AUSTRALIA = "eftpos-australia"
    ELO = "elo"
    HIPERCARD = "hipercard"
    JCB = "jcb"
    MAESTRO = "maestro"
    MASTERCARD = "mastercard"
    MIR = "mir"
    NYCE = "nyce"
    OTHER = "other"
    PULSE = "pulse"
    QCARD = "qcard"
    RUPAY = "rupay"
    STAR = "star"
    UATP = "uatp"
    UNIONPAY = "unionpay"
    VISA = "visa"


class AuthenticationStatus(models.TextChoices):
    """The 3DS transaction status an issuer answers (EMV 3DS `transStatus`), and `timeout` for no answer."""

    AUTHENTICATED = "Y", "Y: authenticated"
    NOT_AUTHENTICATED = "N", "N: not authenticated"
    ATTEMPTED = "A", "A: attempted"
    REJECTED = "R", "R: rejected"
    UNAVAILABLE = "U", "U: unavailable"
    CHALLENGE = "C", "C: challenge required"
    TIMEOUT = "timeout", "timeout"


class ChallengeResult(models.TextChoices):
    """How a challenge ends: the buyer passed, failed, or never answered."""

    AUTHENTICATED = "Y", "Y: authenticated"
    NOT_AUTHENTICATED = "N", "N: not authenticated"
    TIMEOUT = "timeout", "timeout"


class ThreeDSConfiguration(TimestampedModel):
    """What a 3-D Secure server is told about the merchant for one card scheme (and one currency, or all)."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="three_ds_configurations"
    )
    scheme = models.CharField(max_length=32, choices=CardScheme.choices)
    # Null: the configuration applies to every currency without one of its own.
    currency = models.CharField(max_length=3, null=True, blank=True)
    merchant_acquirer_bin = models.CharField("acquirer BIN", max_length=11)
    merchant_acquirer_id = models.CharField("merchant ID at the acquirer", max_length=35)
    merchant_name = models.CharField(max_length=40)
    merchant_country_code = models.CharField("ISO 3166-1 numeric country", max_length=3)
    merchant_category_code = models.CharField("merchant category code", max_length=4)
    merchant_url = models.URLField("merchant URL", max_length=2048)
    metadata = JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = "3-D Secure configuration"
        constraints = [
            # A 3DS server must find one configuration for a card's scheme and a payment's currency.
            models.UniqueConstraint(
                fields=["merchant_account", "scheme", "currency"],
                condition=Q(currency__isnull=False),
                name="three_ds_configuration_per_currency",
            ),
            models.UniqueConstraint(
                fields=["merchant_account", "scheme"],
                condition=Q(currency__isnull=True),
                name="three_ds_configuration_any_currency",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scheme} {self.currency or 'any currency'}"


class ThreeDSScenario(TimestampedModel):
    """What the sandbox's issuer answers for a payment matching every condition set.

    A card number condition is card data: only its keyed digest (to match), BIN, last 4 and length (to show) are
    kept, never the number.
    """

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.CASCADE, related_name="three_ds_scenarios", db_index=False
    )
    # conditions: null means "any"
    amount = models.PositiveIntegerField(null=True, blank=True)
    card_digest = models.CharField(max_length=64, null=True, blank=True)
    card_bin = models.CharField(max_length=6, null=True, blank=True)
    card_last4 = models.CharField(max_length=4, null=True, blank=True)
    card_length = models.PositiveSmallIntegerField(null=True, blank=True)
    email_address = models.CharField(max_length=320, null=True, blank=True)
    first_name = models.CharField(max_length=255, null=True, blank=True)
    last_name = models.CharField(max_length=255, null=True, blank=True)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    # outcome
    version = models.CharField(max_length=16, null=True, blank=True)
    authentication_status = models.CharField(max_length=8, choices=AuthenticationStatus.choices)
    result_status = models.CharField(max_length=8, choices=ChallengeResult.choices, null=True, blank=True)

    class Meta:
        verbose_name = "3-D Secure scenario"
        constraints = [
            # A challenge needs to know how it ends; nothing else has a result.
            models.CheckConstraint(
                condition=(Q(authentication_status="C") & Q(result_status__isnull=False))
                | (~Q(authentication_status="C") & Q(result_status__isnull=True)),
                name="three_ds_scenario_result_only_for_challenge",
            ),
            models.CheckConstraint(
                condition=Q(card_digest__isnull=True, card_bin__isnull=True, card_last4__isnull=True)
                | Q(card_digest__isnull=False, card_bin__isnull=False, card_last4__isnull=False),
                name="three_ds_scenario_card_condition_whole",
            ),
        ]
        indexes = [models.Index(fields=["merchant_account", "created_at"], name="three_ds_scenario_account")]

    def __str__(self) -> str:
        return f"{self.authentication_status} scenario {self.id}"

    @property
    def masked_card_number(self) -> str | None:
        """BIN, a mask and the last 4, as long as the number was: all a condition's card may show."""
        if self.card_bin is None or self.card_last4 is None:
            return None
        hidden = (self.card_length or 16) - len(self.card_bin) - len(self.card_last4)
        return f"{self.card_bin}{'*' * max(hidden, 0)}{self.card_last4}"
