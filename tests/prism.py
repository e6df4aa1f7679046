"""Prism (installed in node_modules/ by `make install`): the mock server the processors' doubles run over their
contracts in validating mode, so a request the processor's schemas refuse shows up as a violation. Each double says
what it serves (paymentservices/processors/<name>/tests/mock.py); starting Prism is the same for all."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.error
import urllib.request
from typing import IO

from tests.processes import ROOT

PRISM = ROOT / "node_modules" / ".bin" / "prism"
NOT_INSTALLED = "Prism is not installed: run `make install` (npm ci installs it into node_modules/)."


def prism_command(document: str, port: int) -> list[str]:
    """Prism serving `document` on 127.0.0.1:`port`, refusing requests that break it (`--errors`)."""
    return [str(PRISM), "mock", "--errors", "-h", "127.0.0.1", "-p", str(port), document]


def prism_environment() -> dict[str, str]:
    return {**os.environ, "SCARF_ANALYTICS": "false", "NO_COLOR": "1"}


def start_prism(document: os.PathLike[str] | str, port: int, log: IO[bytes]) -> subprocess.Popen:
    """Prism serving `document` on 127.0.0.1:`port`, refusing requests that break it (`--errors`), logging to `log`."""
    return subprocess.Popen(
        prism_command(str(document), port), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=prism_environment()
    )


def prism_wait(url: str, process: subprocess.Popen, log: IO[bytes]) -> None:
    """Return once Prism answers `url` at all (an error status too: the server is up); fail with the end of its log
    if it exits first, or after a minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"Prism exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=2)  # noqa: S310 - loopback
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("Prism did not answer within 60 seconds")
