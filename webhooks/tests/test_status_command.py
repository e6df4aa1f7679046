"""`manage.py webhook_status`: what an operator's monitoring reads (exit status 1 while a subscription fails)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from webhooks.tests.factories import subscription_for

pytestmark = pytest.mark.django_db


def _status(*args: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command("webhook_status", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def test_healthy_subscriptions_are_listed_and_exit_zero(merchant_account):
    healthy = subscription_for(merchant_account, "http://127.0.0.1:9/healthy")

    code, out, err = _status()

    assert code == 0
    assert f"{healthy.pk} {merchant_account.pk} active=True pending=0 given_up=0 failing_since=-" in out
    assert err == ""


def test_a_failing_subscription_exits_one_and_failing_lists_only_it(merchant_account):
    subscription_for(merchant_account, "http://127.0.0.1:9/healthy")
    failing = subscription_for(merchant_account, "http://127.0.0.1:9/failing")
    failing.failing_since = timezone.now()
    failing.save(update_fields=["failing_since"])

    code, out, err = _status("--failing")

    assert code == 1
    assert out.count("\n") == 1
    assert str(failing.pk) in out
    assert "failing_since=-" not in out
    assert "1 subscription(s) failing." in err


@pytest.mark.parametrize(
    ("args", "said"),
    [((), "No webhook subscription."), (("--failing",), "No webhook subscription is failing.")],
    ids=["all", "failing"],
)
def test_nothing_to_list_says_so_and_exits_zero(args, said):
    code, out, err = _status(*args)

    assert (code, out.strip(), err) == (0, said, "")


def test_failing_with_only_healthy_subscriptions_says_none_is_failing(merchant_account):
    subscription_for(merchant_account, "http://127.0.0.1:9/healthy")

    code, out, _ = _status("--failing")

    assert (code, out.strip()) == (0, "No webhook subscription is failing.")
