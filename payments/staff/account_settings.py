"""Settings an app keeps for a merchant account, edited on the account's desk page beside its own fields.

The app registers, at start, the form field, what it holds for an account, and its own service that saves it; the
account's page shows the field to whoever may change the account and saves it after the account, in the same
transaction, so the admin's log (and the audit log) names it with the account's other changes. Payments knows no
such app by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms

from payments.accounts.models import MerchantAccount


@dataclass(frozen=True)
class AccountSetting:
    """One field of the merchant account's page that an app keeps: `field` makes its form field (read when the page
    is drawn, so a setting's bounds are current), `value` what it holds for an account, `save` the app's service."""

    name: str
    field: Callable[[], forms.Field]
    value: Callable[[MerchantAccount], Any]
    save: Callable[[MerchantAccount, Any], None]


_settings: dict[str, AccountSetting] = {}


def account_setting_register(setting: AccountSetting) -> None:
    """Show `setting` on the merchant account's desk page (an app's `ready`)."""
    _settings[setting.name] = setting


def account_settings() -> list[AccountSetting]:
    return list(_settings.values())
