"""A process holds the API key states it has read while it hears every change announced (payments/
held_states.py): no shared cache read per request, and a change announced by another process, or a broken
subscription, is applied before the next request trusts anything held. Needs Redis as the shared cache (the
PostgreSQL and Redis run); across processes: tests/test_api_keys_processes.py."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.core.cache import caches

from payments import held_states
from payments.accounts import selectors
from payments.tests.announcements import announce_elsewhere

# Redis runs beside PostgreSQL (the CI's second run), never beside SQLite.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db, pytest.mark.usefixtures("redis_required")]

URL = "/buyers"


@pytest.fixture
def shared_cache_reads(monkeypatch):
    """How many times the shared cache is read, from the moment this fixture is asked for."""
    cache = caches["default"]
    reads = []
    read = cache.get

    def counted(*args, **kwargs):
        reads.append(args[0])
        return read(*args, **kwargs)

    monkeypatch.setattr(cache, "get", counted)
    return reads


def _written_elsewhere(kid: str, *, announced: bool) -> None:
    """What another process's change to the key leaves here: the key inactive in the shared cache, and (unless the
    message was lost) its announcement."""
    cache = caches["default"]
    cache.set(selectors._key_cache_key(kid), selectors._INACTIVE, 60)
    if announced:
        announce_elsewhere(kid)


def test_a_key_read_once_is_held_without_another_read(api_client, api_key, shared_cache_reads):
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200
    assert len(shared_cache_reads) == 1

    for _ in range(3):
        assert client.get(URL).status_code == 200

    assert len(shared_cache_reads) == 1


def test_a_change_announced_elsewhere_is_refused_on_the_next_request(api_client, api_key):
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200

    _written_elsewhere(api_key.kid, announced=True)

    assert client.get(URL).status_code == 401


def test_a_change_that_is_never_announced_is_not_seen_while_held(api_client, api_key):
    """The control of the test above: what refuses the key there is the announcement, not a read of the cache."""
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200

    _written_elsewhere(api_key.kid, announced=False)

    assert client.get(URL).status_code == 200


def test_a_broken_subscription_drops_what_was_held(api_client, api_key, shared_cache_reads, monkeypatch):
    monkeypatch.setattr(held_states, "RESUBSCRIBE_SECONDS", 0)
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200
    _kill_subscription()
    _written_elsewhere(api_key.kid, announced=False)  # lost with the subscription

    assert client.get(URL).status_code == 401  # read from the shared cache again

    selectors.api_key_publish(api_key, kid=api_key.kid)  # active again
    assert client.get(URL).status_code == 200  # subscribed again, and holding
    reads = len(shared_cache_reads)
    assert client.get(URL).status_code == 200
    assert len(shared_cache_reads) == reads


def test_a_change_made_here_is_seen_here_at_once(api_client, api_key):
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200
    api_key.is_active = False
    api_key.save(update_fields=["is_active"])

    selectors.api_key_publish(api_key, kid=api_key.kid)

    assert client.get(URL).status_code == 401


def _kill_subscription() -> None:
    """Close this process's subscription from Redis's side, as a restart or a network fault would."""
    connection = held_states.held_states._connection
    assert connection is not None
    host, port = connection._sock.getsockname()[:2]
    caches["default"].client.get_client(write=True).execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")


class _Clock:
    """`time` as held_states reads it, `seconds` ahead of the real one."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.seconds


@pytest.fixture
def clock(monkeypatch) -> Iterator[_Clock]:
    clock = _Clock()
    monkeypatch.setattr(held_states, "time", clock)
    yield clock
    # The real clock runs behind the one the link was last heard by: as if it had never been heard.
    held_states.held_states._heard_at, held_states.held_states._pinged_at = 0.0, None


def test_a_subscription_silent_past_its_bound_is_not_trusted_until_redis_answers(
    api_client, api_key, shared_cache_reads, clock
):
    """A link that died without being closed delivers nothing, which looks like nothing changed."""
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200
    _written_elsewhere(api_key.kid, announced=False)

    clock.seconds += 2 * held_states.LINK_SECONDS

    assert client.get(URL).status_code == 401  # read from the shared cache, and a PING sent
    reads = len(shared_cache_reads)
    assert client.get(URL).status_code == 401  # Redis answered: what was read is held again
    assert len(shared_cache_reads) == reads


def test_a_ping_left_unanswered_breaks_the_subscription(api_client, api_key, clock, monkeypatch):
    client = api_client(scopes=["buyers.read"])
    assert client.get(URL).status_code == 200
    silent = held_states.held_states._connection
    monkeypatch.setattr(silent, "send_command", lambda *args, **kwargs: None)  # the PING is lost on the way

    # Silent for longer than the bound: a PING is asked for (and lost), then found unanswered. An answer to an
    # earlier PING, still on its way when the PINGs were lost, may buy one more round first.
    for _ in range(3):
        clock.seconds += 2 * held_states.LINK_SECONDS
        assert client.get(URL).status_code == 200  # the key is active: whatever is trusted says so

    assert held_states.held_states._connection is not silent
