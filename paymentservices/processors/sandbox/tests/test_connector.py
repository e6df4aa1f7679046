import pytest

from payments.connectors import (
    AuthorizationRequest,
    CardDetails,
    Outcome,
    PaymentConnector,
    ThreeDSecureData,
    ThreeDSecureStatus,
)
from payments.connectors.models import SandboxOperation
from paymentservices.processors.sandbox import TEST_CARDS, SandboxConnector
from paymentservices.processors.sandbox import connector as sandbox_module

# The sandbox records every decision in its own table, as a processor keeps its records.
pytestmark = pytest.mark.django_db


def _card(number: str, security_code: str | None = "123") -> CardDetails:
    return CardDetails(number=number, expiration_month=12, expiration_year=2099, security_code=security_code)


def _authorization(card: CardDetails, *, amount: int = 1, capture: bool = False, reference: str = "r", **fields):
    return AuthorizationRequest(
        card=card, amount=amount, currency="USD", capture=capture, reference=reference, **fields
    )


@pytest.mark.parametrize(
    ("number", "outcome", "error_code", "raw_code"),
    [
        ("4111111111111111", Outcome.APPROVED, None, "00"),
        ("5555555555554444", Outcome.APPROVED, None, "00"),
        ("378282246310005", Outcome.APPROVED, None, "00"),
        ("4000000000000002", Outcome.DECLINED, "issuer_decline", "05"),
        ("4000000000000101", Outcome.DECLINED, "incorrect_cvv", "N7"),
        ("4000000000009995", Outcome.DECLINED, "insufficient_funds", "51"),
        ("4000000000000069", Outcome.DECLINED, "expired_card", "54"),
        ("4000000000000119", Outcome.FAILED, "service_error", "96"),
        ("4000000000000259", Outcome.APPROVED, None, "00"),
        ("4000000000000267", Outcome.APPROVED, None, "00"),
        ("4242424242424242", Outcome.APPROVED, None, "00"),
    ],
    ids=[
        "visa",
        "mastercard",
        "amex",
        "declined",
        "cvv",
        "funds",
        "expired",
        "failed",
        "slow-to-decide",
        "slow-to-answer",
        "other-valid",
    ],
)
def test_sandbox_outcome_depends_on_the_card_number_only(sleeps, number, outcome, error_code, raw_code):
    results = {
        SandboxConnector().authorize(_authorization(_card(number), amount=amount, capture=capture))
        for amount, capture in [(1, False), (99_999_999, True)]
    }
    assert len(results) == 1  # same answer whatever the amount or intent
    result = results.pop()
    assert (result.outcome, result.error_code, result.raw_response_code) == (outcome, error_code, raw_code)
    assert result.raw_response_description
    assert result.approved is (outcome is Outcome.APPROVED)


def test_sandbox_reports_the_security_code_check():
    sandbox = SandboxConnector()
    checks = [
        sandbox.authorize(_authorization(_card(number, code)))
        for number, code in [("4111111111111111", "123"), ("4111111111111111", None), ("4000000000000101", "123")]
    ]
    assert [result.cvv_response_code for result in checks] == ["match", "not_provided", "no_match"]


def test_sandbox_references_are_deterministic_and_follow_ups_succeed():
    sandbox = SandboxConnector()
    first = sandbox.authorize(_authorization(_card("4111111111111111"), amount=5, reference="t1"))
    again = sandbox.authorize(_authorization(_card("4111111111111111"), amount=5, reference="t1"))
    assert first.processor_reference == again.processor_reference
    ref = first.processor_reference
    assert sandbox.capture(processor_reference=ref, amount=5, currency="USD", reference="c1").approved
    assert sandbox.void(processor_reference=ref, reference="v1").approved
    assert sandbox.refund(processor_reference=ref, amount=5, currency="USD", reference="f1").approved


@pytest.fixture
def sleeps(monkeypatch, settings):
    """The slow cards' waits, recorded instead of slept: (seconds, whether the decision was recorded by then)."""
    settings.SANDBOX_SLOW_CARD_SECONDS = 7.5
    waits: list[tuple[float, bool]] = []
    monkeypatch.setattr(
        sandbox_module.time, "sleep", lambda seconds: waits.append((seconds, SandboxOperation.objects.exists()))
    )
    return waits


@pytest.mark.parametrize(
    ("number", "decided_before_the_wait"),
    [("4000000000000259", False), ("4000000000000267", True), ("4111111111111111", None)],
    ids=["slow-to-decide", "slow-to-answer", "prompt"],
)
def test_slow_cards_wait_before_or_after_deciding(sleeps, number, decided_before_the_wait):
    result = SandboxConnector().authorize(_authorization(_card(number), reference="s1"))

    expected = [] if decided_before_the_wait is None else [(7.5, decided_before_the_wait)]
    assert sleeps == expected
    assert result.approved
    assert SandboxConnector().lookup(reference="s1") == result


def test_every_operation_is_remembered_by_its_reference():
    sandbox = SandboxConnector()
    answers = {
        "t1": sandbox.authorize(_authorization(_card("4000000000000002"), amount=5, reference="t1")),
        "t1:capture": sandbox.capture(processor_reference="p", amount=5, currency="USD", reference="t1:capture"),
        "t1:void": sandbox.void(processor_reference="p", reference="t1:void"),
        "r1": sandbox.refund(processor_reference="p", amount=5, currency="USD", reference="r1"),
    }

    assert {reference: sandbox.lookup(reference=reference) for reference in answers} == answers
    assert sandbox.lookup(reference="never-sent") is None
    assert sorted(SandboxOperation.objects.values_list("operation", flat=True)) == [
        "authorization",
        "capture",
        "refund",
        "void",
    ]


def test_test_cards_are_valid_card_numbers():
    from payments.vault.cards import validate_card_number

    for number in TEST_CARDS:
        validate_card_number(number)


def test_card_details_never_show_the_number_or_code():
    text = repr(_card("4111111111111111", "987"))
    assert "4111111111111111" not in text
    assert "987" not in text


def test_sandbox_implements_the_protocol():
    assert isinstance(SandboxConnector(), PaymentConnector)


def _three_d_secure(**fields) -> ThreeDSecureData:
    values = {"version": "2.2.0", "cavv": "AAABBBCCC", "eci": "05", "directory_response": "C"} | fields
    return ThreeDSecureData(directory_transaction_id="c4e59ceb-a382-4d6a-bc87-385d591fa09d", **values)


@pytest.mark.parametrize(
    ("number", "three_d_secure", "outcome", "error_code"),
    [
        ("4111111111111111", _three_d_secure(authentication_response="Y"), Outcome.APPROVED, None),
        ("4111111111111111", _three_d_secure(directory_response="A"), Outcome.APPROVED, None),
        ("4111111111111111", _three_d_secure(authentication_response="N"), Outcome.DECLINED, "failed_three_d_secure"),
        ("4111111111111111", _three_d_secure(directory_response="R"), Outcome.DECLINED, "failed_three_d_secure"),
        ("4111111111111111", _three_d_secure(directory_response="U"), Outcome.APPROVED, None),
        ("4000000000000119", _three_d_secure(authentication_response="N"), Outcome.DECLINED, "failed_three_d_secure"),
        ("4000000000009995", _three_d_secure(authentication_response="Y"), Outcome.DECLINED, "insufficient_funds"),
    ],
    ids=["challenge-passed", "attempted", "challenge-failed", "rejected", "unavailable", "refused-first", "issuer"],
)
def test_sandbox_declines_a_refused_authentication_and_otherwise_follows_the_card(
    number, three_d_secure, outcome, error_code
):
    result = SandboxConnector().authorize(_authorization(_card(number), three_d_secure=three_d_secure))

    assert (result.outcome, result.error_code) == (outcome, error_code)


@pytest.mark.parametrize(
    ("fields", "status", "challenged"),
    [
        ({"authentication_response": "Y"}, ThreeDSecureStatus.COMPLETE, True),
        ({"directory_response": "Y"}, ThreeDSecureStatus.COMPLETE, False),
        ({"directory_response": "A"}, ThreeDSecureStatus.COMPLETE, False),
        ({"authentication_response": "N"}, ThreeDSecureStatus.DECLINED, True),
        ({"directory_response": "R"}, ThreeDSecureStatus.DECLINED, False),
        ({"directory_response": "U"}, ThreeDSecureStatus.ERROR, False),
        ({"version": "1.0.2", "authentication_response": "Y"}, ThreeDSecureStatus.COMPLETE, True),
    ],
    ids=["challenge", "frictionless", "attempt", "failed", "rejected", "unavailable", "version-1"],
)
def test_three_d_secure_statuses(fields, status, challenged):
    data = _three_d_secure(**fields)
    assert (data.status, data.challenged) == (status, challenged)
