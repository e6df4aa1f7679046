"""Compare two runs of the suite by their JUnit reports: the first (a clone with nothing beside it, on SQLite) may skip
only what the second (with ../shared beside it, on PostgreSQL + Redis) skips, besides the tests that need PostgreSQL,
and must run as many cases of each test as the second. Exits 1 naming each difference, 0 with a summary of both runs.

Tests are compared by name without their parameters, counting cases: some parameters are made afresh on each run
(a random id), so one case's full name need not be the same in both.

    python3 .ci/same_skips.py CLONE.xml REFERENCE.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# The skip reason of `@pytest.mark.postgres` tests on SQLite (conftest.py): the embedded default always skips them.
POSTGRES_ONLY = "needs PostgreSQL"


@dataclass
class Run:
    cases: Counter[str]  # cases per test
    skips: Counter[tuple[str, str]]  # skipped cases per test and reason

    @classmethod
    def read(cls, report: Path) -> Run:
        run = cls(Counter(), Counter())
        for case in ElementTree.parse(report).iter("testcase"):  # noqa: S314 - our own pytest's report
            test = f"{case.get('classname')}::{str(case.get('name')).split('[', 1)[0]}"
            run.cases[test] += 1
            skipped = case.find("skipped")
            if skipped is not None:
                run.skips[test, skipped.get("message", "")] += 1
        return run

    def summary(self, name: str) -> str:
        postgres = sum(count for (_, reason), count in self.skips.items() if reason.startswith(POSTGRES_ONLY))
        return f"{name}: {self.cases.total()} tests, {self.skips.total()} skipped ({postgres} needing PostgreSQL)"


def differences(clone: Run, reference: Run) -> list[str]:
    """What the clone's run skipped, or did not run, that the reference run ran."""
    problems = [
        f"skipped only in the clone: {test}, {count - reference.skips[test, reason]} case(s) ({reason})"
        for (test, reason), count in sorted(clone.skips.items())
        if count > reference.skips[test, reason] and not reason.startswith(POSTGRES_ONLY)
    ]
    problems.extend(
        f"run fewer times in the clone: {test} ({clone.cases[test]} of {count} cases)"
        for test, count in sorted(reference.cases.items())
        if clone.cases[test] < count
    )
    return problems


def main(clone_report: str, reference_report: str) -> int:
    clone, reference = Run.read(Path(clone_report)), Run.read(Path(reference_report))
    if not clone.cases or not reference.cases:
        print("A report holds no tests: the runs cannot be compared.", file=sys.stderr)
        return 1
    problems = differences(clone, reference)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{clone.summary('clone, SQLite')}; {reference.summary('with ../shared, PostgreSQL')}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
