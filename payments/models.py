"""Merchant accounts and the API keys that authenticate their tokens."""

import uuid

from django.db import models


class TimestampedModel(models.Model):
    """Creation and update times shared by every resource; lists page on `(created_at, id)`."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class MerchantAccount(models.Model):
    """A merchant's tenant: every resource belongs to exactly one."""

    id = models.SlugField(primary_key=True, max_length=255)
    display_name = models.CharField(max_length=255)
    # Browser origins (scheme://host[:port]) allowed to call the API from a page and to frame Secure Fields.
    allowed_origins = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.id


class ApiKey(models.Model):
    """The public half of a merchant's signing key; the private half never reaches the server."""

    class Algorithm(models.TextChoices):
        ES512 = "ES512", "ES512 (EC P-521)"
        RS512 = "RS512", "RS512 (RSA)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kid = models.CharField(max_length=64, unique=True, help_text="RFC 7638 SHA-256 thumbprint of the public key.")
    # Null means the key may act for every merchant account.
    merchant_account = models.ForeignKey(
        MerchantAccount, null=True, blank=True, on_delete=models.CASCADE, related_name="api_keys"
    )
    algorithm = models.CharField(max_length=8, choices=Algorithm.choices, default=Algorithm.ES512)
    public_key = models.TextField(help_text="PEM encoded public key.")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.kid

    def can_act_for(self, merchant_account_id: str) -> bool:
        return self.merchant_account_id is None or self.merchant_account_id == merchant_account_id


class IdempotencyRecord(models.Model):
    """The first answer to a request sent with an `Idempotency-Key`, replayed to retries until it expires.

    The row is inserted, and committed, before the request runs: the unique (merchant account, key) pair
    is the lock that keeps two processes from both running the same request. The lock is a lease
    (`locked_until`): a request whose process died never finishes its row, so once the lease is over a retry
    takes the row over (`attempts` counts them) and resumes the request. `reserved_id` is the id the request
    gives what it creates, reserved before it writes anything, so the retry finds what the dead attempt made.
    """

    class State(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        COMPLETED = "completed", "Completed"

    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    # Keyed digest (HMAC) of method, path, `Prefer` and canonical body: the same key may only replay the same
    # request. Keyed because the body may hold card data (payments.rest.idempotency.request_fingerprint).
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_PROGRESS)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rendered JSON exactly as first sent, so a replay is byte for byte the same answer.
    response_body = models.TextField(null=True, blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    # Until when the request running under this key holds it (IDEMPOTENCY_KEY_LEASE_SECONDS after each attempt).
    locked_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=1)
    reserved_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["merchant_account", "key"], name="idempotency_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.merchant_account_id}:{self.key}"


class RateLimitEvent(models.Model):
    """A subject refused by an enumeration limit, written once per subject, endpoint and window.

    For support staff: who was limited, where and when. The limit that refused names the kind of subject and
    what may be shown of it (`subject_label`, never a secret); `subject_key` (a keyed hash of the counter key,
    payments.ratelimits.records) keeps one row per window.
    """

    subject_kind = models.CharField(max_length=32, help_text="What the limit counts, as the limit names it.")
    subject_key = models.CharField(max_length=64, editable=False)
    subject_label = models.CharField(max_length=255, blank=True, help_text="What support may see of the subject.")
    merchant_account = models.ForeignKey(
        MerchantAccount, null=True, blank=True, on_delete=models.CASCADE, related_name="rate_limit_events"
    )
    endpoint = models.CharField(max_length=255)
    rate = models.CharField(max_length=32, help_text="The limit in force, e.g. 50/m.")
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subject_kind", "subject_key", "endpoint", "window_start"], name="rate_limit_event_once"
            ),
        ]
        indexes = [models.Index(fields=["merchant_account", "-created_at"], name="rate_limit_event_account")]

    def __str__(self) -> str:
        return f"{self.subject_kind} {self.subject_label} on {self.endpoint}"


class VaultedCard(models.Model):
    """A card number, and briefly its security code, sealed by `payments.vault.crypto`; only display data is in clear.

    Resources that take card data point at a row here instead of holding it themselves. Every
    row expires (`expires_at`), and its security code sooner (`security_code_expires_at`); `purge_expired`
    deletes what is past due and reads treat it as gone already.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="vaulted_cards")
    # `payments.vault.crypto` tokens bound to this row and field: `v1.<key id>.<nonce>.<ciphertext>`.
    encrypted_number = models.TextField(editable=False)
    encrypted_security_code = models.TextField(null=True, blank=True, editable=False)
    # The key both tokens are sealed with, so rotation finds stale rows with an index instead of a scan.
    key_id = models.CharField(max_length=32, db_index=True, editable=False)
    fingerprint = models.CharField(max_length=64, db_index=True, help_text="Keyed hash of the number.")
    scheme = models.CharField(max_length=32, null=True, blank=True)
    bin = models.CharField(max_length=8)
    last4 = models.CharField(max_length=4)
    expiration_month = models.PositiveSmallIntegerField()
    expiration_year = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)
    security_code_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expiration_month__gte=1, expiration_month__lte=12),
                name="vaulted_card_expiration_month",
            ),
            # A security code never sits in the vault without the deadline that removes it.
            models.CheckConstraint(
                condition=models.Q(encrypted_security_code__isnull=True, security_code_expires_at__isnull=True)
                | models.Q(encrypted_security_code__isnull=False, security_code_expires_at__isnull=False),
                name="vaulted_card_security_code_deadline",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scheme or 'card'} {self.bin}…{self.last4}"

    @property
    def expiration_date(self) -> str:
        """`MM/YY`, as upstream shows a card's expiry."""
        return f"{self.expiration_month:02d}/{self.expiration_year % 100:02d}"


class OutboxEvent(models.Model):
    """A change a merchant may be told about, written in the same database transaction as the change itself.

    Resource services publish these through `payments.outbox`; consumers (webhook deliveries) read them after
    the commit, so a crash between the commit and any sending loses nothing. The row names its target by type
    and id only: this app knows no resource, and the resource app that registered the type renders it.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="outbox_events")
    name = models.CharField(max_length=64, help_text="What happened, e.g. transaction.captured.")
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set once the consumers have taken the event (deliveries created); the sweep finds the rest.
    dispatched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "outbox event"
        indexes = [
            models.Index(fields=["created_at"], name="outbox_event_created"),
            # The admin's transaction timeline and the delivery search find a resource's events by its id.
            models.Index(fields=["target_id"], name="outbox_event_target"),
            models.Index(
                fields=["created_at"], name="outbox_event_undispatched", condition=models.Q(dispatched_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.target_type} {self.target_id}"


class ScheduledRun(models.Model):
    """One run of a scheduled job, claimed by whichever worker's clock fires first: the unique (job, slot) pair
    lets every worker on every host run the same schedule while each slot's job is enqueued once."""

    job = models.CharField(max_length=64)
    slot = models.BigIntegerField(help_text="The run's scheduled time, in whole intervals since the epoch.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "slot"], name="scheduled_run_once")]

    def __str__(self) -> str:
        return f"{self.job} #{self.slot}"


class SandboxOperation(models.Model):
    """What the sandbox processor decided for one operation, under the caller's reference.

    A processor keeps its own record of every authorization it decides, whatever becomes of the caller; the
    sandbox does the same here, committed the moment it decides. A caller that died before recording the
    answer asks again by its reference (`PaymentConnector.lookup`), and a crash before the decision (no row)
    is told apart from one after it (a row).
    """

    class Operation(models.TextChoices):
        AUTHORIZATION = "authorization"
        CAPTURE = "capture"
        VOID = "void"
        REFUND = "refund"

    # The caller's reference (our transaction or refund id, `<id>:capture`, `<id>:void`): what lookups name.
    reference = models.CharField(primary_key=True, max_length=255)
    operation = models.CharField(max_length=16, choices=Operation.choices)
    outcome = models.CharField(max_length=16)
    processor_reference = models.CharField(max_length=255)
    error_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_code = models.CharField(max_length=64, null=True, blank=True)
    raw_response_description = models.CharField(max_length=255, null=True, blank=True)
    cvv_response_code = models.CharField(max_length=32, null=True, blank=True)
    amount = models.BigIntegerField(null=True, blank=True)
    currency = models.CharField(max_length=3, null=True, blank=True)
    decided_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.operation} {self.reference}: {self.outcome}"


class AuditLogEntry(TimestampedModel):
    """Who changed what and when: one row per API write or staff action, written in the change's transaction.

    Rows are never updated; `created_at` is the time of the action. The actor and resource are copied, not
    referenced, so an entry outlives the key, user or object it names. `resource_name` is a display name or the
    resource type, never card data or a secret.
    """

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        DELETED = "deleted"
        VOIDED = "voided"
        CANCELED = "canceled"
        CAPTURED = "captured"
        # Not upstream's: an admin sign-in locked after too many failures. Never served (no merchant account).
        LOCKED_OUT = "locked-out"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Null for a staff action on something of no merchant account (a staff user, a role): admin only.
    merchant_account = models.ForeignKey(
        MerchantAccount, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    resource_type = models.CharField(max_length=64)
    resource_id = models.CharField(max_length=64)
    resource_name = models.CharField(max_length=200)
    user_id = models.UUIDField(null=True, blank=True)
    user_name = models.CharField(max_length=200)
    user_email = models.CharField(max_length=254, null=True, blank=True)
    user_is_staff = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "audit log entries"
        indexes = [models.Index(fields=["merchant_account", "-created_at", "-id"], name="audit_account_created")]

    def __str__(self) -> str:
        return f"{self.user_name} {self.action} {self.resource_type} {self.resource_id}"
