"""Readiness probes: does each dependency answer, within a deadline? And can the vault seal card data?

Each probe runs in its own thread so the slowest one bounds the answer, and a dependency that hangs
(a half-open TCP connection, a locked database) is reported as failing instead of holding the load
balancer's probe until the worker is killed. Driver timeouts (the database's connect and statement
timeouts, Redis's socket timeouts) end the stuck threads soon after.
"""

import logging
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from django.core.cache import caches
from django.db import connections

from payments.vault.crypto import vault_round_trip

logger = logging.getLogger("payments.ops.health")

# A few threads per process are plenty: probes arrive every few seconds. If a dependency hangs long
# enough to occupy all of them, later probes wait on the queue, miss the deadline and report it.
_executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="readyz")


def database_answers(alias: str = "default", timeout: float = 2.0) -> bool:
    """`SELECT 1` on a fresh connection, bounded by a server-side statement timeout."""
    # A new connection per probe, from the current settings: a pooled thread's old connection could answer
    # for a database that is no longer reachable.
    connection = connections.create_connection(alias)
    try:
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{int(timeout * 1000)}ms"])
            cursor.execute("SELECT 1")
            row: tuple[object, ...] | None = cursor.fetchone()
            return row == (1,)
    finally:
        connection.close()


def cache_answers(alias: str) -> bool:
    """A value written to the cache reads back; a unique key per probe keeps concurrent probes apart."""
    cache = caches[alias]
    key, value = f"readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    cache.set(key, value, timeout=10)
    stored: object = cache.get(key)
    return stored == value


def vault_seals() -> bool:
    """Card data can be sealed, opened and key-hashed with the configured keys: what every card payment needs."""
    vault_round_trip()  # raises VaultError (its message never quotes a key) when it cannot
    return True


def default_checks(timeout: float) -> dict[str, Callable[[], bool]]:
    return {
        "database": lambda: database_answers("default", timeout),
        "cache": lambda: cache_answers("default"),
        "ratelimit_cache": lambda: cache_answers("ratelimit"),
        "vault": vault_seals,
    }


def failing_dependencies(checks: dict[str, Callable[[], bool]], timeout: float) -> list[str]:
    """Run every check at once; return the names of those that failed, raised, or missed the deadline."""
    futures = {name: _executor.submit(check) for name, check in checks.items()}
    wait(futures.values(), timeout=timeout)
    return [name for name, future in futures.items() if not _passed(name, future)]


def _passed(name: str, future: Future[bool]) -> bool:
    if not future.done():
        future.cancel()  # still queued behind stuck probes: do not run it late
        logger.warning("Readiness check timed out: %s", name)
        return False
    try:
        if future.result() is True:
            return True
        logger.warning("Readiness check failed: %s gave a wrong answer", name)
    except Exception:  # any failure of a dependency means not ready
        logger.warning("Readiness check failed: %s", name, exc_info=True)
    return False
