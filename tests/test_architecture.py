"""docs/architecture.md draws the floors `lint-imports` enforces: the apps' floors and the floors inside `payments`
are read from the page and from pyproject.toml's import-linter contracts, and must be the same floors in the same
order, with every app of the repository on one of them."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.servers import ROOT

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _contract(contract_id: str) -> dict:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return next(contract for contract in contracts if contract["id"] == contract_id)


def _linted_floors(contract_id: str) -> list[set[str]]:
    """The contract's layers, top first; a layer `a | b` is one floor of independent modules."""
    return [{name.strip() for name in layer.split("|")} for layer in _contract(contract_id)["layers"]]


def _documented_floors(opening: str) -> list[set[str]]:
    """The floors of the sentence that starts with `opening`: after its colon, `;`-separated, each the names in
    backticks (`a | b`, or `a`, `b` and `c`), in the page's order."""
    text = " ".join(ARCHITECTURE.read_text().split())
    assert opening in text, f"docs/architecture.md has no sentence starting {opening!r}"
    sentence = text.split(opening, 1)[1].split(":", 1)[1].split(". ", 1)[0]
    floors = []
    for part in sentence.split(";"):
        names = {name.strip() for quoted in re.findall(r"`([^`]+)`", part) for name in quoted.split("|")}
        if names:
            floors.append(names)
    return floors


def _difference(documented: list[set[str]], linted: list[set[str]]) -> str:
    only_documented = set().union(*documented) - set().union(*linted)
    only_linted = set().union(*linted) - set().union(*documented)
    return (
        f"only in docs/architecture.md: {sorted(only_documented)}; only in pyproject.toml: {sorted(only_linted)}; "
        f"documented {documented}; linted {linted}"
    )


@pytest.mark.parametrize(
    ("opening", "contract_id", "top_first"),
    [("Floors, top to bottom", "apps", True), ("Inside `payments`, from the ground up", "payments-floors", False)],
    ids=["apps", "inside-payments"],
)
def test_the_documented_floors_are_the_linted_layers(opening, contract_id, top_first):
    documented = _documented_floors(opening)
    linted = _linted_floors(contract_id)
    if not top_first:
        linted.reverse()

    assert documented == linted, _difference(documented, linted)


def test_every_app_of_the_repository_has_a_floor():
    # A Django app (a top-level package with apps.py), and config, which ties them together.
    apps = {path.parent.name for path in ROOT.glob("*/apps.py")} | {"config"}
    floors = set().union(*_linted_floors("apps"))
    root_packages = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"])

    assert apps == floors, f"apps without a floor: {sorted(apps - floors)}; floors of no app: {sorted(floors - apps)}"
    assert root_packages == floors
