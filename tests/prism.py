"""Prism (installed in node_modules/ by `make install`): the mock server the processors' doubles run over their
contracts in validating mode, so a request the processor's schemas refuse shows up as a violation. Each double says
what it serves (paymentservices/processors/<name>/tests/mock.py); starting Prism is the same for all."""

from __future__ import annotations

import os
import subprocess
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
