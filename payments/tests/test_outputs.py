"""Output serializers render through a plan compiled from their declared fields; the plan must say exactly
what DRF's own field-by-field rendering says, for every kind of field a response uses."""

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from rest_framework import serializers

from payments.rest.fields import TimestampField
from payments.rest.outputs import ConstantField, OutputSerializer, StoredJsonField


@dataclass
class Inner:
    code: str
    when: datetime | None = None


@dataclass
class Thing:
    id: int
    name: str | None
    inner: Inner | None
    items: list[Inner] = field(default_factory=list)
    details: dict | None = None

    def label(self) -> str:
        return f"thing {self.id}"


class InnerOutput(OutputSerializer):
    code = serializers.CharField()
    when = TimestampField(allow_null=True)


class ThingOutput(OutputSerializer):
    type = ConstantField("thing")
    settled = ConstantField(False)
    nothing = ConstantField(None, schema={"type": "string", "nullable": True})
    id = serializers.IntegerField()
    name = serializers.CharField(allow_null=True)
    inner_code = serializers.CharField(source="inner.code", allow_null=True)
    inner = InnerOutput(allow_null=True)
    itself = InnerOutput(source="inner", allow_null=True)
    items = InnerOutput(many=True)
    details = StoredJsonField(InnerOutput(allow_null=True), allow_null=True)
    label = serializers.CharField()
    shouted = serializers.SerializerMethodField()

    def get_shouted(self, thing: Thing) -> str | None:
        return thing.name.upper() if thing.name else None


THINGS = [
    Thing(1, "Ada", Inner("a", datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)), [Inner("b"), Inner("c")], {"code": "x"}),
    Thing(2, None, None),
    Thing(3, "", Inner("", None), [], {}),
]


@pytest.mark.parametrize("thing", THINGS, ids=["full", "nulls", "empties"])
def test_the_compiled_plan_renders_what_drf_renders(thing):
    generic = serializers.Serializer.to_representation(ThingOutput(), thing)

    assert ThingOutput(thing).data == generic


def test_many_renders_every_row_with_one_plan():
    data = ThingOutput(THINGS, many=True).data

    assert [row["id"] for row in data] == [1, 2, 3]
    assert (data[1]["inner"], data[1]["inner_code"]) == (None, None)


def test_constants_are_documented_with_their_value_and_type():
    from drf_spectacular.generators import SchemaGenerator

    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]

    assert components["BuyerOutput"]["properties"]["type"] == {"type": "string", "enum": ["buyer"], "readOnly": True}
    assert components["TransactionOutput"]["properties"]["pending_review"] == {"type": "boolean", "readOnly": True}
    assert components["TransactionOutput"]["properties"]["reauthorized_from_transaction_id"] == {
        "type": "string",
        "nullable": True,
        "readOnly": True,
    }


def test_a_none_constant_must_name_its_type():
    with pytest.raises(TypeError, match="schema"):
        ConstantField(None)


class ContextOutput(OutputSerializer):
    name = serializers.CharField(allow_null=True)
    seen_by = serializers.SerializerMethodField()

    def get_seen_by(self, thing: Thing) -> str:
        return str(self.context.get("viewer"))


def test_a_class_builds_its_fields_once_however_many_responses_it_renders(monkeypatch):
    assert ThingOutput(THINGS[0]).data  # the plan exists from here on
    built: list[object] = []
    monkeypatch.setattr(serializers.Serializer, "get_fields", lambda self: built.append(self) or {})

    rows = ThingOutput(THINGS, many=True).data
    single = ThingOutput(THINGS[0]).data

    assert built == []
    assert [row["id"] for row in rows] == [1, 2, 3]
    assert single["shouted"] == "ADA"


def test_a_method_field_runs_on_the_serializer_rendering_with_its_context():
    first = ContextOutput(THINGS[0], context={"viewer": "alice"}).data
    second = ContextOutput(THINGS[1], context={"viewer": "bob"}).data

    assert (first["seen_by"], second["seen_by"]) == ("alice", "bob")


@dataclass
class Wrapper:
    one: Thing
    many: list[Thing]


class WrapperOutput(OutputSerializer):
    one = ContextOutput()
    many = ContextOutput(many=True)
    itself = ContextOutput(source="one")


def test_a_nested_output_sees_the_context_of_the_serializer_rendering_it():
    wrapper = Wrapper(one=THINGS[0], many=[THINGS[1], THINGS[2]])

    data = WrapperOutput(wrapper, context={"viewer": "carol"}).data
    rows = WrapperOutput([wrapper], many=True, context={"viewer": "dave"}).data

    assert data["one"] == data["itself"] == {"name": "Ada", "seen_by": "carol"}
    assert [item["seen_by"] for item in data["many"]] == ["carol", "carol"]
    assert rows[0]["many"][1]["seen_by"] == "dave"


class CardColumnsOutput(OutputSerializer):
    id = serializers.UUIDField()
    scheme = serializers.CharField(allow_null=True)
    expiration_date = serializers.CharField()
    merchant_account = serializers.CharField(source="merchant_account_id")
    created_at = TimestampField()


@pytest.mark.parametrize("scheme", ["visa", None])
def test_a_models_columns_and_properties_render_as_drf_renders_them_and_as_a_mapping_of_them(scheme):
    from payments.vault.models import VaultedCard

    card = VaultedCard(
        scheme=scheme,
        expiration_month=3,
        expiration_year=2031,
        merchant_account_id="default",
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
    )
    as_mapping = {name: getattr(card, name) for name in ("id", "scheme", "expiration_date", "created_at")}
    as_mapping["merchant_account_id"] = "default"

    rendered = CardColumnsOutput(card).data
    assert rendered == serializers.Serializer.to_representation(CardColumnsOutput(), card)
    assert CardColumnsOutput(as_mapping).data == rendered
    assert (rendered["scheme"], rendered["expiration_date"]) == (scheme, "03/31")
