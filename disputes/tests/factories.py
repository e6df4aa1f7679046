from datetime import UTC, datetime, timedelta

import factory
from factory.django import DjangoModelFactory

from disputes.models import Dispute
from payments.choices import DisputeState
from paymentservices.processors.seam import NotifiedDispute
from transactions.tests.factories import TransactionFactory

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def fact(
    state: str | None = DisputeState.NEEDS_RESPONSE,
    *,
    minutes: int = 0,
    dispute_id: str = "dp_1",
    amount: int = 1299,
    currency: str = "USD",
    reason: str | None = "fraudulent",
    due_at: datetime | None = T0 + timedelta(days=7),
) -> NotifiedDispute:
    """A processor's fact about a dispute, `minutes` after T0 by the processor's clock."""
    return NotifiedDispute(
        id=dispute_id,
        state=state,
        reason=reason,
        amount=amount,
        currency=currency,
        due_at=due_at,
        occurred_at=T0 + timedelta(minutes=minutes),
    )


class DisputeFactory(DjangoModelFactory[Dispute]):
    """A dispute of a captured transaction, as `dispute_apply` leaves it."""

    class Meta:
        model = Dispute

    transaction = factory.SubFactory(TransactionFactory, captured=True)
    merchant_account = factory.SelfAttribute("transaction.merchant_account")
    payment_service = factory.SelfAttribute("transaction.payment_service")
    processor_dispute_id = factory.Sequence(lambda n: f"dp_{n}")
    state = DisputeState.NEEDS_RESPONSE
    reason = "fraudulent"
    amount = factory.SelfAttribute("transaction.captured_amount")
    currency = factory.SelfAttribute("transaction.currency")
    due_at = T0 + timedelta(days=7)
    fact_at = T0
