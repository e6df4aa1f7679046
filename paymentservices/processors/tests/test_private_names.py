"""A processor's modules share only public names: what one module keeps private (`_name`) no other imports."""

from __future__ import annotations

import ast
from pathlib import Path

import paymentservices.processors

ROOT = Path(paymentservices.processors.__file__).parent


def _private_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno} imports {alias.name} from {node.module}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("paymentservices.processors")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_processor_module_imports_another_modules_private_name():
    modules = [path for path in sorted(ROOT.rglob("*.py")) if "tests" not in path.parts]
    found = [line for path in modules for line in _private_imports(path)]
    assert found == []
