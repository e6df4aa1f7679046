"""What a card is, in the desk's words, from the facts the BIN table gave when the vault stored it."""

from __future__ import annotations

import pycountry

from payments.vault.cards import SCHEME_NAMES

UNKNOWN = "—"


def country_name(code: str | None) -> str:
    """`FR` as "France", `KR` as "South Korea" (the name people use, where ISO's differs); a code ISO does not list
    shows as itself, and none as a dash."""
    if not code:
        return UNKNOWN
    country = pycountry.countries.get(alpha_2=code.upper())
    if country is None:
        return code
    return str(getattr(country, "common_name", None) or country.name)


def card_facts_words(scheme: str | None, card_type: str | None, country: str | None, issuer_name: str | None) -> str:
    """ "Visa debit card issued in France by Some Bank"; a part the table did not say is a dash ("Visa card (type —)
    issued in — by —"), so an agent tells "unknown" from "not shown". Reads only the row's own fields: no query."""
    name = SCHEME_NAMES.get(scheme or "")
    kind = f"{card_type} card" if card_type else f"card (type {UNKNOWN})"
    card = f"{name} {kind}" if name else kind[:1].upper() + kind[1:]
    return f"{card} issued in {country_name(country)} by {issuer_name or UNKNOWN}"
