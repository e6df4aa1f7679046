"""Secrets of the wrong form stop the server at start (system checks, and the WSGI application for gunicorn), and
`/readyz` is not ready while the vault cannot seal. Real processes: tests/test_deploy.py."""

import base64
import logging

import pytest
from django.core import checks

from payments.ops.checks import card_keys_are_well_formed, cursor_signing_key_is_set, secrets_problems

pytestmark = pytest.mark.django_db


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


GOOD_KEY = _b64url(b"g" * 32)
BAD_FINGERPRINT_KEYS = [
    pytest.param("not a base64url key!", id="not-base64url"),
    pytest.param(base64.b64encode(b"\xfb\xef" * 16).decode(), id="standard-base64-alphabet"),
    pytest.param(_b64url(b"s" * 16), id="16-bytes"),
    pytest.param("f" * 43, id="not-canonical"),
    pytest.param(f"k1:{GOOD_KEY}", id="an-encryption-key-spec"),
    pytest.param(f" {GOOD_KEY}", id="leading-space"),
]
BAD_ENCRYPTION_KEYS = [
    pytest.param([GOOD_KEY], id="no-key-id"),
    pytest.param([f"bad.id:{GOOD_KEY}"], id="bad-key-id"),
    pytest.param(["k1:not base64url!"], id="not-base64url"),
    pytest.param([f"k1:{_b64url(b's' * 16)}"], id="16-bytes"),
    pytest.param([f"k1:{_b64url(b'l' * 64)}"], id="64-bytes"),
    pytest.param([f"k1:{GOOD_KEY}", f"k1:{GOOD_KEY}"], id="duplicate-key-id"),
    pytest.param([f"k1:{GOOD_KEY}", "k2:"], id="a-later-key-empty"),
]


def _only(messages: list[checks.CheckMessage]) -> checks.CheckMessage:
    assert len(messages) == 1, messages
    return messages[0]


def test_well_formed_keys_pass():
    assert card_keys_are_well_formed(None) == []
    assert cursor_signing_key_is_set(None) == []
    assert secrets_problems() == []


def test_a_longer_fingerprint_key_is_well_formed(settings):
    settings.CARD_FINGERPRINT_KEY = _b64url(b"l" * 64) + "=="  # padding tolerated, as key tools add it

    assert card_keys_are_well_formed(None) == []


@pytest.mark.parametrize("value", BAD_FINGERPRINT_KEYS)
def test_a_malformed_fingerprint_key_is_an_error_that_does_not_quote_it(settings, value):
    settings.CARD_FINGERPRINT_KEY = value

    error = _only(card_keys_are_well_formed(None))

    assert (error.level, error.id) == (checks.ERROR, "payments.E004")
    assert "CARD_FINGERPRINT_KEY" in error.msg
    assert value.strip() not in f"{error.msg} {error.hint}"
    assert secrets_problems() == [f"payments.E004: {error.msg} {error.hint}"]


@pytest.mark.parametrize("value", BAD_ENCRYPTION_KEYS)
def test_malformed_encryption_keys_are_an_error_that_does_not_quote_them(settings, value):
    settings.CARD_ENCRYPTION_KEYS = value

    error = _only(card_keys_are_well_formed(None))

    assert (error.level, error.id) == (checks.ERROR, "payments.E003")
    assert "CARD_ENCRYPTION_KEYS" in error.msg
    for spec in value:
        material = spec.split(":")[-1]
        assert not material or material not in f"{error.msg} {error.hint}"


@pytest.mark.parametrize("name", ["CARD_ENCRYPTION_KEYS", "CARD_FINGERPRINT_KEY"])
def test_a_missing_key_in_development_is_a_warning(settings, name):
    setattr(settings, name, [] if name == "CARD_ENCRYPTION_KEYS" else "")

    warning = _only(card_keys_are_well_formed(None))

    assert (warning.level, warning.id) == (checks.WARNING, "payments.W002")
    assert name in warning.msg
    assert secrets_problems() == []  # development still starts


def test_an_empty_cursor_signing_key_is_an_error(settings):
    settings.CURSOR_SIGNING_KEY = ""

    assert _only(cursor_signing_key_is_set(None)).id == "payments.E005"


# --- /readyz: the vault must seal ------------------------------------------------------------------------------


def test_readyz_is_ready_when_the_vault_seals(client):
    assert client.get("/readyz").json()["checks"]["vault"] == "ok"


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        *(pytest.param("CARD_FINGERPRINT_KEY", p.values[0], id=f"fingerprint-{p.id}") for p in BAD_FINGERPRINT_KEYS),
        *(pytest.param("CARD_ENCRYPTION_KEYS", p.values[0], id=f"encryption-{p.id}") for p in BAD_ENCRYPTION_KEYS),
        pytest.param("CARD_FINGERPRINT_KEY", "", id="fingerprint-missing"),
        pytest.param("CARD_ENCRYPTION_KEYS", [], id="encryption-missing"),
    ],
)
def test_readyz_is_not_ready_while_the_vault_cannot_seal(client, settings, caplog, setting, value):
    caplog.set_level(logging.WARNING)
    setattr(settings, setting, value)

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert (body["type"], body["status"], body["message"]) == ("error", 503, "Not ready: vault unavailable.")
    for secret in value if isinstance(value, list) else [value]:
        material = secret.split(":")[-1].strip()
        assert not material or material not in caplog.text
