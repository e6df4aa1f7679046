"""Another process's announcement of a change, as this process's subscription receives it (payments/held_states.py)."""

from __future__ import annotations

from django.core.cache import caches

from payments import held_states

# Ample for a message on a local socket; the wait ends as soon as it is there.
ARRIVAL_SECONDS = 2.0


def announce_elsewhere(name: str) -> None:
    """Publish `name` on the changes channel as another process would, and return once it has reached this process's
    subscription. Redis answers a PUBLISH in the same pass as it writes the message to the subscribers, but may answer
    the publisher a moment first: a test that reads the subscription straight after could find it still empty."""
    cache = caches["default"]
    connection = held_states.held_states._connection
    assert connection is not None, "subscribed before the announcement (a held state was read)"
    cache.client.get_client(write=True).publish(held_states.changes_channel(cache), name)
    assert connection.can_read(timeout=ARRIVAL_SECONDS), f"the announcement of {name} never arrived"
