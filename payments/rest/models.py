"""The table of request plumbing: idempotency keys and the answers they replay."""

from django.db import models

from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField


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

    # Found through `idempotency_unique_key` (merchant_account, key), which leads with it.
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="+", db_index=False)
    key = models.CharField(max_length=255)
    # Keyed digest (HMAC) of method, path, `Prefer` and canonical body: the same key may only replay the same
    # request. Keyed because the body may hold card data (payments.rest.idempotency.request_fingerprint).
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_PROGRESS)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rendered JSON exactly as first sent, so a replay is byte for byte the same answer.
    response_body = models.TextField(null=True, blank=True)
    response_headers = JSONField(default=dict, blank=True)
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
