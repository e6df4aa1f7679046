"""The PIN-failure lock: failed checks counted per card number across callers, the lock and its record."""

import uuid

import pytest
from django.test import override_settings
from django.utils import timezone

from giftcards.lockout import record_pin_failure
from payments.ratelimits.models import RateLimitEvent

pytestmark = pytest.mark.django_db

LIMIT = 3
DEAD_REDIS = {
    "BACKEND": "django_redis.cache.RedisCache",
    "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
    "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
}


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.RATELIMIT_CACHE_PREFIX = f"rl-test-{uuid.uuid4().hex}:"
    # Day-long windows: a window edge falls inside a test's few milliseconds about once in ten million runs.
    settings.RATELIMIT_GIFTCARD_PIN_FAILURES = f"{LIMIT}/d"


def _subject() -> str:
    return uuid.uuid4().hex  # stands in for the keyed hash of a card number


def _fail(subject: str, *, last4: str = "4242", endpoint: str = "POST /gift-cards"):
    return record_pin_failure(subject, merchant_account_id="default", last4=last4, endpoint=endpoint)


def test_pin_failures_lock_the_card_once_the_budget_is_used(merchant_account):
    card, other = _subject(), _subject()

    locks = [_fail(card, endpoint="POST /gift-cards/balances") for _ in range(LIMIT)]

    assert locks[:-1] == [None] * (LIMIT - 1)
    assert locks[-1] > timezone.now()  # the lock lasts until the window ends
    assert _fail(other) is None


def test_the_pin_failure_lock_is_recorded_once_with_the_last_4_digits_only(merchant_account):
    card = _subject()
    for _ in range(LIMIT + 3):
        _fail(card)

    event = RateLimitEvent.objects.get()
    assert (event.subject_kind, event.subject_label) == ("gift_card", "ending 4242")
    assert (event.merchant_account_id, event.endpoint) == ("default", "POST /gift-cards")
    assert card not in event.subject_key


def test_pin_failure_records_never_take_more_than_4_digits(merchant_account):
    card = _subject()
    for _ in range(LIMIT):
        _fail(card, last4="6035710000004242")

    assert RateLimitEvent.objects.get().subject_label == "ending 4242"


def test_pin_failures_lock_nothing_while_the_cache_is_unreachable(settings, merchant_account):
    card = _subject()

    # Inside the test only: the app's fixtures clear the real cache afterwards.
    with override_settings(CACHES={**settings.CACHES, "ratelimit": DEAD_REDIS}):
        locks = [_fail(card) for _ in range(LIMIT + 1)]

    assert locks == [None] * (LIMIT + 1)
    assert not RateLimitEvent.objects.exists()


def test_the_record_of_a_lock_holds_no_digest_a_guess_can_be_tested_against(merchant_account):
    import hashlib

    from payments.ratelimits.records import SUBJECT_KEY_PURPOSE
    from payments.vault.crypto import keyed_hash

    card = _subject()
    for _ in range(LIMIT):
        _fail(card)

    stored = RateLimitEvent.objects.get().subject_key
    assert stored == keyed_hash(f"gift_card:{card}", purpose=SUBJECT_KEY_PURPOSE)
    assert stored != hashlib.sha256(f"gift_card:{card}".encode()).hexdigest()
