"""Production settings: `check --deploy` is clean and gunicorn reads its settings from the environment."""

import logging
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What an operator sets on every app server (docs/deploy.md). Nothing here is contacted: checks do not connect.
PRODUCTION_ENV = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "x7Qe-production-like-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
    "DJANGO_ALLOWED_HOSTS": "api.example.com",
    "CURSOR_SIGNING_KEY": "c9Wn-cursor-signing-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "CARD_ENCRYPTION_KEYS": "k1:" + "A" * 43,
    "CARD_FINGERPRINT_KEY": "ZmluZ2VycHJpbnQta2V5LWZpbmdlcnByaW50LWtleS1m",  # 33 bytes, base64url
    "DATABASE_URL": "postgres://payments@db.internal:5432/payments",
    "REDIS_URL": "redis://redis.internal:6379/0",
}


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return _run([sys.executable, "manage.py", *args], env=env)


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    # Start from a clean slate so the developer's own DJANGO_*/DATABASE_URL variables cannot leak in, nor the
    # development secrets `make run` leaves in .local/env.
    base = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV and not k.startswith("GR4VY_")}
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**base, "LOCAL_ENV_FILE": "", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize("missing", ["DJANGO_SECRET_KEY", "CARD_ENCRYPTION_KEYS", "CARD_FINGERPRINT_KEY"])
def test_production_refuses_to_start_without_a_secret(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}

    result = _manage("check", env=env)

    assert result.returncode != 0
    assert missing in result.stderr


MALFORMED_FINGERPRINT_KEY = "f" * 43  # 43 characters, but not canonical base64url: no key decodes to it


def test_a_malformed_key_stops_every_management_command_that_starts_work():
    result = _manage("check", env={**PRODUCTION_ENV, "CARD_FINGERPRINT_KEY": MALFORMED_FINGERPRINT_KEY})

    assert result.returncode != 0
    assert "payments.E004" in result.stderr
    assert "CARD_FINGERPRINT_KEY" in result.stderr
    assert MALFORMED_FINGERPRINT_KEY not in result.stdout + result.stderr


def test_the_keys_init_local_env_writes_pass_the_checks_it_runs_without(tmp_path):
    path = tmp_path / "prod.env"
    written = _manage(
        "init_local_env", "--path", str(path), env={**PRODUCTION_ENV, "CARD_FINGERPRINT_KEY": MALFORMED_FINGERPRINT_KEY}
    )
    assert written.returncode == 0, written.stderr
    keys = dict(line.split("=", 1) for line in path.read_text().splitlines())

    result = _manage("check", "--deploy", "--fail-level", "WARNING", env={**PRODUCTION_ENV, **keys})

    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("setting", "value"),
    [("CARD_FINGERPRINT_KEY", MALFORMED_FINGERPRINT_KEY), ("CARD_ENCRYPTION_KEYS", "k1:" + "A" * 22)],
    ids=["fingerprint-key", "encryption-keys"],
)
def test_a_malformed_key_stops_the_wsgi_application_gunicorn_loads(setting, value):
    base = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV and not k.startswith("GR4VY_")}
    env = {**base, "LOCAL_ENV_FILE": "", **PRODUCTION_ENV}

    def load(**overrides: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", "import config.wsgi"],
            cwd=ROOT,
            env={**env, **overrides},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    loaded = load()
    assert loaded.returncode == 0, loaded.stderr
    refused = load(**{setting: value})
    assert refused.returncode != 0
    assert "ImproperlyConfigured" in refused.stderr
    assert setting in refused.stderr
    assert value.split(":")[-1] not in refused.stderr


@pytest.mark.parametrize(
    ("env", "formatter"),
    [
        ({"DJANGO_DEBUG": "true"}, "Formatter"),
        ({"DJANGO_DEBUG": "true", "LOG_FORMAT": "json"}, "JsonFormatter"),
        (PRODUCTION_ENV, "JsonFormatter"),
    ],
    ids=["development-plain", "development-json", "production-json"],
)
def test_log_format_follows_the_environment(env, formatter):
    show = "import logging; print(type(logging.getLogger().handlers[0].formatter).__name__)"

    result = _manage("shell", "--no-startup", "--verbosity", "0", "-c", show, env=env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == formatter


def _gunicorn_settings(monkeypatch, **env: str) -> dict:
    for name in ("WEB_CONCURRENCY", "HOST", "PORT", "DJANGO_DEBUG", "LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))


def test_gunicorn_defaults_to_two_workers_per_core_plus_one(monkeypatch):
    settings = _gunicorn_settings(monkeypatch)

    assert settings["workers"] == 2 * os.cpu_count() + 1
    assert settings["bind"] == "0.0.0.0:8000"
    assert settings["accesslog"] is None  # the application logs each request once, as JSON


def test_gunicorn_reads_workers_and_address_from_the_environment(monkeypatch):
    settings = _gunicorn_settings(monkeypatch, WEB_CONCURRENCY="3", HOST="127.0.0.1", PORT="9001")

    assert settings["workers"] == 3
    assert settings["bind"] == "127.0.0.1:9001"


def test_gunicorn_logs_json_in_production_and_plain_in_development(monkeypatch):
    production = _gunicorn_settings(monkeypatch, DJANGO_DEBUG="false")
    development = _gunicorn_settings(monkeypatch, DJANGO_DEBUG="true")

    formatter = production["logconfig_dict"]["formatters"]["json"]["()"]
    assert formatter == "payments.ops.logging.JsonFormatter"
    assert "logconfig_dict" not in development


def test_gunicorn_builds_no_access_line_of_its_own(monkeypatch):
    from gunicorn.config import Config

    config = Config()
    config.set("logger_class", _gunicorn_settings(monkeypatch, DJANGO_DEBUG="false")["logger_class"])
    config.set("accesslog", "-")  # what turns gunicorn's stock access log on, as any logging configuration does
    for name in ("gunicorn.error", "gunicorn.access"):  # the logger's set-up gives them handlers: undone after
        monkeypatch.setattr(logging.getLogger(name), "handlers", [])
    logger = config.logger_class(config)
    built = []
    monkeypatch.setattr(logger, "atoms", lambda *args: built.append(args) or {})

    logger.access(object(), object(), {"PATH_INFO": "/buyers"}, 0.001)

    assert built == []  # the application logs the request; gunicorn's stock logger would gather the line's fields


def _make_serve(env: dict[str, str]) -> subprocess.CompletedProcess:
    venv = Path(sys.executable).parent.parent
    # `--old-file` the install stamp: the virtualenv running the suite is used as it is, never installed into.
    command = ["make", "--no-print-directory", f"--old-file={venv / '.installed'}", "serve", f"VENV={venv}"]
    return _run(command, env=env)


UNREACHABLE = "postgres://payments:s3cret-password@127.0.0.1:9/payments"  # port 9 (discard): nothing listens
UNREACHABLE_REDIS = "redis://:s3cret-password@127.0.0.1:9/0"


@pytest.mark.parametrize(
    ("change", "named", "how"),
    [
        ({"DJANGO_SECRET_KEY": None}, "DJANGO_SECRET_KEY", "init_local_env"),
        ({"CARD_ENCRYPTION_KEYS": None}, "CARD_ENCRYPTION_KEYS", "init_local_env"),
        ({"CARD_ENCRYPTION_KEYS": None, "CARD_FINGERPRINT_KEY": None}, "CARD_FINGERPRINT_KEY", "init_local_env"),
        ({"CARD_ENCRYPTION_KEYS": "k1:" + "A" * 22}, "CARD_ENCRYPTION_KEYS", "init_local_env"),
        ({"DATABASE_URL": "mysql://payments:s3cret-password@db/payments"}, "DATABASE_URL", "postgres://USER"),
        ({"DATABASE_URL": "postgres://payments:s3cret-password@db:99999/payments"}, "DATABASE_URL", "postgres://USER"),
        ({"DATABASE_URL": "postgres://payments:s3cret-password@db.internal:5432/"}, "DATABASE_URL", "postgres://USER"),
        ({"DATABASE_URL": UNREACHABLE}, "DATABASE_URL", "createdb"),
        ({"DATABASE_URL": None}, "DATABASE_URL", "postgres://USER"),
        ({"REDIS_URL": None}, "REDIS_URL", "redis://HOST"),
        ({"REDIS_URL": "garbage"}, "REDIS_URL", "redis://HOST"),
        ({"REDIS_URL": "redis://:s3cret-password@cache.internal:99999/0"}, "REDIS_URL", "redis://HOST"),
        ({"REDIS_URL": "redis://:s3cret-password@cache.internal/zero"}, "REDIS_URL", "redis://HOST"),
        ({"REDIS_URL": UNREACHABLE_REDIS}, "REDIS_URL", "does not answer"),
        ({"DJANGO_DEBUG": "maybe"}, "DJANGO_DEBUG", "true or false"),
        ({"DJANGO_DEBUG": ""}, "DJANGO_DEBUG", "true or false"),
    ],
    ids=[
        "no-secret-key",
        "no-encryption-keys",
        "no-card-keys",
        "malformed-encryption-keys",
        "other-database",
        "malformed-url",
        "no-database-name",
        "unreachable-database",
        "no-database-url",
        "no-redis-url",
        "garbage-redis-url",
        "redis-port-out-of-range",
        "redis-database-not-a-number",
        "unreachable-redis",
        "debug-maybe",
        "debug-empty",
    ],
)
def test_make_serve_stops_on_a_wrong_setting_with_one_clear_message_before_anything_runs(change, named, how):
    env = {**PRODUCTION_ENV, "DATABASE_URL": UNREACHABLE}
    env.update({name: value for name, value in change.items() if value is not None})
    for name in [name for name, value in change.items() if value is None]:
        env.pop(name)

    result = _make_serve(env)

    output = result.stdout + result.stderr
    assert result.returncode != 0
    messages = [line for line in output.splitlines() if line.startswith("Configuration error:")]
    assert messages, output
    assert any(named in line and how in line for line in messages), output
    assert "Traceback" not in output
    assert "migrate" not in output  # nothing ran before the message
    assert "s3cret-password" not in output
    assert "A" * 22 not in output
    # The messages and make's own last line: nothing else.
    assert len(output.strip().splitlines()) <= len(messages) + 1, output


def test_the_embedded_default_passes_preflight_with_nothing_set():
    # `make run` on a fresh machine: debug on, no DATABASE_URL, no REDIS_URL.
    show = (
        "from django.conf import settings; "
        "print(settings.DEBUG, settings.DATABASES['default']['ENGINE'], settings.CACHES['default']['BACKEND'])"
    )
    preflight = _manage("preflight", env={})
    shown = _manage("shell", "--no-startup", "--verbosity", "0", "-c", show, env={})

    assert preflight.returncode == 0, preflight.stdout + preflight.stderr
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == [
        "True",
        "django.db.backends.sqlite3",
        "django.core.cache.backends.locmem.LocMemCache",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "DJANGO_DEBUG",
        "SANDBOX_PAYMENTS",
        "RATELIMIT_FAIL_OPEN",
        "DJANGO_SECURE_SSL_REDIRECT",
        "DATABASE_SERVER_SIDE_BINDING",
        "DATABASE_PREPARED_STATEMENTS",
    ],
)
def test_a_yes_or_no_setting_that_is_neither_stops_every_command(name):
    # Read as false, `SANDBOX_PAYMENTS=maybe` or `DJANGO_SECURE_SSL_REDIRECT=maybe` would be a silent choice.
    result = _manage("check", env={**PRODUCTION_ENV, name: "maybe"})

    assert result.returncode != 0
    assert result.stderr.strip() == f"Configuration error: {name} must be true or false, not 'maybe'."
