"""WSGI entry of the bare floor server (bench/bare_settings.py): Django alone, none of the project's start-up checks."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.bare_settings")
application = get_wsgi_application()
