"""`payment_method.approval_url` on reads: answered while the transaction waits for the buyer, as upstream does,
from the page's token sealed with the vault's keys; null once the challenge ended or expired. docs/three-d-secure.md."""

from __future__ import annotations

import io
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conftest import TEST_CARD_KEYS
from payments.rest.models import IdempotencyRecord
from payments.vault import crypto
from transactions.api.targets import transaction_target
from transactions.models import ThreeDSecureChallenge
from transactions.services.approval_tokens import approval_tokens_count_stale
from transactions.services.challenges import challenges_expire
from transactions.tests.test_challenge_page import form_token
from transactions.tests.test_three_d_secure import CHALLENGE_Y, pay

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(api_client):
    return api_client(scopes=["transactions.read", "transactions.write"])


def read_url(reader, transaction_id: str) -> str | None:
    return reader.get(f"/transactions/{transaction_id}").json()["payment_method"]["approval_url"]


def test_a_read_while_pending_answers_the_same_page(challenged, reader):
    transaction_id, path = challenged()

    assert read_url(reader, transaction_id) == f"http://testserver{path}"
    listed = reader.get("/transactions").json()["items"]
    assert [item["payment_method"]["approval_url"] for item in listed] == [f"http://testserver{path}"]


def test_a_webhook_target_carries_it_while_pending(challenged, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.com"
    transaction_id, path = challenged()

    target = transaction_target(transaction_id)

    assert target is not None
    assert target["payment_method"]["approval_url"] == f"https://pay.example.com{path}"


def test_a_list_of_waiting_transactions_costs_no_query_per_row(challenged, reader, django_assert_num_queries):
    for _ in range(3):
        challenged()

    with django_assert_num_queries(3):  # the page (with its challenges), then the gift card redemptions, the disputes
        items = reader.get("/transactions").json()["items"]

    assert all(item["payment_method"]["approval_url"] for item in items)


@pytest.mark.parametrize("action", ["complete", "cancel"])
def test_null_once_the_buyer_answered(challenged, reader, action):
    transaction_id, path = challenged()
    browser = Client()
    page = browser.get(path)
    assert read_url(reader, transaction_id) is not None  # opened, not answered: still waiting

    browser.post(path, {"form_token": form_token(page), "action": action})

    assert read_url(reader, transaction_id) is None


def test_null_once_expired_even_before_the_job_ends_it(challenged, reader):
    transaction_id, _ = challenged()
    past = timezone.now() - timedelta(seconds=1)
    ThreeDSecureChallenge.objects.filter(transaction_id=transaction_id).update(expires_at=past)

    assert read_url(reader, transaction_id) is None
    assert challenges_expire() == 1
    assert reader.get(f"/transactions/{transaction_id}").json()["status"] == "authorization_failed"
    assert read_url(reader, transaction_id) is None


def test_null_once_the_merchant_canceled(challenged, reader):
    transaction_id, _ = challenged()

    assert reader.post(f"/transactions/{transaction_id}/cancel").status_code == 200

    assert read_url(reader, transaction_id) is None


def test_the_token_is_sealed_for_its_challenge_only(challenged, reader):
    first_id, first_path = challenged()
    second_id, _ = challenged()
    token = first_path.rsplit("/", 1)[1]

    row = ThreeDSecureChallenge.objects.filter(transaction_id=first_id).values().get()
    assert token not in str(row)
    # A ciphertext copied to another challenge opens nowhere: that read answers null, it does not fail.
    sealed = row["sealed_token"]
    ThreeDSecureChallenge.objects.filter(transaction_id=second_id).update(sealed_token=sealed)
    assert read_url(reader, second_id) is None
    assert read_url(reader, first_id) == f"http://testserver{first_path}"


def test_rotate_card_keys_reseals_waiting_tokens_and_drops_ended_ones(challenged, reader, settings):
    waiting_id, waiting_path = challenged()
    ended_id, ended_path = challenged()
    browser = Client()
    browser.post(ended_path, {"form_token": form_token(browser.get(ended_path)), "action": "cancel"})
    new = "new:" + crypto.generate_key_spec("x").split(":", 1)[1]
    settings.CARD_ENCRYPTION_KEYS = [new, TEST_CARD_KEYS[0]]
    assert approval_tokens_count_stale() == 2

    call_command("rotate_card_keys", "--batch-size", "1", stdout=io.StringIO())

    settings.CARD_ENCRYPTION_KEYS = [new]  # the old key can go now
    assert approval_tokens_count_stale() == 0
    assert read_url(reader, waiting_id) == f"http://testserver{waiting_path}"
    ended = ThreeDSecureChallenge.objects.get(transaction_id=ended_id)
    assert (ended.sealed_token, ended.key_id) == ("", "")
    assert ThreeDSecureChallenge.objects.get(transaction_id=waiting_id).key_id == "new"


def test_a_token_whose_key_was_removed_reads_as_null(challenged, reader, settings):
    transaction_id, _ = challenged()

    settings.CARD_ENCRYPTION_KEYS = ["new:" + crypto.generate_key_spec("x").split(":", 1)[1]]

    response = reader.get(f"/transactions/{transaction_id}")
    assert response.status_code == 200
    assert response.json()["payment_method"]["approval_url"] is None
    assert timezone.now() < ThreeDSecureChallenge.objects.get(transaction_id=transaction_id).expires_at


def stored_idempotency_rows() -> str:
    """Every idempotency record as the database holds it, every column."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(IdempotencyRecord._meta.db_table)}")  # noqa: S608
        return repr(cursor.fetchall())


def test_a_replayed_create_stores_no_token_and_answers_the_page_while_the_challenge_waits(challenged, reader):
    first = pay(reader, number=CHALLENGE_Y, idempotency_key="order-7")
    url = first.json()["payment_method"]["approval_url"]
    token = urlsplit(url).path.rsplit("/", 1)[1]

    # The first answer has the page; the record kept for the key's 24 hours has no token, in any column.
    assert first.status_code == 201
    assert url.startswith("http://testserver/three-d-secure/challenges/")
    assert IdempotencyRecord.objects.get(key="order-7").state == IdempotencyRecord.State.COMPLETED
    assert token not in stored_idempotency_rows()

    with CaptureQueriesContext(connection) as statements:
        replay = pay(reader, number=CHALLENGE_Y, idempotency_key="order-7")

    # A replay's two (the claim the key refuses, the stored answer), then the transaction and its challenge.
    queries = [query["sql"] for query in statements if "SAVEPOINT" not in query["sql"]]
    assert len(queries) == 4, "\n".join(queries)
    assert replay.status_code == 201
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.json() == first.json()  # the same answer, page included
    page = Client().get(urlsplit(replay.json()["payment_method"]["approval_url"]).path)
    assert page.status_code == 200
    assert form_token(page)  # the page works: it asks the buyer
    assert token not in stored_idempotency_rows()


@pytest.mark.parametrize("end", ["complete", "cancel", "expire"])
def test_a_replay_once_the_challenge_ended_answers_no_page(challenged, reader, end):
    first = pay(reader, number=CHALLENGE_Y, idempotency_key="order-8").json()
    path = urlsplit(first["payment_method"]["approval_url"]).path
    if end == "expire":
        past = timezone.now() - timedelta(seconds=1)
        ThreeDSecureChallenge.objects.filter(transaction_id=first["id"]).update(expires_at=past)
    else:
        browser = Client()
        browser.post(path, {"form_token": form_token(browser.get(path)), "action": end})

    replay = pay(reader, number=CHALLENGE_Y, idempotency_key="order-8")

    assert replay["Idempotent-Replayed"] == "true"
    assert replay.json()["payment_method"]["approval_url"] is None
    # Otherwise the first answer, as sent: a replay is not a read.
    assert {**replay.json(), "payment_method": None} == {**first, "payment_method": None}
    assert replay.json()["status"] == "buyer_approval_pending"


def test_a_replayed_answer_without_a_challenge_is_the_stored_one(challenged, reader):
    first = pay(reader, idempotency_key="order-9")  # a frictionless card: no page at any time
    assert first.json()["payment_method"]["approval_url"] is None

    replay = pay(reader, idempotency_key="order-9")

    assert replay["Idempotent-Replayed"] == "true"
    assert replay.content == first.content
