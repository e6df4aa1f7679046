"""Point a processor at a double for one test: a few keys of its `settings.PROCESSORS` block changed through
pytest-django's `settings` fixture, which restores the whole setting afterwards."""

from __future__ import annotations

from typing import Any


def override_processor(settings: Any, processor_id: str, **values: Any) -> None:
    """Set `values` (API_BASE=..., TIMEOUT_SECONDS=...) in the processor's block, leaving the other blocks as they
    are. A copy is assigned, never the dict edited in place, so the fixture's restore brings the old block back."""
    blocks = {name: dict(block) for name, block in settings.PROCESSORS.items()}
    blocks[processor_id].update(values)
    settings.PROCESSORS = blocks
