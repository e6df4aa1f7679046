"""The modules of `transactions/services/` share their kernel (`state.py`) by public names only: a line of one module
can tell what it may touch of another from the names alone."""

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "services"


def _underscore_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        f"{path.name}: {node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("transactions.services")
        for alias in node.names
        if alias.name.startswith("_")
    ]


def test_no_service_module_imports_another_ones_underscore_name():
    modules = sorted(SERVICES.glob("*.py"))
    assert len(modules) > 5  # the package is where this test looks
    assert [found for module in modules for found in _underscore_imports(module)] == []


def test_update_no_longer_reaches_into_create():
    tree = ast.parse((SERVICES / "update.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "transactions.services.create" not in imported
