"""Response bodies: one style for every resource.

An output serializer declares every field it renders, with its type, so the OpenAPI schema documents each
response. Rendering follows those declarations without DRF's per-field machinery: the readable fields are
turned once per serializer class into a plan of (name, read the value, render it) steps, which every response
(and every row of a list page) runs, without building the serializer's fields again.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from django.db.models.fields.related_descriptors import ForwardManyToOneDescriptor
from django.db.models.manager import BaseManager
from django.db.models.query_utils import DeferredAttribute
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import is_simple_callable

# (name, step, whether the step takes the serializer): a method field, and a nested output, run with the serializer
# rendering, whose context is the request's (as DRF hands a nested serializer its root's context); every other step
# is bound to the class's prototype, built once.
Step = tuple[str, Callable[..., Any], bool]

# Marks a constant's schema until `payments.apidoc.hooks.inline_constants` turns it into a one-value enum in place.
CONSTANT_KEY = "x-constant"


# The schema of a field upstream declares and this server always renders as null.
NULL_STRING = {"type": "string", "nullable": True}

_JSON_TYPES: dict[type, str] = {bool: "boolean", int: "integer", str: "string", dict: "object", list: "array"}


class ConstantField(serializers.Field[object, object, object, object]):
    """A value every object of a kind has: `"type": "buyer"` (a one-value enum in the schema), or a field this
    server always answers the same way, such as `"settled": false` where nothing is ever settled.

    `schema` documents a constant that is no string (required for `None`, which says nothing of its type).
    """

    def __init__(self, value: object, *, schema: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.value = value
        kwargs.update(source="*", read_only=True)
        super().__init__(**kwargs)
        if schema is None:
            if value is None:
                raise TypeError("A constant None needs a schema naming its type.")
            schema = {"type": _JSON_TYPES[type(value)]}
            if isinstance(value, str):
                schema[CONSTANT_KEY] = value  # a one-value enum, once the schema hook has placed it
        # Set in __init__, which DRF runs again for each copy of the field: every copy keeps its schema.
        # drf-spectacular reads the override from a field instance as from a class; its types admit callables only.
        extend_schema_field(schema)(self)  # type: ignore[type-var]

    def to_representation(self, value: object) -> object:
        return self.value


class StoredJsonField(serializers.JSONField):
    """JSON kept as it was validated on the way in (order details, billing details), rendered as stored and
    documented with the schema of `shape`, the serializer that validated it."""

    def __init__(self, shape: serializers.BaseSerializer[Any], **kwargs: Any) -> None:
        self.shape = shape
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)
        extend_schema_field(shape)(self)  # type: ignore[type-var]  # an instance, as in ConstantField


def _reader(source_attrs: list[str]) -> Callable[[Any], Any]:
    """Follow `a.b.c` on objects (or keys of mappings); a None on the way reads as None."""
    if len(source_attrs) == 1:
        (name,) = source_attrs

        def read_one(instance: Any) -> Any:
            return instance.get(name) if isinstance(instance, Mapping) else getattr(instance, name)

        return read_one

    def read_path(instance: Any) -> Any:
        value = instance
        for name in source_attrs:
            if value is None:
                return None
            value = value.get(name) if isinstance(value, Mapping) else getattr(value, name)
        return value

    return read_path


def _step(field: serializers.Field[Any, Any, Any, Any], kind: type) -> tuple[Callable[..., Any], bool]:
    if isinstance(field, serializers.SerializerMethodField):
        method: Callable[..., Any] = getattr(type(field.parent), field.method_name)
        return method, True
    nested = _nested_output(field)
    if nested is not None:
        return _nested_step(field, nested), True
    render = field.to_representation
    if field.source == "*":
        return render, False
    if len(field.source_attrs) == 1 and _plain_attribute(kind, field.source_attrs[0]):
        read_attribute = attrgetter(field.source_attrs[0])

        def attribute_step(instance: Any) -> Any:
            value = read_attribute(instance)
            return None if value is None else render(value)

        return attribute_step, False
    read = _reader(field.source_attrs)

    def step(instance: Any) -> Any:
        value = read(instance)
        if is_simple_callable(value):
            value = value()  # a model method named as the source, as DRF allows
        return None if value is None else render(value)

    return step, False


def _nested_output(field: serializers.Field[Any, Any, Any, Any]) -> type[OutputSerializer] | None:
    """The output class `field` renders, one object or many; None for any other field."""
    nested = field.child if isinstance(field, serializers.ListSerializer) else field
    return type(nested) if isinstance(nested, OutputSerializer) else None


def _itself(instance: Any) -> Any:
    return instance


def _nested_step(
    field: serializers.Field[Any, Any, Any, Any], cls: type[OutputSerializer]
) -> Callable[[Any, Any], Any]:
    many = isinstance(field, serializers.ListSerializer)
    read: Callable[[Any], Any] = _itself if field.source == "*" else _reader(field.source_attrs)

    def nested_step(parent: serializers.Serializer[Any], instance: Any) -> Any:
        value = read(instance)
        if value is None:
            return None
        renderer = _renderer(parent, cls)
        if not many:
            return renderer.to_representation(value)
        items = value.all() if isinstance(value, BaseManager) else value
        return [renderer.to_representation(item) for item in items]

    return nested_step


def _renderer(parent: serializers.Serializer[Any], cls: type[OutputSerializer]) -> OutputSerializer:
    """The `cls` that renders `parent`'s nested objects, with its context: built once per parent (a list page's rows
    share their serializer) and holding nothing of what it renders; no fields are built, its class's plan renders."""
    renderers: dict[type[OutputSerializer], OutputSerializer] = parent.__dict__.setdefault("_renderers", {})
    renderer = renderers.get(cls)
    if renderer is None:
        renderer = renderers[cls] = cls(context=parent.context)
    return renderer


def _plain_attribute(kind: type, name: str) -> bool:
    """Whether every `kind` reads `name` as a value, never a method to call: a model's column or relation, or a
    property. Decided once per class, so a row's step is one attribute read."""
    if issubclass(kind, Mapping):
        return False
    declared = inspect.getattr_static(kind, name, None)
    return isinstance(declared, property | DeferredAttribute | ForwardManyToOneDescriptor)


_plans: dict[tuple[type[serializers.Serializer[Any]], type], list[Step]] = {}


def _plan(cls: type[OutputSerializer], kind: type) -> list[Step]:
    """The class's rendering steps for objects of `kind`, from a prototype whose fields are built once (a serializer
    takes no arguments that change its fields: `many`, `source` and `allow_null` are its parent's business)."""
    plan = _plans.get((cls, kind))
    if plan is None:
        # Readable fields are bound to the prototype, so every one has its name.
        plan = [(str(field.field_name), *_step(field, kind)) for field in cls()._readable_fields]
        _plans[(cls, kind)] = plan
    return plan


class OutputSerializer(serializers.Serializer[Any]):
    """A response body: declared, typed fields only, rendered by its class's plan (compiled on first use)."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {
            name: step(self, instance) if takes_serializer else step(instance)
            for name, step, takes_serializer in _plan(type(self), type(instance))
        }
