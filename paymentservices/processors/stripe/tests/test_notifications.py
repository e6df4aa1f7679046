"""A service's `webhook_url`: Stripe's notifications verified with the service's webhook secret, recorded once and
handed to the registered handlers; anything unsigned or forged is a 400 and changes nothing."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.request
import uuid

import pytest
import stripe

from payments.connectors.base import AuthorizationRequest, CardDetails
from payments.tests.assertions import assert_error
from paymentservices import notifications
from paymentservices.models import InboundNotification
from paymentservices.processors.stripe.connector import StripeConnector
from paymentservices.processors.stripe.tests.mock import localstripe
from paymentservices.processors.tests.overrides import override_processor
from paymentservices.tests.factories import PaymentServiceFactory

WEBHOOK_SECRET = "whsec_test_notifications_0123"


@pytest.fixture
def service(merchant_account):
    return PaymentServiceFactory(
        fields=[
            {"key": "secret_key", "value": "sk_test_notifications_0123"},
            {"key": "webhook_secret", "value": WEBHOOK_SECRET},
        ]
    )


def _event(event_type="payment_intent.succeeded", *, event_id=None, reference="txn-1") -> bytes:
    intent = {"id": "pi_123", "object": "payment_intent", "status": "succeeded", "metadata": {"reference": reference}}
    body = {"id": event_id or f"evt_{uuid.uuid4().hex}", "object": "event", "type": event_type}
    return json.dumps({**body, "data": {"object": intent}}).encode()


def _signature(payload: bytes, secret: str = WEBHOOK_SECRET, at: int | None = None) -> str:
    timestamp = at or int(time.time())
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def _post(client, service, payload: bytes, signature: str | None):
    headers = {} if signature is None else {"HTTP_STRIPE_SIGNATURE": signature}
    path = f"/inbound/payment-services/{service.pk}/notifications"
    return client.post(path, payload, content_type="application/json", **headers)


@pytest.mark.django_db
def test_a_signed_notification_reaches_the_handlers_once(client, service, received):
    payload = _event(event_id="evt_once")

    first = _post(client, service, payload, _signature(payload))
    again = _post(client, service, payload, _signature(payload))

    assert (first.status_code, again.status_code) == (200, 200)
    assert [(e.event_id, e.event_type, e.object_id, e.reference) for e in received] == [
        ("evt_once", "payment_intent.succeeded", "pi_123", "txn-1")
    ]
    assert received[0].payment_service == service
    assert InboundNotification.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "signature",
    [
        None,
        "",
        "t=1,v1=deadbeef",
        "forged-by-another-secret",
        "stale",
    ],
    ids=["unsigned", "empty", "garbage", "other-secret", "too-old"],
)
def test_an_unsigned_or_forged_notification_is_refused_and_changes_nothing(client, service, received, signature):
    payload = _event()
    if signature == "forged-by-another-secret":
        signature = _signature(payload, "whsec_someone_else")
    elif signature == "stale":
        signature = _signature(payload, at=int(time.time()) - 3600)

    response = _post(client, service, payload, signature)

    assert_error(response, 400, "/stripe-signature", location="header")
    assert received == []
    assert InboundNotification.objects.count() == 0


@pytest.mark.django_db
def test_a_body_that_is_not_the_signed_one_is_refused(client, service, received):
    payload = _event()
    signature = _signature(payload)

    response = _post(client, service, payload.replace(b"txn-1", b"txn-2"), signature)

    assert_error(response, 400)
    assert received == []


@pytest.mark.django_db
def test_a_failing_handler_records_nothing_so_the_resend_is_handled(client, service):
    calls = []

    def flaky(event):
        calls.append(event.event_id)
        if len(calls) == 1:
            raise RuntimeError("database unavailable")

    notifications.register(flaky)
    try:
        payload = _event(event_id="evt_retry")
        client.raise_request_exception = False
        assert_error(_post(client, service, payload, _signature(payload)), 500)  # Stripe resends on any non-2xx
        assert InboundNotification.objects.count() == 0
        assert _post(client, service, payload, _signature(payload)).status_code == 200
    finally:
        notifications.unregister(flaky)
    assert calls == ["evt_retry", "evt_retry"]


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["unknown-service", "malformed-id", "sandbox", "no-webhook-secret"])
def test_urls_that_take_no_notifications(client, merchant_account, case):
    from paymentservices.models import PaymentService

    payload = _event()
    if case == "unknown-service":
        path_id = str(uuid.uuid4())
    elif case == "malformed-id":
        path_id = "not-a-uuid"
    elif case == "sandbox":
        path_id = str(PaymentService.objects.get(definition_id="mock-card").pk)
    else:
        path_id = str(PaymentServiceFactory().pk)

    response = client.post(
        f"/inbound/payment-services/{path_id}/notifications",
        payload,
        content_type="application/json",
        HTTP_STRIPE_SIGNATURE=_signature(payload),
    )

    assert_error(response, 400 if case == "no-webhook-secret" else 404)
    assert InboundNotification.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_capture_made_at_stripe_reaches_the_webhook_url(live_server, merchant_account, settings, received):
    """localstripe signs and sends its own event to the URL the service answers as its `webhook_url`."""
    with localstripe() as fake:
        override_processor(settings, "stripe", API_BASE=fake.url)
        service = PaymentServiceFactory(
            fields=[
                {"key": "secret_key", "value": "sk_test_live_0123"},
                {"key": "webhook_secret", "value": WEBHOOK_SECRET},
            ]
        )
        settings.PUBLIC_BASE_URL = live_server.url
        from paymentservices.api.serializers import webhook_url

        url = webhook_url(service, None)
        body = f"url={url}&secret={WEBHOOK_SECRET}&events[]=payment_intent.succeeded".encode()
        urllib.request.urlopen(urllib.request.Request(f"{fake.url}/_config/webhooks/ours", data=body))  # noqa: S310
        reference = str(uuid.uuid4())
        card = CardDetails(number="4242424242424242", expiration_month=12, expiration_year=2034, security_code="123")
        authorized = StripeConnector(secret_key="sk_test_live_0123").authorize(
            AuthorizationRequest(card=card, amount=1000, currency="EUR", capture=False, reference=reference)
        )
        # The merchant captures in Stripe's dashboard: here, straight through Stripe's library.
        stripe.StripeClient("sk_test_live_0123", base_addresses={"api": fake.url}).v1.payment_intents.capture(
            authorized.processor_reference
        )

        deadline = time.monotonic() + 20
        while not received and time.monotonic() < deadline:
            time.sleep(0.2)

    assert [(e.event_type, e.object_id, e.reference) for e in received] == [
        ("payment_intent.succeeded", authorized.processor_reference, reference)
    ]
