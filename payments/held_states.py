"""States held by one process, each dropped the moment a change to it is announced: API keys' states (by `kid`,
payments.accounts.selectors) and each merchant account's routable payment services (paymentservices.selectors).

Every change announces the name of what changed on a Redis channel, after it commits (an API key's new state is
first written into the shared cache: `payments.accounts.selectors.api_key_publish`). A process subscribes to that
channel and holds the states it has read; before a held state is trusted, the messages already on the subscription's
socket are read without waiting, and each drops the state it names. Redis writes a message to every subscriber in
the same pass as it answers the PUBLISH (microseconds apart, the answer sometimes first), and the change's own answer
waits for that PUBLISH: a request that follows the change, on any host, comes after that answer has crossed the
network and finds the message there. So a deleted or disabled key is refused at once, and a payment service switched
off is not routed to, as if the shared cache or the database were read on every request, without a round trip on
every request. In a server with threads, what one thread read while another applied a change is not
held: it may be older than that change (`changes_seen`).

Nothing is held while there is no subscription (no Redis, Redis unreachable, the subscription not yet confirmed or
broken): then every request reads the shared cache or the database, as before. A broken subscription drops
everything held, since a message may have been lost with it, and is made again at most once a second.

A link can also die without being closed (a host's network cut, a middlebox forgetting the connection): nothing
arrives, which looks like nothing changed. So what is held is trusted only within `LINK_SECONDS` of the last word
from Redis on the subscription. Past that, the request reads the shared cache and asks Redis for a PING, whose
answer, read by a later request, makes the link trusted again; a PING unanswered for `LINK_SECONDS` breaks the
subscription. A busy process therefore pays one shared cache read and one PING a second.

The channel and the subscription's client name still say `api-key-changes`, from when keys were all it carried: a
process of the previous release, during a rolling deploy, hears key changes on the channel it knows.
"""

from __future__ import annotations

import logging
import os
import time
from threading import Lock
from typing import Any

from django.core.cache import BaseCache
from redis import Redis
from redis.backoff import NoBackoff
from redis.connection import AbstractConnection
from redis.exceptions import RedisError
from redis.retry import Retry

logger = logging.getLogger(__name__)

# How long a broken or refused subscription waits before it is tried again: requests meanwhile read the shared cache.
RESUBSCRIBE_SECONDS = 1.0
# How long after its last word from Redis the subscription is trusted; as long again for the answer to a PING.
LINK_SECONDS = 1.0
# The most states a process holds. Dropping one is always safe (the next request reads it again), so a process that
# has served more keys and accounts than this starts over instead of growing without bound.
HELD_MAX = 10_000


class HeldStates:
    """The states this process holds, by name, each until its expiry; only while subscribed to the changes."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[float, object]] = {}
        self._connection: AbstractConnection | None = None
        self._retry_at = 0.0
        self._heard_at = 0.0  # when the subscription last read anything from Redis
        self._pinged_at: float | None = None  # when a PING was sent that has not been answered yet
        self._lock = Lock()  # one reader of the subscription at a time, in a server with threads
        self._changes = 0  # changes applied or made here so far (`changes_seen`)
        os.register_at_fork(after_in_child=self._forked)

    def get(self, cache: BaseCache, name: str) -> object | None:
        """The state held as `name`, once every change already announced has been applied; None if none is."""
        with self._lock:
            if not self._subscribed(cache):
                return None
            entry = self._states.get(name)
        if entry is None or entry[0] <= time.monotonic():
            return None
        return entry[1]

    def changes_seen(self) -> int:
        """How many changes this process has applied or made: taken after `get` and before the read whose result may be
        held, and given to `hold`. In a server with threads, another thread may apply a change's announcement while
        this one reads; what this one read may be older than that change, so it is not held."""
        with self._lock:
            return self._changes

    def hold(self, name: str, state: object, ttl: float, *, seen: int) -> None:
        """Keep a state read since `changes_seen` answered `seen` (from the shared cache, or the database); a change
        announced after that read drops it at the next `get`, since announcements are applied before anything held is
        trusted, and one applied meanwhile keeps it from being held at all."""
        with self._lock:
            if self._connection is not None and seen == self._changes:
                if len(self._states) >= HELD_MAX:
                    self._states.clear()
                self._states[name] = (time.monotonic() + ttl, state)

    def announce(self, cache: BaseCache, name: str) -> None:
        """Tell every process that what is held as `name` changed (and committed). This process forgets it at once:
        its own next read must not wait for the announcement to come back."""
        redis = _redis(cache)
        if redis is not None:  # the embedded cache has no other process to tell
            redis.publish(changes_channel(cache), name)
        self.forget(name)

    def forget(self, name: str) -> None:
        """Drop what this process holds as `name` (a change not yet committed: others are told when it is)."""
        with self._lock:
            self._changes += 1
            self._states.pop(name, None)

    def forget_all(self) -> None:
        """Drop every held state (the subscription stays)."""
        with self._lock:
            self._changes += 1
            self._states.clear()

    def _forked(self) -> None:
        # A forked child makes its own subscription; the socket it inherited is the parent's, left to it.
        self._lock = Lock()
        self._states.clear()
        self._connection = None
        self._retry_at = 0.0
        self._pinged_at = None

    def _subscribed(self, cache: BaseCache) -> bool:
        connection = self._connection
        if connection is None:
            return self._subscribe(cache)
        try:
            while connection.can_read(timeout=0):
                self._apply(connection.read_response(push_request=True))
                self._heard_at, self._pinged_at = time.monotonic(), None
            return self._link_trusted(connection)
        except (RedisError, OSError):
            logger.warning("The subscription to API key changes broke: keys are read from the shared cache.")
            self._unsubscribe(connection)
            return False

    def _link_trusted(self, connection: AbstractConnection) -> bool:
        """Whether Redis was heard from lately; if not, ask it (and trust nothing until it answers)."""
        now = time.monotonic()
        if now - self._heard_at <= LINK_SECONDS:
            return True
        if self._pinged_at is None:
            connection.send_command("PING")  # type: ignore[no-untyped-call]
            self._pinged_at = now
        elif now - self._pinged_at > LINK_SECONDS:
            raise TimeoutError("no answer to a PING on the subscription")
        return False

    def _apply(self, message: Any) -> None:
        if isinstance(message, list) and len(message) == 3 and message[0] == b"message":
            self._changes += 1
            self._states.pop(message[2].decode(), None)

    def _subscribe(self, cache: BaseCache) -> bool:
        redis = _redis(cache)
        if redis is None or time.monotonic() < self._retry_at:
            return False  # the embedded cache lives in this process: nothing to hold apart from it
        connection = _connection_like(redis)
        try:
            connection.send_command("SUBSCRIBE", changes_channel(cache))  # type: ignore[no-untyped-call]
            confirmation = connection.read_response(push_request=True)
        except (RedisError, OSError):
            self._unsubscribe(connection)
            return False
        if not (isinstance(confirmation, list) and confirmation[0] == b"subscribe"):
            self._unsubscribe(connection)
            return False
        self._connection = connection
        self._heard_at, self._pinged_at = time.monotonic(), None
        return True

    def _unsubscribe(self, connection: AbstractConnection) -> None:
        self._changes += 1
        self._states.clear()
        self._connection = None
        self._retry_at = time.monotonic() + RESUBSCRIBE_SECONDS
        connection.disconnect()  # type: ignore[no-untyped-call]


def changes_channel(cache: BaseCache) -> str:
    """The channel changes are announced on: named with the cache's key prefix, since channels span Redis's
    databases."""
    return cache.make_key("api-key-changes")


def subscription_name(pid: int) -> str:
    """The Redis client name of process `pid`'s subscription."""
    return f"api-key-changes:{pid}"


def _redis(cache: BaseCache) -> Redis | None:
    """The shared cache's Redis (the server it writes to, where changes are announced); None for the embedded
    cache."""
    client = getattr(cache, "client", None)
    return client.get_client(write=True) if client is not None else None


def _connection_like(redis: Redis) -> AbstractConnection:
    """A connection of its own to the shared cache's Redis, with the cache's address and timeouts, that never
    reconnects by itself: a reconnection could miss a message, so a broken one must be seen and dropped."""
    pool = redis.connection_pool
    # Named with the process, so that `CLIENT LIST` tells an operator whose subscription each one is.
    kwargs = {**pool.connection_kwargs, "retry": Retry(NoBackoff(), 0), "client_name": subscription_name(os.getpid())}
    connection: AbstractConnection = pool.connection_class(**kwargs)
    return connection


# The one subscription of this process, for everything it holds.
held_states = HeldStates()
