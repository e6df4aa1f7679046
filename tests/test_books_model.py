"""The books of a few payments as a state machine (docs/reconciliation.md, "The books, as a model").

Hypothesis drives payments through the services the API and the desk share: captures (whole, partial, several with
`final: false`), voids, refunds (partial, whole, refunds/all), disputes whose facts arrive in any order, twice, late
or in another currency (`dispute_apply`), and the sandbox's settlement of each closed day. A small model beside them
says what a correct server does; after every step the server's books must agree with it and with themselves:
captured <= authorized, refunded <= captured, refunded + what lost or accepted disputes took back + what open
disputes hold <= captured, each total equal to the records it sums, nothing negative, and each capture settled as
its own line at what was captured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import TypeVar

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from disputes.services import dispute_apply
from payments.accounts.models import MerchantAccount
from payments.choices import DisputeState
from payments.connectors.models import SandboxOperation
from payments.errors import Conflict, DomainError
from paymentservices.processors.seam import NotifiedDispute
from settlements.models import EntryKind, FileStatus, LedgerEntry, SettlementReportFile
from settlements.services import Outcome
from settlements.sources.sandbox import settlements_sandbox_ingest
from transactions.disputes import transaction_taken_back
from transactions.models import CaptureStatus, RefundStatus, RefundTargetType, Transaction
from transactions.requests import CardRequest, TransactionRequest
from transactions.services.actions import transaction_capture, transaction_void
from transactions.services.create import transaction_create
from transactions.services.refunds import refund_all, refund_create
from transactions.services.state import Actor

pytestmark = pytest.mark.django_db

# Modest on purpose: CI runs the suite twice on two cores. A profile of its own (never loaded for the whole suite), so
# `settings.get_profile("books-model")` names the numbers wherever they are needed.
settings.register_profile(
    "books-model",
    max_examples=20,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
BOOKS_SETTINGS = settings.get_profile("books-model")
ACTOR = Actor.api_key("books-model")
CURRENCY = "USD"
FOREIGN_CURRENCY = "JPY"
FIRST_DAY = date(2026, 1, 5)  # the sandbox's days are the model's own, so each settles when the model says
S = DisputeState
AMOUNTS = st.integers(min_value=1, max_value=3000)
T = TypeVar("T")


# --- the model -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """One thing the processor says about a dispute. A fact without a state (Adyen's defence period that ended) is
    made stale here: dated before every other fact of its dispute and naming a smaller amount."""

    state: str | None
    at: datetime
    amount: int
    currency: str = CURRENCY

    @property
    def rank(self) -> tuple[datetime, int]:
        return (self.at, DisputeState.ALL.index(self.state) if self.state else -1)


@dataclass
class DisputeBook:
    """What the processor knows of one dispute (its facts) and what of it reached the server."""

    id: str
    facts: list[Fact]
    delivered: list[Fact] = field(default_factory=list)

    def expected(self) -> tuple[str, int]:
        """Where a correct server keeps the dispute: at the latest of the delivered facts with a state (a stale fact
        without one only opens the dispute for an answer when it comes first, and changes nothing after)."""
        with_state = [fact for fact in self.delivered if fact.state is not None]
        if not with_state:
            return S.NEEDS_RESPONSE, self.delivered[0].amount
        latest = max(with_state, key=lambda fact: fact.rank)
        return str(latest.state), latest.amount


@dataclass
class PaymentBook:
    """One payment as a correct server books it."""

    pk: str
    authorized: int
    status: str
    captures: list[int] = field(default_factory=list)
    open_for_captures: bool = False
    refunded: int = 0
    disputes: dict[str, DisputeBook] = field(default_factory=dict)
    settled_captures: list[int] = field(default_factory=list)
    settled_refunds: int = 0
    unsettled_refunds: int = 0

    @property
    def captured(self) -> int:
        return sum(self.captures)

    def _states(self) -> list[tuple[str, int]]:
        return [dispute.expected() for dispute in self.disputes.values()]

    @property
    def taken_back(self) -> int:
        return sum(amount for state, amount in self._states() if state in S.TAKEN_BACK)

    @property
    def held(self) -> int:
        return sum(amount for state, amount in self._states() if state in S.OPEN)

    @property
    def refundable(self) -> int:
        return self.captured - self.refunded - self.taken_back - self.held

    def describe(self) -> str:
        return (
            f"captured {self.captured}, refunded {self.refunded}, held by open disputes {self.held}, "
            f"taken back {self.taken_back}"
        )

    @property
    def capturable(self) -> bool:
        return self.status == "authorization_succeeded" or self.open_for_captures


def _attempt(call: Callable[[], T]) -> T | DomainError:
    """The service's answer, or its refusal (a 4xx in the error envelope over HTTP)."""
    try:
        return call()
    except DomainError as refusal:
        return refusal


def _refused(answer: object, kind: type[DomainError], what: str, *, conflict: bool | None = None) -> None:
    """`answer` is a refusal of `kind` (and a 409 or not, when `conflict` says), and nothing was booked."""
    assert isinstance(answer, kind), f"{what} was taken"
    if conflict is not None:
        assert isinstance(answer, Conflict) == conflict, f"{what} refused with {answer.status}: {answer.message}"


def _taken(answer: T | DomainError) -> T:
    assert not isinstance(answer, DomainError), f"refused ({answer.status}): {answer.message}"
    return answer


def _sandbox_closes(day: date, *, settled: set[str]) -> list[str]:
    """What the sandbox decided since `settled` is dated `day`, and its report of the day is ingested whole."""
    fresh = list(SandboxOperation.objects.exclude(reference__in=sorted(settled)).values_list("reference", flat=True))
    SandboxOperation.objects.filter(reference__in=fresh).update(decided_at=datetime.combine(day, time(12), tzinfo=UTC))
    results = settlements_sandbox_ingest(today=day + timedelta(days=1))
    assert all(result.outcome == Outcome.INGESTED for result in results), [result.message for result in results]
    return fresh


def _card() -> CardRequest:
    return CardRequest(number="4111111111111111", expiration_month=12, expiration_year=2039, security_code="123")


def _fact_of(dispute: DisputeBook, fact: Fact) -> NotifiedDispute:
    return NotifiedDispute(
        id=dispute.id,
        state=fact.state,
        reason="fraudulent",
        amount=fact.amount,
        currency=fact.currency,
        due_at=None,
        occurred_at=fact.at,
    )


def _apply(pk: str, fact: NotifiedDispute) -> None:
    """As a verified notification is applied: under the transaction's row lock, in the transaction recording it."""
    with transaction.atomic():
        txn = Transaction.objects.select_for_update().get(pk=pk)
        dispute_apply(txn=txn, payment_service_id=txn.payment_service_id, fact=fact, noted={})


@st.composite
def dispute_scripts(draw: st.DrawFn, amount: int, start: datetime) -> list[Fact]:
    """A dispute's life at its processor, in the processor's order: maybe an inquiry, the chargeback, maybe its
    answer, maybe its end (won, lost, accepted); facts of one instant are ordered by how far along they are. Maybe
    one stale fact without a state. (A second chargeback after a win is left out: the bank then takes back money the
    merchant may have refunded since, which no server can refuse.)"""
    states: list[str] = [S.INQUIRY] if draw(st.booleans()) else []
    states.append(S.NEEDS_RESPONSE)
    if draw(st.booleans()):
        states.append(S.UNDER_REVIEW)
    end = draw(st.sampled_from([None, S.WON, S.LOST, S.ACCEPTED]))
    if end is not None:
        states.append(end)
    at, facts = start, []
    for state in states:
        at += timedelta(minutes=draw(st.integers(min_value=0, max_value=2)))
        facts.append(Fact(state=state, at=at, amount=amount))
    if draw(st.booleans()):
        stale_amount = draw(st.integers(min_value=1, max_value=amount))
        facts.append(Fact(state=None, at=start - timedelta(days=1), amount=stale_amount))
    return facts


# --- the machine -----------------------------------------------------------------------------------------------


class BooksMachine(RuleBasedStateMachine):
    """Each example runs inside a savepoint rolled back at its end, so examples never see each other's payments or
    the sandbox's decisions."""

    payments = Bundle("payments")
    disputes = Bundle("disputes")

    def __init__(self) -> None:
        super().__init__()
        self._savepoint = transaction.atomic()
        self._savepoint.__enter__()
        self.account = MerchantAccount.objects.get(pk="default")
        self.books: dict[str, PaymentBook] = {}
        self.day = FIRST_DAY
        self.settled_operations: set[str] = set()
        self.dispute_serial = 0
        # Dispute facts are dated by the processor's clock, near now (a server may refuse dates far from it).
        self.clock = timezone.now().replace(microsecond=0) - timedelta(hours=6)

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self._savepoint.__exit__(None, None, None)

    # payments ----------------------------------------------------------------------------------------------------

    @initialize(target=payments, amount=AMOUNTS, intent=st.sampled_from(["authorize", "capture"]))
    def first_payment(self, amount: int, intent: str) -> str:
        return self._pay(amount, intent)

    @precondition(lambda self: len(self.books) < 3)
    @rule(target=payments, amount=AMOUNTS, intent=st.sampled_from(["authorize", "capture"]))
    def pay(self, amount: int, intent: str) -> str:
        return self._pay(amount, intent)

    def _pay(self, amount: int, intent: str) -> str:
        request = TransactionRequest(amount=amount, currency=CURRENCY, payment_method=_card(), intent=intent)
        txn = transaction_create(merchant_account=self.account, actor=ACTOR, request=request)
        book = PaymentBook(pk=str(txn.pk), authorized=amount, status=txn.status)
        if intent == "capture":
            assert txn.status == "capture_succeeded"
            book.captures.append(amount)
        else:
            assert txn.status == "authorization_succeeded"
        self.books[book.pk] = book
        return book.pk

    @rule(pk=payments, amount=st.none() | AMOUNTS, final=st.booleans())
    def capture(self, pk: str, amount: int | None, final: bool) -> None:
        book = self.books[pk]
        left = book.authorized - book.captured
        answer = _attempt(
            lambda: transaction_capture(txn=Transaction.objects.get(pk=pk), actor=ACTOR, amount=amount, final=final)
        )
        if not book.capturable:
            _refused(answer, Conflict, "a capture of a payment that takes no more")
        elif amount is not None and amount > left:
            _refused(answer, DomainError, f"a capture of {amount} with {left} left", conflict=False)
        else:
            result = _taken(answer)
            taken = left if amount is None else amount
            assert result.capture is not None
            assert result.capture.amount == taken
            book.captures.append(taken)
            book.status = "capture_succeeded"
            book.open_for_captures = not final and book.captured < book.authorized

    @rule(pk=payments)
    def void(self, pk: str) -> None:
        book = self.books[pk]
        answer = _attempt(lambda: transaction_void(txn=Transaction.objects.get(pk=pk), actor=ACTOR))
        if book.status != "authorization_succeeded":
            _refused(answer, Conflict, f"a void of a payment in {book.status}")
        else:
            _taken(answer)
            book.status = "authorization_voided"

    # refunds -----------------------------------------------------------------------------------------------------

    @rule(pk=payments, amount=st.none() | AMOUNTS)
    def refund(self, pk: str, amount: int | None) -> None:
        """What disputes took back is gone, what open ones hold is not the merchant's to give (docs/disputes.md):
        nothing left, any of the held money, or everything while some is held is a 409; more than is left a 400."""
        book = self.books[pk]
        left, room = book.captured - book.refunded - book.taken_back, book.refundable
        answer = _attempt(lambda: refund_create(txn=Transaction.objects.get(pk=pk), actor=ACTOR, amount=amount))
        if book.status != "capture_succeeded" or left <= 0:
            _refused(answer, Conflict, f"a refund with nothing left to refund ({book.describe()})")
        elif amount is None and book.held:
            _refused(answer, Conflict, f"a refund of everything while disputes hold some ({book.describe()})")
        elif amount is not None and amount > left:
            _refused(answer, DomainError, f"a refund of {amount} with {left} left ({book.describe()})", conflict=False)
        elif amount is not None and amount > room:
            _refused(answer, Conflict, f"a refund of {amount} that open disputes hold ({book.describe()})")
        else:
            refund = _taken(answer)
            assert refund.amount == (room if amount is None else amount)
            assert refund.status == RefundStatus.SUCCEEDED
            book.refunded += refund.amount
            book.unsettled_refunds += refund.amount

    @rule(pk=payments)
    def refund_everything(self, pk: str) -> None:
        book = self.books[pk]
        room = book.refundable
        answer = _attempt(lambda: refund_all(txn=Transaction.objects.get(pk=pk), actor=ACTOR))
        if book.status != "capture_succeeded" or room <= 0 or book.held:
            _refused(answer, Conflict, f"refunds/all with disputes holding or nothing left ({book.describe()})")
        else:
            assert [refund.amount for refund in _taken(answer)] == [room]
            book.refunded += room
            book.unsettled_refunds += room

    # disputes ----------------------------------------------------------------------------------------------------

    @precondition(lambda self: any(book.refundable > 0 for book in self.books.values()))
    @rule(target=disputes, data=st.data())
    def open_dispute(self, data: st.DataObject) -> str:
        """A buyer disputes at most what they have not been given back yet; the first fact to arrive says so."""
        pk = data.draw(st.sampled_from([pk for pk, book in self.books.items() if book.refundable > 0]))
        book = self.books[pk]
        amount = data.draw(st.integers(min_value=1, max_value=book.refundable), label="amount")
        self.dispute_serial += 1
        self.clock += timedelta(minutes=10)
        dispute = DisputeBook(id=f"dp_{self.dispute_serial}", facts=data.draw(dispute_scripts(amount, self.clock)))
        book.disputes[dispute.id] = dispute
        first = data.draw(st.sampled_from([fact for fact in dispute.facts if fact.state is not None]), label="first")
        self._deliver(book, dispute, first)
        return f"{pk}/{dispute.id}"

    @rule(key=disputes, data=st.data())
    def resend_fact(self, key: str, data: st.DataObject) -> None:
        """Any fact of the dispute, again or for the first time, whatever came before: processors resend and
        deliver out of order."""
        pk, dispute_id = key.split("/")
        dispute = self.books[pk].disputes[dispute_id]
        self._deliver(self.books[pk], dispute, data.draw(st.sampled_from(dispute.facts)))

    def _deliver(self, book: PaymentBook, dispute: DisputeBook, fact: Fact) -> None:
        _apply(book.pk, _fact_of(dispute, fact))
        dispute.delivered.append(fact)

    @precondition(lambda self: any(book.captured for book in self.books.values()))
    @rule(data=st.data())
    def foreign_dispute(self, data: st.DataObject) -> None:
        """A dispute told in a currency that is not the payment's is never counted as the payment's money."""
        pk = data.draw(st.sampled_from([pk for pk, book in self.books.items() if book.captured]))
        self.dispute_serial += 1
        self.clock += timedelta(minutes=10)
        state = data.draw(st.sampled_from([S.NEEDS_RESPONSE, S.LOST]))
        amount = data.draw(st.integers(min_value=1, max_value=self.books[pk].captured), label="amount")
        fact = NotifiedDispute(
            id=f"dp_{self.dispute_serial}",
            state=state,
            reason="fraudulent",
            amount=amount,
            currency=FOREIGN_CURRENCY,
            due_at=None,
            occurred_at=self.clock,
        )
        # Refused or kept aside for the operator: either way never counted as the payment's money (the invariants).
        _attempt(lambda: _apply(pk, fact))

    # settlements -------------------------------------------------------------------------------------------------

    @precondition(
        lambda self: any(
            len(book.captures) > len(book.settled_captures) or book.unsettled_refunds for book in self.books.values()
        )
    )
    @rule()
    def settle_the_day(self) -> None:
        """The sandbox closes the model's day: what it decided since the last settlement is dated that day, and its
        report of the day is ingested."""
        self.settled_operations.update(_sandbox_closes(self.day, settled=self.settled_operations))
        for book in self.books.values():
            book.settled_captures = list(book.captures)
            book.settled_refunds += book.unsettled_refunds
            book.unsettled_refunds = 0
        self.day += timedelta(days=1)

    # invariants --------------------------------------------------------------------------------------------------

    @invariant()
    def the_books_hold(self) -> None:
        """Checked after every step, from the records as stored (one read of each kind for all the payments)."""
        assert not SettlementReportFile.objects.filter(status=FileStatus.REFUSED).exists(), "a settlement day refused"
        assert not LedgerEntry.objects.filter(transaction__isnull=True, kind=EntryKind.SETTLEMENT).exists()
        stored = Transaction.objects.filter(pk__in=list(self.books)).prefetch_related(
            "disputes", "captures", "refunds", "ledger_entries"
        )
        for txn in stored:
            book = self.books[str(txn.pk)]
            self._amounts_add_up(txn, book)
            self._disputes_as_told(txn, book)
            self._settled_as_captured(txn, book)

    def _amounts_add_up(self, txn: Transaction, book: PaymentBook) -> None:
        assert min(txn.authorized_amount, txn.captured_amount, txn.refunded_amount) >= 0
        assert txn.captured_amount <= txn.authorized_amount
        assert txn.refunded_amount <= txn.captured_amount
        assert (txn.status, txn.authorized_amount, txn.captured_amount, txn.refunded_amount) == (
            book.status,
            book.authorized,
            book.captured,
            book.refunded,
        )
        captures = [capture.amount for capture in txn.captures.all() if capture.status == CaptureStatus.SUCCEEDED]
        if captures:  # a payment made with `intent: capture` is captured without a capture record
            assert sorted(captures) == sorted(book.captures)
        assert all(capture.amount > 0 for capture in txn.captures.all())
        refunds = [refund for refund in txn.refunds.all() if refund.target_type == RefundTargetType.PAYMENT_METHOD]
        standing = [
            refund.amount for refund in refunds if refund.status in (RefundStatus.SUCCEEDED, RefundStatus.PROCESSING)
        ]
        assert sum(standing) == txn.refunded_amount
        assert all(refund.amount > 0 for refund in refunds)

    def _disputes_as_told(self, txn: Transaction, book: PaymentBook) -> None:
        ours = {dispute.processor_dispute_id: dispute for dispute in txn.disputes.all()}
        for dispute_id, dispute in book.disputes.items():
            stored = ours[dispute_id]
            assert (stored.state, stored.amount, stored.currency) == (*dispute.expected(), CURRENCY), dispute_id
        assert all(dispute.amount >= 0 for dispute in ours.values())
        taken_back = transaction_taken_back(txn)
        held = sum(dispute.amount for dispute in ours.values() if dispute.open and dispute.currency == txn.currency)
        assert (taken_back, held) == (book.taken_back, book.held), "disputes counted other than they were told"
        assert txn.refunded_amount + taken_back + held <= txn.captured_amount, (
            f"refunded {txn.refunded_amount} + taken back {taken_back} + held {held} > captured {txn.captured_amount}"
        )

    def _settled_as_captured(self, txn: Transaction, book: PaymentBook) -> None:
        """Each capture the sandbox settled is its own line at what was captured; each refund is taken back."""
        lines = list(txn.ledger_entries.all())
        settlements = sorted(line.amount for line in lines if line.kind == EntryKind.SETTLEMENT)
        assert settlements == sorted(book.settled_captures), "settled otherwise than captured"
        # The sandbox settles what it captured: a line flagged as not as captured would send the operator after nothing.
        assert not [line.mismatch for line in lines if line.mismatch]
        refunds = sum(line.amount for line in lines if line.kind == EntryKind.REFUND_SETTLEMENT)
        assert refunds == book.settled_refunds
        if book.settled_captures:
            net = sum(line.net_amount for line in lines)
            assert (txn.settled, txn.settled_amount, txn.settled_currency) == (True, net, CURRENCY)
        else:
            assert not txn.settled


def test_the_books_hold_whatever_happens(merchant_account):
    run_state_machine_as_test(BooksMachine, settings=BOOKS_SETTINGS)


def test_captures_settled_on_two_days_are_two_lines(merchant_account):
    """The example the model found beside the same-day case: a later capture of a payment whose first capture
    settled already is its own line too, never taken for the line the ledger holds."""
    request = TransactionRequest(amount=1000, currency=CURRENCY, payment_method=_card(), intent="authorize")
    txn = transaction_create(merchant_account=merchant_account, actor=ACTOR, request=request)
    transaction_capture(txn=txn, actor=ACTOR, amount=300, final=False)
    settled = set(_sandbox_closes(FIRST_DAY, settled=set()))

    transaction_capture(txn=txn, actor=ACTOR, final=True)
    _sandbox_closes(FIRST_DAY + timedelta(days=1), settled=settled)

    lines = LedgerEntry.objects.filter(transaction=txn, kind=EntryKind.SETTLEMENT)
    assert sorted(lines.values_list("amount", flat=True)) == [300, 700]
