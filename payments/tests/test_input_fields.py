"""Input serializers build their fields once per class and bind copies per request: each request validates with
its own bound fields, errors and context, exactly as if DRF had built every field again."""

import copy

import pytest
from rest_framework import serializers

from payments.rest.fields import StrictCharField, StrictSerializer, validated


class ItemInput(StrictSerializer):
    code = StrictCharField(max_length=4)


class OrderInput(StrictSerializer):
    name = StrictCharField(max_length=10)
    items = ItemInput(many=True, required=False)
    first = ItemInput(required=False)
    tags = serializers.ListField(child=StrictCharField(max_length=3), required=False)

    def validate_name(self, value: str) -> str:
        return f"{value}@{self.context.get('shop')}"


FULL = {"name": "a", "items": [{"code": "x"}], "first": {"code": "y"}, "tags": ["t"]}


def test_fields_are_built_once_per_class(monkeypatch):
    assert OrderInput(data=FULL).is_valid()  # every class's fields, nested ones too, exist from here on
    rebuilt: list[object] = []
    real_deepcopy = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda value, *args: rebuilt.append(value) or real_deepcopy(value, *args))

    order = OrderInput(data=FULL)

    assert order.is_valid(), order.errors
    assert rebuilt == []


def test_each_request_validates_with_its_own_fields_and_context():
    good = OrderInput(data={"name": "ada", "items": [{"code": "ab"}], "tags": ["x"]}, context={"shop": "one"})
    bad = OrderInput(data={"name": "x" * 11, "items": [{"code": "toolong"}], "tags": ["long"]}, context={"shop": "two"})
    again = OrderInput(data={"name": "bo", "first": {"code": "cd"}}, context={"shop": "three"})

    assert validated(good) == {"name": "ada@one", "items": [{"code": "ab"}], "tags": ["x"]}
    assert not bad.is_valid()
    assert set(bad.errors) == {"name", "items", "tags"}
    assert validated(again) == {"name": "bo@three", "first": {"code": "cd"}}
    assert good.fields["name"] is not again.fields["name"]
    assert good.fields["name"].parent is good


@pytest.mark.parametrize(
    ("payload", "unknown"),
    [({"name": "a", "nope": 1}, "nope"), ({"name": "a", "first": {"code": "a", "extra": 1}}, "first")],
    ids=["top", "nested"],
)
def test_unknown_fields_are_still_refused(payload, unknown):
    order = OrderInput(data=payload)

    assert not order.is_valid()
    assert unknown in order.errors
