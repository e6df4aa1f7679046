"""Disputes: a buyer's challenge of a payment at the bank, as its processor's notifications tell it.

One row per dispute the processor names (its id, unique per payment service), kept at the state the latest of the
processor's facts says (`disputes.services.dispute_apply`). Only the services write these rows.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from payments.accounts.models import MerchantAccount
from payments.choices import DisputeState, EvidenceKind
from payments.timestamped import TimestampedModel

STATE_CHOICES = [(state, state.replace("_", " ").capitalize()) for state in DisputeState.ALL]
# What orders facts that tell the same time: the further along a dispute, the higher.
STATE_RANK = {state: rank for rank, state in enumerate(DisputeState.ALL)}


class Dispute(TimestampedModel):
    """One dispute of a transaction at its processor: its state, reason, amount, currency and the date its answer is
    due, as the processor's latest fact says (`fact_at`: that fact's time, by the processor's clock)."""

    id = models.UUIDField("ID", primary_key=True, default=uuid.uuid4, editable=False)
    merchant_account = models.ForeignKey(MerchantAccount, on_delete=models.CASCADE, related_name="disputes")
    # `transactions` reads a transaction's disputes by this relation's name (`transactions.disputes`).
    transaction = models.ForeignKey("transactions.Transaction", on_delete=models.PROTECT, related_name="disputes")
    payment_service = models.ForeignKey(
        "paymentservices.PaymentService", on_delete=models.PROTECT, related_name="+", db_index=False
    )
    processor_dispute_id = models.CharField(
        "processor's dispute ID", max_length=255, help_text="The processor's id of the dispute."
    )
    state = models.CharField(max_length=16, choices=STATE_CHOICES)
    reason = models.CharField(max_length=255, null=True, blank=True, help_text="The processor's reason code.")
    amount = models.BigIntegerField(help_text="The disputed amount, in minor units.")
    currency = models.CharField(max_length=3)
    due_at = models.DateTimeField(null=True, blank=True, help_text="When the answer is due at the processor.")
    fact_at = models.DateTimeField(help_text="When the fact that set the state happened (the processor's clock).")
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["payment_service", "processor_dispute_id"], name="dispute_processor_id"),
            models.CheckConstraint(condition=Q(state__in=DisputeState.ALL), name="dispute_state_known"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="dispute_amount_not_negative"),
        ]
        # Who may answer a dispute at its processor from the desk (the Payments operator role).
        permissions = [("answer_dispute", "Can answer a dispute at its processor")]
        indexes = [
            # The desk's queue: open disputes, the soonest due first.
            models.Index(fields=["due_at"], condition=Q(state__in=DisputeState.OPEN), name="dispute_open_due"),
        ]

    def __str__(self) -> str:
        return f"Dispute {self.processor_dispute_id} ({self.get_state_display().lower()})"

    @property
    def open(self) -> bool:
        return self.state in DisputeState.OPEN

    @property
    def answer(self) -> DisputeAnswer | None:
        """The answer the processor took, if any (read from a prefetch when there is one)."""
        return next(iter(self.answers.all()), None)


class DisputeAnswer(TimestampedModel):
    """An answer a processor took for a dispute: accepted, or defended with evidence (the text and the documents
    sent, kept as sent), and what the processor said of it. Written only when the processor took it: an answer it
    refused, or one refused before it was sent, leaves nothing here (`disputes.services.dispute_answer`)."""

    class Action(models.TextChoices):
        ACCEPT = "accept", "Accept"
        DEFEND = "defend", "Defend"

    class Outcome(models.TextChoices):
        ACCEPTED = "accepted", "Accepted"
        UNDER_REVIEW = "under_review", "Under review"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    dispute = models.ForeignKey(Dispute, on_delete=models.PROTECT, related_name="answers")
    action = models.CharField(max_length=8, choices=Action.choices)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, help_text="What the processor answered.")
    text = models.TextField(blank=True, help_text="The words sent in defence (empty for an acceptance).")
    reason = models.CharField(max_length=100, null=True, blank=True, help_text="The processor's code of the defence.")
    # Who answered, as the audit log names them: an API key or a staff user.
    answered_by = models.CharField(max_length=200)

    class Meta:
        constraints = [
            # One answer per dispute: a processor takes one (Stripe's `submit`, Adyen's accept or defence).
            models.UniqueConstraint(fields=["dispute"], name="dispute_answer_once"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} ({self.get_outcome_display()})"


class DisputeEvidenceFile(models.Model):
    """A document sent with a defence, kept as sent (its bytes and their SHA-256), so what the bank saw can be shown."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    answer = models.ForeignKey(DisputeAnswer, on_delete=models.CASCADE, related_name="files", db_index=False)
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    kind = models.CharField(
        max_length=16, choices=EvidenceKind.choices, default=EvidenceKind.OTHER, help_text="What the document shows."
    )
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    content = models.BinaryField()

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["answer", "position"], name="dispute_evidence_file_position")]

    def __str__(self) -> str:
        return self.name
