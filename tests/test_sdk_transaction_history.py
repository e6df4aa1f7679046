"""The official SDK reads a transaction's events and actions, unchanged, over HTTP."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"method": "card", "number": "4111111111111111", "expiration_date": "12/39", "security_code": "123"}


def test_events_and_actions(sdk):
    created = sdk.transactions.create(amount=1299, currency="USD", payment_method=CARD)
    sdk.transactions.capture(transaction_id=created.id)

    pages = []
    page = sdk.transactions.events.list(transaction_id=created.id, limit=2)
    while page is not None:
        pages.append(page)
        page = page.next()
    events = [event for page in pages for event in page.result.items]
    actions = sdk.transactions.actions.list(transaction_id=created.id)

    assert len(pages) == 2
    assert [event.context["event"] for event in events] == [
        "capture_succeeded",
        "capture_requested",
        "authorization_succeeded",
        "transaction_created",
    ]
    assert {event.name for event in events} == {"transaction-updated-status"}
    assert actions.items == []
