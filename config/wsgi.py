"""WSGI entry point used by gunicorn (`make serve`)."""

import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Management commands (migrate, runserver, run_worker) run the system checks first; gunicorn runs none. A key of
# the wrong form must stop it here, not pass /readyz and then fail every card payment.
from payments.ops.checks import secrets_problems  # noqa: E402 - needs the settings configured above

if problems := secrets_problems():
    raise ImproperlyConfigured("Secrets of the wrong form: " + "; ".join(problems))
