"""A fast yes for the common case of schema validation: whether a memory surely satisfies its JSON
Schema, without loading jsonschema (its import and its validator are most of a cold read of a large
store, once YAML is fast).

It interprets only the keywords the shipped schemas use for plain values (``type``
string/array/object, ``properties``, ``required``, ``additionalProperties: false``, ``enum``,
``pattern``, ``minLength``, ``maxLength``, ``items``, ``uniqueItems``; annotations such as ``title``
and ``format``, which the validator does not assert, are ignored). It answers ``True`` only when
every keyword holds; on anything else (a keyword it does not know, a value it does not handle, a
failure) it answers ``False`` and the caller asks jsonschema, which also words every message. A
hypothesis test holds it to never saying yes where jsonschema finds an error.
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
    "type", "properties", "required", "additionalProperties", "enum", "pattern", "minLength",
    "maxLength", "items", "uniqueItems",
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
    # without a type, a string is held to the string keywords; anything else to its enum alone
    kind = schema.get("type", "string" if isinstance(value, str) else None)
    check = _BY_TYPE.get(kind)
    return check(schema, value) if check else "type" not in schema and "enum" in schema


def _surely_valid_string(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        return False
    return "pattern" not in schema or _pattern(schema["pattern"]).search(value) is not None


def _surely_valid_array(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return False
    if schema.get("uniqueItems") and len(set(value)) != len(value):
        return False
    items = schema.get("items", {})
    return all(surely_valid(items, item) for item in value)


def _surely_valid_object(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, dict) or schema.get("additionalProperties", True) is not False:
        return False
    properties = schema.get("properties", {})
    if any(name not in value for name in schema.get("required", ())):
        return False
    return all(
        name in properties and surely_valid(properties[name], item) for name, item in value.items()
    )


_BY_TYPE: dict[Any, Callable[[dict[str, Any], Any], bool]] = {
    "string": _surely_valid_string,
    "array": _surely_valid_array,
    "object": _surely_valid_object,
}
