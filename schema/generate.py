"""Write the JSON schemas' target names from the tool records (``gitmem/tools.py``).

    python schema/generate.py          # rewrite schema/*.json and gitmem/schemas/*.json in place
    python schema/generate.py --check  # exit 1 when a committed file is not what the records give

Only the generated parts change (the target enums and the descriptions that list the targets), in the file's own
layout: the rest of each schema is written by hand. ``tests/test_tools.py`` checks the committed files are current.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("config.schema.json", "memory.schema.json")
COPIES = (ROOT / "schema", ROOT / "gitmem" / "schemas")


def _records() -> tuple[tuple[str, ...], dict[str, str]]:
    sys.path.insert(0, str(ROOT))
    from gitmem.tools import RETIRED, SCHEMA_TARGETS, TARGETS, WHOLE_PREFIX, current

    where = {}
    for target in TARGETS:
        folder, _, name = target.root_file.rpartition("/")
        where[target.name] = folder if target.root_whole and name.startswith(WHOLE_PREFIX) else target.root_file
    for retired in RETIRED:
        where[retired] = f"retired: read as {current(retired)}"
    return SCHEMA_TARGETS, where


def expected(name: str) -> dict[tuple[str, ...], Any]:
    """JSON path -> the value the records give it, for the generated parts of schema ``name``."""
    names, where = _records()
    listed = ", ".join(f"{n} ({where[n]})" if n in where else n for n in names)
    if name == "config.schema.json":
        return {
            ("properties", "targets", "items", "enum"): list(names),
            ("properties", "targets", "items", "description"): f"{listed}.",
            ("properties", "budget", "oneOf", "1", "propertyNames", "enum"): ["default", *names],
        }
    return {
        ("properties", "targets", "items", "enum"): list(names),
        ("properties", "targets", "items", "description"): f"A compile target: {', '.join(names)}.",
    }


def _at(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def _array(text: str, old: list[str], new: list[str]) -> str:
    """``text`` with the array ``old`` (one line, or one item a line) written as ``new`` in the same layout."""
    one_line = json.dumps(old)
    if one_line in text:
        return text.replace(one_line, json.dumps(new), 1)
    items = r",\s*".join(re.escape(json.dumps(item)) for item in old)
    found = re.search(r"\[\n([ ]*)" + items + r"\n([ ]*)\]", text)
    if found is None:
        raise SystemExit(f"cannot find the array {one_line} in the schema")
    indent, closing = found.group(1), found.group(2)
    body = ",\n".join(indent + json.dumps(item) for item in new)
    return text[: found.start()] + f"[\n{body}\n{closing}]" + text[found.end() :]


def render(name: str, text: str) -> str:
    """The schema ``name`` (its current ``text``) with the generated parts the records give."""
    data = json.loads(text)
    for path, value in expected(name).items():
        old = _at(data, path)
        if old == value:
            continue
        if isinstance(value, list):
            text = _array(text, old, value)
        else:
            text = text.replace(json.dumps(old, ensure_ascii=False), json.dumps(value, ensure_ascii=False), 1)
    return text


def main(argv: list[str]) -> int:
    stale = []
    for folder in COPIES:
        for name in NAMES:
            path = folder / name
            text = path.read_text(encoding="utf-8")
            new = render(name, text)
            if new != text:
                stale.append(path)
                if "--check" not in argv:
                    path.write_text(new, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if '--check' in argv else 'wrote'} {path.relative_to(ROOT)}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
