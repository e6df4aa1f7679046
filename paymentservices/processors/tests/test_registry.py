"""Each registered processor is one folder with the same parts, and everything the server knows of it comes from
there: the definitions are derived from the registry, and nothing outside the folder names a module inside it
(`lint-imports`, the `processor-folders` contract of pyproject.toml)."""

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

from paymentservices.processors import PROCESSORS, processor_get
from paymentservices.processors.seam import Processor

ROOT = Path(__file__).resolve().parents[3]
PROCESSORS_DIR = ROOT / "paymentservices" / "processors"


def _folder(processor: Processor) -> Path:
    return Path(inspect.getfile(type(processor))).parent


def _modules(folder: Path) -> set[str]:
    return {path.stem for path in folder.glob("*.py") if path.stem != "__init__"}


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_each_processor_s_folder_holds_the_parts_its_processor_declares(processor):
    """No one list of every processor's files: each folder is checked against what its own processor declares. Every
    folder connects (connector.py, processor.py) and tests its connector; one that takes notifications parses them in
    its notifications module and tests them; its templates are under its own name; one that calls out (any but a
    sandbox) brings its test double: tests/mock.py, the double, which `python -m tests.mocks <folder>` runs without
    settings (as the guides and the suite start it), and tests/double.py, its fixtures for every test."""
    folder = _folder(processor)
    modules = _modules(folder)
    assert {"connector", "processor"} <= modules
    assert (folder / "tests" / "test_connector.py").is_file()
    if processor.notification_secret_field is not None:
        assert "notifications" in modules
        assert any(name in _modules(folder / "tests") for name in ("test_notifications", "test_inbound"))
    templates = [path.relative_to(folder / "templates") for path in folder.glob("templates/**/*.html")]
    assert all(path.parts[0] == folder.name for path in templates), templates
    assert (folder / "tests" / "double.py").is_file() is not processor.sandbox
    assert (folder / "tests" / "mock.py").is_file() is not processor.sandbox
    started = subprocess.run(  # noqa: S603 (our own interpreter and module)
        [sys.executable, "-m", "tests.mocks", folder.name, "--help"],
        cwd=ROOT,
        env={name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (started.returncode == 0) is not processor.sandbox, started.stderr


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_s_double_is_its_folder_s_and_every_test_s(processor, request):
    """A folder's `tests/double.py` is loaded for the whole suite by the root conftest.py's walk of the registry; the
    fixtures in it are defined nowhere else (no conftest.py names a processor's double)."""
    double = _folder(processor) / "tests" / "double.py"
    if not double.is_file():
        return
    module = f"{type(processor).__module__.rpartition('.')[0]}.tests.double"
    plugin = request.config.pluginmanager.get_plugin(module)
    assert plugin is not None, module
    fixtures = {name for name, value in vars(plugin).items() if type(value).__name__ == "FixtureFunctionDefinition"}
    assert fixtures
    for conftest in ROOT.glob("**/conftest.py"):
        if ".venv" in conftest.parts:
            continue
        defined = {node.name for node in ast.walk(ast.parse(conftest.read_text())) if isinstance(node, ast.FunctionDef)}
        assert defined & fixtures == set(), conftest


def test_every_folder_of_processors_is_registered():
    folders = {path.parent.name for path in PROCESSORS_DIR.glob("*/__init__.py") if path.parent.name != "tests"}
    assert folders == {_folder(processor).name for processor in PROCESSORS}


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_is_its_package_s_processor_and_its_definition(processor):
    package = importlib.import_module(f"paymentservices.processors.{_folder(processor).name}")
    assert package.PROCESSOR is processor
    assert processor_get(processor.id) is processor
    if processor.notification_secret_field is not None:
        field = next(item for item in processor.fields if item.key == processor.notification_secret_field)
        # A key the server verifies with is secret; an id the processor itself is asked with (PayPal's webhook id,
        # sent to PayPal only, beside the app's secret) is not.
        assert field.secret or processor.id == "paypal-paypal"
    if processor.buyer_page is not None:
        assert get_template(processor.buyer_page).origin.name.startswith(str(_folder(processor)))
    for field in processor.fields:
        assert field.rule.refusal(field.rule.example) is None


def test_registered_ids_and_slugs_are_unique():
    for names in ([processor.id for processor in PROCESSORS], [processor.slug for processor in PROCESSORS]):
        assert len(set(names)) == len(names)


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    return names | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}


def test_no_processor_imports_another_nor_do_the_modules_they_share():
    """`lint-imports` (the `processor-folders` contract) keeps code outside this package out of each folder's modules
    but lets every module of the package in; this keeps them apart inside it: no folder imports another processor, and
    the modules the processors share (the registry, the seam, their helpers and tests) import a folder's package at
    most, never a module inside it."""
    folders = {_folder(processor).name for processor in PROCESSORS}
    for path in PROCESSORS_DIR.rglob("*.py"):
        inside = path.relative_to(PROCESSORS_DIR).parts[0]
        if inside in folders:
            others = tuple(f"paymentservices.processors.{name}" for name in folders - {inside})
        else:
            others = tuple(f"paymentservices.processors.{name}." for name in folders)
        reached = {module for module in _imported_modules(path) if module.startswith(others)}
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
        "ADYEN_PAYOUT_API_BASE": "http://127.0.0.1:4",
        "ADYEN_DISPUTES_BASE": "http://127.0.0.1:5",
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
        "PAYOUT_API_BASE": "http://127.0.0.1:4",
        "DISPUTES_BASE": "http://127.0.0.1:5",
    }


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_pays_out_exactly_when_its_features_say_so(processor):
    """The definition's `payouts` feature is what the payouts app reads to say who can pay out: it must be true of
    the processors that declare card payouts (`Processor.payouts`) and of no other, and each tests them."""
    assert processor.features.get("payouts", False) is (processor.payouts is not None)
    if processor.payouts is not None:
        assert (_folder(processor) / "tests" / "test_payouts.py").is_file()


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_takes_network_tokens_exactly_when_its_features_say_so(processor):
    """The `network_tokens` feature says which services take wallet payments, as routing decides: true of the
    processors that declare `Processor.network_tokens` and of no other."""
    assert processor.features.get("network_tokens", False) is processor.network_tokens


@pytest.mark.parametrize("processor", PROCESSORS, ids=lambda processor: processor.id)
def test_a_processor_keeps_cards_exactly_when_its_features_say_so(processor):
    """The definition's `payment_method_tokenization` feature tells merchants which services keep stored cards: true
    of the processors that declare tokens (`Processor.tokens`) and of no other, and each tests them."""
    assert processor.features.get("payment_method_tokenization", False) is (processor.tokens is not None)
    if processor.tokens is not None:
        assert (_folder(processor) / "tests" / "test_tokens.py").is_file()
