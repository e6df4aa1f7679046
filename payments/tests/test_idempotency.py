from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIRequestFactory

from payments.errors import DomainError
from payments.rest.idempotency import (
    IdempotencyKeyInUse,
    idempotency_claim,
    idempotency_complete,
    idempotency_key_from,
    idempotency_purge_expired,
    idempotency_release,
    request_fingerprint,
)
from payments.rest.models import IdempotencyRecord

pytestmark = pytest.mark.django_db


def _request(body=None, path="/transactions", prefer=None, key=None):
    from rest_framework.parsers import JSONParser
    from rest_framework.request import Request

    headers = {"HTTP_PREFER": prefer} if prefer else {}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    raw = APIRequestFactory().post(path, body or {}, format="json", **headers)
    return Request(raw, parsers=[JSONParser()])


def test_first_claim_owns_the_key_and_later_ones_replay_the_answer(merchant_account):
    record, claimed = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    assert claimed
    with pytest.raises(IdempotencyKeyInUse):
        idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    idempotency_complete(record=record, status=201, body='{"id":"x"}', headers={"Location": "/x"})
    replay, claimed = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    assert not claimed
    assert replay.pk == record.pk
    assert (replay.response_status, replay.response_body) == (201, '{"id":"x"}')
    assert replay.response_headers == {"Location": "/x"}


def test_a_key_reused_for_another_request_is_refused(merchant_account):
    record, _ = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    idempotency_complete(record=record, status=201, body="{}", headers={})
    with pytest.raises(DomainError) as excinfo:
        idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="other")
    assert excinfo.value.status == 400
    assert excinfo.value.details[0]["pointer"] == "/idempotency-key"


def test_keys_belong_to_one_merchant_account(merchant_account, other_merchant_account):
    _, claimed_here = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    _, claimed_there = idempotency_claim(merchant_account=other_merchant_account, key="k", fingerprint="other")
    assert claimed_here
    assert claimed_there


def test_a_released_key_can_be_claimed_again(merchant_account):
    record, _ = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    idempotency_release(record=record)
    assert not IdempotencyRecord.objects.exists()
    _, claimed = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="different")
    assert claimed


def test_an_expired_answer_is_forgotten(merchant_account):
    record, _ = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f")
    idempotency_complete(record=record, status=201, body="{}", headers={})
    later = timezone.now() + timedelta(days=1, seconds=1)
    fresh, claimed = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="new", now=later)
    assert claimed
    assert fresh.pk != record.pk


def test_purge_deletes_only_expired_answers(merchant_account):
    idempotency_claim(
        merchant_account=merchant_account, key="old", fingerprint="f", now=timezone.now() - timedelta(days=2)
    )
    idempotency_claim(merchant_account=merchant_account, key="new", fingerprint="f")
    for number in range(3):
        idempotency_claim(
            merchant_account=merchant_account,
            key=f"old-{number}",
            fingerprint="f",
            now=timezone.now() - timedelta(days=3),
        )
    assert idempotency_purge_expired(now=timezone.now(), batch_size=3) == 3
    assert idempotency_purge_expired(now=timezone.now(), batch_size=3) == 1
    assert idempotency_purge_expired(now=timezone.now(), batch_size=3) == 0
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]


@pytest.mark.parametrize(
    "key",
    ["", "x" * 256, "caf\u00e9", "line\nbreak"],
    ids=["empty", "too-long", "non-ascii", "control-character"],
)
def test_malformed_keys_are_refused(key):
    with pytest.raises(DomainError) as excinfo:
        idempotency_key_from(_request(key=key))
    assert excinfo.value.details[0] == {
        "location": "header",
        "pointer": "/idempotency-key",
        "message": excinfo.value.message,
        "type": "DomainError",
    }


def test_a_longest_key_is_accepted():
    assert idempotency_key_from(_request(key="k" * 255)) == "k" * 255
    assert idempotency_key_from(_request()) is None


def test_fingerprint_ignores_key_order_but_not_content_path_or_prefer():
    base = request_fingerprint(_request({"a": 1, "b": 2}))
    assert request_fingerprint(_request({"b": 2, "a": 1})) == base
    assert request_fingerprint(_request({"a": 1, "b": 3})) != base
    assert request_fingerprint(_request({"a": 1, "b": 2}, path="/other")) != base
    assert request_fingerprint(_request({"a": 1, "b": 2}, prefer="resource=transaction-capture")) != base


def test_purge_expired_runs_the_idempotency_job(merchant_account):
    from io import StringIO

    from django.core.management import call_command

    idempotency_claim(
        merchant_account=merchant_account, key="old", fingerprint="f", now=timezone.now() - timedelta(days=2)
    )
    idempotency_claim(merchant_account=merchant_account, key="new", fingerprint="f")
    out = StringIO()

    call_command("purge_expired", "--only", "idempotency-keys", stdout=out)

    assert "idempotency-keys: 1 deleted" in out.getvalue()
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]


# --- the lease: a request whose process died releases its key -------------------------------------------------


@pytest.mark.parametrize(
    ("seconds_later", "resumed"),
    [(0, False), (89, False), (90, True), (3600, True)],
    ids=["at-once", "within-the-lease", "lease-over", "an-hour-later"],
)
def test_an_unfinished_claim_is_taken_over_once_its_lease_is_over(merchant_account, seconds_later, resumed):
    now = timezone.now()
    first, _ = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=now)
    later = now + timedelta(seconds=seconds_later)

    if not resumed:
        with pytest.raises(IdempotencyKeyInUse):
            idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=later)
        return
    again, claimed = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=later)
    assert claimed
    assert (again.pk, again.attempts) == (first.pk, 2)
    assert again.locked_until == later + timedelta(seconds=90)
    with pytest.raises(IdempotencyKeyInUse):  # the resumed request holds a fresh lease
        idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=later)


def test_the_lease_is_a_setting(merchant_account, settings):
    settings.IDEMPOTENCY_KEY_LEASE_SECONDS = 5
    now = timezone.now()
    idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=now)

    _, claimed = idempotency_claim(
        merchant_account=merchant_account, key="k", fingerprint="f", now=now + timedelta(seconds=5)
    )

    assert claimed


def test_a_taken_over_claim_keeps_its_reserved_id(merchant_account):
    from payments.rest.idempotency import idempotency_reserve_id

    now = timezone.now()
    first, _ = idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=now)
    reserved = idempotency_reserve_id(record=first)
    again, _ = idempotency_claim(
        merchant_account=merchant_account, key="k", fingerprint="f", now=now + timedelta(hours=1)
    )

    assert idempotency_reserve_id(record=again) == reserved == idempotency_reserve_id(record=first)


def test_another_request_with_a_dead_key_is_still_refused(merchant_account):
    now = timezone.now()
    idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="f", now=now)

    with pytest.raises(DomainError) as excinfo:
        idempotency_claim(merchant_account=merchant_account, key="k", fingerprint="other", now=now + timedelta(hours=1))

    assert excinfo.value.status == 400


@pytest.mark.parametrize(
    ("timeout", "lease", "recovery", "errors"),
    [
        (30, 90, 90, []),
        (30, 65, 90, ["payments.E001"]),
        (30, 90, 60, ["payments.E002"]),
        (60, 90, 90, ["payments.E001", "payments.E002"]),
    ],
    ids=["defaults", "lease-too-short", "recovery-too-soon", "timeout-raised-alone"],
)
def test_a_lease_shorter_than_a_request_may_run_is_a_system_check_error(settings, timeout, lease, recovery, errors):
    from payments.ops.checks import idempotency_lease_outlasts_requests

    settings.WEB_TIMEOUT_SECONDS = timeout
    settings.IDEMPOTENCY_KEY_LEASE_SECONDS = lease
    settings.PENDING_TRANSACTION_RECOVERY_SECONDS = recovery

    assert [message.id for message in idempotency_lease_outlasts_requests(None)] == errors
