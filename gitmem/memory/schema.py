"""Validation of memory and config files, with one ``path:line:col: field: message`` per problem.

The JSON Schemas ship as package data (``gitmem/schemas/``, identical to the published ``schema/``).
This module is the only user of jsonschema; it is imported only when a file has to be checked (warm
runs read the store's cache).
A file is checked as a whole, and every problem in it is reported at once: size, encoding, hidden
Unicode, secrets, YAML strictness, the schema, and what a schema cannot say (id equals file name,
real dates).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from functools import cache
from types import UnionType
from typing import Any

from gitmem import yamlio
from gitmem.errors import Problem
from gitmem.gateway import read_package
from gitmem.memory import fields
from gitmem.memory.fastcheck import surely_valid
from gitmem.memory.model import DATE_FIELDS
from gitmem.scan import find_hidden, scan_text
from gitmem.scan.engine import preview
from gitmem.tools import RETIRED

MAX_FILE_BYTES = 64 * 1024

SCHEMA_FILES = {"memory": "memory.schema.json", "config": "config.schema.json"}
SECRET_NOTE = "; secrets must never be stored in memory"


def fails_scan(messages: list[str]) -> bool:
    """Whether these problem messages say the file holds a secret or hidden Unicode: then nothing of
    the file, not even a message with a preview, may be kept in a cache."""
    return any(
        message.endswith(SECRET_NOTE) or "hidden Unicode character" in message
        for message in messages
    )


def schema_text(name: str) -> str:
    """The shipped JSON Schema ``name`` ("memory" or "config") as text."""

    return read_package("schemas", SCHEMA_FILES[name])


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator  # lazy: the prompt hook's start-up

    return Draft202012Validator(json.loads(schema_text(name)))


@cache
def _known_fields(name: str) -> tuple[str, ...]:
    return tuple(json.loads(schema_text(name)).get("properties", {}))


def check_memory(
    raw: bytes, file_id: str | None, path: str = ""
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Check one memory file's bytes. Returns its data (``None`` when not a YAML mapping) and every
    problem.

    The memory is usable only when there are no problems; the data is returned anyway for cross-file
    checks.

    ``file_id`` is the id the file name implies (``None`` when the file is not in the store yet).
    """
    doc, problems = _check_yaml_file(raw, "memory", path)
    if doc is None:
        return None, problems
    data = doc.data
    match data:
        case {"id": str(found)} if file_id is not None and found != file_id:
            problems.append(_at(doc, path, ("id",), f"does not match the file name {file_id}.yaml"))
    problems.extend(_at(doc, path, (name,), "is not a real date") for name in _unreal_dates(data))
    problems.extend(
        _at(doc, path, ("evidence", index, "lines"), "the range runs backwards")
        for index in _backward_ranges(data)
    )
    match data:
        case {"supersedes": list(targets)} if data.get("id") in targets:
            problems.append(_at(doc, path, ("supersedes",), "a memory cannot supersede itself"))
    return data, problems


def _unreal_dates(data: dict[str, Any]) -> list[str]:
    """The date fields written as dates (YYYY-MM-DD) that are no real day."""
    return [
        name
        for name in DATE_FIELDS
        if isinstance(value := data.get(name), str)
        and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)
        and not _real_date(value)
    ]


def _backward_ranges(data: dict[str, Any]) -> list[int]:
    """The evidence items whose ``lines`` range runs backwards (``9-3``)."""
    evidence = data.get("evidence")
    out = []
    for index, item in enumerate(evidence if isinstance(evidence, list) else []):
        match item:
            case {"lines": str(lines)}:
                first, _, last = lines.partition("-")
                if first.isdecimal() and last.isdecimal() and int(first) > int(last):
                    out.append(index)
    return out


def check_config(raw: bytes, path: str = "") -> tuple[dict[str, Any] | None, list[Problem]]:
    """Check the config file's bytes: the same strictness as memories, against the config schema."""
    doc, problems = _check_yaml_file(raw, "config", path)
    if doc is None or problems:
        return None, problems
    return doc.data, problems


def _check_yaml_file(
    raw: bytes, schema: str, path: str
) -> tuple[yamlio.Document | None, list[Problem]]:
    if len(raw) > MAX_FILE_BYTES:
        return None, [
            Problem(
                path, 1, 1, "file", f"too large ({len(raw)} bytes; the limit is {MAX_FILE_BYTES})"
            )
        ]
    if b"\x00" in raw:
        line, column = _byte_position(raw, raw.index(b"\x00"))
        return None, [
            Problem(path, line, column, "file", "binary content (NUL byte); expected UTF-8 text")
        ]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _byte_position(raw, exc.start)
        return None, [
            Problem(path, line, column, "file", f"not UTF-8 text (byte 0x{raw[exc.start]:02x})")
        ]

    doc: yamlio.Document | None = None
    problems: list[Problem] = []
    try:
        doc = yamlio.load(text.removeprefix("\ufeff"))
    except yamlio.YamlProblem as exc:
        problem = exc.problem(path)
        problems.append(problem._replace(field=_key_label(problem.field, _known_fields(schema))))

    def field_at(line: int) -> str:
        return (
            _key_label(_field_at_line(doc, line), _known_fields(schema))
            if doc is not None
            else "file"
        )

    hidden = find_hidden(text, file=True)
    for char in hidden:
        problems.append(Problem(path, char.line, char.column, field_at(char.line), char.describe()))
    for finding in scan_text(text):
        problems.append(
            Problem(
                path,
                finding.line,
                finding.column,
                field_at(finding.line),
                f"{finding.describe()}{SECRET_NOTE}",
            )
        )
    if doc is None:
        return None, problems
    walk = not fields.plain(text)  # else no field holds an escaped hidden character or line break
    if walk and not hidden:
        problems.extend(_escaped_hidden(doc, path))
    problems.extend(_schema_problems(doc, schema, path))
    problems.extend(_field_problems(doc, schema, path, problems, walk))
    return doc, problems


def _field_problems(
    doc: yamlio.Document, schema: str, path: str, found: list[Problem], walk: bool
) -> list[Problem]:
    """What the schema cannot say (``gitmem.memory.fields``): stray line breaks (looked for when
    ``walk``), globs standing for too many."""

    problems = []
    for where, codepoint, message in fields.line_break_problems(doc.data) if walk else ():
        problem = _at(doc, path, where, message)
        code = f"U+{codepoint:04X}"
        if not any(
            p.field in (problem.field, "file") and code in p.message for p in found
        ):  # said already
            problems.append(problem)
    if schema == "memory":
        problems.extend(
            _at(doc, path, where, message) for where, message in fields.glob_problems(doc.data)
        )
    return problems


@cache
def _schema_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_text(name))
    return data


def _schema_problems(doc: yamlio.Document, schema: str, path: str) -> list[Problem]:
    if surely_valid(_schema_json(schema), doc.data):  # the common case, without jsonschema
        return []
    problems: list[Problem] = []
    for error in _validator(schema).iter_errors(doc.data):
        where = tuple(error.absolute_path)
        if error.validator == "required":
            for name in error.validator_value:
                missing = Problem(
                    path,
                    *doc.position(where),
                    field_path((*where, name)),
                    "required field is missing",
                )
                if name not in error.instance and missing not in problems:
                    problems.append(missing)
        elif error.validator == "additionalProperties":  # like required: only of a mapping
            known = tuple(error.schema.get("properties", {}))  # at the root: the schema's fields
            for name in error.instance:
                if name not in known:
                    import difflib  # lazy: a valid file never needs it (first prompt's start-up)

                    hint = difflib.get_close_matches(name, known, n=1)
                    message = "unknown field" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                    problem = _at(doc, path, (*where, name), message)
                    problems.append(
                        problem._replace(field=field_path((*where, _key_label(name, known))))
                    )
        else:
            problems.append(_at(doc, path, where, _message(error, where)))
    return problems


_PATTERN_HINTS = {
    "id": "must be 1 to 64 lower-case letters, digits or hyphens, starting with a letter or digit",
    "supersedes": "must be a memory id (lower-case letters, digits and hyphens)",
    "mute": "must be a memory id (lower-case letters, digits and hyphens)",
    "name": "must be 1 to 64 lower-case letters, digits or hyphens",
    "title": "must be one non-empty line",
    "paths": "must be a glob relative to the repository root, without '..' (e.g. web/**)",
    "tags": "must be a short label without spaces",
    "words": "must be a word or short phrase on one line (at most 80 characters)",
    "path": "must be a path relative to the repository root, without '..'",
    "lines": "must be a line number or a range like 3-9",
    "digest": "must be sha256: followed by hex digits",
    "repo": "must be a git URL or path without credentials in it (git's credential helpers supply "
    "them)",
    "rev": "must be one line",
    "track": "must be one line",
    "origin": "must be one line",
    "allow": "must be a finding fingerprint (v3:PATH:RULE:DIGEST, as printed by gitmem scan "
    "--baseline)",
    "salt": "must be 16 to 64 hex digits (the salt of old v2: fingerprints)",
    **dict.fromkeys(DATE_FIELDS, "must be a date written YYYY-MM-DD"),
}

_TYPE_NAMES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "array": "a list",
    "object": "a mapping",
    "boolean": "true or false",
    "null": "empty",
}


# A YAML value's type as a message names it, the first that fits (a bool is an int too).
_DESCRIPTIONS: tuple[tuple[type | UnionType, str], ...] = (
    (bool, "true or false"),
    (int | float, "a number"),
    (str, "text"),
    (list, "a list"),
    (dict, "a mapping"),
    (type(None), "empty"),
)


def _describe(value: Any) -> str:
    return next(
        (text for kind, text in _DESCRIPTIONS if isinstance(value, kind)), type(value).__name__
    )


def _message(error: Any, where: tuple[Any, ...]) -> str:
    """What a schema error means, in words; never the value itself: it came from a file, and may
    be a secret."""
    field_name = next((part for part in reversed(where) if isinstance(part, str)), "")
    said = _MESSAGES.get(error.validator)
    if said is None:
        return f"does not satisfy the schema ({error.validator})"
    return said(error, field_name)


def _enum(error: Any, field_name: str) -> str:
    """A retired target name still validates, but is not offered."""
    offered = [str(choice) for choice in error.validator_value if choice not in RETIRED]
    return f"must be one of {', '.join(offered)}, not {_describe_value(error.instance)}"


def _type(error: Any, field_name: str) -> str:
    wanted = error.validator_value
    names = [
        _TYPE_NAMES.get(str(t), str(t)) for t in (wanted if isinstance(wanted, list) else [wanted])
    ]
    return f"must be {' or '.join(names)}, not {_describe(error.instance)}"


def _min_length(error: Any, field_name: str) -> str:
    if error.validator_value == 1:
        return "must not be empty"
    return f"needs at least {error.validator_value} characters"


def _one_of(error: Any, field_name: str) -> str:
    if field_name == "budget":
        return (
            "must be a number of tokens, or a mapping of target names (and default) to numbers "
            "of tokens"
        )
    return "does not satisfy the schema (oneOf)"


# The message for each kind of schema error (jsonschema's validator name), from the error and the
# name of the field it is about; any other kind: "does not satisfy the schema (KIND)".
_MESSAGES: dict[str, Callable[[Any, str], str]] = {
    "enum": _enum,
    "const": lambda e, _: f"must be {e.validator_value!r}, not {_describe_value(e.instance)}",
    "type": _type,
    "pattern": lambda e, name: _PATTERN_HINTS.get(name, f"does not match {e.validator_value}"),
    "minLength": _min_length,
    "maxLength": lambda e, _: (
        f"is too long ({len(e.instance)} characters; at most {e.validator_value})"
    ),
    "uniqueItems": lambda e, _: "has duplicate entries",
    "minimum": lambda e, _: f"must be at least {e.validator_value}",
    "exclusiveMinimum": lambda e, _: f"must be above {e.validator_value}",
    "maximum": lambda e, _: f"must be at most {e.validator_value}",
    "propertyNames": lambda e, _: "holds a name that is not known",
    "oneOf": _one_of,
}


def _describe_value(value: Any) -> str:
    """A value read from a file, described without quoting it: its type, and for text its length."""
    if isinstance(value, str):
        return f"other text ({len(value)} characters)"
    return _describe(value)


def _key_label(key: str, known: tuple[str, ...]) -> str:
    """A key read from a file as a message may show it: as it is when it is (close to) a known field
    name, else only as much as the scanner's preview shows (a key may be a secret pasted in the
    wrong place).
    """
    import difflib  # lazy: only a message about a key needs it (the first prompt's start-up)

    if key in ("yaml", "file") or key in known or difflib.get_close_matches(key, known, n=1):
        return key

    return f"‹{preview(key)}›"


def _escaped_hidden(doc: yamlio.Document, path: str) -> list[Problem]:
    """Hidden characters written as escapes ("\\u200b") only appear once the YAML is parsed."""
    problems = []
    for where, value in fields.strings(doc.data, ()):
        for char in find_hidden(value):
            problems.append(_at(doc, path, where, f"escaped {char.describe()}"))
    return problems


def _at(doc: yamlio.Document, path: str, where: tuple[Any, ...], message: str) -> Problem:
    line, column = doc.position(where)
    return Problem(path, line, column, field_path(where), message)


def field_path(where: tuple[Any, ...]) -> str:
    """A field path as people write it: evidence[0].path."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "file"


def _field_at_line(doc: yamlio.Document, line: int) -> str:
    best, best_line = "file", 0
    for where, (key_line, _) in doc.marks.items():
        if len(where) == 1 and best_line <= key_line <= line:
            best, best_line = str(where[0]), key_line
    return best


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _real_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True
