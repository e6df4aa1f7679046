"""Each processor's block of `settings.PROCESSORS` (its folder's settings.py, docs/deploy.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings


def processor_settings(slug: str) -> Mapping[str, Any]:
    """The settings block of the processor whose folder is `slug` (`Processor.slug`: "stripe", not its definition's
    id "stripe-card"), read at each call so that a changed setting (a test's double) takes effect; empty for a
    processor that has none (the sandbox)."""
    blocks: Mapping[str, Mapping[str, Any]] = settings.PROCESSORS
    return blocks.get(slug, {})
