"""The processor seam: what a processor is to this server, beside the connector contract (`payments.connectors.base`).

A `Processor` is one folder of `paymentservices/processors/` (its connector, code tables, notifications, templates and
tests) and one line of the registry (`paymentservices/processors/__init__.py`). It declares its definition (the fields
a service of it takes, each with its rule, which secret field holds the notification key, its features and the
`connection_options` sets it reads), connects (`connect(credentials, deadline)`), checks credentials (`verify`), reads
its notifications (`parse_notification`, refusing with a pointer of its own) and may name a page where the buyer runs
its own authentication (`buyer_page`), and may declare its settlement records (`settlements`, a
`paymentservices.processors.settling.Settlements`), may pay out to cards (`payouts`, a
`paymentservices.processors.paying_out.CardPayouts`), and may answer its disputes (`disputes`, a `DisputeAnswers`:
accept one, or defend it with evidence), and may keep stored cards for later payments (`tokens`, a `StoredTokens`).
The services and the API ask only this seam: a processor is its payment service definition (`GET
/payment-service-definitions` renders the registered processors).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from payments.choices import EvidenceKind
from payments.connectors.base import CardDetails, ConnectorResult, PaymentConnector
from payments.validators import all_countries, all_currencies
from paymentservices.processors.fields import IDENTIFIER, FieldRule

if TYPE_CHECKING:
    from paymentservices.processors.paying_out import CardPayouts
    from paymentservices.processors.settling import Settlements


@dataclass(frozen=True)
class DefinitionField:
    """One credential or setting a service of the definition takes. A `secret` one is sealed and never shown. `rule`
    is the one shape its value may have, checked on create, update and verify, and again before a connector is built
    (a field that declares none is an identifier)."""

    key: str
    display_name: str
    required: bool
    secret: bool
    format: str = "text"
    # Whether `POST /payment-services/verify` can check it with the processor.
    verifiable: bool = False
    rule: FieldRule = IDENTIFIER


@dataclass(frozen=True)
class CredentialProblem:
    """Which credential field the processor refused, and why (safe to show: never the value)."""

    field: str
    message: str


class NotificationRefused(Exception):
    """A notification that is not the processor's: unsigned, forged, stale or unreadable. The message is safe to
    show the sender; `pointer` and `location` name where the signature (or the fault) is: a header's name
    (`location="header"`) or a JSON pointer into the body. Each processor says its own."""

    def __init__(self, message: str, *, pointer: str, location: str = "body") -> None:
        super().__init__(message)
        self.pointer = pointer
        self.location = location


class PaymentChange:
    """What a processor's notification says happened to a payment, in words every connector shares."""

    CAPTURED = "captured"  # the authorization was captured (`amount`: what was captured)
    CAPTURE_FAILED = "capture_failed"  # a capture the processor had accepted did not happen
    VOIDED = "voided"  # the authorization was released
    REFUNDED = "refunded"  # money went back to the card (`amount`: see `ParsedNotification.amount_is_total`)
    REFUND_FAILED = "refund_failed"  # a refund the processor had accepted did not happen (the money stays)


@dataclass(frozen=True)
class NotifiedDispute:
    """One dispute of a payment as a processor's notification tells it: the processor's id of the dispute, the state
    it says (a `payments.choices.DisputeState`; None when the notification moves no state, like Adyen's
    DISPUTE_DEFENSE_PERIOD_ENDED without a status), its reason (the processor's code), amount and currency, when the
    answer is due (None when it says none), and when the processor says the fact happened (its clock: what orders
    facts that arrive out of order)."""

    id: str
    state: str | None
    reason: str | None
    amount: int
    currency: str
    due_at: datetime | None
    occurred_at: datetime


@dataclass(frozen=True)
class NotifiedRefund:
    """One refund the processor holds for a payment, as its notification lists it: the processor's id of it, its
    amount, our reference when we made it, whether it stands (succeeded, or on its way) and when it was made (the
    processor's clock, seconds). `by_processor`: made by the processor itself, not asked by anyone (Stripe's
    `expired_uncaptured_charge`)."""

    id: str
    amount: int
    reference: str | None
    stands: bool
    created: int
    by_processor: bool = False


@dataclass(frozen=True)
class NotifiedPayout:
    """What a processor's notification says became of one of our payouts: our reference of it (the payout's id),
    whether the money went to the card (`paid`), the processor's id of it, and the processor's words when it did
    not."""

    reference: str
    paid: bool
    processor_reference: str
    reason: str | None = None


@dataclass(frozen=True)
class AvailableReport:
    """A report the processor says it published (Adyen's REPORT_AVAILABLE): its file name and where to download it
    (as the processor gave it: checked against the processor's report hosts before it is kept or used)."""

    name: str
    url: str


@dataclass(frozen=True)
class ParsedNotification:
    """A processor's notification, once its signature is verified: its id (for duplicates), its type, the processor's
    id of the object it is about and our reference for it (when the object carries one). `change` (a
    `PaymentChange`), `amount` and `payment_reference` (the processor's id of the payment, our transaction's
    `payment_service_transaction_id`) say what it means for a payment, when it is about one.

    `amount` is what the processor says: None when it says nothing (never a stand-in), never negative (a notification
    with an impossible amount is refused by its parser). A refund's `amount` is everything refunded so far
    (`amount_is_total`, Stripe's) or this one refund (Adyen's); a total may count what a partial capture released of
    the authorization (`released`, when the notification tells it), as Stripe's did before its API version
    2025-03-31. `refunds` lists the processor's refund objects when the notification carries them (Stripe's charge):
    each is booked on its own, and the total is not used. `authorization` is the processor's decision on an
    authorization, when the notification tells it (Adyen's AUTHORISATION); `report` a report it published, when the
    notification announces one (Adyen's REPORT_AVAILABLE); `payout` what became of a payout, when it tells that (Adyen's
    PAYOUT_THIRDPARTY, PAYOUT_DECLINE, PAYOUT_EXPIRE). `renames_payment`: the processor's id that names the payment
    from a capture on (PayPal's capture, which its refunds and disputes name), when the notification tells one."""

    event_id: str
    event_type: str
    object_id: str
    reference: str | None
    data: Mapping[str, Any] = field(default_factory=dict)
    change: str | None = None
    amount: int | None = None
    payment_reference: str | None = None
    amount_is_total: bool = True
    released: int | None = None
    refunds: tuple[NotifiedRefund, ...] | None = None
    authorization: ConnectorResult | None = None
    report: AvailableReport | None = None
    dispute: NotifiedDispute | None = None
    renames_payment: str | None = None
    payout: NotifiedPayout | None = None
    # The processor's token of a stored card it no longer keeps (Stripe's payment_method.detached): revoked here.
    revoked_token: str | None = None


@dataclass(frozen=True)
class EvidenceFile:
    """A document sent in defence of a dispute: its name, media type (`application/pdf`, `image/jpeg`...), bytes and
    what it shows."""

    name: str
    content_type: str
    content: bytes
    kind: str = EvidenceKind.OTHER


@dataclass(frozen=True)
class Evidence:
    """What the merchant says in defence of a dispute: its words, the documents that back them, and the processor's
    code of the defence they make, for a processor that asks for one (Adyen's defence reason)."""

    text: str
    files: tuple[EvidenceFile, ...] = ()
    reason: str | None = None


class AnswerOutcome:
    """What a processor answered when a dispute was answered, in words every processor shares."""

    ACCEPTED = "accepted"  # the merchant conceded: the buyer keeps the money
    UNDER_REVIEW = "under_review"  # the defence was taken: the bank decides
    REFUSED = "refused"  # the processor did not take the answer (`DisputeAnswer.reason` says why)
    ALL = (ACCEPTED, UNDER_REVIEW, REFUSED)


@dataclass(frozen=True)
class DisputeAnswer:
    """A processor's word on an answer: its outcome and, when refused, its reason (safe to show: the processor's own
    message, never a key)."""

    outcome: str
    reason: str | None = None


class DisputeUnanswered(Exception):
    """The processor could not be asked (unreachable, no answer in time, our key refused): nothing is known to have
    been taken. The message is safe to show."""


class DisputeAnswers:
    """How a processor answers its disputes (`Processor.disputes`). Each call is given the service's credentials, the
    processor's id of the dispute and of the payment; it answers a `DisputeAnswer`, or raises `DisputeUnanswered`.
    What the processor takes of evidence is declared, so a file it would refuse is refused before anything is sent."""

    # The media types of the documents it takes, the largest one (bytes), and how many one defence may carry.
    file_types: ClassVar[frozenset[str]] = frozenset()
    max_file_bytes: ClassVar[int] = 0
    max_files: ClassVar[int] = 0
    # The longest text it takes (characters; 0: it takes documents only).
    max_text: ClassVar[int] = 20000
    # Whether a defence names the processor's code of the defence it makes (`Evidence.reason`).
    takes_reason: ClassVar[bool] = False

    def evidence_refused(self, evidence: Evidence) -> tuple[str, str] | None:
        """What this processor refuses of `evidence` beyond the limits declared above, as a JSON pointer into the
        request (`/files/1/kind`) and a message; None when it takes it."""
        return None

    def accept(self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str) -> DisputeAnswer:
        raise NotImplementedError

    def defend(
        self, *, credentials: Mapping[str, str], dispute_id: str, payment_reference: str, evidence: Evidence
    ) -> DisputeAnswer:
        raise NotImplementedError


@dataclass(frozen=True)
class KeptCard:
    """The processor's token of a stored card: its id of the card (what payments send instead of the number) and the
    customer it keeps it under, when it keeps cards under customers (Stripe's)."""

    token: str
    customer: str | None = None


class TokenRefused(Exception):
    """The processor would not keep the card (the issuer refused its check, or the card is not one it takes). The
    message is the processor's own, safe to show."""


class TokenUnreached(Exception):
    """The processor could not be asked (unreachable, no answer in time, our key refused): nothing is known to be
    kept. The message is safe to show."""


class StoredTokens:
    """How a processor keeps a stored card for later payments (`Processor.tokens`). `keep` is given the service's
    credentials, the card (clear, for this call only) and our reference of the stored method; it answers the
    processor's token, raises `TokenRefused` when the processor will not keep the card, or `TokenUnreached`. `forget`
    asks the processor to drop a token (best effort: a token we no longer send is harmless)."""

    def keep(self, *, credentials: Mapping[str, str], card: CardDetails, reference: str) -> KeptCard:
        raise NotImplementedError

    def forget(self, *, credentials: Mapping[str, str], kept: KeptCard) -> None:
        raise NotImplementedError


class Processor(ABC):
    """A processor this server pays through: its definition and what it does (see the module docstring). One instance
    per processor is registered; it holds no credentials (each call is given a service's)."""

    # The definition's id (a payment service's `definition_id`) and what the definitions endpoint shows of it.
    id: ClassVar[str]
    # Its folder's name and its block of `settings.PROCESSORS` (and of docs/guides/, when it has a guide).
    slug: ClassVar[str]
    display_name: ClassVar[str]
    fields: ClassVar[tuple[DefinitionField, ...]]
    features: ClassVar[Mapping[str, bool]]
    # The way of paying its services take (upstream's `method` and `mode`): payments are routed by it.
    method: ClassVar[str] = "card"
    mode: ClassVar[str] = "card"
    # How buyers know that way of paying (`GET /payment-method-definitions`); processors of one method say the same.
    method_display_name: ClassVar[str] = "Card"
    method_long_display_name: ClassVar[str | None] = "Credit or debit card"
    # The card schemes its services take, by `payments.vault.cards` id (`GET /card-scheme-definitions`); None: every
    # scheme the vault tells apart. A processor of another method takes no card.
    card_schemes: ClassVar[frozenset[str] | None] = None
    # The secret field holding the key its notifications are verified with; None: it sends none.
    notification_secret_field: ClassVar[str | None] = None
    # The `connection_options` sets its connector reads (upstream keys them by connector, e.g. `stripe-card`); a
    # request carrying any other set is refused. Declared here, so no credential is opened to learn them.
    connection_options_keys: ClassVar[frozenset[str]] = frozenset()
    # The built-in sandbox: refused in production unless SANDBOX_PAYMENTS (paymentservices.sandbox).
    sandbox: ClassVar[bool] = False
    # The template of the page where the buyer runs the processor's own authentication (its connector is then a
    # `BuyerActionConnector`), rendered with the `BuyerAction` as `action`; None when it has none.
    buyer_page: ClassVar[str | None] = None
    # What it paid out, read from its settlement records (`paymentservices.processors.settling`); None when the
    # processor publishes none. The ledger's source of its lines is the processor's `id`.
    settlements: ClassVar[Settlements | None] = None
    # Money sent to a card (`paymentservices.processors.paying_out`); None when the processor cannot pay out. Its
    # features say `payouts` exactly when it has one (the registry test holds the two equal).
    payouts: ClassVar[CardPayouts | None] = None
    # How its disputes are answered (accepted, defended with evidence); None when they are answered only at the
    # processor (its dashboard).
    disputes: ClassVar[DisputeAnswers | None] = None
    # How it keeps stored cards for later payments (its tokens); None when every payment sends the card. Its features
    # say `payment_method_tokenization` exactly when it has one (the registry test holds the two equal).
    tokens: ClassVar[StoredTokens | None] = None
    # Whether its connector sends a digital wallet's device number as a network token with its cryptogram and ECI
    # (`AuthorizationRequest.network_token`); routing sends wallet payments only to processors that do, and its
    # features say `network_tokens` exactly when it does (the registry test holds the two equal).
    network_tokens: ClassVar[bool] = False

    @property
    def supported_currencies(self) -> list[str]:
        """The currencies its services may accept: every one ISO 4217 names, unless the processor says fewer."""
        return all_currencies()

    @property
    def supported_countries(self) -> list[str]:
        """The countries its services may accept payments from: every one ISO 3166 names, unless it says fewer."""
        return all_countries()

    def field_named(self, key: str) -> DefinitionField | None:
        return next((item for item in self.fields if item.key == key), None)

    @abstractmethod
    def connect(self, credentials: Mapping[str, str], deadline: float | None = None) -> PaymentConnector:
        """The connector for a service's credentials ({key: clear value}, each held to its field's rule), whose calls
        wait no later than `deadline` (a `time.monotonic()` value) when one is given."""

    @abstractmethod
    def verify(self, credentials: Mapping[str, str]) -> CredentialProblem | None:
        """Ask the processor whether it takes the credentials: None when it does, the field it refused otherwise.
        Raises when the processor cannot be asked."""

    def dashboard_url(self, *, reference: str, fields: Mapping[str, str]) -> str | None:
        """The processor's own dashboard page of a payment, by its reference and the service's non-secret fields (the
        support desk links it); None when the processor has none."""
        return None

    def parse_notification(
        self, *, payload: bytes, headers: Mapping[str, str], secret: str, credentials: Mapping[str, str]
    ) -> ParsedNotification:
        """The notification, verified with `secret` (the `notification_secret_field`'s value; `credentials`: all of
        the service's, for a processor that is asked whether it sent it); `NotificationRefused` when it is not the
        processor's."""
        raise NotificationRefused(f"{self.display_name} sends no notifications.", pointer="/")
