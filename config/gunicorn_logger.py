"""gunicorn's logger with its access log off for good (`logger_class` in config/gunicorn.conf.py).

The application logs each request once, as JSON (payments/middleware/access_log.py). gunicorn counts its own access
log as on whenever a logging configuration is given, as the JSON one is, and then builds that line's fields on every
request (the time formatted, every header and environ value gathered) for a logger no handler writes: about 2 % of a
short request's time in the worker, for nothing.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger


class ErrorLogger(Logger):
    """gunicorn's own logger for its errors and notices; its access log is never built."""

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        return None
