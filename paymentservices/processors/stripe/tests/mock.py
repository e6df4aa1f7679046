"""The suite's localstripe: a stateful fake of Stripe's API (the `localstripe` package), run as a real process with
the suite's additions of what Stripe does and it lacks (localstripe_declines.py, localstripe_balance.py,
localstripe_disputes.py beside this module). `localstripe()` starts one on a free port for a test or a session;
`python -m tests.mocks stripe --port 8420 --from-scratch` is that process."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from paymentservices.processors.stripe.tests.localstripe_balance import stripe_fee
from paymentservices.processors.tests.overrides import override_processor
from tests.processes import ROOT, free_port, stop_process

# What tests elsewhere use of Stripe's double, the one module of the folder they import: its process, and the fee it
# charges (which settlements read back).
__all__ = ["FakeStripe", "localstripe", "localstripe_connected", "main", "stripe_fee"]


@dataclass
class FakeStripe:
    """A localstripe process: a stateful fake of Stripe's API, reached with the official library at `url`."""

    url: str
    port: int
    process: subprocess.Popen

    def stop(self) -> None:
        stop_process(self.process, grace=10)


@contextmanager
def localstripe() -> Iterator[FakeStripe]:
    """localstripe with the suite's additions (`main`) on a free port, with an empty store (`--from-scratch`); stopped
    when the context ends."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "tests.mocks", "stripe", "--port", str(port), "--from-scratch"],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        fake = FakeStripe(f"http://127.0.0.1:{port}", port, process)
        try:
            _wait_until_answering(fake, log)
            yield fake
        finally:
            fake.stop()


@contextmanager
def localstripe_connected(settings: Any) -> Iterator[FakeStripe]:
    """A localstripe of the caller's own, with the stripe-card connector pointed at it (its `API_BASE`, a short
    timeout) through pytest-django's `settings`, which puts them back afterwards."""
    with localstripe() as running:
        override_processor(settings, "stripe", API_BASE=running.url, TIMEOUT_SECONDS=5)
        yield running


def _wait_until_answering(fake: FakeStripe, log: IO[bytes]) -> None:
    deadline = time.monotonic() + 30
    request = urllib.request.Request(  # noqa: S310 - loopback
        fake.url + "/v1/balance", headers={"Authorization": "Bearer sk_test_probe"}
    )
    while time.monotonic() < deadline:
        if fake.process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"localstripe exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(request, timeout=2):  # noqa: S310 - loopback
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("localstripe did not answer within 30 seconds")


def main() -> None:
    """localstripe's own server (its options: `--port`, `--from-scratch`), with the decline test cards, the balance
    and the disputes of Stripe that the suite adds, installed before it starts."""
    # Imported here: the tests that start localstripe load none of its server (aiohttp's app) themselves.
    from localstripe.server import start

    from paymentservices.processors.stripe.tests import localstripe_balance, localstripe_declines, localstripe_disputes

    localstripe_declines.install()
    localstripe_balance.install()
    localstripe_disputes.install()
    start()
