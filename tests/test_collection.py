"""Every app's tests are collected by the suite, and every app ships in the package: a new app cannot be forgotten.

The suite's `testpaths` and setuptools' package list are hand-kept in pyproject.toml; this compares them with the
tree, so an app whose `tests/` folder is in neither fails here rather than passing unseen.
"""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Folders of the tree that are not the project's code.
OUTSIDE = {".venv", ".local", "node_modules", ".git", "staticfiles", "test-output"}


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _top_level_packages() -> set[str]:
    return {
        path.name
        for path in ROOT.iterdir()
        if path.is_dir() and path.name not in OUTSIDE and (path / "__init__.py").exists()
    }


def _folders_with_tests() -> set[Path]:
    return {
        path.relative_to(ROOT)
        for path in ROOT.rglob("tests")
        if path.is_dir() and not set(path.relative_to(ROOT).parts) & OUTSIDE and any(path.rglob("test_*.py"))
    }


def test_every_tests_folder_is_under_a_collected_path():
    testpaths = [Path(entry) for entry in _pyproject()["tool"]["pytest"]["ini_options"]["testpaths"]]
    forgotten = sorted(
        str(folder) for folder in _folders_with_tests() if not any(folder.is_relative_to(p) for p in testpaths)
    )
    assert not forgotten, f"tests never collected (add them to testpaths in pyproject.toml): {forgotten}"


def test_every_app_is_in_the_built_package():
    include = _pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    prefixes = {pattern.removesuffix("*") for pattern in include}
    shipped_apart = {"tests", "bench", "contracts"}  # the suite, the benchmark and the contracts' derivation
    missing = sorted(name for name in _top_level_packages() - shipped_apart if name not in prefixes)
    assert not missing, f"apps missing from [tool.setuptools.packages.find] include: {missing}"


def test_the_collection_rule_sees_the_apps_that_were_once_forgotten():
    """The rule itself looks where the forgotten apps were (a rule that sees no folder would pass for ever)."""
    folders = {str(folder) for folder in _folders_with_tests()}
    assert {"disputes/tests", "settlements/tests", "reports/tests", "tests"} <= folders
    assert {"disputes", "settlements", "reports", "transactions"} <= _top_level_packages()
