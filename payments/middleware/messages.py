"""Django's one-time messages (the desk's "saved" notices), with their storage made only when a page uses it."""

from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject, empty


class LazyMessageMiddleware(MessageMiddleware):
    """Django's `MessageMiddleware`, whose storage (a cookie and a session reader) is built on first use: the desk's
    pages use it, an API request never does, and no longer builds one to throw away. A storage nobody touched has
    nothing to save."""

    def process_request(self, request: HttpRequest) -> None:
        request._messages = SimpleLazyObject(lambda: default_storage(request))  # type: ignore[attr-defined]

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        storage = getattr(request, "_messages", None)
        if isinstance(storage, SimpleLazyObject) and storage._wrapped is empty:
            return response
        return super().process_response(request, response)
