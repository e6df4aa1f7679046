"""Reads of transactions and refunds, always scoped to one merchant account."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, F, OuterRef, Q, QuerySet, Sum, Value
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce, TruncDate, TruncHour

from buyers.selectors import BUYER_NAME_MATCHES, buyer_ids_named, buyer_ids_with_name
from payments.accounts.models import MerchantAccount
from payments.accounts.scope import account_rows
from payments.errors import NotFound
from payments.identifiers import base62_uuid
from payments.money import AmountError, parse_money
from payments.outbox import OutboxActivity, outbox_activity_about
from paymentservices.notifications import ProcessorEvent
from transactions.models import (
    PENDING_STATUSES,
    Capture,
    GiftCardRedemption,
    Refund,
    RefundStatus,
    RefundTargetType,
    Transaction,
    TransactionDayRollup,
    TransactionDayTotal,
    TransactionEvent,
    TransactionStatus,
)
from transactions.related import related_prefetches

_NOT_FOUND = "The transaction could not be found."
_REFUND_NOT_FOUND = "The refund could not be found."
_CAPTURE_NOT_FOUND = "The capture could not be found."


def _as_uuid(value: object) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def transaction_list(*, merchant_account: MerchantAccount) -> QuerySet[Transaction]:
    """The account's transactions with what their representation needs; pagination orders them."""
    return (
        account_rows(Transaction, merchant_account)
        .select_related("payment_service", "three_ds_challenge")
        .prefetch_related(*related_prefetches())
    )


def transaction_get(*, merchant_account: MerchantAccount, id: uuid.UUID | str) -> Transaction:
    """One transaction; another account's is not found, like a missing one."""
    pk = _as_uuid(id)
    transactions = account_rows(Transaction, merchant_account).select_related("payment_service")
    txn = transactions.filter(pk=pk).first() if pk else None
    if txn is None:
        raise NotFound(_NOT_FOUND)
    return txn


def transaction_of_event(*, event: ProcessorEvent, any_service: bool = False) -> Transaction | None:
    """The service's transaction the event names, by the processor's id of the payment or by our reference; locked
    (the caller holds a transaction).
    `any_service`: by our reference, whichever of the account's services holds it now (after a failover)."""
    match = Q(pk__in=[])
    if event.payment_reference:
        match |= Q(payment_service_transaction_id=event.payment_reference, payment_service=event.payment_service)
    if event.reference and _as_uuid(event.reference) is not None:
        mine = Q(merchant_account_id=event.payment_service.merchant_account_id)
        match |= Q(pk=event.reference) & (mine if any_service else Q(payment_service=event.payment_service))
    return Transaction.objects.select_for_update().filter(match).order_by("created_at").first()


def transactions_pending(*, updated_before: datetime) -> QuerySet[Transaction]:
    """Every account's transactions still waiting for a processor's answer since before `updated_before`, oldest
    first (for recovery, which acts for no one account)."""
    return Transaction.objects.filter(status__in=PENDING_STATUSES, updated_at__lt=updated_before).order_by(
        "updated_at", "id"
    )


def transactions_increment_pending(*, started_before: datetime) -> QuerySet[Transaction]:
    """Every account's transactions with an authorization increment begun before `started_before` and still
    unanswered, oldest first (for recovery: their status is not pending, the increment is)."""
    return Transaction.objects.filter(increment_pending_since__lt=started_before).order_by(
        "increment_pending_since", "id"
    )


def transactions_refund_pending(*, updated_before: datetime) -> QuerySet[Transaction]:
    """Every account's transactions with a card refund still waiting for the processor's answer since before
    `updated_before`, oldest refund first (for recovery)."""
    refunds = Refund.objects.filter(
        status=RefundStatus.PROCESSING, target_type=RefundTargetType.PAYMENT_METHOD, updated_at__lt=updated_before
    )
    return Transaction.objects.filter(pk__in=refunds.values("transaction_id")).order_by("updated_at", "id")


def transaction_has_refund_pending(txn: Transaction) -> bool:
    """Whether a card refund of `txn` still waits for the processor's answer."""
    return txn.refunds.filter(status=RefundStatus.PROCESSING, target_type=RefundTargetType.PAYMENT_METHOD).exists()


def transaction_search(
    queryset: QuerySet[Transaction], term: str, *, merchant_account: MerchantAccount
) -> QuerySet[Transaction]:
    """Transactions whose id, external identifier, buyer identifier or processor id is `term`, or whose buyer's
    name contains it (of the first `BUYER_NAME_MATCHES` buyers so named). The buyers are found first, so every
    branch of the OR is an index of the transactions table: joined to buyers, the OR read every transaction with
    its buyer (5 s at a million rows, docs/performance.md)."""
    match = Q(external_identifier=term) | Q(buyer_external_identifier=term) | Q(payment_service_transaction_id=term)
    named = buyer_ids_with_name(merchant_account=merchant_account, term=term, limit=BUYER_NAME_MATCHES)
    if named:
        match |= Q(buyer_id__in=named)
    pk = _as_uuid(term)
    if pk is not None:
        match |= Q(pk=pk)
    return queryset.filter(match)


# What support staff type: 4 digits are a card's last 4, optionally with its BIN before (`411111…1111`,
# `411111 1111`) or its expiry after (`1111 12/29`); an amount has decimals or a currency code (`120.00`, `JPY 500`).
_LAST4 = re.compile(r"^(?:(?P<bin>\d{6})\s*(?:…|\.{3}|\*+|\s)\s*)?(?P<last4>\d{4})(?:\s+(?P<expiry>\d{2}/\d{2}))?$")
_AMOUNT = re.compile(r"^(?:(?P<currency>[A-Za-z]{3})\s*)?(?P<amount>\d[\d,]*(?:\.\d+)?)$")


def transaction_staff_search(queryset: QuerySet[Transaction], term: str) -> QuerySet[Transaction]:
    """What a customer tells support, read as one kind of term so that one index serves it (docs/admin.md):
    a transaction id, card last 4 (with BIN or expiry), email address (or part of a buyer's), amount, external
    identifier, or part of a buyer's name or email address."""
    term = term.strip()
    pk = _as_uuid(term)
    if pk is not None:
        return queryset.filter(pk=pk)
    if card := _LAST4.match(term):
        narrowed = {"card_bin": card["bin"], "card_expiration_date": card["expiry"]}
        return queryset.filter(card_last4=card["last4"], **{k: v for k, v in narrowed.items() if v})
    if "@" in term:
        # The whole address as the transaction recorded it, or part of a buyer's (`jane.doe@`, `@example.com`).
        partly = buyer_ids_named(term)
        return queryset.filter(Q(buyer_email_address=term.lower()) | Q(buyer_id__in=partly))
    amount = _AMOUNT.match(term)
    if amount and ("." in term or amount["currency"]):
        currency = (amount["currency"] or "USD").upper()
        try:
            minor = parse_money(amount["amount"], currency)
        except AmountError:
            return queryset.none()
        return queryset.filter(amount=minor, **({"currency": currency} if amount["currency"] else {}))
    buyers = buyer_ids_named(term)
    return queryset.filter(Q(external_identifier=term) | Q(buyer_id__in=buyers))


def transaction_with_refunds(queryset: QuerySet[Transaction], has_refunds: bool) -> QuerySet[Transaction]:
    refunds = Refund.objects.filter(transaction=OuterRef("pk"))
    return queryset.filter(Exists(refunds) if has_refunds else ~Exists(refunds))


def transaction_buyer_search(queryset: QuerySet[Transaction], terms: list[str]) -> QuerySet[Transaction]:
    """Transactions whose buyer (as it was when the transaction was made) has one of `terms` exactly as its id,
    external identifier, email address or display name (both in any case)."""
    match = Q()
    for term in terms:
        match |= (
            Q(buyer_external_identifier=term)
            | Q(buyer_email_address=term.lower())
            | Q(buyer_details__display_name__iexact=term)
        )
        pk = _as_uuid(term)
        if pk is not None:
            match |= Q(buyer_id=pk)
    return queryset.filter(match)


def transaction_with_reconciliation_id(
    queryset: QuerySet[Transaction], reconciliation_id: str
) -> QuerySet[Transaction]:
    """The transaction whose `reconciliation_id` (the base62 form of its id) is the one given, if any."""
    pk = base62_uuid(reconciliation_id)
    return queryset.filter(pk=pk) if pk is not None else queryset.none()


def transaction_with_redemptions(queryset: QuerySet[Transaction], **match: object) -> QuerySet[Transaction]:
    """Transactions with at least one gift card redemption matching `match` (any redemption when empty)."""
    return queryset.filter(Exists(GiftCardRedemption.objects.filter(transaction=OuterRef("pk"), **match)))


def transaction_without_redemptions(queryset: QuerySet[Transaction]) -> QuerySet[Transaction]:
    return queryset.filter(~Exists(GiftCardRedemption.objects.filter(transaction=OuterRef("pk"))))


def transaction_metadata_contains(queryset: QuerySet[Transaction], pairs: dict[str, str]) -> QuerySet[Transaction]:
    """Transactions whose metadata holds every key/value pair of `pairs` (flat string pairs)."""
    if connection.vendor == "postgresql":
        return queryset.filter(metadata__contains=pairs)
    # SQLite has no JSON containment: compare key by key. KeyTransform keeps keys containing "__" literal.
    for index, (key, value) in enumerate(pairs.items()):
        alias = f"_metadata_{index}"
        queryset = queryset.alias(**{alias: KeyTransform(key, "metadata")}).filter(**{alias: value})
    return queryset


def refund_list(*, txn: Transaction) -> QuerySet[Refund]:
    """The transaction's refunds, newest first: all of them, at most `MAX_REFUNDS_PER_TRANSACTION`."""
    return Refund.objects.filter(transaction=txn).select_related("transaction").order_by("-created_at", "-id")


def refund_get(
    *, merchant_account: MerchantAccount, id: uuid.UUID | str | None, txn: Transaction | None = None
) -> Refund:
    """One refund of the account (and of `txn`, when given); anything else is not found."""
    pk = _as_uuid(id)
    refunds = account_rows(Refund, merchant_account).select_related("transaction")
    if txn is not None:
        refunds = refunds.filter(transaction=txn)
    refund = refunds.filter(pk=pk).first() if pk else None
    if refund is None:
        raise NotFound(_REFUND_NOT_FOUND)
    return refund


def capture_list(*, txn: Transaction) -> QuerySet[Capture]:
    """The transaction's captures, newest first: all of them, at most `MAX_CAPTURES_PER_TRANSACTION`."""
    return Capture.objects.filter(transaction=txn).select_related("transaction").order_by("-created_at", "-id")


def capture_get(*, txn: Transaction, id: uuid.UUID | str | None) -> Capture:
    """One capture of `txn` (already scoped to the request's account); anything else is not found."""
    pk = _as_uuid(id)
    capture = capture_list(txn=txn).filter(pk=pk).first() if pk else None
    if capture is None:
        raise NotFound(_CAPTURE_NOT_FOUND)
    return capture


def transaction_event_list(*, txn: Transaction) -> QuerySet[TransactionEvent]:
    """The transaction's history; pagination orders it (newest first)."""
    return TransactionEvent.objects.filter(transaction=txn)


def transaction_action_list(*, txn: Transaction) -> list[dict[str, object]]:
    """The routing rule actions that acted on the transaction: none, since this server has no routing rules (payment
    services are chosen by `payment_service_id`, position, currency and country: docs/payment-services.md)."""
    return []


@dataclass(frozen=True)
class TimelineEntry:
    """One thing that happened to a transaction: `kind` says which row `item` is."""

    at: datetime
    kind: str  # "event", "refund", "redemption", or a consumer's kind of activity ("webhook")
    item: TransactionEvent | Refund | GiftCardRedemption | OutboxActivity


def transaction_timeline(*, txn: Transaction) -> list[TimelineEntry]:
    """Events, refunds, gift card redemptions and what the outbox's consumers did with the events about the
    transaction and its refunds (webhook deliveries), oldest first: four queries, whatever the history's length."""
    refunds = list(Refund.objects.filter(transaction=txn).order_by("created_at", "id"))
    entries = [TimelineEntry(event.created_at, "event", event) for event in txn.events.order_by("created_at", "id")]
    entries += [TimelineEntry(refund.created_at, "refund", refund) for refund in refunds]
    entries += [TimelineEntry(r.created_at, "redemption", r) for r in txn.gift_card_redemptions.order_by("created_at")]
    targets = [str(txn.pk), *(str(refund.pk) for refund in refunds)]
    entries += [
        TimelineEntry(activity.at, activity.kind, activity) for activity in outbox_activity_about(target_ids=targets)
    ]
    return sorted(entries, key=lambda entry: entry.at)


def day_start(day: date) -> datetime:
    """Midnight UTC at the start of `day`."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def transactions_of_day(day: date) -> Q:
    """The transactions created on `day` (UTC): a range of the `created_at` index."""
    return Q(created_at__gte=day_start(day), created_at__lt=day_start(day + timedelta(days=1)))


def day_total_groups(where: Q) -> list[dict[str, Any]]:
    """The transactions matching `where` grouped as `TransactionDayTotal` counts them: one row per account, day,
    currency, status, decline reason and whether it was authorized, with its count and amount."""
    approved = ExpressionWrapper(Q(authorized_at__isnull=False), output_field=BooleanField())
    groups = (
        Transaction.objects.filter(where)
        .order_by()
        .values(
            "merchant_account_id",
            "currency",
            "status",
            day=TruncDate("created_at", tzinfo=UTC),
            reason=Coalesce("error_code", Value("")),
            approved=approved,
        )
        .annotate(count=Count("id"), volume=Sum("amount"))
    )
    return [dict(group) for group in groups]


def _counted_groups(days: list[date]) -> list[dict[str, Any]]:
    """The daily totals of `days`, every account's added up, as `day_total_groups` names them."""
    totals = (
        TransactionDayTotal.objects.filter(day__in=days)
        .order_by()
        .values("day", "currency", "status", "approved", reason=F("error_code"))
        .annotate(total=Sum("count"), volume=Sum("amount"))
    )
    return [{**group, "count": group["total"]} for group in totals] if days else []


# The start page's trend windows: the last 24 hours by hour, or today and the days before it by day (as Stripe's).
TREND_WINDOWS = {"24h": "Last 24 hours", "7d": "Last 7 days", "30d": "Last 30 days"}
_WINDOW_DAYS = {"7d": 7, "30d": 30}


@dataclass(frozen=True)
class TrendSummary:
    """Every account's transactions over one of `TREND_WINDOWS`, for the staff start page."""

    window: str
    since: datetime
    by_currency: list[tuple[str, int, int]]  # (currency, approved count, approved volume in minor units)
    approved: int
    declined: int
    failed: int
    declines_by_reason: list[tuple[str, int]]
    per_period: list[tuple[datetime, int, int]]  # (hour or day, approvals, declines and failures), oldest first
    recent_failures: list[Transaction]
    # The oldest count of a whole day the figures read from the daily totals (None when none is read): a change to
    # an older transaction reaches the figures at the next refresh of the totals.
    counted_at: datetime | None = None

    @property
    def approval_rate(self) -> float | None:
        decided = self.approved + self.declined + self.failed
        return self.approved / decided if decided else None


_REFUSED = (TransactionStatus.AUTHORIZATION_DECLINED, TransactionStatus.AUTHORIZATION_FAILED)


class _Tally:
    """Groups of transactions (from the rows or the daily totals) added up into a `TrendSummary`'s figures."""

    def __init__(self, periods: list[datetime]) -> None:
        self.periods: dict[datetime, list[int]] = {period: [0, 0] for period in periods}
        self.currencies: dict[str, list[int]] = {}
        self.reasons: dict[str, int] = {}
        self.totals = {"approved": 0, "declined": 0, "failed": 0}

    def add(self, period: datetime, group: dict[str, Any]) -> None:
        """Count one group of transactions (its currency, status, reason, approved, count and volume)."""
        count = group["count"]
        bar = self.periods.setdefault(period, [0, 0])
        if group["approved"]:
            self.totals["approved"] += count
            bar[0] += count
            entry = self.currencies.setdefault(group["currency"], [0, 0])
            entry[0] += count
            entry[1] += group["volume"]  # per currency: amounts of two currencies are never added together
        elif group["status"] in _REFUSED:
            refused = "declined" if group["status"] == TransactionStatus.AUTHORIZATION_DECLINED else "failed"
            self.totals[refused] += count
            bar[1] += count
            reason = group["reason"] or "unknown"
            self.reasons[reason] = self.reasons.get(reason, 0) + count

    def summary(
        self, *, window: str, since: datetime, failures: list[Transaction], counted_at: datetime | None = None
    ) -> TrendSummary:
        return TrendSummary(
            window=window,
            since=since,
            by_currency=sorted(
                ((code, n, volume) for code, (n, volume) in self.currencies.items()), key=lambda c: -c[1]
            ),
            declines_by_reason=sorted(self.reasons.items(), key=lambda reason: -reason[1]),
            per_period=[(period, counts[0], counts[1]) for period, counts in sorted(self.periods.items())],
            recent_failures=failures,
            counted_at=counted_at,
            **self.totals,
        )


def _newest_failures(since: datetime, now: datetime, recent: int) -> list[Transaction]:
    window = Transaction.objects.filter(created_at__gte=since, created_at__lte=now, status__in=_REFUSED)
    return list(window.order_by("-created_at", "-id")[:recent])


def transaction_trends(*, now: datetime, window: str = "24h", recent: int = 10) -> TrendSummary:
    """The figures of `window` (a key of `TREND_WINDOWS`): the last 24 hours read from the rows by hour; 7 or 30
    days read by day, whole past days from the daily totals and today (and any day not counted yet) from the rows."""
    if window in _WINDOW_DAYS:
        return _days_trend(now=now, window=window, recent=recent)
    return _hours_trend(now=now, recent=recent)


def _hours_trend(*, now: datetime, recent: int) -> TrendSummary:
    """Two queries over a bounded window: one range scan of the `created_at` index for the last 24 hours,
    grouped by hour, currency, outcome and decline reason, and the newest refusals."""
    since = now - timedelta(hours=24)
    window = Transaction.objects.filter(created_at__gte=since, created_at__lte=now).order_by()
    approved = ExpressionWrapper(Q(authorized_at__isnull=False), output_field=BooleanField())
    groups = window.values(
        "currency", "status", hour=TruncHour("created_at"), reason=F("error_code"), approved=approved
    )
    first_hour = since.replace(minute=0, second=0, microsecond=0)
    tally = _Tally([first_hour + timedelta(hours=h) for h in range(25)])
    for group in groups.annotate(count=Count("id"), volume=Sum("amount")):
        tally.add(group["hour"], dict(group))
    return tally.summary(window="24h", since=since, failures=_newest_failures(since, now, recent))


def _days_trend(*, now: datetime, window: str, recent: int) -> TrendSummary:
    """Four queries whatever the table's size: the counted days, their totals (a few rows per account, day,
    currency and outcome), the rows of today and of any day not counted yet, and the newest refusals."""
    today = now.astimezone(UTC).date()
    days = [today - timedelta(days=n) for n in range(_WINDOW_DAYS[window] - 1, -1, -1)]
    since = day_start(days[0])
    tally = _Tally([day_start(day) for day in days])
    counted = dict(
        TransactionDayRollup.objects.filter(day__gte=days[0], day__lt=today).values_list("day", "computed_at")
    )
    live = Q(created_at__gte=day_start(today), created_at__lte=now)
    for day in days[:-1]:
        if day not in counted:
            live |= transactions_of_day(day)
    for group in _counted_groups(list(counted)) + day_total_groups(live):
        tally.add(day_start(group["day"]), group)
    counted_at = min(counted.values()) if counted else None
    return tally.summary(
        window=window, since=since, failures=_newest_failures(since, now, recent), counted_at=counted_at
    )
