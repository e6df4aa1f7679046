"""Keyset cursor pagination, exercised through the buyers list.

Properties: whatever the rows (including many sharing one `created_at`) and the limit, walking the
cursors visits every row exactly once in order, in both directions, and concurrent inserts and deletes
never repeat or skip a surviving row. Examples: cursor binding, forgery, and `limit` validation.
"""

import itertools
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.core import signing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory
from payments.accounts.keys import generate_private_key, mint_token, public_pem
from payments.accounts.services import api_key_register
from payments.rest.pagination import Cursor, KeysetBound, _bounded

pytestmark = pytest.mark.django_db

URL = "/buyers"
BASE_TIME = datetime(2026, 1, 1, tzinfo=UTC)
# A handful of instants, so that most rows share their `created_at` with others.
OFFSETS = st.integers(min_value=0, max_value=3)
# Any row count 0..60, drawn evenly: plain `st.lists` mostly makes short lists.
ROWS = st.integers(min_value=0, max_value=60).flatmap(lambda n: st.lists(OFFSETS, min_size=n, max_size=n))
LIMITS = st.integers(min_value=1, max_value=15)
PROPERTY_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # every example resets the rows it uses
)


def _instant(offset: int) -> datetime:
    return BASE_TIME + timedelta(microseconds=offset * 250_001)


class Rows:
    """Makes buyers with chosen `created_at` values.

    With `replayable=True` the ids are the same on every run of a Hypothesis example (a replay must draw
    the same deletions) yet ordered unlike insertion, so ties on `created_at` break in no particular order.
    """

    def __init__(self, account, *, replayable: bool = False) -> None:
        self.account = account
        self.serial = itertools.count(1) if replayable else None

    def add(self, offsets: list[int]) -> list[Buyer]:
        buyers = [BuyerFactory.build(merchant_account=self.account, id=self._id()) for _ in offsets]
        Buyer.objects.bulk_create(buyers)
        # auto_now_add cannot be overridden on insert: set the instants afterwards.
        for offset in set(offsets):
            ids = [buyer.id for buyer, chosen in zip(buyers, offsets, strict=True) if chosen == offset]
            Buyer.objects.filter(id__in=ids).update(created_at=_instant(offset))
        return list(Buyer.objects.filter(id__in=[buyer.id for buyer in buyers]))

    def _id(self) -> uuid.UUID:
        if self.serial is None:
            return uuid.uuid4()
        return uuid.UUID(int=(next(self.serial) * 0x9E3779B97F4A7C15F39CC0605CEDC835) % 2**128)


def make_rows(account, offsets: list[int]) -> list[Buyer]:
    return Rows(account).add(offsets)


def newest_first(rows) -> list[str]:
    return [str(row.id) for row in sorted(rows, key=lambda row: (row.created_at, row.id), reverse=True)]


def fetch(client, cursor: str | None, limit: int, **filters) -> dict:
    params = {"limit": limit, **filters}
    if cursor is not None:
        params["cursor"] = cursor
    response = client.get(URL, params)
    assert response.status_code == 200, response.json()
    page = response.json()
    for value in (page["next_cursor"], page["previous_cursor"]):
        assert value is None or 0 < len(value) < 1000
    assert page["limit"] == limit
    assert len(page["items"]) <= limit
    return page


def walk(client, limit: int, *, start: dict | None = None, direction: str = "next", between=None) -> list[dict]:
    """Follow one kind of cursor until it is null; `between` runs after each page (concurrent writers)."""
    pages = [start or fetch(client, None, limit)]
    while pages[-1][f"{direction}_cursor"] is not None:
        assert len(pages) <= 200, "the cursors never reached an end"
        if between:
            between()
        pages.append(fetch(client, pages[-1][f"{direction}_cursor"], limit))
    return pages


def ids_of(pages: list[dict]) -> list[str]:
    return [item["id"] for page in pages for item in page["items"]]


@pytest.fixture
def reader(api_client, merchant_account):
    return api_client(scopes=["buyers.read"])


@PROPERTY_SETTINGS
@given(offsets=ROWS, limit=LIMITS)
def test_walking_forward_then_back_visits_every_row_once(reader, merchant_account, offsets, limit):
    Buyer.objects.all().delete()
    rows = make_rows(merchant_account, offsets)

    forward = walk(reader, limit)
    backward = walk(reader, limit, start=forward[-1], direction="previous")

    assert ids_of(forward) == newest_first(rows)
    assert forward[0]["previous_cursor"] is None
    assert forward[-1]["next_cursor"] is None
    assert [page["items"] for page in backward] == [page["items"] for page in reversed(forward)]
    assert backward[-1]["previous_cursor"] is None


@PROPERTY_SETTINGS
@given(
    offsets=ROWS,
    limit=LIMITS,
    backwards=st.booleans(),
    data=st.data(),
)
def test_concurrent_inserts_and_deletes_never_repeat_or_skip_a_survivor(
    reader, merchant_account, offsets, limit, backwards, data
):
    Buyer.objects.all().delete()
    rows = Rows(merchant_account, replayable=True)
    original = {str(row.id) for row in rows.add(offsets)}

    def writers_act() -> None:
        rows.add(data.draw(st.lists(OFFSETS, max_size=3), label="inserted"))
        existing = sorted(str(pk) for pk in Buyer.objects.values_list("id", flat=True))
        if existing:
            doomed = data.draw(st.lists(st.sampled_from(existing), max_size=3, unique=True), label="deleted")
            Buyer.objects.filter(id__in=doomed).delete()

    if backwards:
        last = walk(reader, limit)[-1]
        pages = walk(reader, limit, start=last, direction="previous", between=writers_act)
        seen = ids_of(list(reversed(pages)))
    else:
        seen = ids_of(walk(reader, limit, between=writers_act))

    survivors = original & {str(pk) for pk in Buyer.objects.values_list("id", flat=True)}
    assert len(seen) == len(set(seen)), "a row was repeated"
    assert survivors <= set(seen), "a surviving row was skipped"
    keys = {str(row.id): (row.created_at, row.id) for row in Buyer.objects.all()}
    still_there = [keys[pk] for pk in seen if pk in keys]
    assert still_there == sorted(still_there, reverse=True), "rows came out of order"


def test_a_page_emptied_by_deletes_still_leads_back(reader, merchant_account):
    make_rows(merchant_account, [0, 1, 2, 3])
    first = fetch(reader, None, 2)
    Buyer.objects.exclude(id__in=[item["id"] for item in first["items"]]).delete()

    emptied = fetch(reader, first["next_cursor"], 2)
    back = fetch(reader, emptied["previous_cursor"], 2)

    assert emptied["items"] == []
    assert emptied["next_cursor"] is None
    assert [item["id"] for item in back["items"]] == [item["id"] for item in first["items"]]
    assert back["previous_cursor"] is None


def test_limit_defaults_to_20_and_accepts_1_and_100(reader, merchant_account):
    make_rows(merchant_account, [0] * 21)

    assert len(reader.get(URL).json()["items"]) == 20
    assert reader.get(URL).json()["limit"] == 20
    assert len(reader.get(URL, {"limit": 1}).json()["items"]) == 1
    assert len(reader.get(URL, {"limit": 100}).json()["items"]) == 21


def _assert_query_error(response, pointer: str) -> None:
    assert response.status_code == 400
    body = response.json()
    assert (body["type"], body["code"], body["status"]) == ("error", "bad_request", 400)
    assert [(detail["location"], detail["pointer"]) for detail in body["details"]] == [("query", pointer)]


@pytest.mark.parametrize("limit", ["0", "101", "-1", "abc", "1.5", "", "1e2", "9" * 40], ids=lambda value: repr(value))
def test_bad_limit_is_400_naming_limit(reader, limit):
    _assert_query_error(reader.get(URL, {"limit": limit}), "/limit")


@pytest.fixture
def next_cursor(reader, merchant_account) -> str:
    make_rows(merchant_account, [0, 1, 2])
    return fetch(reader, None, 1)["next_cursor"]


def _forged_with_another_key(cursor: str) -> str:
    signer = signing.Signer(key="not-the-server-key", salt="payments.cursor:anything")
    return signer.sign_object(["n", BASE_TIME.isoformat(), str(uuid.uuid4())], compress=True)


FORGERIES = {
    "truncated": lambda cursor: cursor[:-5],
    "one character changed": lambda cursor: cursor[:10] + ("A" if cursor[10] != "A" else "B") + cursor[11:],
    "signature removed": lambda cursor: cursor.rsplit(":", 1)[0],
    "signed with another key": _forged_with_another_key,
    "garbage": lambda cursor: "not-a-cursor",
    "empty": lambda cursor: "",
    "huge": lambda cursor: "x" * 5000,
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_forged_or_truncated_cursor_is_400_naming_cursor(reader, next_cursor, forge):
    _assert_query_error(reader.get(URL, {"limit": 1, "cursor": forge(next_cursor)}), "/cursor")


@pytest.mark.parametrize(
    ("filters", "pointer"),
    [({"search": "a"}, "/cursor"), ({"external_identifier": "buyer-1"}, "/cursor"), ({"unrelated": "1"}, "/unrelated")],
    ids=["search", "external_identifier", "a parameter the list does not read"],
)
def test_cursor_used_with_other_filters_is_400(reader, next_cursor, filters, pointer):
    _assert_query_error(reader.get(URL, {"limit": 1, "cursor": next_cursor, **filters}), pointer)


def test_cursor_keeps_working_with_another_limit(reader, next_cursor):
    """The limit is not part of the binding: a client may change its page size mid-walk."""
    assert reader.get(URL, {"limit": 5, "cursor": next_cursor}).status_code == 200


@pytest.mark.urls("tests.plumbing.second_list_urls")
def test_cursor_from_another_endpoint_is_400(reader, next_cursor):
    _assert_query_error(reader.get("/customers", {"limit": 1, "cursor": next_cursor}), "/cursor")


def test_cursor_from_another_merchant_account_shows_only_that_accounts_rows(
    api_client, merchant_account, other_merchant_account, next_cursor
):
    """A cursor is a position, not a grant: every page is still scoped to the caller's account."""
    key, pem = generate_private_key()
    api_key_register(public_key_pem=public_pem(key), merchant_account=other_merchant_account)
    theirs = make_rows(other_merchant_account, [0, 0])
    client = api_client(scopes=["buyers.read"])
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {mint_token(pem, scopes=['buyers.read'])}", HTTP_X_GR4VY_MERCHANT_ACCOUNT_ID="other"
    )

    page = fetch(client, next_cursor, 10)

    assert {item["id"] for item in page["items"]} <= {str(row.id) for row in theirs}


@pytest.mark.parametrize("forward", [True, False])
def test_a_page_from_a_cursor_adds_its_bound_to_the_query_as_it_is(merchant_account, forward):
    """The bound is the `WHERE`'s own condition, not wrapped in the `= true` lookup `filter()` builds around it, and
    the query it bounds is left as it was."""
    rows = Buyer.objects.filter(merchant_account=merchant_account)
    cursor = Cursor(forward, BASE_TIME, str(uuid.uuid4()))
    unbounded = str(rows.query)

    bounded = _bounded(rows, KeysetBound("<" if forward else ">", cursor))

    assert isinstance(bounded.query.where.children[-1], KeysetBound)
    assert len(bounded.query.where.children) == len(rows.query.where.children) + 1
    assert str(rows.query) == unbounded
