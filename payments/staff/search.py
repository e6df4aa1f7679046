"""The support desk's one search box: apps register finders, the start page shows what each found, by kind.

A finder is `find(term) -> list[Hit]`, registered from its app's `AppConfig.ready` with `register_finder`; this
package knows no app. Each finder reads the term as one kind (an id, an email address or part of one, a name, a
card's last 4, an external identifier) so that one index serves each query, and returns at most `SHOWN` hits per
group. A hit names the permission needed to open it: staff see only what they may view.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.safestring import SafeString

from payments.remembered import remembering

SHOWN = 10  # hits per group
MAX_TERM = 200
LAST4 = re.compile(r"^\d{4}$")


@dataclass(frozen=True)
class Hit:
    group: str  # "Buyers", "Transactions", "Payment methods": hits of every finder are grouped by it
    url: str
    label: SafeString
    permission: str  # "buyers.view_buyer"


Finder = Callable[[str], list[Hit]]
_finders: dict[str, Finder] = {}


def register_finder(name: str, find: Finder) -> None:
    """Search with `find` from the start page; a name registered again is replaced, so `ready()` may rerun."""
    _finders[name] = find


def clean_term(term: str) -> str:
    """What staff typed, without the characters no stored value holds (NUL, which PostgreSQL refuses in a query
    parameter, other controls, direction overrides), trimmed and bounded."""
    return "".join(char for char in term if char.isprintable()).strip()[:MAX_TERM]


def as_uuid(term: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(term)
    except ValueError:
        return None


def is_last4(term: str) -> bool:
    return bool(LAST4.match(term))


def desk_search(term: str, *, has_perm: Callable[[str], bool]) -> list[tuple[str, list[Hit]]]:
    """Every finder's hits for `term` that a user with `has_perm` may open, grouped in the order groups first
    appear, each group without repeats and at most `SHOWN` long."""
    term = clean_term(term)
    if not term:
        return []
    groups: dict[str, list[Hit]] = {}
    seen: set[str] = set()
    with remembering():  # finders that ask the same question (buyers by part of a name) ask it once
        hits = [hit for find in _finders.values() for hit in find(term)]
    for hit in hits:
        if hit.url in seen or not has_perm(hit.permission):
            continue
        seen.add(hit.url)
        group = groups.setdefault(hit.group, [])
        if len(group) < SHOWN:
            group.append(hit)
    return list(groups.items())
