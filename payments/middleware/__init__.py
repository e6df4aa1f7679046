"""Django middleware of the API server."""

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase

# The rest of the chain as Django hands it to a middleware: any response class may come back (WhiteNoise
# answers static files with a streaming FileResponse).
GetResponse = Callable[[HttpRequest], HttpResponseBase]
