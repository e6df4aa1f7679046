"""The docs say where things are today: the suite and the mocks read the project's contracts (contracts/), and the
published documents beside the repository (../shared/reference/) are read only by `contracts.derive`."""

from __future__ import annotations

import re

from tests.servers import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BESIDE = re.compile(r"shared/reference")


def _paragraphs(text: str) -> list[str]:
    return [paragraph for paragraph in re.split(r"\n\s*\n|\n(?=- )", text) if paragraph.strip()]


def test_only_the_derivation_reads_the_documents_beside_the_repository():
    wrong = [
        f"{path.relative_to(ROOT)}: {paragraph.strip()[:120]}"
        for path in DOCS
        for paragraph in _paragraphs(path.read_text())
        if BESIDE.search(paragraph) and not re.search(r"deriv|`contracts/`", paragraph)
    ]
    assert not wrong, "\n".join(wrong)
