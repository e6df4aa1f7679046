"""Refusals raised by services: each carries the HTTP status and a message safe to show the caller.

Services raise these without importing anything of HTTP; `payments.rest.envelope` turns them (and every
other error) into the one JSON error envelope.
"""


class DomainError(Exception):
    """A business rule refused the request; carries the status and a message safe to show the caller."""

    status = 400

    def __init__(self, message: str, *, pointer: str | None = None, location: str = "body") -> None:
        super().__init__(message)
        self.message = message
        self.details = [detail(location, pointer, message, type(self).__name__)] if pointer else []


def detail(location: str, pointer: str | None, message: str, type_: str) -> dict[str, str]:
    """One entry of the envelope's `details`: where in the request the problem is, and what it is."""
    return {"location": location, "pointer": pointer or "/", "message": message, "type": type_}


class Forbidden(DomainError):
    """The token may not do this, whatever the objects involved (also reported as 403)."""

    status = 403


class NotFound(DomainError):
    status = 404


class DuplicateRecord(DomainError):
    status = 409


class Conflict(DomainError):
    """The resource is in a state that does not allow the action (also reported as 409)."""

    status = 409


class ServiceUnavailable(DomainError):
    status = 503
