"""`python -m tests.mocks <processor> --port N [its options]`: a processor's double in the foreground, as the guides
start it and the suite starts a double that runs as a process of its own. A double is its processor folder's
(`paymentservices/processors/<processor>/tests/mock.py`, whose `main()` reads the options), and nothing here names
one.

A processor's folder is a package of the processors' registry, whose `__init__` loads the server's models (Django's
app registry) and every processor's library; a double needs none of that (it runs without settings). So the folder's
parent packages are entered by their paths, their `__init__` not run, before the double is imported."""

from __future__ import annotations

import importlib
import sys
import types

from tests.processes import ROOT

PROCESSORS_PACKAGE = "paymentservices.processors"


def _enter_without_init(package: str) -> None:
    """`package` importable for its submodules, as a namespace of its directory: its own `__init__` is not run."""
    module = types.ModuleType(package)
    module.__path__ = [str(ROOT.joinpath(*package.split(".")))]
    sys.modules[package] = module


def double_module(processor: str) -> str:
    """The module of a processor's double: its folder's `tests/mock.py`."""
    return f"{PROCESSORS_PACKAGE}.{processor}.tests.mock"


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        raise SystemExit(f"usage: python -m tests.mocks <processor> [options]: a folder of {PROCESSORS_PACKAGE}")
    processor, *options = sys.argv[1:]
    folder = f"{PROCESSORS_PACKAGE}.{processor}"
    if not ROOT.joinpath(*folder.split("."), "tests", "mock.py").is_file():
        raise SystemExit(f"{processor}: no double (no {folder.replace('.', '/')}/tests/mock.py)")
    parts = folder.split(".")
    for depth in range(1, len(parts) + 1):
        _enter_without_init(".".join(parts[:depth]))
    module = double_module(processor)
    sys.argv = [f"tests.mocks {processor}", *options]  # its usage line reads as the command that ran it
    importlib.import_module(module).main()


if __name__ == "__main__":
    main()
