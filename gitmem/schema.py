"""Validation of memory and config files, with one ``path:line:col: field: message`` per problem.

The JSON Schemas ship as package data (``gitmem/schemas/``, identical to the published ``schema/``).
This module is the only user of jsonschema; it is imported only when a file has to be checked (warm
runs read the store's cache).
A file is checked as a whole, and every problem in it is reported at once: size, encoding, hidden
Unicode, secrets, YAML strictness, the schema, and what a schema cannot say (id equals file name,
real dates).
"""

from __future__ import annotations

import difflib
import json
import re
from datetime import date
from functools import cache
from typing import Any

from gitmem import yamlio
from gitmem.errors import Problem
from gitmem.memory.model import DATE_FIELDS
from gitmem.scan import find_hidden, scan_text
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
    from gitmem.gateway import read_package

    return read_package("schemas", SCHEMA_FILES[name])


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

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
    if file_id is not None and isinstance(data.get("id"), str) and data["id"] != file_id:
        problems.append(_at(doc, path, ("id",), f"does not match the file name {file_id}.yaml"))
    for name in DATE_FIELDS:
        value = data.get(name)
        if (
            isinstance(value, str)
            and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)
            and not _real_date(value)
        ):
            problems.append(_at(doc, path, (name,), "is not a real date"))
    evidence = data.get("evidence")
    for index, item in enumerate(evidence if isinstance(evidence, list) else []):
        lines = item.get("lines") if isinstance(item, dict) else None
        if isinstance(lines, str) and "-" in lines:
            first, _, last = lines.partition("-")
            if first.isdigit() and last.isdigit() and int(first) > int(last):
                problems.append(
                    _at(doc, path, ("evidence", index, "lines"), "the range runs backwards")
                )
    if isinstance(data.get("supersedes"), list) and data.get("id") in data["supersedes"]:
        problems.append(_at(doc, path, ("supersedes",), "a memory cannot supersede itself"))
    return data, problems


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
        doc = yamlio.load(text[1:] if text.startswith("\ufeff") else text)
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
    if not hidden:
        problems.extend(_escaped_hidden(doc, path))
    problems.extend(_schema_problems(doc, schema, path))
    problems.extend(_field_problems(doc, schema, path, problems))
    return doc, problems


def _field_problems(
    doc: yamlio.Document, schema: str, path: str, found: list[Problem]
) -> list[Problem]:
    """What the schema cannot say (``gitmem.memory.fields``): stray line breaks, globs standing
    for too many."""
    from gitmem.memory import fields

    problems = []
    for where, codepoint, message in fields.line_break_problems(doc.data):
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
    from gitmem.memory.fastcheck import surely_valid

    if surely_valid(_schema_json(schema), doc.data):  # the common case, without jsonschema
        return []
    problems: list[Problem] = []
    for error in _validator(schema).iter_errors(doc.data):
        where = tuple(error.absolute_path)
        if error.validator == "required":
            for name in error.validator_value:
                missing = Problem(
                    path, *doc.position(where), _name((*where, name)), "required field is missing"
                )
                if (
                    isinstance(error.instance, dict)
                    and name not in error.instance
                    and missing not in problems
                ):
                    problems.append(missing)
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = (
                _known_fields(schema) if not where else tuple(error.schema.get("properties", {}))
            )
            for name in error.instance:
                if name not in known:
                    hint = difflib.get_close_matches(name, known, n=1)
                    label = _key_label(name, known)
                    message = "unknown field" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                    problem = _at(doc, path, (*where, name), message)
                    problems.append(
                        problem._replace(field=_name(where) + "." + label if where else label)
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


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "empty" if value is None else type(value).__name__


def _message(error: Any, where: tuple[Any, ...]) -> str:
    kind = error.validator
    value = error.instance
    field_name = next((part for part in reversed(where) if isinstance(part, str)), "")
    # Never the value itself: it came from a file, and may be a secret.
    if kind == "enum":  # a retired target name still validates, but is not offered
        offered = [str(choice) for choice in error.validator_value if choice not in RETIRED]
        return f"must be one of {', '.join(offered)}, not {_describe_value(value)}"
    if kind == "const":
        return f"must be {error.validator_value!r}, not {_describe_value(value)}"
    if kind == "type":
        wanted = error.validator_value
        names = [
            _TYPE_NAMES.get(str(t), str(t))
            for t in (wanted if isinstance(wanted, list) else [wanted])
        ]
        return f"must be {' or '.join(names)}, not {_describe(value)}"
    if kind == "pattern":
        return _PATTERN_HINTS.get(field_name, f"does not match {error.validator_value}")
    if kind == "minLength":
        if error.validator_value == 1:
            return "must not be empty"
        return f"needs at least {error.validator_value} characters"
    if kind == "maxLength":
        return f"is too long ({len(value)} characters; at most {error.validator_value})"
    if kind == "uniqueItems":
        return "has duplicate entries"
    if kind in ("minimum", "exclusiveMinimum"):
        relation = "at least" if kind == "minimum" else "above"
        return f"must be {relation} {error.validator_value}"
    if kind == "maximum":
        return f"must be at most {error.validator_value}"
    if kind == "propertyNames":
        return "holds a name that is not known"
    if kind == "oneOf" and field_name == "budget":
        return (
            "must be a number of tokens, or a mapping of target names (and default) to numbers "
            "of tokens"
        )
    return f"does not satisfy the schema ({kind})"


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
    if key in ("yaml", "file") or key in known or difflib.get_close_matches(key, known, n=1):
        return key
    from gitmem.scan.engine import preview

    return f"‹{preview(key)}›"


def _escaped_hidden(doc: yamlio.Document, path: str) -> list[Problem]:
    """Hidden characters written as escapes ("\\u200b") only appear once the YAML is parsed."""
    problems = []
    for where, value in _strings(doc.data, ()):
        for char in find_hidden(value):
            problems.append(_at(doc, path, where, f"escaped {char.describe()}"))
    return problems


def _strings(value: Any, where: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [item for key, sub in value.items() for item in _strings(sub, (*where, key))]
    if isinstance(value, list):
        return [item for index, sub in enumerate(value) for item in _strings(sub, (*where, index))]
    return []


def _at(doc: yamlio.Document, path: str, where: tuple[Any, ...], message: str) -> Problem:
    line, column = doc.position(where)
    return Problem(path, line, column, _name(where), message)


def _name(where: tuple[Any, ...]) -> str:
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
