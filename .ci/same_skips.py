"""Compare two runs of the suite by their JUnit reports: the first (a clone with nothing beside it, on SQLite) may skip
only what the second (with ../shared beside it, on PostgreSQL + Redis) skips, besides the tests that need PostgreSQL,
and must run every test the second runs. Exits 1 naming each difference, 0 with a one-line summary of both runs.

    python3 .ci/same_skips.py CLONE.xml REFERENCE.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

# The skip reason of `@pytest.mark.postgres` tests on SQLite (conftest.py): the embedded default always skips them.
POSTGRES_ONLY = "needs PostgreSQL"


def outcomes(report: Path) -> dict[str, str | None]:
    """Every test of a run by its id: its skip reason, or None when it ran."""
    tests: dict[str, str | None] = {}
    for case in ElementTree.parse(report).iter("testcase"):  # noqa: S314 - our own pytest's report
        skipped = case.find("skipped")
        tests[f"{case.get('classname')}::{case.get('name')}"] = None if skipped is None else skipped.get("message", "")
    return tests


def differences(clone: dict[str, str | None], reference: dict[str, str | None]) -> list[str]:
    """What the clone's run skipped or left out that the reference run ran."""
    problems = []
    for test, reason in sorted(clone.items()):
        if reason is not None and reference.get(test) is None and not reason.startswith(POSTGRES_ONLY):
            problems.append(f"skipped only in the clone: {test} ({reason})")
    problems.extend(f"not run in the clone: {test}" for test in sorted(reference.keys() - clone.keys()))
    return problems


def summary(name: str, tests: dict[str, str | None]) -> str:
    skipped = [reason for reason in tests.values() if reason is not None]
    postgres = sum(reason.startswith(POSTGRES_ONLY) for reason in skipped)
    return f"{name}: {len(tests)} tests, {len(skipped)} skipped ({postgres} needing PostgreSQL)"


def main(clone_report: str, reference_report: str) -> int:
    clone, reference = outcomes(Path(clone_report)), outcomes(Path(reference_report))
    if not clone or not reference:
        print("A report holds no tests: the runs cannot be compared.", file=sys.stderr)
        return 1
    problems = differences(clone, reference)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{summary('clone, SQLite', clone)}; {summary('with ../shared, PostgreSQL', reference)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
