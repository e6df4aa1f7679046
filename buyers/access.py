"""Which buyer a request may touch: the one rule for embed tokens and buyers.

An embed token lives in a buyer's browser. A request it makes through its `embed` scope (the token lacks the write
scope of the resource it touches; read scopes change nothing) is *confined*, and so is any request whose token pins a
buyer in its `embed` claim (`buyer_id`, `buyer_external_identifier`):

- a buyer it names (by id or external identifier) must be the pinned buyer, and a pinned buyer must be named where
  something is created for a buyer; naming another is a 403;
- anything of a buyer it names (a stored payment method, a stored gift card, shipping details, the buyer in a URL)
  must be the pinned buyer's: another buyer's answers exactly as a missing one (existence does not leak);
- a confined token that pins no buyer names no buyer and nothing of one (403), and lists nothing of any buyer;
- a thing of no buyer (a stored payment method kept with none, as upstream allows) is no buyer's, so a restricted
  request touches none: lists leave it out, and naming it answers as a missing one.

Views build one `BuyerAccess` per request (`buyer_access`) and hand it to the selectors and services that resolve
what the request names; nothing else decides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from django.db.models import Model, QuerySet

from buyers.models import Buyer
from payments.errors import Forbidden
from payments.rest.authentication import ApiPrincipal

BUYER_CLAIMS = ("buyer_id", "buyer_external_identifier")
M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class BuyerAccess:
    """What one request may name of buyers: anything (`UNRESTRICTED`), or only its pinned buyer's."""

    # The request came in through the `embed` scope (no write scope of the resource).
    confined: bool = False
    # The buyer the token's `embed` claim pins, by the claims it names, as text.
    pins: Mapping[str, str] = field(default_factory=dict)

    @property
    def restricted(self) -> bool:
        return self.confined or bool(self.pins)

    def require_named(
        self, *, buyer_id: object = None, buyer_external_identifier: object = None, creating: bool = True
    ) -> None:
        """Raise 403 unless the buyer the request names may be named: as pinned (and, when `creating`, named at
        all if a buyer is pinned); a confined token that pins no buyer names none."""
        if not self.restricted:
            return
        sent = {
            name: str(value)
            for name, value in (("buyer_id", buyer_id), ("buyer_external_identifier", buyer_external_identifier))
            if value is not None
        }
        if not self.pins:
            if sent:
                name = next(iter(sent))
                raise Forbidden("This embed token pins no buyer, so it may not name one.", pointer=f"/{name}")
            return
        for name, pinned in self.pins.items():
            if sent.get(name, None if creating else pinned) != pinned:
                raise Forbidden(f"This token only allows the {name} it was issued for.", pointer=f"/{name}")

    def require_pinned_buyer(self, *, what: str, pointer: str, location: str = "body") -> None:
        """Raise 403 when a confined token that pins no buyer names something of a buyer (`what`): whatever it
        names, it may name nothing of one, so the answer says nothing of whether the thing exists."""
        if self.restricted and not self.pins:
            raise Forbidden(
                f"This embed token pins no buyer, so it may not use {what}.", pointer=pointer, location=location
            )

    def owns(self, buyer: Buyer | None) -> bool:
        """Whether the request may touch what belongs to `buyer` (None: a thing of no buyer)."""
        if not self.restricted:
            return True
        if buyer is None or not self.pins:
            return False
        actual = {"buyer_id": str(buyer.pk), "buyer_external_identifier": buyer.external_identifier}
        return all(actual[name] == value for name, value in self.pins.items())

    def confine(self, queryset: QuerySet[M], *, path: str | None = "buyer") -> QuerySet[M]:
        """The rows of `queryset` the request may see: its pinned buyer's (`path` leads from the model to its buyer;
        None when the model is the buyer), none when it is confined without a pin, all when unrestricted."""
        if not self.restricted:
            return queryset
        if not self.pins:
            return queryset.none()
        lookups = (
            {"buyer_id": "id", "buyer_external_identifier": "external_identifier"}
            if path is None
            else {"buyer_id": f"{path}_id", "buyer_external_identifier": f"{path}__external_identifier"}
        )
        return queryset.filter(**{lookups[name]: value for name, value in self.pins.items()})


UNRESTRICTED = BuyerAccess()


def buyer_access(principal: ApiPrincipal, *, resource: str) -> BuyerAccess:
    """The access of a request by `principal` to `resource` (`transactions`, `payment-methods`, ...): confined when
    it acts through `embed` (no `<resource>.write`, whatever it may read), pinned to the buyer its claim names."""
    pins = {name: str(principal.embed[name]) for name in BUYER_CLAIMS if principal.embed.get(name) is not None}
    confined = principal.is_embed and not principal.has_scope(f"{resource}.write")
    return BuyerAccess(confined=confined, pins=pins)
