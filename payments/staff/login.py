"""The admin's sign-in form, with the failure limit of `payments.ratelimits.logins` in front of the password check."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm

from payments.ratelimits.counters import RateLimitCacheUnavailable
from payments.ratelimits.logins import SignInLock, staff_login_failed, staff_login_lock

LOCKED_OUT = "locked_out"


def _lockout_error(lock: SignInLock) -> forms.ValidationError:
    whom = "this user name from your network address" if lock.kind == "user" else "your network address"
    minutes = max(1, math.ceil(lock.seconds_left / 60))
    return forms.ValidationError(
        "Too many failed sign-ins for %(whom)s: signing in is locked, even with the right password. "
        "Try again in %(minutes)d minute(s), or ask an administrator.",
        code=LOCKED_OUT,
        params={"whom": whom, "minutes": minutes},
    )


class LimitedAdminAuthenticationForm(AdminAuthenticationForm):
    """Django's admin sign-in, refused without checking the password while the user name at the client's address, or
    that address, is locked; every failed check is counted against both."""

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username") or ""
        address = (self.request.META.get("REMOTE_ADDR") or "") if self.request is not None else ""
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # Django's own "required" errors; nothing was tried
        try:
            lock = staff_login_lock(username=username, address=address)
        except RateLimitCacheUnavailable:
            if not settings.RATELIMIT_FAIL_OPEN:
                raise forms.ValidationError(
                    "Signing in is unavailable for a moment; try again shortly.", code="unavailable"
                ) from None
            return super().clean()
        if lock is not None:
            raise _lockout_error(lock)
        try:
            return super().clean()
        except forms.ValidationError:
            try:
                lock = staff_login_failed(username=username, address=address)
            except RateLimitCacheUnavailable:
                lock = None
            if lock is not None:
                raise _lockout_error(lock) from None
            raise
