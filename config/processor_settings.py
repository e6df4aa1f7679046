"""Each processor's settings block, found in its folder (docs/architecture.md, "Adding a processor"): the `PROCESSORS`
setting is made of every `paymentservices/processors/<slug>/settings.py`, keyed by its folder's name, so that
config/settings.py names no processor. Imports nothing of Django nor of the processors' package, whose registry
imports models: settings load before either may be imported."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from environ import Env


def processor_blocks(processors_dir: Path, env: Env) -> dict[str, dict[str, Any]]:
    """`{slug: block}` of each folder of `processors_dir` with a `settings.py`, the block its `settings_block(env)`
    returns. Each module is loaded by its file, so neither the package nor the folder's `__init__` is imported."""
    blocks = {}
    for path in sorted(processors_dir.glob("*/settings.py")):
        spec = importlib.util.spec_from_file_location(f"processor_settings_{path.parent.name}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"Cannot load {path}.")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        blocks[path.parent.name] = module.settings_block(env)
    return blocks
