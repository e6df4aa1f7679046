"""What services may ask of a payment processor, and what it answers.

Services talk to a processor only through `PaymentConnector`; which one answers a payment is the payment service
routing chose for it. What else a processor is (its definition, credentials check, notifications, buyer page) is the
`Processor` seam of `paymentservices.processors.seam`, and each processor is a folder beside it
(docs/architecture.md, "Adding a processor").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


class Outcome(StrEnum):
    """How the processor answered: `declined` is the issuer's refusal, `failed` means no answer could be had;
    `buyer_action`: nothing is decided yet, the processor waits for the buyer (its own 3-D Secure) on the payment
    its `processor_reference` names."""

    APPROVED = "approved"
    DECLINED = "declined"
    FAILED = "failed"
    BUYER_ACTION = "buyer_action"


@dataclass(frozen=True)
class CardDetails:
    """Clear card data, held in memory only for the one call that needs it."""

    # repr=False: a log line, an assertion message or a traceback that shows this object never shows the card.
    number: str = field(repr=False)
    expiration_month: int
    expiration_year: int
    security_code: str | None = field(default=None, repr=False)
    scheme: str | None = None


class ThreeDSecureStatus(StrEnum):
    """What a 3-D Secure authentication came to (upstream's summary statuses)."""

    COMPLETE = "complete"  # authenticated, or an attempt the issuer vouches for
    DECLINED = "declined"  # the issuer refused to authenticate the cardholder
    ERROR = "error"  # no result: authentication was unavailable or the status is not a final one


# EMV 3-D Secure transaction statuses (and 3-D Secure 1's PARes statuses), by what they mean for the payment.
_AUTHENTICATED = frozenset({"Y", "A"})
_REFUSED = frozenset({"N", "R"})


@dataclass(frozen=True)
class ThreeDSecureData:
    """The result of a 3-D Secure authentication the merchant ran elsewhere, passed through to the processor.

    Version 1 results carry `cavv_algorithm` and `xid`; version 2 results a `directory_transaction_id`.
    """

    version: str
    cavv: str
    eci: str
    directory_response: str
    authentication_response: str | None = None
    directory_transaction_id: str | None = None
    cavv_algorithm: str | None = None
    xid: str | None = None
    scheme: str | None = None

    @property
    def transaction_status(self) -> str:
        """The final status: the challenge's answer when there was one, else the directory's."""
        return self.authentication_response or self.directory_response

    @property
    def status(self) -> ThreeDSecureStatus:
        if self.transaction_status in _AUTHENTICATED:
            return ThreeDSecureStatus.COMPLETE
        if self.transaction_status in _REFUSED:
            return ThreeDSecureStatus.DECLINED
        return ThreeDSecureStatus.ERROR

    @property
    def challenged(self) -> bool:
        """Version 1 always challenged; a version 2 result has an authentication response only after a challenge."""
        return self.version.startswith("1") or self.authentication_response is not None


@dataclass(frozen=True)
class BrowserInfo:
    """The buyer's browser, as a processor's own 3-D Secure or risk checks want it."""

    javascript_enabled: bool
    java_enabled: bool
    language: str
    color_depth: int
    screen_height: int
    screen_width: int
    time_zone_offset: int
    user_agent: str
    user_device: str
    accept_header: str | None = None


@dataclass(frozen=True)
class StatementDescriptor:
    """What the buyer's statement shows for the payment; fields left None use the processor's defaults."""

    name: str | None = None
    description: str | None = None
    city: str | None = None
    country: str | None = None
    phone_number: str | None = None
    url: str | None = None
    postal_code: str | None = None


@dataclass(frozen=True)
class PurchaseDetails:
    """Level 2/3 purchase data some card schemes price lower: tax, duty, shipping and the buyer's references."""

    tax_amount: int | None = None
    duty_amount: int | None = None
    shipping_amount: int | None = None
    amount_includes_tax: bool | None = None
    merchant_tax_id: str | None = None
    purchase_order_number: str | None = None
    customer_reference_number: str | None = None
    supplier_order_number: str | None = None


@dataclass(frozen=True, kw_only=True)
class PaymentDetails:
    """What a client declares about a payment beyond its amount, card and buyer, passed to the processor as given.

    One declaration per field: the transaction request and the connector's `AuthorizationRequest` are both
    `PaymentDetails`, the API's input builds it field by field by name, and a transaction stores each field in
    the column of the same name (`transactions.details`). Adding a field is a field here, its input (validation)
    and its column. Order details (`cart_items`, `airline`, `recipient`) are the JSON the API validated.
    """

    previous_scheme_transaction_id: str | None = None
    previous_transaction_link_id: str | None = None
    account_funding_transaction: bool = False
    allow_partial_authorization: bool = False
    installment_count: int | None = None
    three_d_secure: ThreeDSecureData | None = None
    browser_info: BrowserInfo | None = None
    statement_descriptor: StatementDescriptor | None = None
    description: str | None = None
    purchase: PurchaseDetails = field(default_factory=PurchaseDetails)
    cart_items: Sequence[Mapping[str, Any]] | None = None
    airline: Mapping[str, Any] | None = None
    recipient: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ProcessorToken:
    """The processor's own token of the stored card a payment is of (a payment service token): sent instead of the
    card's number, with the customer the processor keeps it under (Stripe's), when it keeps cards under customers."""

    token: str
    customer: str | None = None


@dataclass(frozen=True)
class NetworkToken:
    """What makes a card number a network token: a digital wallet's device account number (then `card.number`)
    comes with the cryptogram the device made for this one payment and its ECI. The cryptogram is never stored.
    `wallet` names the wallet (`applepay`, `googlepay`) the token came from."""

    wallet: str
    cryptogram: str = field(repr=False)
    eci: str | None = None


@dataclass(frozen=True, kw_only=True)
class AuthorizationRequest(PaymentDetails):
    """Everything a processor may use to authorize one card payment. Only `card` holds card data.

    `reference` is our id for the payment (stable across retries); `billing_postal_code` is the one Secure Fields
    took with the card, for address verification. `country`, `payment_source` and the two flags are what the
    request declared, or else what its checkout session did. `connection_options` holds only option sets some
    processor the payment may go to declares it reads (`Processor.connection_options_keys`). `processor_token`: the
    asked processor's token of the stored card, when it keeps one (its connector then sends no card number).
    """

    card: CardDetails
    amount: int
    currency: str
    capture: bool
    reference: str
    billing_postal_code: str | None = None
    country: str | None = None
    payment_source: str = "ecommerce"
    merchant_initiated: bool = False
    is_subsequent_payment: bool = False
    connection_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    processor_token: ProcessorToken | None = None
    network_token: NetworkToken | None = None


def payment_details_of(details: PaymentDetails) -> dict[str, Any]:
    """The `PaymentDetails` fields of `details` (a request of any kind), as keywords for another one."""
    return {name.name: getattr(details, name.name) for name in fields(PaymentDetails)}


class OutcomeUnknown(Exception):
    """A write may have reached the processor, gave no answer in time, and the processor cannot be asked now what it
    did: the operation stays pending, and the processor's own record (sync, recovery) decides it later."""


@dataclass(frozen=True)
class ConnectorResult:
    """The processor's answer; `processor_reference` names the operation for later captures, voids and refunds."""

    outcome: Outcome
    processor_reference: str | None = None
    error_code: str | None = None
    raw_response_code: str | None = None
    raw_response_description: str | None = None
    cvv_response_code: str | None = None
    # The issuer reported that the card was replaced (a new number or expiry): a stored copy of it is out of date.
    card_replaced: bool = False
    # What a processor may tell beyond its own codes, as it gave them (None when it did not): the issuer's
    # authorization response code, the address check in upstream's words (`AVSResponseCode`), the card scheme's id
    # of the payment (sent again on later merchant-initiated payments of a stored card), the scheme's merchant advice
    # code, the ISO 8583 response code and when an approval waiting for the buyer lapses.
    auth_response_code: str | None = None
    avs_response_code: str | None = None
    scheme_transaction_id: str | None = None
    merchant_advice_code: str | None = None
    iso_response_code: str | None = None
    approval_expires_at: datetime | None = None
    # A payment the buyer approves at the processor (`RedirectConnector`): where the buyer goes to approve it.
    approval_link: str | None = None
    # The processor's id of the payment once this operation is done, when it changes (PayPal's capture, which its
    # refunds name): the transaction's `payment_service_transaction_id` from then on.
    payment_reference: str | None = None
    # How the buyer's account is shown (PayPal's payer email, masked), when the processor tells it.
    payer_label: str | None = None
    # The processor refused the stored card's token it was sent (`AuthorizationRequest.processor_token`): it no longer
    # has it, so the token is marked revoked and the card's next payment to it sends the card again.
    token_revoked: bool = False

    @property
    def approved(self) -> bool:
        return self.outcome is Outcome.APPROVED


@dataclass(frozen=True)
class BuyerAction:
    """What the buyer's browser runs to finish a payment the processor holds for them: the processor's script, the
    public key it is loaded with, and the payment's client secret (asked of the processor when the page is shown,
    never stored, never in an API answer)."""

    script_url: str
    publishable_key: str
    client_secret: str = field(repr=False)
    # Where the script may call and what it may frame (the page's Content-Security-Policy), besides its own origin.
    connect_origins: tuple[str, ...] = ()
    frame_origins: tuple[str, ...] = ()


@runtime_checkable
class PaymentConnector(Protocol):
    """A processor. Every method is called outside database transactions and must not raise for a refusal:
    declines and failures come back as results; an exception means the outcome is unknown.
    """

    def authorize(self, request: AuthorizationRequest) -> ConnectorResult:
        """Authorize `request.amount` on the card (and capture it at once when `request.capture`)."""
        ...

    def capture(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        """Capture `amount` of an earlier authorization."""
        ...

    def void(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        """Release an uncaptured authorization."""
        ...

    def refund(self, *, processor_reference: str, amount: int, currency: str, reference: str) -> ConnectorResult:
        """Return `amount` of a captured payment to the card."""
        ...

    def lookup(self, *, reference: str) -> ConnectorResult | None:
        """What became of the operation sent with our `reference`: the processor's answer as it gave it, or None
        when the processor never received (or never decided) it. Asked when a crash left the outcome unknown."""
        ...


@runtime_checkable
class IncrementsAuthorization(Protocol):
    """A processor that can raise an uncaptured authorization's amount (incremental authorization). Called outside
    database transactions; a refusal comes back as a result."""

    def increment_authorization(
        self, *, processor_reference: str, amount: int, total: int, currency: str, reference: str
    ) -> ConnectorResult:
        """Raise the authorization `processor_reference` names by `amount`, to `total`."""
        ...


@runtime_checkable
class ReadsCapturedAmount(Protocol):
    """A processor that can be asked what it captured of a payment (by its id of it): what a notification that does
    not say the amount is completed with. Called outside database transactions."""

    def captured_amount(self, *, processor_reference: str) -> int:
        """What the processor captured of the payment, 0 while it captured nothing; raises `OutcomeUnknown` when the
        processor cannot be asked or its answer does not say."""
        ...


@runtime_checkable
class RepeatsWrites(Protocol):
    """A connector whose processor answers a write sent again with our reference with what it did the first time (or
    does it now, once): PayPal's `PayPal-Request-Id`. Its `lookup` answers None, so recovery asks about a capture,
    void or refund whose answer was lost by sending it again (`repeats_writes` is True)."""

    repeats_writes: bool


@runtime_checkable
class ReleasesByReference(Protocol):
    """A connector whose processor cannot be asked about a payment by our reference (its `lookup` answers None) but
    can cancel whatever it holds under it: recovery releases such a payment once it gives up waiting for it."""

    def release(self, reference: str) -> None: ...


@runtime_checkable
class BuyerActionConnector(PaymentConnector, Protocol):
    """A processor that may answer an authorization with `Outcome.BUYER_ACTION` and lets the buyer act on a page of
    this server (docs/three-d-secure.md). Called outside database transactions, like every connector method."""

    @property
    def buyer_can_act(self) -> bool:
        """Whether a page can run the buyer's step with this service's credentials (e.g. a publishable key)."""
        ...

    def buyer_action(self, *, processor_reference: str) -> BuyerAction | None:
        """What the page runs for the payment `processor_reference` names; None when the processor cannot be asked
        now."""
        ...

    def buyer_result(self, *, processor_reference: str) -> ConnectorResult:
        """What the processor says of the payment now: approved, declined (the buyer failed or gave up), still
        `BUYER_ACTION`, or FAILED when it cannot be asked."""
        ...


@dataclass(frozen=True)
class RedirectRequest:
    """A payment the buyer approves on the processor's own pages (PayPal): what to ask for, our `reference` for it
    (stable across retries), and where the processor sends the buyer back after approving (`return_url`) or giving
    up (`cancel_url`)."""

    amount: int
    currency: str
    reference: str
    return_url: str
    cancel_url: str
    description: str | None = None


@runtime_checkable
class RedirectConnector(PaymentConnector, Protocol):
    """A processor whose buyer approves the payment on the processor's own pages before it is authorized (PayPal).
    Every method is called outside database transactions and answers refusals as results."""

    def redirect_begin(self, request: RedirectRequest) -> ConnectorResult:
        """Open the payment at the processor: `BUYER_ACTION` with the processor's id of it and its `approval_link`,
        or a decline or failure."""
        ...

    def redirect_authorize(self, *, processor_reference: str, reference: str) -> ConnectorResult:
        """Authorize the payment the buyer approved: APPROVED names the authorization."""
        ...

    def redirect_status(self, *, processor_reference: str) -> ConnectorResult:
        """What the processor holds for the payment now: APPROVED (authorized, naming the authorization),
        `BUYER_ACTION` (still with the buyer; `raw_response_code` says whether the buyer approved it), DECLINED, or
        FAILED when it cannot be asked."""
        ...
