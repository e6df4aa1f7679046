"""Transactions, their refunds and gift card redemptions, and the event history of every change.

The transaction's amounts (`authorized_amount`, `captured_amount`, `refunded_amount`) are the payment
method's part, as upstream; gift card money is on each `GiftCardRedemption`. Only `transactions.services`
changes these rows.
"""

import uuid
from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import F, Q

from payments.accounts.models import MerchantAccount
from payments.choices import PaymentIntent, PaymentSource
from payments.identifiers import base62
from payments.json_column import JSONField
from payments.money import format_money
from payments.timestamped import TimestampedModel


class TransactionStatus(models.TextChoices):
    """Upstream's status values; docs/transactions.md draws the transitions between them."""

    PROCESSING = "processing"
    AUTHORIZATION_SUCCEEDED = "authorization_succeeded", "Authorization succeeded"
    AUTHORIZATION_DECLINED = "authorization_declined", "Authorization declined"
    AUTHORIZATION_FAILED = "authorization_failed", "Authorization failed"
    AUTHORIZATION_VOIDED = "authorization_voided", "Authorization voided"
    AUTHORIZATION_VOID_PENDING = "authorization_void_pending", "Authorization void pending"
    CAPTURE_SUCCEEDED = "capture_succeeded", "Capture succeeded"
    CAPTURE_PENDING = "capture_pending", "Capture pending"
    BUYER_APPROVAL_PENDING = "buyer_approval_pending", "Buyer approval pending"


# Statuses in which an operation is under way and the processor's answer is not recorded yet.
PENDING_STATUSES = (
    TransactionStatus.PROCESSING,
    TransactionStatus.CAPTURE_PENDING,
    TransactionStatus.AUTHORIZATION_VOID_PENDING,
)

# The `method` of a payment a card pays: a card (typed, stored, through a checkout session), or a digital wallet's.
WALLET_METHODS = ("applepay", "googlepay")
CARD_METHODS = ("card", *WALLET_METHODS)


def method_pays_by_card(method: str | None) -> bool:
    """Whether a card pays the method part: typed, stored, or a digital wallet's (its `method` names the wallet)."""
    return method in CARD_METHODS


def method_pays_with_method(method: str | None) -> bool:
    """Whether a payment method (a card, a PayPal account) pays part of it: not gift cards alone."""
    return method not in (None, "gift-card")


class RowChanged(Exception):
    """A save made on the condition that the row was unchanged (`Transaction.unchanged_since`) found it changed: nothing
    was written."""


class Transaction(TimestampedModel):
    """A payment: an amount collected from gift cards and/or one payment method, moving through the statuses."""

    Status = TransactionStatus
    Intent = PaymentIntent
    # The condition of the next save only (`transactions.services.authorization`): the row is written when its
    # `updated_at` is still this, else RowChanged. Every write sets `updated_at`, so the write itself makes the check a
    # lock and a read would have made before it, and holds the row from then on as the lock would.
    unchanged_since: datetime | None = None

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: every index below that leads with the account serves a lookup by it alone, and each
    # index more is written on every create and every change of status (docs/performance.md).
    merchant_account = models.ForeignKey(
        MerchantAccount, on_delete=models.PROTECT, related_name="transactions", db_index=False
    )
    # Not indexed alone either: `transaction_staff_page` (created_at, id) serves any range or order of it.
    created_at = models.DateTimeField(auto_now_add=True)
    amount = models.BigIntegerField(help_text="The total, gift cards included, in minor units.")
    currency = models.CharField(max_length=3)
    country = models.CharField(max_length=2, null=True, blank=True)
    intent = models.CharField(max_length=16, choices=PaymentIntent.choices, default=PaymentIntent.AUTHORIZE)
    status = models.CharField(max_length=32, choices=TransactionStatus.choices, default=TransactionStatus.PROCESSING)
    authorized_amount = models.BigIntegerField(default=0)
    captured_amount = models.BigIntegerField(default=0)
    # Includes refunds still being processed, so concurrent refunds can never exceed what was captured.
    refunded_amount = models.BigIntegerField(default=0)
    external_identifier = models.CharField(max_length=200, null=True, blank=True)
    metadata = JSONField(null=True, blank=True)
    # Order details, validated by the API's serializers (payments.shapes.order) and echoed as sent.
    cart_items = JSONField(null=True, blank=True)
    airline = JSONField(null=True, blank=True)
    shipping_details = JSONField(null=True, blank=True)

    # The buyer as it was when the transaction was made; the link is cut if the buyer is deleted.
    buyer = models.ForeignKey(
        "buyers.Buyer", null=True, blank=True, on_delete=models.SET_NULL, related_name="transactions"
    )
    buyer_external_identifier = models.CharField(max_length=200, null=True, blank=True)
    buyer_details = JSONField(null=True, blank=True)
    # The buyer's email address lower-cased, for the list's filters (the display copy is in buyer_details).
    buyer_email_address = models.CharField(max_length=320, null=True, blank=True)
    # The address of the buyer's browser when it created the transaction itself (an embed token); a merchant's
    # server is not the buyer, so its calls leave this empty.
    ip_address = models.GenericIPAddressField(null=True, blank=True)

    # The payment method, shown masked: never the number or the security code. The sealed card stays in the
    # vault until it expires; the display copy here outlives it.
    method = models.CharField(max_length=32, null=True, blank=True)
    vaulted_card = models.ForeignKey(
        "payments.VaultedCard", null=True, blank=True, on_delete=models.SET_NULL, related_name="transactions"
    )
    card_scheme = models.CharField(max_length=32, null=True, blank=True)
    card_bin = models.CharField(max_length=6, null=True, blank=True)
    card_last4 = models.CharField(max_length=4, null=True, blank=True)
    card_expiration_date = models.CharField(max_length=5, null=True, blank=True)
    card_fingerprint = models.CharField(max_length=64, null=True, blank=True)
    # What the BIN table said of the card (the vaulted card's facts, copied: the card row is purged, these stay).
    card_type = models.CharField(max_length=16, null=True, blank=True)
    card_country = models.CharField(max_length=2, null=True, blank=True)
    card_issuer_name = models.CharField(max_length=200, null=True, blank=True)
    # A digital wallet's token pays once: the keyed digest of its wallet and transaction id
    # (`payments.wallettokens.replay_digest`), unique, written with the row, so a second use is refused however two
    # requests race. Never the token.
    wallet_replay_digest = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)
    checkout_session_id = models.UUIDField(null=True, blank=True)
    # The payment link this transaction pays (by id alone: links sit above transactions and are found from here).
    payment_link_id = models.UUIDField(null=True, blank=True)
    # The stored payment method that paid, or that `store: true` made; the link is cut if the method is deleted.
    payment_method = models.ForeignKey(
        "paymentmethods.PaymentMethod", null=True, blank=True, on_delete=models.SET_NULL, related_name="transactions"
    )

    # The processor's answer to the authorization.
    # The payment service asked for the card part: while `processing`, the one being asked (recorded before each
    # attempt, so recovery asks the right processor); afterwards the one that answered, whose connector captures,
    # voids and refunds. None for gift cards alone. RESTRICT: a service is only ever soft-deleted, except with its
    # merchant account (and so with these transactions).
    payment_service = models.ForeignKey(
        "paymentservices.PaymentService",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="transactions",
    )
    payment_service_transaction_id = models.CharField(max_length=255, null=True, blank=True)
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_description = models.CharField(max_length=255, null=True, blank=True)
    cvv_response_code = models.CharField("CVV response code", max_length=32, null=True, blank=True)
    # What the processor told beyond its own codes, as it gave them (`ConnectorResult`).
    auth_response_code = models.CharField(max_length=64, null=True, blank=True)
    avs_response_code = models.CharField("AVS response code", max_length=32, null=True, blank=True)
    scheme_transaction_id = models.CharField("scheme transaction ID", max_length=100, null=True, blank=True)
    merchant_advice_code = models.CharField(max_length=64, null=True, blank=True)
    iso_response_code = models.CharField("ISO response code", max_length=64, null=True, blank=True)
    approval_expires_at = models.DateTimeField(null=True, blank=True)
    # How the buyer's account at the processor is shown (PayPal's payer email, masked): the payment method's label.
    payer_label = models.CharField(max_length=320, null=True, blank=True)
    # When a buyer's approval (a 3-D Secure challenge) was given up for lost, unanswered at `approval_expires_at`.
    buyer_approval_timedout_at = models.DateTimeField(null=True, blank=True)

    # What the client declared about the payment: stored, echoed and passed to the connector with the
    # authorization (payments.connectors.AuthorizationRequest), which decides what they change.
    payment_source = models.CharField(max_length=16, choices=PaymentSource.choices, default=PaymentSource.ECOMMERCE)
    merchant_initiated = models.BooleanField(default=False)
    is_subsequent_payment = models.BooleanField(default=False)
    account_funding_transaction = models.BooleanField(default=False)
    allow_partial_authorization = models.BooleanField(default=False)
    previous_scheme_transaction_id = models.CharField(max_length=100, null=True, blank=True)
    previous_transaction_link_id = models.CharField(max_length=100, null=True, blank=True)
    description = models.TextField(null=True, blank=True)
    statement_descriptor = JSONField(null=True, blank=True)
    browser_info = JSONField(null=True, blank=True)
    connection_options = JSONField(null=True, blank=True)
    installment_count = models.PositiveSmallIntegerField(null=True, blank=True)
    recipient = JSONField(null=True, blank=True)
    # The 3-D Secure result the client sent and what the connector made of it (upstream's summary shape).
    three_d_secure = JSONField(null=True, blank=True)
    # Purchase (level 2/3) data.
    tax_amount = models.BigIntegerField(null=True, blank=True)
    duty_amount = models.BigIntegerField(null=True, blank=True)
    shipping_amount = models.BigIntegerField(null=True, blank=True)
    amount_includes_tax = models.BooleanField(null=True, blank=True)
    merchant_tax_id = models.CharField(max_length=100, null=True, blank=True)
    purchase_order_number = models.CharField(max_length=100, null=True, blank=True)
    customer_reference_number = models.CharField(max_length=100, null=True, blank=True)
    supplier_order_number = models.CharField(max_length=100, null=True, blank=True)

    authorized_at = models.DateTimeField(null=True, blank=True)
    # While an increment of the authorization is asked of the processor (set under the row lock before it is
    # asked, cleared with its answer): captures and voids wait for it (`transactions.services.increments`).
    increment_pending_since = models.DateTimeField(null=True, blank=True)
    captured_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    canceled_at = models.DateTimeField(null=True, blank=True)
    # What the processor paid out for it, net of its fees, as its settlement records say (the `settlements` app's
    # ledger, through `transactions.services.settlement`): never computed from our own amounts.
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_amount = models.BigIntegerField(default=0)
    settled_currency = models.CharField(max_length=3, null=True, blank=True)

    class Meta:
        permissions = [("operate_transaction", "Can capture, void and refund transactions")]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0, authorized_amount__gte=0, captured_amount__gte=0, refunded_amount__gte=0),
                name="transaction_amounts_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(authorized_amount__lte=F("amount")), name="transaction_authorized_within_amount"
            ),
            models.CheckConstraint(
                condition=Q(captured_amount__lte=F("authorized_amount")), name="transaction_captured_within_authorized"
            ),
            models.CheckConstraint(
                condition=Q(refunded_amount__lte=F("captured_amount")), name="transaction_refunded_within_captured"
            ),
            models.CheckConstraint(condition=Q(status__in=TransactionStatus.values), name="transaction_status_valid"),
        ]
        indexes = [
            models.Index(fields=["merchant_account", "-created_at", "-id"], name="transaction_page"),
            models.Index(fields=["merchant_account", "external_identifier"], name="transaction_external_id"),
            models.Index(fields=["merchant_account", "buyer_external_identifier"], name="transaction_buyer_ext_id"),
            models.Index(fields=["merchant_account", "checkout_session_id"], name="transaction_checkout_session"),
            models.Index(
                fields=["merchant_account", "payment_link_id", "-created_at", "-id"], name="transaction_payment_link"
            ),
            # Equality filters of the list, each followed by the page order: a filtered page stays a range scan.
            models.Index(
                fields=["merchant_account", "ip_address", "-created_at", "-id"], name="transaction_ip_address"
            ),
            models.Index(
                fields=["merchant_account", "payment_service_transaction_id", "-created_at", "-id"],
                name="transaction_processor_id",
            ),
            models.Index(
                fields=["merchant_account", "card_fingerprint", "-created_at", "-id"], name="transaction_card_print"
            ),
            models.Index(
                fields=["merchant_account", "payment_method", "-created_at", "-id"], name="transaction_payment_method"
            ),
            # `updated_at_gte`/`_lte`: a window of last changes, found without walking the page order.
            models.Index(fields=["merchant_account", "updated_at"], name="transaction_updated"),
            # `payment_method_scheme` and `country`: a rare value is a short range scan in the page order.
            models.Index(
                fields=["merchant_account", "card_scheme", "-created_at", "-id"], name="transaction_card_scheme"
            ),
            models.Index(fields=["merchant_account", "country", "-created_at", "-id"], name="transaction_country"),
            # (`metadata` containment has a GIN index on PostgreSQL: migration 0012.)
            # The admin's searches and filters across accounts (docs/admin.md), each followed by the list's order.
            models.Index(fields=["card_last4", "-created_at", "-id"], name="transaction_staff_last4"),
            # Also the list's `buyer_email_address` filter: an address is so selective that the account is checked on
            # the few rows it finds, so one index serves the API and the admin.
            models.Index(fields=["buyer_email_address", "-created_at", "-id"], name="transaction_staff_email"),
            models.Index(fields=["external_identifier"], name="transaction_staff_external_id"),
            models.Index(fields=["amount", "-created_at", "-id"], name="transaction_staff_amount"),
            models.Index(fields=["status", "-created_at", "-id"], name="transaction_staff_status"),
            models.Index(fields=["error_code", "-created_at", "-id"], name="transaction_staff_error_code"),
            models.Index(fields=["currency", "-created_at", "-id"], name="transaction_staff_currency"),
            models.Index(fields=["-created_at", "-id"], name="transaction_staff_page"),
            # Recovery looks for the few pending transactions among all: a partial index holds only them.
            models.Index(fields=["updated_at"], name="transaction_pending", condition=Q(status__in=PENDING_STATUSES)),
            # ... and the few increments under way, which leave the status as it was.
            models.Index(
                fields=["increment_pending_since"],
                name="transaction_increment_pending",
                condition=Q(increment_pending_since__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{format_money(self.amount, self.currency)} ({self.status})"

    # Django's hook for the UPDATE of a save: its other arguments and its answer are passed through unchanged.
    def _do_update(self, base_qs: Any, *args: Any) -> Any:
        since, self.unchanged_since = self.unchanged_since, None
        if since is None:
            return super()._do_update(base_qs, *args)
        updated = super()._do_update(base_qs.filter(updated_at=since), *args)
        if not updated:
            raise RowChanged(f"Transaction {self.pk} changed since it was read.")
        return updated

    @property
    def pays_by_card(self) -> bool:
        return method_pays_by_card(self.method)

    @property
    def pays_with_method(self) -> bool:
        return method_pays_with_method(self.method)

    @property
    def reconciliation_id(self) -> str:
        return base62(self.id)

    @property
    def settled(self) -> bool:
        """The processor's settlement records name it (`settled_amount` is what they paid, net of fees)."""
        return self.settled_at is not None


class ChallengeState(models.TextChoices):
    PENDING = "pending"  # made, the page not opened yet
    OPENED = "opened"  # the page was shown once; it waits for its form
    COMPLETED = "completed"
    EXPIRED = "expired"
    CANCELED = "canceled"


class ThreeDSecureChallenge(TimestampedModel):
    """A 3-D Secure challenge a `buyer_approval_pending` transaction waits for: the page the buyer is sent to, how
    the sandbox issuer will end it, and where the buyer goes afterwards.

    The page's token and its form's token are secrets: they are found by their keyed digests (`crypto.keyed_hash`);
    the page's token is also kept sealed with the card vault's keys, so reads answer `approval_url` while it waits.
    """

    State = ChallengeState

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    transaction = models.OneToOneField(Transaction, on_delete=models.CASCADE, related_name="three_ds_challenge")
    token_digest = models.CharField(max_length=64, unique=True)
    # The page's token sealed with the vault's keys (`transactions.services.approval_tokens`), bound to this row;
    # `key_id` names the key, so `rotate_card_keys` finds what to re-seal. Emptied by rotation once it ended.
    sealed_token = models.TextField(blank=True, default="")
    key_id = models.CharField(max_length=32, blank=True, default="")
    form_token_digest = models.CharField(max_length=64, null=True, blank=True)
    state = models.CharField(max_length=16, choices=ChallengeState.choices, default=ChallengeState.PENDING)
    redirect_url = models.URLField(max_length=2048)
    # What the sandbox issuer decided: the 3DS version, and how the challenge ends (`Y`, `N` or `timeout`).
    version = models.CharField(max_length=16)
    result = models.CharField(max_length=8)
    # The processor runs this authentication itself (Stripe's `requires_action`): the page runs its script, and what
    # the processor then holds for the payment (`payment_service_transaction_id`) decides; version and result stay
    # empty.
    processor = models.BooleanField(default=False)
    # The buyer approves the payment on the processor's own page (PayPal's approve link): it is the transaction's
    # `approval_url`, and the buyer comes back to this server's return page (`transactions.services.redirects`).
    approval_link = models.URLField(max_length=2048, blank=True, default="")
    # `store: true`: the card is kept for the buyer once the authorization after the challenge succeeds.
    store_card = models.BooleanField(default=False)
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = "3-D Secure challenge"
        # The expiry job looks for the few challenges still waiting among all.
        indexes = [
            models.Index(
                fields=["expires_at"],
                name="three_ds_challenge_waiting",
                condition=Q(state__in=["pending", "opened"]),
            )
        ]

    def __str__(self) -> str:
        return f"3-D Secure challenge ({self.state})"

    @property
    def waiting(self) -> bool:
        return self.state in (ChallengeState.PENDING, ChallengeState.OPENED)


class RedemptionStatus(models.TextChoices):
    CREATED = "created"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"


class GiftCardRedemption(models.Model):
    """The part of a transaction paid by one gift card: debited from its ledger, credited back by refunds."""

    Status = RedemptionStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    transaction = models.ForeignKey(Transaction, on_delete=models.CASCADE, related_name="gift_card_redemptions")
    issued_card = models.ForeignKey(
        "giftcards.IssuedGiftCard", on_delete=models.PROTECT, related_name="transaction_redemptions"
    )
    # The stored gift card the client named (`{id, amount}`), if it named one.
    gift_card_id = models.UUIDField(null=True, blank=True)
    bin = models.CharField(max_length=8)
    sub_bin = models.CharField(max_length=8)
    last4 = models.CharField(max_length=4)
    amount = models.BigIntegerField()
    # Money given back to the card: by refunds, or all of it when the transaction is voided or declined.
    refunded_amount = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=RedemptionStatus.choices, default=RedemptionStatus.CREATED)
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_error_message = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gt=0, refunded_amount__gte=0, refunded_amount__lte=F("amount")),
                name="redemption_refunds_within_amount",
            ),
        ]
        # The list's `gift_card_id` and `gift_card_last4` filters look redemptions up by these.
        indexes = [
            models.Index(fields=["gift_card_id"], name="redemption_gift_card"),
            models.Index(fields=["last4"], name="redemption_last4"),
        ]

    def __str__(self) -> str:
        return f"Gift card ending {self.last4}: {self.amount}"

    @property
    def refundable_amount(self) -> int:
        return self.amount - self.refunded_amount


class RefundStatus(models.TextChoices):
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    DECLINED = "declined"
    VOIDED = "voided"


class RefundTargetType(models.TextChoices):
    PAYMENT_METHOD = "payment-method", "Payment method"
    GIFT_CARD_REDEMPTION = "gift-card-redemption", "Gift card redemption"


# Upstream answers a transaction's refunds whole, in one page of at most 100 (its `limit`'s maximum): so a
# transaction takes at most this many refund attempts (declined and failed ones included, as they are listed).
MAX_REFUNDS_PER_TRANSACTION = 100


class Refund(TimestampedModel):
    """Money returned to the payment method or to one gift card of a captured transaction."""

    Status = RefundStatus
    TargetType = RefundTargetType

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="refunds")
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="refunds", db_index=False)
    target_type = models.CharField(max_length=32, choices=RefundTargetType.choices)
    redemption = models.ForeignKey(
        GiftCardRedemption, null=True, blank=True, on_delete=models.PROTECT, related_name="refunds"
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, choices=RefundStatus.choices, default=RefundStatus.PROCESSING)
    reason = models.CharField(max_length=255, null=True, blank=True)
    external_identifier = models.CharField(max_length=300, null=True, blank=True)
    payment_service_refund_id = models.CharField("processor's refund ID", max_length=255, null=True, blank=True)
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_description = models.CharField(max_length=255, null=True, blank=True)
    # What the processor took back for it, as its settlement records say (see Transaction.settled_amount).
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_amount = models.BigIntegerField(default=0)
    settled_currency = models.CharField(max_length=3, null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="refund_amount_positive"),
            models.CheckConstraint(
                condition=Q(target_type=RefundTargetType.PAYMENT_METHOD, redemption__isnull=True)
                | Q(target_type=RefundTargetType.GIFT_CARD_REDEMPTION, redemption__isnull=False),
                name="refund_target_matches_type",
            ),
        ]
        indexes = [
            models.Index(fields=["transaction", "-created_at", "-id"], name="refund_page"),
        ]

    def __str__(self) -> str:
        return f"Refund {format_money(self.amount, self.currency)} ({self.status})"

    @property
    def reconciliation_id(self) -> str:
        return base62(self.id)

    @property
    def settled(self) -> bool:
        """The processor's settlement records name it (`settled_amount` is what they paid, net of fees)."""
        return self.settled_at is not None

    @property
    def target_id(self):
        return self.redemption_id


class CaptureStatus(models.TextChoices):
    """Upstream's `CaptureStatus`: `pending` while the processor is being asked."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    DECLINED = "declined"
    FAILED = "failed"


# Upstream answers a transaction's captures whole, like its refunds: a transaction takes at most this many capture
# attempts (declined and failed ones included, as they are listed).
MAX_CAPTURES_PER_TRANSACTION = 100


class Capture(TimestampedModel):
    """One capture of a transaction's card authorization: asked through the API or the admin, made with the
    authorization (`intent: capture`), or made at the processor and told by its notification. `final: false` leaves
    the rest of the authorization open for later captures; the final one releases what it did not capture."""

    Status = CaptureStatus

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.PROTECT, related_name="captures")
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="captures", db_index=False)
    # 1 for the transaction's first capture, then 2, 3...: unique, so two captures can never both be the next one,
    # and the processor's reference of each is stable (`transactions.services.state.capture_reference`).
    sequence = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, choices=CaptureStatus.choices, default=CaptureStatus.PENDING)
    final = models.BooleanField(default=True)
    external_identifier = models.CharField(max_length=300, null=True, blank=True)
    payment_service_capture_id = models.CharField(max_length=255, null=True, blank=True)
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_description = models.CharField(max_length=255, null=True, blank=True)
    captured_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="capture_amount_positive"),
            models.UniqueConstraint(fields=["transaction", "sequence"], name="capture_sequence_unique"),
            models.CheckConstraint(condition=Q(status__in=CaptureStatus.values), name="capture_status_valid"),
        ]
        indexes = [models.Index(fields=["transaction", "-created_at", "-id"], name="capture_page")]

    def __str__(self) -> str:
        return f"Capture {format_money(self.amount, self.currency)} ({self.status})"


class TransactionEvent(models.Model):
    """One change of a transaction, for support: who or what did it, when, from which status to which, how much."""

    class ActorType(models.TextChoices):
        API_KEY = "api_key", "API key"
        ADMIN = "admin", "Admin user"
        SYSTEM = "system", "System"

    id = models.BigAutoField(primary_key=True)
    # Found through `transaction_event_history` (transaction, created_at), which leads with it.
    transaction = models.ForeignKey(Transaction, on_delete=models.CASCADE, related_name="events", db_index=False)
    name = models.CharField(max_length=64)
    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    # The API key's kid or the admin user's username; empty for the system.
    actor = models.CharField(max_length=150, blank=True)
    from_status = models.CharField(max_length=32, null=True, blank=True)
    to_status = models.CharField(max_length=32)
    amount = models.BigIntegerField(null=True, blank=True)
    details = JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["transaction", "created_at"], name="transaction_event_history")]

    def __str__(self) -> str:
        return f"{self.name}: {self.from_status or '-'} -> {self.to_status}"


class TransactionDayTotal(models.Model):
    """How many transactions one merchant account made on one whole UTC day (by creation time) in one currency,
    status and decline reason, and their amount: the start page's trends read these instead of a month of rows.

    Recomputed from the transactions, never added to (`transactions.services.day_totals`), so a recompute after
    any change of a day's transactions leaves it equal to them."""

    id = models.BigAutoField(primary_key=True)
    day = models.DateField()
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="+")
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=32, choices=TransactionStatus.choices)
    error_code = models.CharField(max_length=64, blank=True)  # "" when the transaction has none
    approved = models.BooleanField()  # authorized at some point (`authorized_at` set), whatever happened after
    count = models.PositiveIntegerField()
    amount = models.BigIntegerField()  # the transactions' `amount`, minor units of `currency`

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "merchant_account", "currency", "status", "error_code", "approved"],
                name="transaction_day_total_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.currency} {self.status}: {self.count}"


class TransactionDayRollup(models.Model):
    """A UTC day whose `TransactionDayTotal` rows were computed, and when: a day without one is read from the
    transactions themselves, so a day never counted reads as what happened, not as nothing."""

    day = models.DateField(primary_key=True)
    computed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.day} as of {self.computed_at:%Y-%m-%d %H:%M} UTC"
