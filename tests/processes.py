"""Ports and child processes of the suite's doubles and servers, with nothing of Django: a processor's double started
on its own (`python -m paymentservices.processors.<name>.tests.mock`, as the guides start them) needs no settings."""

from __future__ import annotations

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
