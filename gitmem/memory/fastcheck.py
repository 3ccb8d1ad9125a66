"""A fast yes for the common case of schema validation: whether a memory surely satisfies its JSON
Schema, without loading jsonschema (its import and its validator are most of a cold read of a large
store, once YAML is fast).

It interprets only the keywords the shipped schemas use for plain values (``type``
string/array/object/integer/number/boolean, ``properties``, ``required``, ``additionalProperties``,
``propertyNames``, ``enum``, ``const``, ``oneOf``, ``pattern``, ``minLength``, ``maxLength``,
``minimum``, ``maximum``, ``exclusiveMinimum``, ``items``, ``uniqueItems``; annotations such as
``title`` and ``format``, which the validator does not assert, are ignored). It answers ``True``
only when every keyword holds; on anything else (a keyword it does not know, a value it does not
handle, a failure) it answers ``False`` and the caller asks jsonschema, which also words every
message. Hypothesis tests hold it to never saying yes where jsonschema finds an error, for both
schemas (memory and config).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "format", "$schema", "$id", "$comment"}
)
_KNOWN = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "propertyNames", "enum", "const",
    "oneOf", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "items",
    "uniqueItems",
}  # fmt: skip


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def surely_valid(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` surely satisfies ``schema`` (``False``: not sure; ask jsonschema)."""
    if not _KNOWN.issuperset(schema):
        return False
    if "enum" in schema and not (isinstance(value, str) and value in schema["enum"]):
        return False
    # (a strict type: JSON Schema tells true from 1, which Python's == does not)
    if "const" in schema and not (
        type(value) is type(schema["const"]) and value == schema["const"]
    ):
        return False
    if "oneOf" in schema and not _surely_one_of(schema["oneOf"], value):
        return False
    # without a type, a string is held to the string keywords; anything else to its enum, const or
    # oneOf alone
    kind = schema.get("type", "string" if isinstance(value, str) else None)
    check = _BY_TYPE.get(kind)
    if check is not None:
        return check(schema, value)
    return "type" not in schema and not {"enum", "const", "oneOf"}.isdisjoint(schema)


def _surely_one_of(branches: list[dict[str, Any]], value: Any) -> bool:
    """Exactly one branch holds: one surely does, and every other wants another type."""
    held = [branch for branch in branches if surely_valid(branch, value)]
    return len(held) == 1 and all(
        branch is held[0]
        or (isinstance(kind := branch.get("type"), str) and kind not in _types_of(value))
        for branch in branches
    )


def _types_of(value: Any) -> frozenset[str]:
    """The JSON types ``value`` may have (``True`` is no integer; ``1.0`` is one)."""
    return next(types for kind, types in _JSON_TYPES if isinstance(value, kind))


_JSON_TYPES: tuple[tuple[type, frozenset[str]], ...] = (
    (bool, frozenset({"boolean"})),
    (int, frozenset({"integer", "number"})),
    (float, frozenset({"integer", "number"})),
    (str, frozenset({"string"})),
    (list, frozenset({"array"})),
    (dict, frozenset({"object"})),
    (type(None), frozenset({"null"})),
    (object, frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})),
)


def _surely_valid_string(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        return False
    return "pattern" not in schema or _pattern(schema["pattern"]).search(value) is not None


def _surely_valid_number(schema: dict[str, Any], value: Any) -> bool:
    """An integer (``type: integer``: a Python int, no bool) or any number, within its bounds (a NaN
    is within none)."""
    exact = schema["type"] == "integer"
    if isinstance(value, bool) or not isinstance(value, int if exact else (int, float)):
        return False
    return (
        value >= schema.get("minimum", value)
        and value <= schema.get("maximum", value)
        and ("exclusiveMinimum" not in schema or value > schema["exclusiveMinimum"])
    )


def _surely_valid_array(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return False
    if schema.get("uniqueItems") and len(set(value)) != len(value):
        return False
    items = schema.get("items", {})
    return all(surely_valid(items, item) for item in value)


def _surely_valid_object(schema: dict[str, Any], value: Any) -> bool:
    """Every required field there, every name held to ``propertyNames``, every field to its
    property's schema or else to ``additionalProperties`` (``false``: none allowed)."""
    if not isinstance(value, dict) or any(name not in value for name in schema.get("required", ())):
        return False
    properties = schema.get("properties", {})
    others = schema.get("additionalProperties", True)
    names = schema.get("propertyNames")
    return all(
        (names is None or surely_valid(names, name))
        and _surely_holds(properties.get(name, others), item)
        for name, item in value.items()
    )


def _surely_holds(schema: dict[str, Any] | bool, value: Any) -> bool:
    """A schema that may be a boolean (``additionalProperties``): ``true`` holds anything."""
    return schema is True or (isinstance(schema, dict) and surely_valid(schema, value))


def _surely_valid_boolean(schema: dict[str, Any], value: Any) -> bool:
    return isinstance(value, bool)


_BY_TYPE: dict[Any, Callable[[dict[str, Any], Any], bool]] = {
    "string": _surely_valid_string,
    "integer": _surely_valid_number,
    "number": _surely_valid_number,
    "boolean": _surely_valid_boolean,
    "array": _surely_valid_array,
    "object": _surely_valid_object,
}
