"""Answers remembered for the length of one piece of work (a desk search), so that two apps asking the same
question in it ask the database once. Outside such a scope nothing is remembered: every call computes."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_answers: ContextVar[dict[Hashable, Any] | None] = ContextVar("remembered_answers", default=None)


@contextmanager
def remembering() -> Iterator[None]:
    """Remember answers until the block ends (nested blocks share the outer one's)."""
    if _answers.get() is not None:
        yield
        return
    token = _answers.set({})
    try:
        yield
    finally:
        _answers.reset(token)


def remembered(key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()`, or what it answered for `key` earlier in the same `remembering()` block."""
    answers = _answers.get()
    if answers is None:
        return compute()
    if key not in answers:
        answers[key] = compute()
    return answers[key]  # type: ignore[no-any-return]
