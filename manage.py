#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

# It writes the secrets the production settings refuse to load without, so it runs while they are missing.
MAKES_SECRETS = "init_local_env"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if sys.argv[1:2] == [MAKES_SECRETS]:
        os.environ["DJANGO_DEBUG"] = "true"
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 - loads the settings: a wrong one is one line, not a traceback
    except ImproperlyConfigured as error:
        sys.exit(f"Configuration error: {error}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
