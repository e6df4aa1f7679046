"""The transaction state machine and its money rules, through the services the API and admin share."""

import pytest
from django.db import IntegrityError, transaction

from payments.connectors import Outcome
from payments.errors import Conflict, DomainError
from payments.vault.models import VaultedCard
from transactions.models import Refund, Transaction, TransactionEvent
from transactions.requests import CardRequest, TransactionRequest
from transactions.services.actions import transaction_cancel, transaction_capture, transaction_void
from transactions.services.create import transaction_create
from transactions.services.refunds import refund_all, refund_create
from transactions.services.state import TRANSITIONS, Actor, InvalidTransition
from transactions.services.update import transaction_update
from transactions.tests.connectors import ProcessorDown
from transactions.tests.factories import TransactionFactory

pytestmark = pytest.mark.django_db

ACTOR = Actor.api_key("kid-1")
STATUSES = [
    "processing",
    "authorization_succeeded",
    "authorization_declined",
    "authorization_failed",
    "authorization_voided",
    "authorization_void_pending",
    "capture_succeeded",
    "capture_pending",
    "buyer_approval_pending",
]
# Written out here, not imported, so the test states the rules instead of repeating the code.
ALLOWED = {
    "capture": {"authorization_succeeded"},
    "void": {"authorization_succeeded"},
    "cancel": {"processing", "buyer_approval_pending"},
    "refund": {"capture_succeeded"},
}


def card(number: str = "4111111111111111", security_code: str | None = "123") -> CardRequest:
    return CardRequest(number=number, expiration_month=12, expiration_year=2039, security_code=security_code)


def create(merchant_account, *, amount: int = 1000, number: str = "4111111111111111", **kwargs) -> Transaction:
    request = TransactionRequest(amount=amount, currency="USD", payment_method=card(number), **kwargs)
    return transaction_create(merchant_account=merchant_account, actor=ACTOR, request=request)


def events(txn: Transaction) -> list[tuple]:
    return list(txn.events.values_list("name", "from_status", "to_status", "amount"))


def snapshot(txn: Transaction) -> tuple:
    txn.refresh_from_db()
    return (txn.status, txn.authorized_amount, txn.captured_amount, txn.refunded_amount, txn.updated_at)


# --- authorization ----------------------------------------------------------------------------------------


def test_an_approved_card_is_authorized(merchant_account):
    txn = create(merchant_account, amount=1299)

    txn.refresh_from_db()
    assert (txn.status, txn.authorized_amount, txn.captured_amount) == ("authorization_succeeded", 1299, 0)
    assert txn.authorized_at is not None
    assert txn.captured_at is None
    assert (txn.raw_response_code, txn.error_code, txn.cvv_response_code) == ("00", None, "match")
    assert (txn.card_bin, txn.card_last4, txn.card_scheme, txn.card_expiration_date) == (
        "411111",
        "1111",
        "visa",
        "12/39",
    )
    assert events(txn) == [
        ("transaction_created", None, "processing", 1299),
        ("authorization_succeeded", "processing", "authorization_succeeded", 1299),
    ]
    assert set(txn.events.values_list("actor_type", "actor")) == {("api_key", "kid-1")}


def test_intent_capture_captures_at_once(merchant_account):
    txn = create(merchant_account, amount=500, intent="capture")

    txn.refresh_from_db()
    assert (txn.status, txn.authorized_amount, txn.captured_amount) == ("capture_succeeded", 500, 500)
    assert txn.captured_at is not None


@pytest.mark.parametrize(
    ("number", "status", "error_code", "raw_code"),
    [
        ("4000000000000002", "authorization_declined", "issuer_decline", "05"),
        ("4000000000000101", "authorization_declined", "incorrect_cvv", "N7"),
        ("4000000000000119", "authorization_failed", "service_error", "96"),
    ],
    ids=["declined", "security-code-mismatch", "processor-failure"],
)
def test_a_refused_card_reports_why_and_authorizes_nothing(merchant_account, number, status, error_code, raw_code):
    txn = create(merchant_account, number=number)

    txn.refresh_from_db()
    assert (txn.status, txn.error_code, txn.raw_response_code) == (status, error_code, raw_code)
    assert txn.raw_response_description
    assert (txn.authorized_amount, txn.authorized_at) == (0, None)
    assert events(txn)[-1] == (status, "processing", status, 1000)


def test_the_card_is_sealed_in_the_vault_without_its_security_code(merchant_account):
    txn = create(merchant_account)

    vaulted = VaultedCard.objects.get()
    assert txn.vaulted_card_id == vaulted.pk
    assert vaulted.encrypted_security_code is None
    assert "4111111111111111" not in vaulted.encrypted_number


def test_an_unanswered_authorization_leaves_the_transaction_processing_and_cancelable(merchant_account, connector):
    connector.script["authorize"] = ProcessorDown

    with pytest.raises(ProcessorDown):
        create(merchant_account)

    txn = Transaction.objects.get()
    assert txn.status == "processing"
    canceled = transaction_cancel(txn=txn, actor=ACTOR)
    assert (canceled.status, canceled.canceled_at is not None) == ("authorization_voided", True)


def test_an_approval_arriving_after_a_cancel_is_voided_at_the_processor(
    merchant_account, connector, django_capture_on_commit_callbacks, monkeypatch
):
    from transactions.services import create as services

    real_authorize = connector.authorize

    def cancel_meanwhile(self, request):
        result = real_authorize(self, request)
        transaction_cancel(txn=Transaction.objects.get(), actor=Actor.admin("support"))
        return result

    monkeypatch.setattr(connector, "authorize", cancel_meanwhile)
    with django_capture_on_commit_callbacks(execute=True):
        txn = services.transaction_create(
            merchant_account=merchant_account,
            actor=ACTOR,
            request=TransactionRequest(amount=700, currency="USD", payment_method=card()),
        )

    assert txn.status == "authorization_voided"
    assert [name for name, _ in connector.calls] == ["authorize", "void"]
    assert events(txn)[-1][0] == "authorization_after_cancel"


# --- the transition table -------------------------------------------------------------------------------


def _in_status(status: str) -> Transaction:
    authorized = status in {
        "authorization_succeeded",
        "authorization_voided",
        "authorization_void_pending",
        "capture_succeeded",
        "capture_pending",
    }
    return TransactionFactory(
        status=status,
        amount=1000,
        authorized_amount=1000 if authorized else 0,
        captured_amount=1000 if status == "capture_succeeded" else 0,
        payment_service_transaction_id="sandbox-authorization-x" if authorized else None,
    )


def _run(action: str, txn: Transaction):
    if action == "capture":
        return transaction_capture(txn=txn, actor=ACTOR).transaction
    if action == "void":
        return transaction_void(txn=txn, actor=ACTOR).transaction
    if action == "cancel":
        return transaction_cancel(txn=txn, actor=ACTOR)
    return refund_create(txn=txn, actor=ACTOR).transaction


AFTER = {
    "capture": ("capture_succeeded", 1000, 1000, 0),
    "void": ("authorization_voided", 1000, 0, 0),
    "cancel": ("authorization_voided", 0, 0, 0),
    "refund": ("capture_succeeded", 1000, 1000, 1000),
}


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("action", ["capture", "void", "cancel", "refund"])
def test_every_action_from_every_status(merchant_account, action, status):
    txn = _in_status(status)
    before = snapshot(txn)

    if status in ALLOWED[action]:
        after = _run(action, txn)
        after.refresh_from_db()
        assert (after.status, after.authorized_amount, after.captured_amount, after.refunded_amount) == AFTER[action]
        assert after.events.exists()
    else:
        with pytest.raises(InvalidTransition) as raised:
            _run(action, txn)
        assert raised.value.status == 409
        assert "cannot be" in raised.value.message
        assert snapshot(txn) == before
        assert not txn.events.exists()
        assert not Refund.objects.exists()


def test_every_status_change_is_in_the_table():
    statuses = {to for pair in TRANSITIONS for to in pair}
    assert statuses <= set(STATUSES)
    assert ("capture_succeeded", "authorization_voided") not in TRANSITIONS
    assert ("authorization_declined", "authorization_succeeded") not in TRANSITIONS


@pytest.mark.parametrize(
    ("action", "status", "hint"),
    [
        ("void", "capture_succeeded", "Refund it instead."),
        ("cancel", "authorization_succeeded", "Void it instead."),
        ("capture", "capture_succeeded", "already been captured"),
        ("refund", "authorization_succeeded", "authorized but not captured"),
    ],
)
def test_refusals_say_why(merchant_account, action, status, hint):
    with pytest.raises(InvalidTransition, match=hint):
        _run(action, _in_status(status))


# --- capture and void ------------------------------------------------------------------------------------


def test_partial_capture_captures_the_amount_once(merchant_account):
    txn = create(merchant_account, amount=1000)

    outcome = transaction_capture(txn=txn, actor=ACTOR, amount=600)

    assert outcome.result.approved
    txn.refresh_from_db()
    assert (txn.status, txn.authorized_amount, txn.captured_amount) == ("capture_succeeded", 1000, 600)
    assert events(txn)[-2:] == [
        ("capture_requested", "authorization_succeeded", "capture_pending", 600),
        ("capture_succeeded", "capture_pending", "capture_succeeded", 600),
    ]
    with pytest.raises(InvalidTransition):
        transaction_capture(txn=txn, actor=ACTOR, amount=400)


def test_over_capture_is_refused_and_changes_nothing(merchant_account):
    txn = create(merchant_account, amount=1000)
    before = snapshot(txn)

    with pytest.raises(DomainError) as raised:
        transaction_capture(txn=txn, actor=ACTOR, amount=1001)

    assert raised.value.status == 400
    assert raised.value.details[0]["pointer"] == "/amount"
    assert "authorized amount (1000)" in raised.value.message
    assert snapshot(txn) == before


@pytest.mark.parametrize("refusal", [Outcome.DECLINED, Outcome.FAILED])
def test_a_refused_capture_leaves_the_authorization_in_place(merchant_account, connector, refusal):
    txn = create(merchant_account, amount=1000)
    connector.script["capture"] = refusal

    outcome = transaction_capture(txn=txn, actor=ACTOR)

    assert outcome.result.outcome is refusal
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount) == ("authorization_succeeded", 0)
    assert events(txn)[-1] == (f"capture_{refusal}", "capture_pending", "authorization_succeeded", 1000)
    del connector.script["capture"]
    transaction_capture(txn=txn, actor=ACTOR)
    txn.refresh_from_db()
    assert txn.status == "capture_succeeded"


def test_void_releases_the_authorization(merchant_account, connector):
    txn = create(merchant_account, amount=1000)

    outcome = transaction_void(txn=txn, actor=ACTOR)

    txn.refresh_from_db()
    assert (outcome.transaction.status, txn.status, txn.voided_at is not None) == (
        "authorization_voided",
        "authorization_voided",
        True,
    )
    assert connector.calls[-1] == ("void", {"processor_reference": txn.payment_service_transaction_id})


def test_a_refused_void_keeps_the_authorization(merchant_account, connector):
    txn = create(merchant_account)
    connector.script["void"] = Outcome.DECLINED

    outcome = transaction_void(txn=txn, actor=ACTOR)

    assert not outcome.result.approved
    txn.refresh_from_db()
    assert (txn.status, txn.voided_at) == ("authorization_succeeded", None)


# --- refunds -------------------------------------------------------------------------------------------


def test_partial_refunds_never_pass_the_captured_amount(merchant_account):
    txn = create(merchant_account, amount=1000)
    transaction_capture(txn=txn, actor=ACTOR, amount=800)

    first = refund_create(txn=txn, actor=ACTOR, amount=300, reason="damaged")
    with pytest.raises(DomainError) as raised:
        refund_create(txn=txn, actor=ACTOR, amount=501)
    rest = refund_create(txn=txn, actor=ACTOR)
    with pytest.raises(Conflict, match="Nothing is left"):
        refund_create(txn=txn, actor=ACTOR)

    assert raised.value.details[0]["pointer"] == "/amount"
    assert "(500)" in raised.value.message
    assert [(first.amount, first.status, first.reason), (rest.amount, rest.status)] == [
        (300, "succeeded", "damaged"),
        (500, "succeeded"),
    ]
    txn.refresh_from_db()
    assert (txn.status, txn.captured_amount, txn.refunded_amount) == ("capture_succeeded", 800, 800)
    assert [name for name, *_ in events(txn)][-4:] == [
        "refund_requested",
        "refund_succeeded",
        "refund_requested",
        "refund_succeeded",
    ]


@pytest.mark.parametrize("refusal", [Outcome.DECLINED, Outcome.FAILED])
def test_a_refused_refund_can_be_tried_again(merchant_account, connector, refusal):
    txn = create(merchant_account, amount=1000, intent="capture")
    connector.script["refund"] = refusal

    refused = refund_create(txn=txn, actor=ACTOR, amount=400)

    assert (refused.status, refused.error_code, refused.raw_response_code) == (
        str(refusal),
        "issuer_decline" if refusal is Outcome.DECLINED else "service_error",
        "05" if refusal is Outcome.DECLINED else "96",
    )
    txn.refresh_from_db()
    assert txn.refunded_amount == 0
    del connector.script["refund"]
    assert refund_create(txn=txn, actor=ACTOR).amount == 1000


def test_a_payment_method_refund_cannot_name_a_target(merchant_account):
    import uuid

    txn = create(merchant_account, intent="capture")

    with pytest.raises(DomainError) as raised:
        refund_create(txn=txn, actor=ACTOR, target_id=uuid.uuid4())

    assert raised.value.details[0]["pointer"] == "/target_id"


def test_refund_all_refunds_what_is_left(merchant_account):
    txn = create(merchant_account, amount=1000, intent="capture")
    refund_create(txn=txn, actor=ACTOR, amount=250)

    refunds = refund_all(txn=txn, actor=ACTOR, reason="order canceled")

    assert [(r.amount, r.target_type, r.status, r.reason) for r in refunds] == [
        (750, "payment-method", "succeeded", "order canceled")
    ]
    with pytest.raises(Conflict, match="Nothing is left"):
        refund_all(txn=txn, actor=ACTOR)


# --- update and invariants -----------------------------------------------------------------------------


def test_update_changes_only_the_given_fields(merchant_account):
    txn = create(merchant_account, external_identifier="order-1", metadata={"a": "1"})

    transaction_update(txn=txn, actor=Actor.admin("ada"), metadata={"b": "2"})

    txn.refresh_from_db()
    assert (txn.external_identifier, txn.metadata) == ("order-1", {"b": "2"})
    assert txn.events.last().actor_type == TransactionEvent.ActorType.ADMIN
    with pytest.raises(TypeError):
        transaction_update(txn=txn, actor=ACTOR, status="capture_succeeded")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "amounts",
    [
        {"authorized_amount": 1000, "captured_amount": 1001},
        {"authorized_amount": 1000, "captured_amount": 500, "refunded_amount": 501},
        {"authorized_amount": 1001},
        {"refunded_amount": -1},
        {"status": "refunded"},
    ],
    ids=["over-captured", "over-refunded", "over-authorized", "negative", "unknown-status"],
)
def test_the_database_refuses_impossible_amounts(merchant_account, amounts):
    with pytest.raises(IntegrityError), transaction.atomic():
        TransactionFactory(amount=1000, **amounts)
