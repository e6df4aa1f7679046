"""gunicorn settings for `make serve`, read from the environment like the Django settings.

Requests are logged once, as JSON, by the application's access-log middleware (it knows the route
template, the merchant account and the token's key id); gunicorn's own access log stays off so a
request never produces two lines, and its logger (config/gunicorn_logger.py) never builds one.
"""

import multiprocessing
import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"  # noqa: S104 - app servers sit behind a load balancer
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count() + 1))
# Sync workers: a worker takes a connection only when it is free and closes it after one request, so no
# worker idles while requests queue behind another (a kept-alive connection would tie its next requests to
# one worker, however busy). The load balancer keeps clients' connections alive; docs/deploy.md, "Workers".
# gunicorn's sync worker, answering the errors it meets itself with the JSON envelope (config/gunicorn_worker.py).
worker_class = "config.gunicorn_worker.EnvelopeSyncWorker"
logger_class = "config.gunicorn_logger.ErrorLogger"
# A worker whose request runs longer than this is replaced (its heartbeat comes only between requests);
# IDEMPOTENCY_KEY_LEASE_SECONDS must be longer (payments/ops/checks.py keeps a margin of twice this).
timeout = int(os.environ.get("WEB_TIMEOUT_SECONDS", 30))
graceful_timeout = int(os.environ.get("WEB_GRACEFUL_TIMEOUT_SECONDS", 30))
# Recycle workers now and then so a slow leak in any dependency can never grow without bound; the
# jitter keeps all workers from restarting at once.
max_requests = int(os.environ.get("WEB_MAX_REQUESTS", 50_000))
max_requests_jitter = max_requests // 10
# Import the application once in the master: a broken setting fails `make serve` at start, and
# workers share the imported code's memory. Django opens no connection at import, so none is shared.
preload_app = True

# What a realistic request needs, with room: a list URL with repeated filters and a cursor, a token with
# embed claims, a merchant page's cookies. Anything larger is refused by the worker with the envelope
# (414 for the request line, 431 for a header). 8190 is the most gunicorn allows for the request line.
limit_request_line = int(os.environ.get("WEB_LIMIT_REQUEST_LINE", 8190))
limit_request_field_size = int(os.environ.get("WEB_LIMIT_REQUEST_FIELD_SIZE", 16384))
limit_request_fields = int(os.environ.get("WEB_LIMIT_REQUEST_FIELDS", 100))

accesslog = None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()
# gunicorn's own lines (worker starts, timeouts) in the application's format, so a log collector reading
# JSON never meets a plain line. Same rule as the Django settings: JSON unless debug, or when asked.
_debug = os.environ.get("DJANGO_DEBUG", "true").strip().lower() in {"1", "true", "yes", "on"}
if os.environ.get("LOG_FORMAT", "plain" if _debug else "json") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "payments.ops.logging.JsonFormatter"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "loggers": {"gunicorn.error": {"handlers": ["console"], "level": loglevel.upper(), "propagate": False}},
    }
# Trust X-Forwarded-* only from the load balancer's addresses (comma separated, `*` for any).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
proc_name = "payments"
# No control socket: its default path is per user, so two servers on one host would fight over it.
control_socket_disable = True
