"""Captures, voids and increments racing on one authorization, as real concurrent requests against PostgreSQL: the
row lock and the pending marks decide which wins, and the books add up whichever it is."""

import threading
import time

import pytest
from django.db.models import Sum

from transactions.models import Capture, Transaction
from transactions.tests.connectors import ScriptedConnector
from transactions.tests.test_concurrency import _authorized, in_parallel

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# Long enough that a request started at the same moment arrives while the first one is at the processor.
PROCESSOR_SECONDS = 0.5


@pytest.fixture
def token(token_for, merchant_account) -> str:
    return token_for(["transactions.read", "transactions.write"])


@pytest.fixture
def slow_processor(connector, monkeypatch) -> type[ScriptedConnector]:
    """The processor takes a while to answer captures, voids and increments."""
    for name in ("capture", "void", "increment_authorization"):
        answer = getattr(ScriptedConnector, name)

        def slowly(self, *args, _answer=answer, **kwargs):
            time.sleep(PROCESSOR_SECONDS)
            return _answer(self, *args, **kwargs)

        monkeypatch.setattr(ScriptedConnector, name, slowly)
    return connector


def _books_add_up(txn: Transaction) -> None:
    succeeded = Capture.objects.filter(transaction=txn, status="succeeded")
    assert txn.captured_amount == (succeeded.aggregate(total=Sum("amount"))["total"] or 0)
    assert txn.captured_amount <= txn.authorized_amount <= txn.amount
    assert not Capture.objects.filter(transaction=txn, status="pending").exists()
    sequences = list(Capture.objects.filter(transaction=txn).values_list("sequence", flat=True))
    assert len(sequences) == len(set(sequences))


def test_two_captures_at_once_one_wins(token, slow_processor):
    txn = _authorized(token)

    answers = in_parallel(
        2,
        lambda client: client.post(
            f"/transactions/{txn['id']}/capture", {"amount": 600, "final": False}, format="json"
        ),
        token,
    )

    assert sorted(answer.status_code for answer in answers) == [200, 409]
    stored = Transaction.objects.get()
    assert (stored.status, stored.captured_amount, stored.captures.count()) == ("capture_succeeded", 600, 1)
    _books_add_up(stored)
    assert [name for name, _ in slow_processor.calls].count("capture") == 1


def test_many_partial_captures_never_pass_the_authorized_amount(token, connector):
    txn = _authorized(token)

    def capture_some(client):
        return client.post(f"/transactions/{txn['id']}/capture", {"amount": 300, "final": False}, format="json")

    answers = [*in_parallel(6, capture_some, token), *in_parallel(6, capture_some, token)]

    assert {answer.status_code for answer in answers} <= {200, 400, 409}
    stored = Transaction.objects.get()
    assert stored.captured_amount == 300 * [answer.status_code for answer in answers].count(200) <= 1000
    _books_add_up(stored)


def _each(*requests: tuple[str, dict]):
    """A request for `in_parallel` that sends each of `requests` once, one per thread: (path, answer)."""
    pending = iter(requests)
    lock = threading.Lock()

    def send(client):
        with lock:
            path, payload = next(pending)
        return path, client.post(path, payload, format="json")

    return send


def test_a_capture_against_a_void_one_wins(token, slow_processor):
    txn = _authorized(token)
    path = f"/transactions/{txn['id']}"

    answers = dict(in_parallel(2, _each((f"{path}/capture", {}), (f"{path}/void", {})), token))

    assert sorted(answer.status_code for answer in answers.values()) == [200, 409]
    stored = Transaction.objects.get()
    if answers[f"{path}/capture"].status_code == 200:
        assert (stored.status, stored.captured_amount, stored.voided_at) == ("capture_succeeded", 1000, None)
    else:
        assert (stored.status, stored.captured_amount, stored.captures.count()) == ("authorization_voided", 0, 0)
    _books_add_up(stored)


def test_an_increment_against_a_capture_one_wins(token, slow_processor):
    txn = _authorized(token)
    path = f"/transactions/{txn['id']}"
    increment = f"{path}/authorization/increment"

    answers = dict(in_parallel(2, _each((f"{path}/capture", {}), (increment, {"amount": 250})), token))

    assert sorted(answer.status_code for answer in answers.values()) == [200, 409]
    stored = Transaction.objects.get()
    if answers[increment].status_code == 200:  # the authorization grew, nothing was captured
        assert (stored.status, stored.authorized_amount, stored.amount) == ("authorization_succeeded", 1250, 1250)
        assert stored.captured_amount == 0
    else:  # the capture won: the increment never reached the processor
        assert (stored.captured_amount, stored.authorized_amount, stored.amount) == (1000, 1000, 1000)
        assert "increment" not in [name for name, _ in slow_processor.calls]
    assert stored.increment_pending_since is None
    _books_add_up(stored)


@pytest.mark.parametrize(
    ("first", "then"),
    [
        (("authorization/increment", {"amount": 250}), ("capture", {})),
        (("authorization/increment", {"amount": 250}), ("void", {})),
        (("capture", {}), ("authorization/increment", {"amount": 250})),
    ],
    ids=["capture-during-increment", "void-during-increment", "increment-during-capture"],
)
def test_what_arrives_while_another_is_at_the_processor_is_a_409(token, connector, monkeypatch, first, then):
    """Deterministic: the second request is sent only once the first one is at the processor."""
    txn = _authorized(token)
    at_processor, let_go = threading.Event(), threading.Event()
    operation = {"capture": "capture", "authorization/increment": "increment_authorization"}[first[0]]
    answer = getattr(ScriptedConnector, operation)

    def held(self, *args, **kwargs):
        at_processor.set()
        assert let_go.wait(timeout=30)
        return answer(self, *args, **kwargs)

    monkeypatch.setattr(ScriptedConnector, operation, held)
    path = f"/transactions/{txn['id']}"
    answers = {}
    sender = threading.Thread(
        target=lambda: answers.update(in_parallel(1, _each((f"{path}/{first[0]}", first[1])), token))
    )
    sender.start()
    assert at_processor.wait(timeout=30)

    ((_, second),) = in_parallel(1, _each((f"{path}/{then[0]}", then[1])), token)
    let_go.set()
    sender.join(timeout=60)

    assert second.status_code == 409, second.content
    assert answers[f"{path}/{first[0]}"].status_code == 200
    stored = Transaction.objects.get()
    incremented = first[0] == "authorization/increment"
    assert (stored.authorized_amount, stored.amount) == ((1250, 1250) if incremented else (1000, 1000))
    assert stored.status == ("authorization_succeeded" if incremented else "capture_succeeded")
    _books_add_up(stored)
