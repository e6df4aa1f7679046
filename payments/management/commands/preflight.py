from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, connection

from payments.ops.checks import secrets_problems
from payments.ops.health import cache_answers

HOW_TO_MAKE_THE_DATABASE = (
    "check DATABASE_URL, that the server runs and that the database exists "
    "(`createdb -h HOST -U USER NAME` for PostgreSQL, a folder SQLite may write in; docs/deploy.md)"
)
REDIS_URL_USE = f"use {settings.REDIS_URL_FORM}, one Redis every app server shares (docs/deploy.md)"


class Command(BaseCommand):
    help = (
        "What `make serve` checks before anything else runs: the settings load, the secrets are well formed, the "
        "database answers, and Redis is set (in production) and answers. Each problem is one line naming the setting "
        "and how to make it; exit 1 when any."
    )
    # Its own checks, said in one line each, not Django's report of every check.
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        problems = [f"Configuration error: {problem}" for problem in secrets_problems()]
        for problem in (_database_problem(), _redis_problem()):
            if problem:
                problems.append(f"Configuration error: {problem}")
        if problems:
            self.stderr.write("\n".join(problems))
            raise SystemExit(1)
        self.stdout.write("Settings, secrets, database and cache: ready.")


def _database_problem() -> str | None:
    if connection.vendor == "sqlite":
        # The embedded database is a file SQLite makes on first use; only its folder must exist.
        Path(connection.settings_dict["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    try:
        connection.ensure_connection()
    except DatabaseError as error:
        # The driver's first line says why (refused, no such database, authentication) and never the password.
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"DATABASE_URL: the database does not answer ({reason}): {HOW_TO_MAKE_THE_DATABASE}."
    finally:
        connection.close()
    return None


def _redis_problem() -> str | None:
    """Production app servers share their rate-limit counters and locks in Redis: without it each process would
    grant its own budget. The embedded default (debug, REDIS_URL unset) keeps its in-process cache."""
    if not settings.REDIS_URL:
        return None if settings.DEBUG else f"REDIS_URL must be set when DJANGO_DEBUG is false: {REDIS_URL_USE}."
    for alias in settings.CACHES:
        try:
            cache_answers(alias)
        except Exception as error:  # any failure of the cache's client means it does not answer
            # redis-py's message names the host and port, never the password.
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            return f"REDIS_URL: Redis does not answer ({reason}): check that it runs; {REDIS_URL_USE}."
    return None
