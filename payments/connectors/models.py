"""The sandbox processor's own record of what it decided."""

from django.db import models


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
        INCREMENT = "increment"
        PAYOUT = "payout"

    # The caller's reference (our transaction, refund or payout id, `<id>:capture`, `<id>:void`): what lookups name.
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
