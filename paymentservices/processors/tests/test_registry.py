"""Each registered processor is one folder with the same parts, and everything the server knows of it comes from
there: the definitions are derived from the registry, and nothing outside the folder names a module inside it
(`lint-imports`, the `processor-*` contracts of pyproject.toml)."""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.template.loader import get_template

from paymentservices.definitions import DEFINITIONS
from paymentservices.processors import PROCESSORS, processor_get
from paymentservices.processors.seam import Processor

ROOT = Path(__file__).resolve().parents[3]
PROCESSORS_DIR = ROOT / "paymentservices" / "processors"


def _folder(processor: Processor) -> Path:
    return Path(inspect.getfile(type(processor))).parent


def _parts(processor: Processor) -> dict[str, object]:
    """What a processor's folder holds, by part: its modules, templates and tests."""
    folder = _folder(processor)
    return {
        "modules": sorted(path.stem for path in folder.glob("*.py") if path.stem != "__init__"),
        "templates": sorted(str(path.relative_to(folder / "templates")) for path in folder.glob("templates/**/*.html")),
        "tests": sorted(path.name for path in folder.glob("tests/test_*.py")),
    }


def test_each_registered_processor_lists_its_parts():
    assert {processor.id: (_folder(processor).name, _parts(processor)) for processor in PROCESSORS} == {
        "mock-card": (
            "sandbox",
            {
                "modules": ["connector", "processor", "settlements"],
                "templates": [],
                "tests": ["test_codes.py", "test_connector.py"],
            },
        ),
        "stripe-card": (
            "stripe",
            {
                "modules": ["balance", "codes", "connector", "notifications", "processor", "settlements"],
                "templates": ["stripe/three_d_secure.html"],
                "tests": [
                    "test_capture_asked.py",
                    "test_capture_unanswered.py",
                    "test_codes.py",
                    "test_connector.py",
                    "test_dashboard.py",
                    "test_disputes.py",
                    "test_hosts.py",
                    "test_notifications.py",
                    "test_refund_unanswered.py",
                    "test_void_unanswered.py",
                ],
            },
        ),
        "adyen-card": (
            "adyen",
            {
                "modules": ["codes", "connector", "notifications", "processor", "reports", "rules", "settlements"],
                "templates": [],
                "tests": [
                    "test_codes.py",
                    "test_connector.py",
                    "test_dashboard.py",
                    "test_disputes.py",
                    "test_hosts.py",
                    "test_inbound.py",
                    "test_routed.py",
                ],
            },
        ),
        "paypal-paypal": (
            "paypal",
            {
                "modules": ["connector", "processor", "rules"],
                "templates": [],
                "tests": ["test_codes.py", "test_connector.py"],
            },
        ),
    }


def test_every_folder_of_processors_is_registered():
    folders = {path.parent.name for path in PROCESSORS_DIR.glob("*/__init__.py") if path.parent.name != "tests"}
    assert folders == {_folder(processor).name for processor in PROCESSORS}


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_is_its_package_s_processor_and_its_definition(processor):
    package = importlib.import_module(f"paymentservices.processors.{_folder(processor).name}")
    assert package.PROCESSOR is processor
    assert processor_get(processor.id) is processor
    definition = DEFINITIONS[processor.id]
    assert (definition.fields, definition.supported_features) == (processor.fields, processor.features)
    assert (definition.method, definition.mode) == (processor.method, processor.mode)
    assert definition.connection_options_keys == processor.connection_options_keys
    assert definition.webhook_secret_field == processor.notification_secret_field
    assert (definition.parse_notification is not None) == (processor.notification_secret_field is not None)
    if processor.notification_secret_field is not None:
        field = next(item for item in processor.fields if item.key == processor.notification_secret_field)
        assert field.secret
    if processor.buyer_page is not None:
        assert get_template(processor.buyer_page).origin.name.startswith(str(_folder(processor)))
    for field in processor.fields:
        assert field.rule.refusal(field.rule.example) is None


def test_registered_ids_are_unique_and_the_definitions_are_exactly_the_registry():
    ids = [processor.id for processor in PROCESSORS]
    assert len(set(ids)) == len(ids)
    assert list(DEFINITIONS) == ids


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    return names | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}


def test_no_processor_imports_another():
    folders = {_folder(processor).name for processor in PROCESSORS}
    for folder in folders:
        others = {f"paymentservices.processors.{name}" for name in folders - {folder}}
        for path in (PROCESSORS_DIR / folder).rglob("*.py"):
            reached = {module for module in _imported_modules(path) for other in others if module.startswith(other)}
            assert reached == set(), path


def test_each_settings_block_belongs_to_a_processor_folder_and_is_read_only_there():
    """`settings.PROCESSORS` has one block per processor folder that has settings; outside config/, only the folder
    itself (through `processors.config`) names its block."""
    from django.conf import settings

    folders = {_folder(processor).name for processor in PROCESSORS}
    assert set(settings.PROCESSORS) <= folders
    for name in settings.PROCESSORS:
        connector = (PROCESSORS_DIR / name / "connector.py").read_text()
        assert f'processor_settings("{name}")' in connector
    readers = {
        path.relative_to(ROOT)
        for path in ROOT.glob("*/**/*.py")
        if ".venv" not in path.parts and "processor_settings(" in path.read_text() and "tests" not in path.parts
    }
    assert all(str(path).startswith(("paymentservices/processors/",)) for path in readers), readers


def test_a_processor_s_environment_variables_fill_its_block():
    """The deploy guide's variables reach the block a connector reads (a fresh process: settings read the
    environment once)."""
    script = "import django; django.setup(); from django.conf import settings; print(settings.PROCESSORS)"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "STRIPE_API_BASE": "http://127.0.0.1:1",
        "STRIPE_TIMEOUT_SECONDS": "3.5",
        "ADYEN_API_BASE": "http://127.0.0.1:2",
        "ADYEN_REPORT_BASE": "http://127.0.0.1:3",
    }
    printed = subprocess.run(  # noqa: S603 (our own interpreter and script)
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    blocks = ast.literal_eval(printed.stdout.strip())
    assert blocks["stripe"]["API_BASE"] == "http://127.0.0.1:1"
    assert blocks["stripe"]["TIMEOUT_SECONDS"] == 3.5
    assert blocks["adyen"] == {
        "API_BASE": "http://127.0.0.1:2",
        "TIMEOUT_SECONDS": 10.0,
        "REPORT_BASE": "http://127.0.0.1:3",
    }
