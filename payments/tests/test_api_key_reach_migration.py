"""The migration to a set of merchant accounts per key keeps each key's reach: its one account, or every account."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("payments", "0022_audit_increment_action")]
AFTER = [("payments", "0024_api_key_merchant_accounts_replace_one")]


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_each_key_keeps_its_reach_and_going_back_refuses_a_key_of_several_accounts():
    apps = _migrate(BEFORE)
    account = apps.get_model("payments", "MerchantAccount").objects.create(id="shop", display_name="Shop")
    api_key = apps.get_model("payments", "ApiKey")
    api_key.objects.create(kid="one", public_key="-", merchant_account=account)
    api_key.objects.create(kid="every", public_key="-", merchant_account=None)

    apps = _migrate(AFTER)

    keys = {key.kid: key for key in apps.get_model("payments", "ApiKey").objects.all()}
    assert (keys["one"].all_merchant_accounts, [a.pk for a in keys["one"].merchant_accounts.all()]) == (False, ["shop"])
    assert (keys["every"].all_merchant_accounts, list(keys["every"].merchant_accounts.all())) == (True, [])
    other = apps.get_model("payments", "MerchantAccount").objects.create(id="other", display_name="Other")
    keys["one"].merchant_accounts.add(other)
    with pytest.raises(RuntimeError, match="several merchant accounts"):
        _migrate(BEFORE)
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
