"""Ports and child processes of the suite's doubles and servers, with nothing of Django: a double started on its own
(`python -m tests.adyen_mock`, `python -m tests.paypal_mock`, as the guides start them) needs no settings."""

from __future__ import annotations

import signal
import socket
import subprocess


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
