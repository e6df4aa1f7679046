"""No code outside a processor's folder names a processor (docs/architecture.md, "Adding a processor"): what the rest
of the server knows of one it reads off the registry. The names are the registered processors' slugs (the sandbox's,
a word the server uses of itself, aside); a name in an identifier or a string of a module outside
`paymentservices/processors/<slug>/` fails, unless the place is one listed below with its reason. Comments and
docstrings are prose and may name one as an example; test modules exercise processors by name, and migrations are
history. A processor's double is its folder's (`tests/mock.py` and `tests/double.py` there): the suite's helpers
outside the folders name no processor, but the few listed."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

from paymentservices.processors import PROCESSORS
from tests.servers import ROOT

NAMES = re.compile("|".join(re.escape(p.slug) for p in PROCESSORS if not p.sandbox), re.IGNORECASE)

# Places outside the folders that name processors, each for a reason of its own.
ALLOWED = {
    "paymentservices/processors/__init__.py": "the registry: one line per processor, importing its folder",
    "contracts/": "the processors' published API documents the contract mocks serve, each under its own name",
    "bench/": "the benchmark pays through Stripe's double as a real processor's path, to measure it",
    "paymentservices/tests/factories.py": "test data: a payment service of a real processor, for the tests to route",
    "tests/conformance/payment_service_scenarios.py": "the conformance scenarios configure real processors' services",
    "tests/paused_wsgi.py": "the crash test's worker, holding Stripe's connector mid-call",
}

_WORDS = {tokenize.NAME, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
# A string that opens a statement is a docstring (or a lone expression): prose.
_STATEMENT_START = {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, None}


def _outside_the_folders(path: str) -> bool:
    parts = Path(path).parts
    test_module = "tests" in parts and parts[-1].startswith("test_")
    if test_module or "migrations" in parts or parts[-1] == "conftest.py":
        return False
    folders = {f"paymentservices/processors/{p.slug}/" for p in PROCESSORS}
    return not any(path.startswith(place) for place in (*folders, *ALLOWED))


def _named(source: str) -> list[tuple[int, str]]:
    """(line, token) of each identifier or string, not a docstring, that names a processor."""
    found = []
    previous = None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        prose = token.type == tokenize.STRING and previous in _STATEMENT_START
        if token.type in _WORDS and NAMES.search(token.string) and not prose:
            found.append((token.start[0], token.string))
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    return found


def test_no_code_outside_the_processors_folders_names_a_processor():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    paths = [path for path in tracked.stdout.split() if _outside_the_folders(path)]
    assert len(paths) > 100  # the walk found the code
    named = [f"{path}:{line}: {text}" for path in paths for line, text in _named((ROOT / path).read_text())]
    assert named == [], "\n".join(named)


def test_the_check_sees_names_in_identifiers_and_strings_but_not_in_prose():
    name = next(p.slug for p in PROCESSORS if not p.sandbox)
    source = f'"""About {name}."""\n\n# {name} too\n{name}_client = "{name.upper()}-card"\nlabel = f"x {name} y"\n'
    assert [line for line, _ in _named(source)] == [4, 4, 5]


def test_each_allowed_place_exists():
    assert all((ROOT / place).exists() for place in ALLOWED)
