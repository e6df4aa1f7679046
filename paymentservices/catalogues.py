"""What this server takes, as upstream's catalogues list it: the card schemes (`GET /card-scheme-definitions`) and the
ways of paying (`GET /payment-method-definitions`).

Both are derived, never kept by hand: a card scheme is listed when the vault tells it apart (`payments.vault.cards`)
and a registered processor of cards takes it (`Processor.card_schemes`); a way of paying when a registered processor
declares it (`Processor.method`, named by the processor), and gift cards because the server runs their program
(`giftcards.providers`). Each entry's icon is a static file of this app, served by this server.
"""

from __future__ import annotations

from dataclasses import dataclass

from giftcards.providers import PROVIDERS as GIFT_CARD_PROVIDERS
from payments.vault.cards import SCHEME_NAMES
from paymentservices import processors
from paymentservices.processors.seam import Processor

# Under the app's static folder: `<kind>/<id>.svg` (tests check every entry has its file).
ICONS = "paymentservices/icons"
CARD_METHOD = "card"
# The mode of a way of paying the buyer approves on the processor's own pages.
REDIRECT_MODE = "redirect"
GIFT_CARD_METHOD = "gift-card"


@dataclass(frozen=True)
class CatalogueEntry:
    """One card scheme or way of paying: its upstream id, its names, and the static path of its icon."""

    id: str
    display_name: str
    icon: str
    long_display_name: str | None = None


def schemes_taken(processor: Processor) -> frozenset[str]:
    """The card schemes a processor's services take: those it declares (all the vault tells apart when it declares
    none), and none when it takes another way of paying. A declared scheme the vault cannot tell apart is never
    reached, so it is not taken (the registry's tests refuse one)."""
    if processor.method != CARD_METHOD:
        return frozenset()
    known = frozenset(SCHEME_NAMES)
    return known if processor.card_schemes is None else processor.card_schemes & known


def redirect_methods() -> dict[str, Processor]:
    """The ways of paying the buyer approves on a processor's own pages, each with the first registered processor (in
    the registry's order) that takes it: what says how the way of paying is named and offered."""
    found: dict[str, Processor] = {}
    for processor in processors.PROCESSORS:
        if processor.mode == REDIRECT_MODE:
            found.setdefault(processor.method, processor)
    return found


def card_scheme_definitions() -> list[CatalogueEntry]:
    """The card schemes some registered processor takes, by id."""
    taken = frozenset().union(*(schemes_taken(processor) for processor in processors.PROCESSORS))
    return [
        CatalogueEntry(id=scheme, display_name=SCHEME_NAMES[scheme], icon=f"{ICONS}/card-schemes/{scheme}.svg")
        for scheme in sorted(taken)
    ]


def payment_method_definitions() -> list[CatalogueEntry]:
    """The ways of paying the registered processors take (each named by the first processor, in the registry's
    order, that takes it) and gift cards of the server's own program, by id."""
    entries: dict[str, CatalogueEntry] = {}
    for processor in processors.PROCESSORS:
        entries.setdefault(
            processor.method,
            CatalogueEntry(
                id=processor.method,
                display_name=processor.method_display_name,
                long_display_name=processor.method_long_display_name,
                icon=f"{ICONS}/payment-methods/{processor.method}.svg",
            ),
        )
    if GIFT_CARD_PROVIDERS:
        entries.setdefault(
            GIFT_CARD_METHOD,
            CatalogueEntry(
                id=GIFT_CARD_METHOD,
                display_name="Gift card",
                icon=f"{ICONS}/payment-methods/{GIFT_CARD_METHOD}.svg",
            ),
        )
    return [entries[method] for method in sorted(entries)]
