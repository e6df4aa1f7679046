"""The text of an operation: its summary, description and documented error answers, read off the view's docstrings."""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass, field

_SECTION = re.compile(r"^(\w+):$")
_STATUS_LINE = re.compile(r"^([45]\d\d): (.+)$")


@dataclass(frozen=True)
class OperationText:
    """What a docstring says about one operation, for API users."""

    summary: str = ""
    description: str = ""
    # Answers the docstring documents itself (`409: when ...`): status -> when it is answered.
    statuses: dict[str, str] = field(default_factory=dict)


def operation_text(view_class: type, handler: str) -> OperationText:
    """The docstring of `handler` (an action or an HTTP method) when the project defines it, else the `handler:`
    section of the view's own docstring."""
    return _parse(_handler_docstring(view_class, handler) or _class_section(view_class, handler))


def _handler_docstring(view_class: type, handler: str) -> str:
    method = getattr(view_class, handler, None)
    if method is None or str(getattr(method, "__module__", "")).startswith("rest_framework"):
        return ""  # DRF's generic actions say nothing an API user needs
    return inspect.getdoc(method) or ""


def _class_section(view_class: type, handler: str) -> str:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in inspect.cleandoc(view_class.__dict__.get("__doc__") or "").splitlines():
        header = _SECTION.match(line)
        if header:
            current = sections.setdefault(header[1], [])
        elif current is not None:
            current.append(line)
    return textwrap.dedent("\n".join(sections.get(handler, []))).strip()


def _parse(docstring: str) -> OperationText:
    """A paragraph that starts with `NNN: ` documents answers, one a line (a reason may go on, indented); any other
    paragraph is text, so a sentence that happens to wrap before a status code stays in the description."""
    statuses: dict[str, str] = {}
    text: list[str] = []
    for paragraph in re.split(r"\n\s*\n", docstring.strip()):
        if not _STATUS_LINE.match(paragraph.partition("\n")[0]):
            text.append(paragraph)
            continue
        status = ""
        for line in paragraph.splitlines():
            match = _STATUS_LINE.match(line)
            if match:
                status = match[1]
                statuses[status] = match[2].strip()
            else:
                statuses[status] += " " + line.strip()  # the reason goes on
    summary, _, description = "\n\n".join(text).partition("\n")
    return OperationText(summary.strip().rstrip("."), description.strip(), statuses)
