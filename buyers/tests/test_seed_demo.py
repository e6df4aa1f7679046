"""`manage.py seed_demo`: realistic, deterministic, resumable demo buyers."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from buyers.api.serializers import BuyerInput
from buyers.demo import demo_buyer_fields, seed_demo_buyers
from buyers.models import Buyer
from buyers.tests.factories import BuyerFactory

pytestmark = pytest.mark.django_db


def _seed(**options) -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def _identifiers(account) -> list[str]:
    return sorted(Buyer.objects.filter(merchant_account=account).values_list("external_identifier", flat=True))


def test_seeds_buyers_with_deterministic_identifiers(merchant_account):
    output = _seed(buyers=5)

    assert _identifiers(merchant_account) == [f"demo-buyer-00000{n}" for n in range(1, 6)]
    assert "5 created" in output


def test_seeded_buyers_pass_the_apis_own_validation(merchant_account):
    _seed(buyers=12)

    for buyer in Buyer.objects.filter(merchant_account=merchant_account):
        fields = {k: getattr(buyer, k) for k in ("display_name", "external_identifier", "account_number")}
        serializer = BuyerInput(data={**fields, "billing_details": buyer.billing_details})
        assert serializer.is_valid(), serializer.errors
        assert buyer.created_at is not None
        assert buyer.updated_at is not None


def test_seeded_buyers_have_distinct_increasing_times_over_the_last_year(merchant_account):
    _seed(buyers=25, batch_size=10)

    times = list(Buyer.objects.order_by("external_identifier").values_list("created_at", flat=True))
    assert len(set(times)) == 25
    assert times == sorted(times)
    assert timedelta(days=300) < times[-1] - times[0] < timedelta(days=366)


@pytest.mark.parametrize("number", [1, 3, 42, 624, 999_999])
def test_the_copy_line_holds_the_demo_fields(number):
    from buyers.demo import _copy_line

    values = _copy_line("default", number, timezone.now()).rstrip("\n").split("\t")

    fields = demo_buyer_fields(number)
    assert values[2:5] == [fields["display_name"], fields["external_identifier"], fields["account_number"] or "\\N"]
    assert json.loads(values[5]) == fields["billing_details"]


def test_running_twice_creates_nothing_the_second_time(merchant_account):
    _seed(buyers=4)
    first_ids = set(Buyer.objects.values_list("id", flat=True))

    output = _seed(buyers=4)

    assert set(Buyer.objects.values_list("id", flat=True)) == first_ids
    assert "0 created" in output


def test_a_larger_total_carries_on_after_the_existing_demo_buyers(merchant_account):
    _seed(buyers=7, batch_size=3)

    _seed(buyers=10, batch_size=3)

    assert _identifiers(merchant_account) == [f"demo-buyer-{n:06d}" for n in range(1, 11)]


def test_an_identifier_taken_by_the_merchant_is_skipped_not_duplicated(merchant_account):
    # A merchant's own buyer that happens to use a demo identifier must survive seeding untouched.
    own = BuyerFactory(merchant_account=merchant_account, external_identifier="demo-buyer-000002", display_name="Mine")

    result = seed_demo_buyers(merchant_account=merchant_account, total=3, batch_size=2)

    own.refresh_from_db()
    assert own.display_name == "Mine"
    assert Buyer.objects.filter(external_identifier="demo-buyer-000002").count() == 1
    assert _identifiers(merchant_account) == ["demo-buyer-000001", "demo-buyer-000002", "demo-buyer-000003"]
    assert result.after == 3


def test_progress_is_reported_after_each_batch(merchant_account):
    seen = []

    seed_demo_buyers(merchant_account=merchant_account, total=5, batch_size=2, on_progress=lambda *a: seen.append(a))

    assert seen == [(2, 5), (4, 5), (5, 5)]


def test_other_accounts_are_seeded_separately(merchant_account, other_merchant_account):
    _seed(buyers=2)
    _seed(buyers=3, merchant_account="other")

    assert len(_identifiers(merchant_account)) == 2
    assert _identifiers(other_merchant_account) == [f"demo-buyer-00000{n}" for n in range(1, 4)]


def test_if_empty_seeds_nothing_into_an_account_that_has_buyers(merchant_account):
    BuyerFactory(merchant_account=merchant_account)

    output = _seed(buyers=5, if_empty=True)

    assert Buyer.objects.count() == 1
    assert "seeding nothing" in output


def test_if_empty_seeds_an_empty_account(merchant_account):
    _seed(buyers=3, if_empty=True)

    assert len(_identifiers(merchant_account)) == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"buyers": 1, "merchant_account": "missing"}, "No merchant account 'missing'"),
        ({"buyers": -1}, "--buyers"),
        ({"buyers": 1, "batch_size": 0}, "--batch-size"),
    ],
    ids=["unknown-account", "negative-count", "zero-batch"],
)
def test_bad_arguments_are_refused_and_nothing_is_written(merchant_account, options, message):
    with pytest.raises(CommandError, match=message):
        _seed(**options)

    assert Buyer.objects.count() == 0


def test_demo_fields_are_the_same_on_every_run():
    assert demo_buyer_fields(42) == demo_buyer_fields(42)
    assert demo_buyer_fields(42)["external_identifier"] == "demo-buyer-000042"
    assert demo_buyer_fields(42) != demo_buyer_fields(43)


def test_setup_local_seeds_demo_buyers_into_an_empty_account_once(settings, tmp_path):
    settings.DEBUG = True  # setup_local refuses to run in production
    key = tmp_path / "key.pem"

    call_command("setup_local", private_key_out=key, stdout=io.StringIO())
    Buyer.objects.filter(external_identifier="demo-buyer-000001").delete()
    call_command("setup_local", private_key_out=key, stdout=io.StringIO())

    assert Buyer.objects.filter(merchant_account_id="default").count() == 49
