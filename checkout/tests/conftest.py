from datetime import datetime, timedelta

import pytest
from django.utils import timezone


class Clock:
    """A stopped `django.utils.timezone.now` that tests move by hand: expiry without sleeping."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    # Whole seconds keep the expected timestamps readable; the real time keeps signed tokens valid.
    clock = Clock(timezone.now().replace(microsecond=0))
    monkeypatch.setattr(timezone, "now", clock)
    return clock
