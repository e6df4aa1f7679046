"""Serializer building blocks every resource app shares."""

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from payments.validators import MAX_AMOUNT, validate_country, validate_currency, validate_payment_currency

RequestT = TypeVar("RequestT")
SerializerT = TypeVar("SerializerT", bound=serializers.Serializer[Any])
_Field = TypeVar("_Field", bound=serializers.Field[Any, Any, Any, Any])


class TimestampField(serializers.DateTimeField):
    """ISO 8601 with microseconds and an explicit UTC offset, always (e.g. 2026-01-01T10:00:00.000000+00:00)."""

    # DRF's own DateTimeField also renders None as None; the stubs declare a str only.
    def to_representation(self, value: datetime | None) -> str | None:  # type: ignore[override]
        if value is None:
            return None
        return value.astimezone(UTC).isoformat(timespec="microseconds")


if TYPE_CHECKING:
    # What the mixin below is mixed into, so its super() calls and `self.fields` are checked.
    _SerializerBase = serializers.Serializer[Any]
else:
    _SerializerBase = object


def _shallow_copy(field: _Field) -> _Field:
    """What `copy.copy` makes of a field (a new object sharing its attributes' values), without the generic
    protocol's reduce and reconstruct steps: a request binds one copy of each of its serializers' fields."""
    clone: _Field = object.__new__(type(field))
    clone.__dict__.update(field.__dict__)
    return clone


class StrictSerializerMixin(_SerializerBase):
    """Unknown body fields are a 400, not silently dropped: a typo must not pass for an empty value. A field of the
    upstream request this server does not act on is declared as an `UnsupportedField`, which refuses it by name.

    Its fields are built once per class: each request binds shallow copies of them, where DRF would rebuild every
    field (and every field of every nested serializer) from its arguments on each request. Fields keep no state
    of a request; a nested serializer's copy builds its own fields the same way when it is used. The item field of
    a list (`many=True`, `ListField`, `DictField`) is shared by the copies: it sees neither the request's context
    nor `partial`, which no item validation here reads (the top-level serializer's own methods see both)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        cls = type(self)
        prototypes: dict[str, serializers.Field[Any, Any, Any, Any]] | None = cls.__dict__.get("_prototype_fields")
        if prototypes is None:
            prototypes = super().get_fields()
            cls._prototype_fields = prototypes  # type: ignore[attr-defined]
        return {name: _shallow_copy(field) for name, field in prototypes.items()}

    def to_internal_value(self, data: object) -> dict[str, Any]:
        if not isinstance(data, dict):
            mapping: dict[str, Any] = super().to_internal_value(data)  # DRF refuses anything but a mapping
            return mapping
        unknown = sorted(set(data) - set(self.fields))
        errors: dict[str, Any] = {name: ["Unknown field."] for name in unknown}
        try:
            value: dict[str, Any] = super().to_internal_value({k: v for k, v in data.items() if k in self.fields})
        except serializers.ValidationError as exc:
            errors.update(exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail})
        if errors:
            raise serializers.ValidationError(errors)
        return value


class UnsupportedField(serializers.Field[None, object, None, object]):
    """A field of the upstream request that this server cannot honour. Absent, `null` or `accepts` (the value that
    asks for nothing, such as the `false` the official SDK always sends) pass and are dropped; any other value is a
    400 naming the field and saying why it is not supported."""

    default_error_messages = {"unsupported": "Not supported: {reason}"}

    def __init__(self, reason: str, *, accepts: object = None, json_type: str = "string", **kwargs: Any) -> None:
        self.reason = reason
        self.accepts = accepts
        kwargs.update(required=False, allow_null=True, write_only=True)
        kwargs.setdefault("help_text", f"Not supported: {reason} Only null{_also(accepts)} is accepted.")
        super().__init__(**kwargs)
        # Documented with upstream's type; drf-spectacular reads the override from the instance (see ConstantField).
        # `x-unsupported`: no example is given to it (`payments.apidoc.hooks.add_examples`); a shared example for the
        # field's name (metadata's object) would show a value this field refuses.
        schema = {
            "type": "boolean" if isinstance(accepts, bool) else json_type,
            "nullable": True,
            "x-unsupported": True,
        }
        extend_schema_field(schema)(self)  # type: ignore[type-var]

    def run_validation(self, data: object = serializers.empty) -> None:
        if data is serializers.empty or data is None or (type(data) is type(self.accepts) and data == self.accepts):
            raise serializers.SkipField()
        self.fail("unsupported", reason=self.reason)

    def to_internal_value(self, data: object) -> None:  # never reached: run_validation decides
        return None

    def to_representation(self, value: object) -> None:
        return None


def _also(accepts: object) -> str:
    return "" if accepts is None else f" or {str(accepts).lower() if isinstance(accepts, bool) else accepts}"


class StrictSerializer(StrictSerializerMixin, serializers.Serializer[Any]):
    """A plain input serializer that refuses unknown fields."""


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would turn 123 or 1.5 into "123" / "1.5"."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """JSON `true` / `false` only: DRF's own field would also take "yes", 1 or "on"."""

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only: DRF's own field would also take "12" or 12.0."""

    def to_internal_value(self, data: object) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


def optional_text(max_length: int, **kwargs: Any) -> serializers.CharField:
    """An optional, nullable string of 1..max_length characters, as the upstream API types them."""
    return StrictCharField(
        required=False, allow_null=True, min_length=1, max_length=max_length, trim_whitespace=False, **kwargs
    )


class CountryField(serializers.CharField):
    """ISO 3166-1 alpha-2 country code."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(validate_country)


class CurrencyField(serializers.CharField):
    """ISO 4217 currency code."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(validate_currency)


class PaymentCurrencyField(serializers.CharField):
    """The currency of a payment: an ISO 4217 code money can be paid in (not XXX, XTS, a metal, a fund code or a
    unit of account), refused by name otherwise."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators.append(validate_payment_currency)


class AmountField(serializers.IntegerField):
    """An amount in minor units, 0..99,999,999."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_AMOUNT)
        super().__init__(**kwargs)

    def to_internal_value(self, data: float | int | str) -> int:
        # Booleans and floats such as 12.5 must not pass for amounts.
        if isinstance(data, bool) or (isinstance(data, float) and not data.is_integer()) or isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def validated(serializer: serializers.Serializer[Any]) -> dict[str, Any]:
    """The serializer's validated data; invalid input raises the 400 envelope with one detail per field."""
    serializer.is_valid(raise_exception=True)
    data: dict[str, Any] = serializer.validated_data
    return data


class RequestSerializer(StrictSerializer, Generic[RequestT]):
    """An input serializer whose validated body becomes one typed request object for a service."""

    def to_request(self, data: dict[str, Any]) -> RequestT:
        raise NotImplementedError


def validated_request(serializer: RequestSerializer[RequestT]) -> RequestT:
    """The typed request of a valid body; invalid input raises the 400 envelope with one detail per field."""
    return serializer.to_request(validated(serializer))


def method_input(data: object, inputs: Mapping[str, type[SerializerT]]) -> SerializerT:
    """The input serializer `inputs` names for the object's `method`, bound to it and not yet validated, so a wrong
    method gets one clear error instead of one per foreign field: a non-object is a 400 at the field, a method not in
    `inputs` a 400 at its `method`."""
    if not isinstance(data, dict):
        raise serializers.ValidationError("Must be an object.")
    method = data.get("method")
    # Any JSON value may arrive here; only a string names a method (a list or object is no dictionary key).
    serializer_class = inputs.get(method) if isinstance(method, str) else None
    if serializer_class is None:
        raise serializers.ValidationError(
            {"method": [f"Must be one of: {', '.join(inputs)}."]}, code="unsupported_method"
        )
    return serializer_class(data=data)
