"""An account's routable services are read once and held by the process while it hears every change announced
(paymentservices/selectors.py, payments/held_states.py): a payment reads them from the database only after a change,
whoever made it, and sees that change at once. Holding needs Redis as the shared cache (the PostgreSQL and Redis run);
with the embedded cache every route reads the database. Across processes: tests/test_api_keys_processes.py."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import caches

from payments import held_states
from payments.tests.announcements import announce_elsewhere
from paymentservices.models import PaymentService
from paymentservices.routing import route
from paymentservices.selectors import payment_services_routable
from paymentservices.services import payment_service_delete, payment_service_move, payment_service_update
from paymentservices.tests.factories import PaymentServiceFactory

pytestmark = pytest.mark.django_db


def _redis() -> bool:
    return "RedisCache" in settings.CACHES["default"]["BACKEND"]


# The tests of holding are marked `postgres` too, which skips them on SQLite first, by that name.
redis_only = pytest.mark.usefixtures("redis_required")


def _names(merchant_account) -> list[str]:
    return [service.display_name for service in route(merchant_account=merchant_account, currency="USD").services]


@pytest.fixture
def sandbox(merchant_account) -> PaymentService:
    return PaymentService.objects.get(merchant_account=merchant_account)


@redis_only
@pytest.mark.postgres
def test_a_second_route_reads_nothing(merchant_account, sandbox, django_assert_num_queries):
    assert _names(merchant_account) == ["Sandbox"]

    with django_assert_num_queries(0):
        assert _names(merchant_account) == ["Sandbox"]


@pytest.mark.skipif(_redis(), reason="the embedded cache's behaviour")
def test_without_redis_every_route_reads_the_database(merchant_account, sandbox, django_assert_num_queries):
    assert _names(merchant_account) == ["Sandbox"]

    with django_assert_num_queries(1):
        assert _names(merchant_account) == ["Sandbox"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(lambda service: payment_service_update(service=service, active=False), ["Sandbox"], id="off"),
        pytest.param(lambda service: payment_service_delete(service=service), ["Sandbox"], id="deleted"),
        pytest.param(
            lambda service: payment_service_update(service=service, position=1), ["Stripe", "Sandbox"], id="updated"
        ),
        pytest.param(
            lambda service: payment_service_move(service=service, position=1), ["Stripe", "Sandbox"], id="moved"
        ),
    ],
)
def test_a_change_through_the_services_is_seen_at_once(merchant_account, sandbox, change, expected):
    stripe = PaymentServiceFactory(display_name="Stripe", accepted_currencies=["USD"], accepted_countries=["US"])
    assert _names(merchant_account) == ["Sandbox", "Stripe"]

    change(stripe)

    assert _names(merchant_account) == expected


def test_a_row_saved_past_the_services_is_seen_at_once(merchant_account, sandbox):
    """The model's own save (the admin's, a factory's) tells the holders too."""
    assert _names(merchant_account) == ["Sandbox"]
    sandbox.display_name = "Renamed"

    sandbox.save(update_fields=["display_name"])

    assert _names(merchant_account) == ["Renamed"]


@redis_only
@pytest.mark.postgres
@pytest.mark.parametrize(("announced", "expected"), [(True, "Renamed elsewhere"), (False, "Sandbox")])
def test_a_change_made_elsewhere_is_seen_on_the_next_route_once_announced(
    merchant_account, sandbox, announced, expected
):
    """Without the announcement (the control), the change is not seen while held: what makes it seen is the
    announcement."""
    assert _names(merchant_account) == ["Sandbox"]
    PaymentService.objects.filter(pk=sandbox.pk).update(display_name="Renamed elsewhere")

    if announced:
        announce_elsewhere(f"payment-services:{merchant_account.pk}")

    assert _names(merchant_account) == [expected]


@redis_only
@pytest.mark.postgres
def test_each_caller_gets_copies_of_its_own(merchant_account, sandbox):
    first = payment_services_routable(merchant_account=merchant_account)
    first[0].display_name = "Changed by a caller"
    assert first[0].merchant_account.display_name  # a related object, cached on the caller's copy

    again = payment_services_routable(merchant_account=merchant_account)

    assert again[0].display_name == "Sandbox"
    assert not again[0]._state.fields_cache
    assert again[0] is not first[0]


@redis_only
@pytest.mark.postgres
def test_another_accounts_change_leaves_this_one_held(merchant_account, other_merchant_account, sandbox):
    assert _names(merchant_account) == ["Sandbox"]
    PaymentService.objects.filter(pk=sandbox.pk).update(display_name="Renamed elsewhere")

    announce_elsewhere(f"payment-services:{other_merchant_account.pk}")

    assert _names(merchant_account) == ["Sandbox"]


@redis_only
@pytest.mark.postgres
def test_a_process_holds_a_bounded_number_of_states(merchant_account, other_merchant_account, monkeypatch):
    monkeypatch.setattr(held_states, "HELD_MAX", 1)
    assert _names(merchant_account) == ["Sandbox"]
    assert _names(other_merchant_account) == ["Sandbox"]  # the first account's copy made room for this one

    PaymentService.objects.filter(merchant_account=merchant_account).update(display_name="Renamed, not announced")

    assert _names(merchant_account) == ["Renamed, not announced"]  # read again: it was no longer held


@redis_only
@pytest.mark.postgres
@pytest.mark.parametrize("changed_meanwhile", [False, True], ids=["control", "changed-meanwhile"])
def test_what_was_read_before_a_change_applied_meanwhile_is_not_held(changed_meanwhile):
    """In a server with threads, another thread may apply a change's announcement while this one reads: what this one
    read may be older than the change, so it is not held (and, the control, is held when nothing changed)."""
    held, cache, name = held_states.held_states, caches["default"], "payment-services:read-meanwhile"
    held.get(cache, name)  # subscribed
    seen = held.changes_seen()
    if changed_meanwhile:
        announce_elsewhere("payment-services:another-account")
        held.get(cache, "payment-services:another-account")  # another thread's request applies it

    held.hold(name, ("as read",), 60, seen=seen)

    assert held.get(cache, name) == (None if changed_meanwhile else ("as read",))
