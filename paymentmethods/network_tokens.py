"""Network tokens and the account updater: the card networks' services that stand a token in for a stored card's
number and keep its details current.

No network token service is configured on this server, so it holds no network token: a stored method's list of them is
empty, and every operation that would ask such a service (provisioning, suspending, resuming, deleting, a cryptogram,
an account updater job) is refused by name, after the stored method it names is found, rather than pretending.
"""

from __future__ import annotations

from typing import NoReturn

from payments.errors import DomainError

NO_SERVICE = "no network token service is configured"


class NoNetworkTokenService(DomainError):
    """An operation that needs a network token service, of which this server has none."""

    def __init__(self, operation: str) -> None:
        super().__init__(f"{operation} is not supported: {NO_SERVICE}.")


def network_token_service_require(*, operation: str) -> NoReturn:
    """Refuse `operation` (its upstream method and path): no network token service is configured."""
    raise NoNetworkTokenService(operation)
