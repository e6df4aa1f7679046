"""`manage.py issue_gift_cards`: cards issued in bulk, and a CSV that is the only record of numbers and PINs."""

import csv
import io
import stat
from datetime import UTC, datetime, time, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from giftcards.models import GiftCardService, IssuedGiftCard, LedgerEntry
from giftcards.services import issued_card_check

pytestmark = pytest.mark.django_db


def issue(tmp_path, *extra: str, count: int = 3, out: str = "cards.csv") -> str:
    path = tmp_path / out
    call_command(
        "issue_gift_cards",
        "--merchant-account=default",
        f"--count={count}",
        "--amount=2500",
        "--currency=USD",
        f"--out={path}",
        *extra,
    )
    return path


def read_csv(path) -> list[list[str]]:
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def test_writes_a_private_csv_with_one_header_and_a_row_per_card(tmp_path, merchant_account):
    path = issue(tmp_path, count=2501)

    rows = read_csv(path)
    assert rows[0] == ["number", "pin", "balance", "currency", "expiration_date"]
    assert rows.count(rows[0]) == 1
    assert len(rows) == 2502
    assert {tuple(row[2:]) for row in rows[1:]} == {("2500", "USD", "")}
    assert len({row[0] for row in rows[1:]}) == 2501
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert IssuedGiftCard.objects.count() == LedgerEntry.objects.filter(kind="issue").count() == 2501


def test_every_row_checks_out(tmp_path, merchant_account):
    path = issue(tmp_path, count=5)

    for number, pin, balance, _, _ in read_csv(path)[1:]:
        card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin)
        assert card.balance == int(balance)


def test_expires_at_the_end_of_the_given_day(tmp_path, merchant_account):
    day = (timezone.now() + timedelta(days=30)).date()

    path = issue(tmp_path, f"--expires={day.isoformat()}", count=1)

    assert read_csv(path)[1][4] == day.isoformat()
    assert IssuedGiftCard.objects.get().expires_at == datetime.combine(day, time.max, tzinfo=UTC)


def test_refuses_to_overwrite_a_file(tmp_path, merchant_account):
    (tmp_path / "cards.csv").write_text("keep me")

    with pytest.raises(CommandError, match="exists"):
        issue(tmp_path)

    assert (tmp_path / "cards.csv").read_text() == "keep me"
    assert not IssuedGiftCard.objects.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--merchant-account=nope", "--count=1", "--amount=1", "--currency=USD"], "Unknown merchant account"),
        (["--merchant-account=default", "--count=0", "--amount=1", "--currency=USD"], "--count"),
        (["--merchant-account=default", "--count=1", "--amount=0", "--currency=USD"], "amount"),
        (["--merchant-account=default", "--count=1", "--amount=1", "--currency=ABC"], "currency"),
        (
            ["--merchant-account=default", "--count=1", "--amount=1", "--currency=USD", "--expires=2000-01-01"],
            "expiry",
        ),
    ],
    ids=["unknown-account", "zero-count", "zero-amount", "unknown-currency", "past-expiry"],
)
def test_bad_arguments_issue_nothing_and_leave_no_file(tmp_path, merchant_account, arguments, message):
    path = tmp_path / "cards.csv"

    with pytest.raises(CommandError, match=message):
        call_command("issue_gift_cards", *arguments, f"--out={path}")

    assert not path.exists()
    assert not IssuedGiftCard.objects.exists()


def test_missing_hash_key_is_a_clear_error_and_leaves_no_file(tmp_path, merchant_account, settings):
    settings.CARD_FINGERPRINT_KEY = ""

    with pytest.raises(CommandError, match="CARD_FINGERPRINT_KEY"):
        issue(tmp_path)

    assert not (tmp_path / "cards.csv").exists()
    assert not IssuedGiftCard.objects.exists()


def test_inactive_issues_pre_printed_cards_waiting_for_activation(tmp_path, merchant_account):
    path = issue(tmp_path, "--inactive", count=2)

    number, pin = read_csv(path)[1][:2]
    card = issued_card_check(merchant_account=merchant_account, number=number, pin=pin)
    assert (card.status, card.awaiting_activation) == ("inactive", True)
    assert IssuedGiftCard.objects.filter(status="inactive", awaiting_activation=True).count() == 2


def test_set_gift_card_themes_sets_and_clears_the_accounts_themes(merchant_account):
    out = io.StringIO()
    call_command("set_gift_card_themes", "--merchant-account=default", "--theme=birthday", "--theme=thanks", stdout=out)
    assert GiftCardService.objects.get().themes == ["birthday", "thanks"]
    assert "birthday, thanks" in out.getvalue()

    call_command("set_gift_card_themes", "--merchant-account=default", stdout=io.StringIO())
    assert GiftCardService.objects.get().themes == []


@pytest.mark.parametrize("args", [["--merchant-account=nope"], ["--merchant-account=default", "--theme= padded "]])
def test_set_gift_card_themes_refuses_bad_input(merchant_account, args):
    with pytest.raises(CommandError):
        call_command("set_gift_card_themes", *args)
    assert all(service.themes == [] for service in GiftCardService.objects.all())
