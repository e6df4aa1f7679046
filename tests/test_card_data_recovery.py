"""The attack of a stolen dump, run against this server (docs/card-data.md, "Keyed digests").

Real requests store cards, pay with card numbers, security codes and gift card PINs (with `Idempotency-Key`,
split tender, a checkout session, a stored payment method, stored gift cards, balances, a locked-out gift card, a
3-D Secure scenario's card condition, a 3-D Secure challenge whose page token must not be readable either).
Then the test takes what an attacker with a copy of the storage would have: every text and bytes value of every
row of every table, and every key and value of both caches (Redis when REDIS_URL is set). It tries what a
dump was found to give away before: for candidate numbers, codes and PINs around the real ones (the stored
BIN, last 4 and amount narrow the real space to about 100,000), it computes unkeyed digests of each candidate
and of each request body rebuilt with it as an unkeyed request fingerprint would have hashed it, and looks for
each in the dump. Nothing may match, and no number, code or PIN may appear in clear.

`test_the_attack_finds_an_unkeyed_fingerprint` runs the same attack with the fingerprint unkeyed, as it was, and
must recover the number: the attack is real, not a scan that cannot find anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django_ratelimit.core import ALL, _get_window, _make_cache_key

from buyers.tests.factories import BuyerFactory
from giftcards.lockout import PIN_FAILURE_GROUP
from giftcards.tests.factories import IssuedGiftCardFactory
from payments.ratelimits.counters import parse_rate
from payments.rest import idempotency
from payments.vault.cards import luhn_valid
from payments.vault.models import VaultedSecurityCode

pytestmark = pytest.mark.django_db

# What an unkeyed digest may have been made with, and how it may have been written down.
ALGORITHMS = ("md5", "sha1", "sha256", "sha512", "blake2b")
# Enough of a digest to find it even when stored truncated; 80 bits make a chance match impossible.
NEEDLE_LENGTH = 20
# Candidates tried around each real value: the real one is among them, wherever the sweep starts.
CANDIDATES = 120
SDK_DEFAULTS = {
    "store": False,
    "is_subsequent_payment": False,
    "merchant_initiated": False,
    "async_capture": False,
    "account_funding_transaction": False,
    "allow_partial_authorization": False,
}


def with_check_digit(payload: str) -> str:
    return next(payload + digit for digit in "0123456789" if luhn_valid(payload + digit))


# The digits a store keeps in clear beside a number (a card's last 4, a gift card's sub-BIN: its 7th to 9th digits)
# are drawn at random: when they spelled one of the codes the flows send, the scan for codes in clear found them.
# The numbers below keep those digits apart from the codes.
SECURITY_CODES = ("915", "284", "4826", "637", "318", "746", "552")
GIFT_CARD_SUB_BIN = "000"


def fresh_card(prefix: str, length: int = 16) -> str:
    """A Luhn-valid number no other test uses (the sandbox approves any number it does not list)."""
    while True:
        middle = f"{uuid.uuid4().int % 10 ** (length - len(prefix) - 1):0{length - len(prefix) - 1}d}"
        number = with_check_digit(prefix + middle)
        if number[-4:] not in SECURITY_CODES:
            return number


def fresh_gift_card_number() -> str:
    return f"603571{GIFT_CARD_SUB_BIN}{uuid.uuid4().int % 10**10:010d}"


@dataclass
class Secrets:
    """Every number, code and PIN the requests sent, and the request bodies that carried them."""

    numbers: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)  # one per number, in the same order
    numbers_without_code: list[str] = field(default_factory=list)  # sent alone (a 3-D Secure scenario's condition)
    pins: list[tuple[str, str]] = field(default_factory=list)  # (gift card number, PIN)
    gift_card_numbers: list[str] = field(default_factory=list)
    # Bearer tokens that are not card data but open a page for the buyer (a 3-D Secure challenge's).
    page_tokens: list[str] = field(default_factory=list)
    # (method, path, Prefer, body) of every request that carried card data, as sent.
    requests: list[tuple[str, str, str, dict]] = field(default_factory=list)


def send(client, secrets: Secrets, method: str, path: str, body: dict, **headers) -> dict:
    response = getattr(client, method.lower())(path, body, format="json", **headers)
    assert response.status_code in (200, 201, 204), (path, response.content)
    secrets.requests.append((method, path, headers.get("HTTP_PREFER", ""), body))
    return response.json() if response.content else {}


def make_everything(api_client, anonymous_client, merchant_account) -> Secrets:
    """Every flow that takes card data, through the API, the way merchants and browsers send it."""
    caches["ratelimit"].clear()  # PIN-failure counts outlive a test on Redis
    secrets = Secrets()
    client = api_client(scopes=["*.read", "*.write"])
    buyer = BuyerFactory(merchant_account=merchant_account)

    # A card payment with its security code, then captured and refunded under keys of their own.
    number, code = fresh_card("424242"), "915"
    secrets.numbers.append(number)
    secrets.codes.append(code)
    card = {"method": "card", "number": number, "expiration_date": "12/39", "security_code": code}
    payment = {"amount": 1299, "currency": "USD", "payment_method": card, **SDK_DEFAULTS}
    txn = send(client, secrets, "POST", "/transactions", payment, HTTP_IDEMPOTENCY_KEY="pay-card")
    send(client, secrets, "POST", "/transactions", payment, HTTP_IDEMPOTENCY_KEY="pay-card")  # replayed
    capture = {"amount": 1299, "final": True, "reauthorize_if_authorization_expired": False}
    send(client, secrets, "POST", f"/transactions/{txn['id']}/capture", capture, HTTP_IDEMPOTENCY_KEY="capture")
    send(client, secrets, "POST", f"/transactions/{txn['id']}/refunds", {"amount": 99}, HTTP_IDEMPOTENCY_KEY="refund")

    # Split tender: two program gift cards by number and PIN, a mastercard with its code pays the rest.
    gift_cards = [
        IssuedGiftCardFactory(merchant_account=merchant_account, number=fresh_gift_card_number(), pin=pin, amount=2000)
        for pin in ("73914682", "50267193")
    ]
    for gift_card in gift_cards:
        secrets.gift_card_numbers.append(gift_card.number)
        secrets.pins.append((gift_card.number, gift_card.pin))
    number, code = fresh_card("555555"), "284"
    secrets.numbers.append(number)
    secrets.codes.append(code)
    split = {
        "amount": 3000,
        "currency": "USD",
        "gift_cards": [{"number": gift_cards[0].number, "pin": gift_cards[0].pin, "amount": 1000}],
        "payment_method": {"method": "card", "number": number, "expiration_date": "11/38", "security_code": code},
        **SDK_DEFAULTS,
    }
    send(client, secrets, "POST", "/transactions", split, HTTP_IDEMPOTENCY_KEY="pay-split")
    # Gift cards alone.
    only_gift = {
        "amount": 700,
        "currency": "USD",
        "gift_cards": [{"number": gift_cards[1].number, "pin": gift_cards[1].pin, "amount": 700}],
        **SDK_DEFAULTS,
    }
    send(client, secrets, "POST", "/transactions", only_gift, HTTP_IDEMPOTENCY_KEY="pay-gift")

    # A stored gift card, its balance by number and PIN and by id, and paying with it by id.
    stored = send(
        client,
        secrets,
        "POST",
        "/gift-cards",
        {"number": gift_cards[1].number, "pin": gift_cards[1].pin, "buyer_id": str(buyer.pk)},
    )
    balances = {"items": [{"number": gift_cards[0].number, "pin": gift_cards[0].pin}, {"id": stored["id"]}]}
    send(client, secrets, "POST", "/gift-cards/balances", balances)
    by_id = {"amount": 100, "currency": "USD", "gift_cards": [{"id": stored["id"], "amount": 100}], **SDK_DEFAULTS}
    send(client, secrets, "POST", "/transactions", {**by_id, "buyer_id": str(buyer.pk)}, HTTP_IDEMPOTENCY_KEY="gid")

    # Wrong PINs until a third gift card locks: the lock's counter (cache) and its record (table).
    locked_number, locked_pin = fresh_gift_card_number(), "26481357"
    locked = IssuedGiftCardFactory(merchant_account=merchant_account, number=locked_number, pin=locked_pin)
    secrets.gift_card_numbers.append(locked.number)
    secrets.pins.append((locked_number, locked_pin))
    limit = parse_rate(settings.RATELIMIT_GIFTCARD_PIN_FAILURES)[0]
    for attempt in range(limit):
        wrong = f"{int(locked_pin) + attempt + 1:08d}"
        secrets.pins.append((locked.number, wrong))
        body = {"items": [{"number": locked.number, "pin": wrong}]}
        assert client.post("/gift-cards/balances", body, format="json").status_code == 200
        secrets.requests.append(("POST", "/gift-cards/balances", "", body))

    # An embed token (counted per token) checks a balance from the browser.
    embed = api_client(scopes=["embed"], embed={"amount": 1299, "currency": "USD"})
    balance = {"items": [{"number": gift_cards[0].number, "pin": gift_cards[0].pin}]}
    send(embed, secrets, "POST", "/gift-cards/balances", balance)

    # Secure Fields on a checkout session (an amex with its 4-digit code), then paying with the session.
    session = send(client, secrets, "POST", "/checkout/sessions", {"expires_in": 3600.0})
    number, code = fresh_card("371449", length=15), "4826"
    secrets.numbers.append(number)
    secrets.codes.append(code)
    fields = {
        "payment_method": {"method": "card", "number": number, "expiration_date": "10/37", "security_code": code},
        "postal_code": "94103",
    }
    send(anonymous_client, secrets, "PUT", f"/checkout/sessions/{session['id']}/fields", fields)
    with_session = {
        "amount": 2500,
        "currency": "USD",
        "payment_method": {"method": "checkout-session", "id": session["id"]},
        **SDK_DEFAULTS,
    }
    send(client, secrets, "POST", "/transactions", with_session, HTTP_IDEMPOTENCY_KEY="pay-session")

    # A stored payment method (with the code it may never keep), paid with by id, and a card stored on payment.
    number, code = fresh_card("601111"), "637"
    secrets.numbers.append(number)
    secrets.codes.append(code)
    method = send(
        client,
        secrets,
        "POST",
        "/payment-methods",
        {
            "method": "card",
            "number": number,
            "expiration_date": "09/36",
            "security_code": code,
            "buyer_id": str(buyer.pk),
        },
    )
    pay_stored = {"amount": 800, "currency": "USD", "payment_method": {"method": "id", "id": method["id"]}}
    send(client, secrets, "POST", "/transactions", {**pay_stored, **SDK_DEFAULTS}, HTTP_IDEMPOTENCY_KEY="pay-id")
    # Secure Fields' stored-method form: a code typed for that saved card on a session paid with, and on one that
    # still waits (its sealed code is in the dump).
    for typed_code, key in (("318", "pay-saved"), ("746", None)):
        secrets.numbers.append(number)
        secrets.codes.append(typed_code)
        saved = send(client, secrets, "POST", "/checkout/sessions", {"expires_in": 3600.0})
        typed = {"payment_method": {"method": "id", "id": method["id"], "security_code": typed_code}}
        send(anonymous_client, secrets, "PUT", f"/checkout/sessions/{saved['id']}/fields", typed)
        if key is not None:
            by_session = {"method": "checkout-session", "id": saved["id"]}
            paid = {"amount": 600, "currency": "USD", "payment_method": by_session, **SDK_DEFAULTS}
            send(client, secrets, "POST", "/transactions", paid, HTTP_IDEMPOTENCY_KEY=key)
    number, code = fresh_card("411111"), "552"
    secrets.numbers.append(number)
    secrets.codes.append(code)
    store = {
        "amount": 900,
        "currency": "USD",
        "buyer_id": str(buyer.pk),
        "payment_method": {"method": "card", "number": number, "expiration_date": "08/35", "security_code": code},
        **{**SDK_DEFAULTS, "store": True},
    }
    send(client, secrets, "POST", "/transactions", store, HTTP_IDEMPOTENCY_KEY="pay-store")

    # A sandbox 3-D Secure scenario whose condition is a card number: kept as a keyed digest, BIN and last 4.
    number = fresh_card("400000")
    secrets.numbers_without_code.append(number)
    scenario = {"conditions": {"card_number": number}, "outcome": {"authentication": {"transaction_status": "Y"}}}
    send(client, secrets, "POST", "/three-ds-scenarios", scenario)

    # A 3-D Secure challenge (a default test card): its page's token is sealed, found by a keyed digest.
    sandbox = send(client, secrets, "GET", "/payment-services", {})["items"][0]
    send(client, secrets, "PUT", f"/payment-services/{sandbox['id']}", {"three_d_secure_enabled": True})
    challenge_card = {**card, "number": "4000000000003220", "redirect_url": "https://shop.example/back"}
    challenged = send(client, secrets, "POST", "/transactions", {**payment, "payment_method": challenge_card})
    secrets.page_tokens.append(challenged["payment_method"]["approval_url"].rsplit("/", 1)[1])
    return secrets


# --- the dump -------------------------------------------------------------------------------------------------


def _text(value: object) -> list[str]:
    if value is None or isinstance(value, bool | int | float | datetime | uuid.UUID):
        return []
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        # Raw digests are found by their hex spelling; text stored as bytes by its characters.
        return [raw.hex(), raw.decode("latin-1")]
    if isinstance(value, dict | list):
        return [json.dumps(value, default=str)]
    return [str(value)]


def database_dump() -> list[str]:
    """Every text and bytes value of every row of every table (not only the models': the task queue too)."""
    values: list[str] = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - names from introspection
            for row in cursor.fetchall():
                for value in row:
                    values.extend(_text(value))
    return values


def cache_dump() -> list[str]:
    """Every key and value of every configured cache: the whole Redis database, or each process-local store."""
    values: list[str] = []
    for alias in settings.CACHES:
        cache = caches[alias]
        if settings.CACHES[alias]["BACKEND"] == "django_redis.cache.RedisCache":
            from django_redis import get_redis_connection

            redis = get_redis_connection(alias)
            for key in redis.scan_iter("*"):
                values.extend(_text(key))
                if redis.type(key) == b"string":
                    values.extend(_text(redis.get(key)))
        else:
            store = cache._cache  # type: ignore[attr-defined]  # LocMemCache's own dict: key -> pickled value
            for key, value in list(store.items()):
                values.extend([*_text(key), *_text(value)])
    return values


# --- the attack -----------------------------------------------------------------------------------------------


def spellings(digest: bytes) -> list[str]:
    """How a digest is commonly written down: hex, base64 and base64url (padding and case aside)."""
    return [
        digest.hex(),
        base64.b64encode(digest).decode(),
        base64.urlsafe_b64encode(digest).decode(),
    ]


def unkeyed_digests(preimage: str) -> Iterable[str]:
    for algorithm in ALGORITHMS:
        for spelling in spellings(hashlib.new(algorithm, preimage.encode()).digest()):
            yield spelling[:NEEDLE_LENGTH]


def old_fingerprint_preimages(method: str, path: str, prefer: str, body: dict) -> list[str]:
    """What an unkeyed request fingerprint hashed: method, path, Prefer and the canonical body; also the body
    alone, canonical and as the client serialized it."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return ["\n".join([method, path, prefer, canonical]), canonical, json.dumps(body)]


def sweep(real: str, build: Callable[[str], str] = str, valid: Callable[[str], bool] = bool) -> list[str]:
    """About `CANDIDATES` candidates made by `build` from values of the unknown digits around `real` (the
    attacker's sweep of the space the stored digits leave), keeping the `valid` ones; the real one among them."""
    width, step_share = len(real), 10 if valid is luhn_valid else 1
    candidates: set[str] = {build(real)}
    value = int(real) - CANDIDATES * step_share // 2
    while len(candidates) < CANDIDATES:
        candidate = build(f"{value % 10**width:0{width}d}")
        if valid(candidate):
            candidates.add(candidate)
        value += 1
    return sorted(candidates)


def replace_in(body: object, old: str, new: str) -> object:
    """`body` with every string equal to `old` replaced by `new`, as the request would carry a candidate."""
    if isinstance(body, dict):
        return {key: replace_in(value, old, new) for key, value in body.items()}
    if isinstance(body, list):
        return [replace_in(value, old, new) for value in body]
    return new if body == old else body


@dataclass
class Found:
    what: str
    candidate: str


def attack(secrets: Secrets, windows: set[str], ratelimit_keys: Callable[[str], list[str]]) -> list[Found]:
    """Every candidate whose unkeyed digest, or whose rebuilt request's, the dump holds (`windows`: every
    `NEEDLE_LENGTH` characters of it)."""
    found: list[Found] = []

    def test(what: str, candidate: str, preimages: Iterable[str]) -> None:
        if any(needle in windows for preimage in preimages for needle in unkeyed_digests(preimage)):
            found.append(Found(what, candidate))

    def rebuilt(secret: str, candidate: str) -> list[str]:
        """Every request that carried `secret`, with `candidate` in its place, as a fingerprint hashed it."""
        preimages = []
        for method, path, prefer, body in secrets.requests:
            if replace_in(body, secret, "") != body:  # the request carried it as a field of its own
                preimages += old_fingerprint_preimages(method, path, prefer, replace_in(body, secret, candidate))
        return preimages

    for number in [*secrets.numbers, *secrets.numbers_without_code]:
        # The stored BIN and last 4 leave the middle digits to sweep, Luhn-valid numbers only.
        for candidate in sweep(number[6:-4], lambda middle, n=number: n[:6] + middle + n[-4:], luhn_valid):
            test("card number", candidate, [candidate, *rebuilt(number, candidate)])
    for number, code in zip(secrets.numbers, secrets.codes, strict=True):
        for candidate in sweep(code):
            test("security code", candidate, [candidate, number + candidate, *rebuilt(code, candidate)])
    for number in secrets.gift_card_numbers:
        # bin, sub_bin and last 4 are shown: the 6 digits between them are unknown.
        for candidate in sweep(number[9:-4], lambda middle, n=number: n[:9] + middle + n[-4:]):
            test("gift card number", candidate, [candidate, *rebuilt(number, candidate)])
            if any(key[:NEEDLE_LENGTH] in windows for key in ratelimit_keys(candidate)):
                found.append(Found("gift card number (rate-limit key)", candidate))
    for number, pin in secrets.pins:
        for candidate in sweep(pin):
            preimages = [candidate, number + candidate, f"{number}\x00{candidate}", *rebuilt(pin, candidate)]
            test("PIN", candidate, preimages)
    return found


def pin_failure_keys(number: str) -> list[str]:
    """The counter keys a PIN-failure limit counting by the clear number would have used, in this window."""
    rate = settings.RATELIMIT_GIFTCARD_PIN_FAILURES
    period = parse_rate(rate)[1]
    return [_make_cache_key(PIN_FAILURE_GROUP, _get_window(number, period), rate, number, ALL)]


_UUID_OR_TIME = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d{2}-\d{2}[ T][\d:.]+(?:[+-]\d{2}:?\d{2}|Z)?",
    re.IGNORECASE,
)


def holds_in_clear(haystack: str, secret: str) -> bool:
    """Whether `secret` appears as digits of its own: not inside a longer number, a word, an id or a timestamp."""
    text = _UUID_OR_TIME.sub(" ", haystack)
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])", text) is not None


def run_attack(secrets: Secrets) -> tuple[str, list[Found]]:
    haystack = "\n".join([*database_dump(), *cache_dump()])
    # Every window of the dump, and of its lower case (hex written in capitals): one set lookup per guess.
    windows = {text[i : i + NEEDLE_LENGTH] for text in (haystack, haystack.lower()) for i in range(len(text))}
    return haystack, attack(secrets, windows, pin_failure_keys)


# --- tests ----------------------------------------------------------------------------------------------------


@pytest.fixture
def _strict_pin_failures(settings):
    settings.RATELIMIT_GIFTCARD_PIN_FAILURES = "3/d"  # a day's window: the lock happens inside the test


@pytest.mark.usefixtures("_strict_pin_failures")
def test_a_dump_gives_away_no_number_code_or_pin(api_client, anonymous_client, merchant_account):
    secrets = make_everything(api_client, anonymous_client, merchant_account)

    haystack, found = run_attack(secrets)

    from payments.ratelimits.models import RateLimitEvent
    from payments.rest.models import IdempotencyRecord

    # The flows did store what the attack works on: answers under keys, a lock's record, cards.
    assert set(IdempotencyRecord.objects.values_list("key", flat=True)) == {
        "pay-card",
        "capture",
        "refund",
        "pay-split",
        "pay-gift",
        "gid",
        "pay-session",
        "pay-id",
        "pay-saved",
        "pay-store",
    }
    assert RateLimitEvent.objects.filter(subject_kind="gift_card").exists()
    assert VaultedSecurityCode.objects.count() == 1  # the code typed for a saved card on the waiting session
    assert any(":rl:" in value for value in cache_dump())  # the counters are in the dump too
    assert found == []
    assert set(secrets.codes) <= set(SECURITY_CODES)  # so no stored last 4 spells one by chance
    for secret in [*secrets.numbers, *secrets.numbers_without_code, *secrets.gift_card_numbers]:
        assert secret not in haystack
    assert secrets.page_tokens
    for token in secrets.page_tokens:
        assert token not in haystack
        assert not any(needle in haystack for needle in unkeyed_digests(token))
    for secret in [*secrets.codes, *(pin for _, pin in secrets.pins)]:
        assert not holds_in_clear(haystack, secret), secret


@pytest.mark.usefixtures("_strict_pin_failures")
def test_the_attack_finds_an_unkeyed_fingerprint(api_client, anonymous_client, merchant_account, monkeypatch):
    # The fingerprint as it was: the bare SHA-256 of the request.
    monkeypatch.setattr(idempotency, "request_fingerprint", idempotency.request_digest)
    secrets = make_everything(api_client, anonymous_client, merchant_account)

    _, found = run_attack(secrets)

    recovered = {(item.what, item.candidate) for item in found}
    assert {("card number", number) for number in secrets.numbers if number in _idempotent_bodies(secrets)} <= recovered
    assert ("security code", secrets.codes[0]) in recovered
    assert ("PIN", secrets.pins[0][1]) in recovered
    assert ("gift card number", secrets.gift_card_numbers[0]) in recovered
    # Only the real values: no decoy of the sweep matches by chance.
    real = {*secrets.numbers, *secrets.codes, *secrets.gift_card_numbers, *(pin for _, pin in secrets.pins)}
    assert {item.candidate for item in found} <= real


def _idempotent_bodies(secrets: Secrets) -> str:
    return json.dumps([body for _, path, _, body in secrets.requests if path == "/transactions"])


def test_the_clear_scan_ignores_ids_and_times_but_not_a_code():
    assert holds_in_clear('{"cvv": "4826"}', "4826")
    assert not holds_in_clear("2030-01-01 10:00:00.004826", "4826")
    assert not holds_in_clear("4137b1cf-39ac-42a8-4826-1c680d5dab6b", "4826")
    assert not holds_in_clear("x14826", "4826")
