"""JSON columns read back by orjson, exactly as the standard library reads them."""

import json

import pytest
from django.apps import apps
from django.db import models

from payments import json_column
from payments.accounts.models import MerchantAccount
from payments.json_column import JSONField

STORED = [
    {"city": "London", "tags": ["a", "é", "\u2028"], "none": None, "yes": True},
    [0, -1, 1.5, 1e-10, 9_223_372_036_854_775_807, 18_446_744_073_709_551_615],
    [2**64, -(2**63) - 1, 10**40, "a string of 19 digits: 1234567890123456789"],
    "text",
    12,
]


@pytest.mark.django_db
@pytest.mark.parametrize("value", STORED, ids=["object", "numbers", "beyond 64 bits", "string", "number"])
def test_a_stored_value_reads_back_equal_and_of_the_same_types(merchant_account, value):
    MerchantAccount.objects.filter(pk=merchant_account.pk).update(allowed_origins=value)

    read = MerchantAccount.objects.values_list("allowed_origins", flat=True).get(pk=merchant_account.pk)

    assert read == value
    # An int stays an int, exact: not a float that compares equal.
    assert json.dumps(read, sort_keys=True) == json.dumps(value, sort_keys=True)


def test_orjson_reads_plain_json(monkeypatch):
    calls = []
    monkeypatch.setattr(
        json_column.orjson, "loads", lambda text, real=json_column.orjson.loads: calls.append(text) or real(text)
    )

    assert JSONField().from_db_value('{"a": [1, 2.5]}', None, None) == {"a": [1, 2.5]}
    assert calls == [b'{"a": [1, 2.5]}']


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[18446744073709551616]", [18446744073709551616]),  # orjson would make it a float
        ("[-9223372036854775809]", [-9223372036854775809]),
        ('"\\ud800"', "\ud800"),  # an unpaired surrogate orjson refuses
        ("1e400", float("inf")),
        ("not json", "not json"),  # a key's bare text, as SQLite returns it, is kept as it is
    ],
)
def test_what_orjson_would_read_otherwise_is_read_by_django(text, expected):
    assert JSONField().from_db_value(text, None, None) == expected


def test_nan_is_read_as_the_standard_library_reads_it():
    read = JSONField().from_db_value("[NaN]", None, None)

    assert len(read) == 1
    assert read[0] != read[0]


def test_a_custom_decoder_is_used():
    class Upper(json.JSONDecoder):
        def decode(self, s, *args, **kwargs):
            return super().decode(s.upper())

    assert JSONField(decoder=Upper).from_db_value('"abc"', None, None) == "ABC"


def test_migrations_name_djangos_field():
    assert JSONField(null=True).deconstruct()[1] == "django.db.models.JSONField"


def test_every_json_column_of_the_projects_reads_with_orjson():
    ours = {config.name for config in apps.get_app_configs() if "site-packages" not in config.path}
    djangos = [
        f"{model._meta.label}.{field.name}"
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.JSONField)
        and not isinstance(field, JSONField)
        # Another library's models (a proxy of one too) keep their own fields.
        and field.model._meta.app_config.name in ours
    ]

    assert djangos == []


def test_sql_null_reads_as_none():
    assert JSONField(null=True).from_db_value(None, None, None) is None
