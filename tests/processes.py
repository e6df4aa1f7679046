"""Ports and child processes of the suite's doubles and servers, with nothing of Django: a processor's double started
on its own (`python -m paymentservices.processors.<name>.tests.mock`, as the guides start them) needs no settings."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
from pathlib import Path

# The root of the checkout: where the suite's processes start (`python -m ...` finds the project's packages there).
ROOT = Path(__file__).resolve().parent.parent


def stop_process(process: subprocess.Popen, *, grace: float = 30) -> None:
    """SIGTERM, `grace` seconds to stop, then SIGKILL: a server the test started never outlives it."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


# The lowest port a test's server takes; below it are the ones well-known services (PostgreSQL, Redis) listen on.
LOWEST_PORT = 10000


def free_port() -> int:
    """A port free now, below the kernel's ephemeral range when there is room. The kernel hands out ports from that
    range (to a bind to 0, and as the source port of every outgoing connection), so a port found free there may be
    another test's connection's by the time the server binds it ("Address already in use"); one below it never is."""
    highest = _ephemeral_low() - 2  # two below: a guide's receiver takes the server's port + 1
    for _ in range(100 if highest > LOWEST_PORT else 0):
        port = random.randrange(LOWEST_PORT, highest)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return LOWEST_PORT  # not Linux: the kernel's choice, as before
