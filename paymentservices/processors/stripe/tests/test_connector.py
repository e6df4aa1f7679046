"""The stripe-card connector against localstripe (a fake Stripe run as a real process), read back through Stripe's
official library: what the connector did is checked in what Stripe holds, not in what the connector says."""

from __future__ import annotations

import logging
import threading
import time
import uuid

import pytest
import requests
import stripe

from payments.connectors.base import Outcome
from paymentservices.processors.calls import MIN_CALL_SECONDS
from paymentservices.processors.sessions import thread_session
from paymentservices.processors.stripe import PROCESSOR
from paymentservices.processors.stripe.connector import OutcomeUnknown, StripeConnector
from paymentservices.processors.stripe.tests.lost import answers_lost
from paymentservices.processors.stripe.tests.mock import localstripe
from paymentservices.processors.tests.environment import environment_reads
from paymentservices.processors.tests.fronts import tcp_front
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.processors.tests.requests import card_request

KEY = "sk_test_connector_0123456789"


def _request(number: str = "4242424242424242", **extra):
    return card_request(number, currency="USD", expiry=(12, 2034), security_code="123", **extra)


@pytest.fixture
def connector(stripe_api) -> StripeConnector:
    return StripeConnector(secret_key=KEY)


@pytest.fixture
def at_stripe(stripe_api) -> stripe.StripeClient:
    """The official library, reading what the fake holds."""
    return stripe.StripeClient(KEY, base_addresses={"api": stripe_api.url}, max_network_retries=0)


def test_authorize_makes_an_uncaptured_payment_intent_for_the_amount_and_currency(connector, at_stripe):
    request = _request(amount=1299)

    result = connector.authorize(request)

    assert result.outcome is Outcome.APPROVED
    intent = at_stripe.v1.payment_intents.retrieve(result.processor_reference)
    assert intent.status == "requires_capture"
    assert (intent.amount, intent.currency) == (1299, "usd")
    assert intent.capture_method == "manual"
    assert intent.metadata["reference"] == request.reference


def test_a_payment_logs_no_line_of_stripes_library_at_info(connector, caplog):
    """Stripe's library logs each call's URL and status at INFO; the transaction's events say the same, so the server
    keeps only its warnings (the folder's settings block names its logger in `QUIET_LOGGERS`)."""
    with caplog.at_level(logging.INFO):
        result = connector.authorize(_request())

    assert result.outcome is Outcome.APPROVED
    assert [record.getMessage() for record in caplog.records if record.name.startswith("stripe")] == []


def test_authorize_with_capture_captures_at_once(connector, at_stripe):
    result = connector.authorize(_request(capture=True))

    assert result.outcome is Outcome.APPROVED
    assert at_stripe.v1.payment_intents.retrieve(result.processor_reference).status == "succeeded"


def test_partial_capture_then_partial_and_full_refunds(connector, at_stripe):
    authorized = connector.authorize(_request(amount=5000))
    reference = authorized.processor_reference

    captured = connector.capture(processor_reference=reference, amount=4000, currency="USD", reference="t1:capture")
    first = connector.refund(processor_reference=reference, amount=1000, currency="USD", reference=str(uuid.uuid4()))
    rest = connector.refund(processor_reference=reference, amount=3000, currency="USD", reference=str(uuid.uuid4()))

    assert (captured.outcome, first.outcome, rest.outcome) == (Outcome.APPROVED,) * 3
    assert at_stripe.v1.payment_intents.retrieve(reference).status == "succeeded"
    assert at_stripe.v1.refunds.retrieve(first.processor_reference).amount == 1000
    refunded = [refund.amount for refund in at_stripe.v1.refunds.list(params={"payment_intent": reference}).data]
    # The fake refunds the 1000 left uncaptured itself; ours are the 1000 and the 3000.
    assert sorted(refunded) == [1000, 1000, 3000]


def test_void_cancels_the_payment_intent(connector, at_stripe):
    authorized = connector.authorize(_request())

    result = connector.void(processor_reference=authorized.processor_reference, reference="t2:void")

    assert result.outcome is Outcome.APPROVED
    assert at_stripe.v1.payment_intents.retrieve(authorized.processor_reference).status == "canceled"


def test_a_charge_time_decline_is_a_decline_with_the_raw_code(connector):
    result = connector.authorize(_request("4000000000000341"))

    assert result.outcome is Outcome.DECLINED
    assert result.error_code == "issuer_decline"
    assert result.raw_response_code == "card_declined"


@pytest.mark.parametrize(
    ("number", "error_code", "raw"),
    [
        ("4000000000000002", "issuer_decline", "generic_decline"),
        ("4000000000009995", "insufficient_funds", "insufficient_funds"),
        ("4000000000009987", "restricted_card", "lost_card"),
        ("4000000000009979", "restricted_card", "stolen_card"),
        ("4000000000000069", "expired_card", "expired_card"),
        ("4000000000000127", "incorrect_cvv", "incorrect_cvc"),
        ("4000000000000119", "processing_error", "processing_error"),
    ],
    ids=lambda value: value if not value.isdigit() else value[-4:],
)
def test_stripes_decline_codes_map_to_upstream_error_codes(connector, number, error_code, raw):
    result = connector.authorize(_request(number))

    assert (result.outcome, result.error_code, result.raw_response_code) == (Outcome.DECLINED, error_code, raw)


def test_a_card_asking_for_authentication_waits_for_the_buyer(connector):
    result = connector.authorize(_request("4000002760003184"))

    assert result.outcome is Outcome.BUYER_ACTION
    assert result.processor_reference.startswith("pi_")
    assert result.raw_response_code == "requires_action"


def test_the_buyers_step_needs_a_publishable_key_and_reads_the_client_secret_from_stripe(connector, settings):
    waiting = connector.authorize(_request("4000002760003184"))
    with_key = StripeConnector(secret_key=KEY, publishable_key="pk_test_1")

    action = with_key.buyer_action(processor_reference=waiting.processor_reference)

    assert (connector.buyer_can_act, with_key.buyer_can_act) == (False, True)
    assert action is not None
    assert (action.script_url, action.publishable_key) == (settings.PROCESSORS["stripe"]["JS_URL"], "pk_test_1")
    assert action.client_secret.startswith(f"{waiting.processor_reference}_secret_")
    assert action.client_secret not in repr(action)
    assert with_key.buyer_result(processor_reference=waiting.processor_reference).outcome is Outcome.BUYER_ACTION


def test_a_stopped_stripe_is_no_answer_not_a_decline(settings):
    with localstripe() as fake:
        override_processor(settings, "stripe", API_BASE=fake.url)
        connector = StripeConnector(secret_key=KEY)
        assert connector.authorize(_request()).outcome is Outcome.APPROVED
        fake.stop()

        result = connector.authorize(_request())

    assert result.outcome is Outcome.FAILED
    assert result.error_code == "service_error"
    with pytest.raises(OutcomeUnknown):
        connector.lookup(reference="anything")


def test_a_refused_key_is_no_answer(stripe_api):
    result = StripeConnector(secret_key="pk_test_wrong_kind_of_key").authorize(_request())

    assert result.outcome is Outcome.FAILED
    assert result.error_code == "invalid_service_configuration"


def test_lookup_answers_from_what_stripe_holds(connector):
    request = _request()
    authorized = connector.authorize(request)
    declined_request = _request("4000000000000341")
    connector.authorize(declined_request)

    found = connector.lookup(reference=request.reference)
    declined = connector.lookup(reference=declined_request.reference)
    before_capture = connector.lookup(reference=f"{request.reference}:capture")
    connector.capture(
        processor_reference=authorized.processor_reference, amount=1299, currency="USD", reference="x:capture"
    )
    after_capture = connector.lookup(reference=f"{request.reference}:capture")

    assert (found.outcome, found.processor_reference) == (Outcome.APPROVED, authorized.processor_reference)
    assert declined.outcome is Outcome.DECLINED
    assert before_capture is None
    assert after_capture.outcome is Outcome.APPROVED
    assert connector.lookup(reference=str(uuid.uuid4())) is None


def test_lookup_finds_a_refund_by_our_reference(connector):
    authorized = connector.authorize(_request(capture=True))
    reference = str(uuid.uuid4())
    refunded = connector.refund(
        processor_reference=authorized.processor_reference, amount=500, currency="USD", reference=reference
    )

    found = connector.lookup(reference=reference)

    assert (found.outcome, found.processor_reference) == (Outcome.APPROVED, refunded.processor_reference)


def test_every_write_carries_an_idempotency_key_made_from_our_reference(connector, monkeypatch):
    sent = []
    original = requests.Session.request

    def spy(self, method, url, **kwargs):
        sent.append((method.lower(), url.split("/v1/")[1], (kwargs.get("headers") or {}).get("Idempotency-Key")))
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", spy)
    request = _request()

    authorized = connector.authorize(request)
    connector.capture(
        processor_reference=authorized.processor_reference, amount=1299, currency="USD", reference="r1:capture"
    )

    assert sent == [
        ("post", "payment_methods", f"{request.reference}:payment-method"),
        ("post", "payment_intents", f"{request.reference}:authorize"),
        ("post", f"payment_intents/{authorized.processor_reference}/capture", "r1:capture"),
    ]


@pytest.mark.parametrize(
    ("credentials", "field"),
    [
        ({"secret_key": "sk_test_good_key_0123"}, None),
        ({"secret_key": "sk_"}, "secret_key"),  # refused by Stripe itself (the fields' shapes are their rules': below)
    ],
    ids=["accepted", "refused-by-stripe"],
)
def test_verify_names_the_field_stripe_refused(stripe_api, credentials, field):
    problem = PROCESSOR.verify(credentials)

    assert (problem.field if problem else None) == field


def test_an_answer_lost_after_sending_is_settled_from_what_stripe_holds(connector, at_stripe, monkeypatch):
    request = _request()
    first = connector.authorize(request)
    answers_lost(monkeypatch, ("POST", "/v1/payment_intents"))

    again = connector.authorize(request)  # the retry's answer is lost: Stripe already holds the payment

    assert (again.outcome, again.processor_reference) == (Outcome.APPROVED, first.processor_reference)
    found = [pi.id for pi in at_stripe.v1.payment_intents.list(params={"limit": 100}).data]
    assert found.count(first.processor_reference) == 1


def test_a_lost_answer_is_settled_from_the_payment_stripe_made(connector, at_stripe, monkeypatch):
    answers_lost(monkeypatch, ("POST", "/v1/payment_intents"))

    result = connector.authorize(_request())

    found = [pi.id for pi in at_stripe.v1.payment_intents.list(params={"limit": 100}).data]
    assert result.outcome is Outcome.APPROVED
    assert found.count(result.processor_reference) == 1


def test_a_lost_answer_stripe_does_not_hold_is_no_answer(connector, monkeypatch):
    answers_lost(monkeypatch, ("POST", "/v1/payment_intents"), acted=False)

    result = connector.authorize(_request())

    assert (result.outcome, result.error_code) == (Outcome.FAILED, "service_error")


def test_a_lost_answer_stripe_cannot_be_asked_about_stays_unknown(connector, monkeypatch):
    answers_lost(monkeypatch, ("POST", "/v1/payment_intents"), ("GET", "/v1/payment_intents"))

    with pytest.raises(OutcomeUnknown):
        connector.authorize(_request())


def test_a_payment_reads_stripes_answers_without_building_the_librarys_objects(connector, monkeypatch):
    """The payment's two creates are read as Stripe's JSON: building the library's typed objects from them was about
    a tenth of a payment's CPU here."""
    built = []
    construct = stripe.StripeObject._construct_from.__func__

    def recording(cls, **kwargs):
        built.append(cls.__name__)
        return construct(cls, **kwargs)

    monkeypatch.setattr(stripe.StripeObject, "_construct_from", classmethod(recording))

    result = connector.authorize(_request())

    assert (result.outcome, built) == (Outcome.APPROVED, [])
    connector.capture(
        processor_reference=result.processor_reference, amount=1299, currency="USD", reference=str(uuid.uuid4())
    )
    assert built  # the recording sees the typed calls the other operations still make


def test_stripes_own_5xx_is_no_answer(connector, monkeypatch):
    def failing(*args, **kwargs):
        raise stripe.APIError("internal error", http_status=500)

    monkeypatch.setattr(connector._client.v1.payment_intents, "capture", failing)

    result = connector.capture(processor_reference="pi_missing", amount=100, currency="USD", reference="z:capture")

    assert (result.outcome, result.raw_response_code) == (Outcome.FAILED, "500")


def test_payments_in_a_worker_share_one_connection_to_stripe(stripe_api, settings):
    with tcp_front(stripe_api.port) as front:
        override_processor(settings, "stripe", API_BASE=front.url)
        for _ in range(5):  # five payments, each with its own connector and deadline, as routing makes them
            connector = StripeConnector(secret_key=KEY, deadline=time.monotonic() + 30)
            authorized = connector.authorize(_request())
            assert authorized.outcome is Outcome.APPROVED
            captured = connector.capture(
                processor_reference=authorized.processor_reference,
                amount=1299,
                currency="USD",
                reference=f"{uuid.uuid4()}:capture",
            )
            assert captured.outcome is Outcome.APPROVED

        assert len(front.accepted) == 1


def test_each_thread_and_process_has_its_own_session():
    here = thread_session("stripe")
    elsewhere: list[requests.Session] = []
    thread = threading.Thread(target=lambda: elsewhere.append(thread_session("stripe")))
    thread.start()
    thread.join()

    assert thread_session("stripe") is here
    assert elsewhere[0] is not here


def test_a_call_waits_no_longer_than_what_is_left_of_the_payments_time(settings, monkeypatch):
    override_processor(settings, "stripe", TIMEOUT_SECONDS=30)
    waits: list[float] = []
    original = requests.Session.request

    def spy(self, method, url, **kwargs):
        waits.append(kwargs["timeout"])
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", spy)
    with tcp_front(None) as silent:  # takes the request and never answers
        override_processor(settings, "stripe", API_BASE=silent.url)
        deadline = time.monotonic() + 1
        result = StripeConnector(secret_key=KEY, deadline=deadline).authorize(_request())

    assert (result.outcome, result.error_code) == (Outcome.FAILED, "service_error")
    assert len(waits) == 1
    assert MIN_CALL_SECONDS <= waits[0] <= 1


def test_the_environment_is_read_once_per_host_not_on_every_call(connector, monkeypatch):
    reads = environment_reads(monkeypatch, "stripe")

    for _ in range(2):  # two payments: four calls (the card's PaymentMethod, then the PaymentIntent)
        assert connector.authorize(_request()).outcome is Outcome.APPROVED

    assert len(reads) == 1


@pytest.mark.parametrize("excepted", [False, True])
def test_a_proxy_the_environment_names_carries_the_calls_but_to_its_exceptions(settings, monkeypatch, excepted):
    thread_session("stripe").proxies.clear()
    with tcp_front(None) as proxy:  # takes the request and never answers
        for name in ("http_proxy", "no_proxy", "all_proxy", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        if excepted:
            monkeypatch.setenv("NO_PROXY", "stripe.invalid")
        override_processor(settings, "stripe", API_BASE="http://stripe.invalid")
        result = StripeConnector(secret_key=KEY, deadline=time.monotonic() + 1).authorize(_request())

    assert result.outcome is Outcome.FAILED
    assert len(proxy.accepted) == (0 if excepted else 1)  # an exception connects directly (and finds no such host)
    thread_session("stripe").proxies.clear()  # the next test's environment is its own
