"""Settings of the bare floor server (bench/bare.py): the least Django needs to answer a view over the same
database, outside the project: no project app, no middleware, no DRF. Only the database connection is the project's
(its PostgreSQL backend, persistent, health-checked), so both servers pay the same per request for it."""

import environ

from config.settings import DATABASES as PROJECT_DATABASES

env = environ.Env()

DEBUG = False
SECRET_KEY = env.str("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "bench.bare"
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
USE_TZ = True
DATABASES = {"default": {**env.db("DATABASE_URL"), "ENGINE": "payments.postgresql"}}
DATABASES["default"]["CONN_MAX_AGE"] = 60
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The project's connection options as its settings make them (values bound apart, statements prepared, the connect
# timeout), so the floor's queries reach PostgreSQL as the project's do.
DATABASES["default"]["OPTIONS"] = dict(PROJECT_DATABASES["default"]["OPTIONS"])
LOGGING_CONFIG = None
