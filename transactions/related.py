"""What a transaction's answer reads beyond its row, its gift card redemptions and its disputes: prefetched for a page
of transactions as a plain list on each, read here.

Django's prefetch without `to_attr` keeps each row's related objects in a queryset filtered for that row, built after
the prefetch's one query: a page of 20 transactions built 40 filtered querysets, each as costly as a query's own
`filter()`. With `to_attr` each row gets a list. The readers take that list when a prefetch left one, and otherwise
ask the relation (one query, or none when the relation was prefetched Django's way).

The `disputes` app (above this one) records each dispute with a foreign key to its transaction named `disputes`: this
module names the relation and never imports the app (docs/disputes.md).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from transactions.models import GiftCardRedemption, Transaction

REDEMPTIONS = "gift_card_redemptions"
DISPUTES = "disputes"
# The attribute each relation's prefetch leaves its list in.
REDEMPTIONS_READ = "redemptions_read"
_LISTS = {REDEMPTIONS: REDEMPTIONS_READ, DISPUTES: "disputes_read"}


def related_prefetches(*relations: str) -> list[Prefetch[str, Any, str]]:
    """Prefetches of `relations` (all of them when none are named), each a list on every row."""
    return [Prefetch(relation, to_attr=_LISTS[relation]) for relation in relations or _LISTS]


def redemptions_of(txn: Transaction) -> list[GiftCardRedemption]:
    """The transaction's gift card redemptions."""
    return _related(txn, REDEMPTIONS)


def disputes_of(txn: Transaction) -> list[Any]:
    """The transaction's disputes (of the `disputes` app's model)."""
    return _related(txn, DISPUTES)


def related_known_empty(txn: Transaction, *relations: str) -> None:
    """Mark `relations` of `txn` empty, as a prefetch that found none would: for a transaction its own request has just
    made, which cannot have them yet, so its answer asks the database nothing about them."""
    for relation in relations:
        setattr(txn, _LISTS[relation], [])


def _related(txn: Transaction, relation: str) -> list[Any]:
    rows: list[Any] | None = txn.__dict__.get(_LISTS[relation])
    return rows if rows is not None else list(getattr(txn, relation).all())
