"""The published schemas, the shipped copies, and the tables that must agree with them."""

from __future__ import annotations

import json
import random
import string
import sys
import unicodedata
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from gitmem.memory.config import TARGET_NAMES
from gitmem.memory.model import FIELD_ORDER, KINDS, PRIORITIES, SOURCES, STATUSES, slugify
from gitmem.scan.unicode import _HIDDEN_RANGES, find_hidden
from gitmem.tools import SCHEMA_TARGETS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", ["memory.schema.json", "config.schema.json"])
def test_shipped_schema_equals_published(name: str) -> None:
    from importlib import resources

    shipped = resources.files("gitmem").joinpath("schemas", name).read_text(encoding="utf-8")
    assert shipped == (ROOT / "schema" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["memory.schema.json", "config.schema.json"])
def test_schema_is_valid_2020_12_with_help_everywhere(name: str) -> None:
    schema = json.loads((ROOT / "schema" / name).read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(name)

    def walk(node: dict[str, object], where: str) -> None:
        for field, sub in node.get("properties", {}).items():  # type: ignore[attr-defined]
            assert "title" in sub and "description" in sub, (
                f"{where}.{field} lacks a title or description"
            )
            walk(sub, f"{where}.{field}")
            if isinstance(sub.get("items"), dict) and "properties" in sub["items"]:
                walk(sub["items"], f"{where}.{field}[]")

    walk(schema, name)


def test_model_vocabularies_match_the_schema() -> None:
    props = json.loads((ROOT / "schema" / "memory.schema.json").read_text())["properties"]
    assert tuple(props["kind"]["enum"]) == KINDS
    assert tuple(props["status"]["enum"]) == STATUSES
    assert tuple(props["priority"]["enum"]) == PRIORITIES
    assert tuple(props["source"]["enum"]) == SOURCES
    assert set(props) == set(FIELD_ORDER)
    config = json.loads((ROOT / "schema" / "config.schema.json").read_text())["properties"]
    # The live targets, then the retired names (still valid: read as what replaces them).
    assert tuple(config["targets"]["items"]["enum"]) == SCHEMA_TARGETS
    assert SCHEMA_TARGETS[: len(TARGET_NAMES)] == TARGET_NAMES
    # A memory's `targets` names the same targets as the config's.
    assert tuple(props["targets"]["items"]["enum"]) == SCHEMA_TARGETS
    assert ", ".join(SCHEMA_TARGETS) in props["targets"]["items"]["description"]


def test_hidden_table_covers_every_format_and_control_character() -> None:
    covered = {cp for start, end in _HIDDEN_RANGES for cp in range(start, end + 1)}
    for cp in range(sys.maxunicode + 1):
        category = unicodedata.category(chr(cp))
        if category in ("Cf", "Zl", "Zp") or (category == "Cc" and chr(cp) not in "\t\n\r"):
            assert cp in covered, f"U+{cp:04X} ({category}) is not in the hidden-character table"


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("plain text\twith tabs\r\n", []),
        ("\ufeffleading BOM", []),
        ("inner\ufeffBOM", [0xFEFF]),
        ("zero\u200bwidth", [0x200B]),
        ("\U0001f468\u200d\U0001f469", []),  # ZWJ inside an emoji sequence
        ("a\u200db", [0x200D]),  # ZWJ between letters
        ("\u2764\ufe0f", []),
        (
            "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
            [],
        ),  # flag of England
        ("hidden\U000e0069\U000e0067\U000e006e", [0xE0069, 0xE0067, 0xE006E]),  # tag smuggling
        ("ansi \x1b[31m escape", [0x1B]),
        ("variation\U000e0100selector", [0xE0100]),
    ],
)
def test_find_hidden(text: str, hidden: list[int]) -> None:
    """As a whole file's text (a leading BOM allowed); a field's value is stricter (test_trust_boundary)."""
    assert [h.codepoint for h in find_hidden(text, file=True)] == hidden


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Use pnpm, never npm", "use-pnpm-never-npm"),
        ("  Café déjà vu!  ", "cafe-deja-vu"),
        ("Don't use `any` in TypeScript", "don-t-use-any-in-typescript"),
        ("x" * 80, "x" * 64),
        ("word " * 30, "-".join(["word"] * 13)),
        ("日本語", ""),
    ],
)
def test_slugify(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_no_id_made_from_a_title_holds_its_secret() -> None:
    """Every id (a memory's, a proposal's, a session log's file name) is made by ``slugify``, which
    redacts a secret first: no piece of the token reaches the id, nor a path or a message named
    after it."""
    from gitmem.journal.log import log_slug
    from gitmem.memory.model import short_id

    token = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))
    title = f"Deploy with {token} on Fridays"
    for make in (slugify, short_id, lambda text: log_slug("", text)):
        made = make(title)
        assert made.startswith("deploy-with-redacted"), made
        assert token.lower()[4:16] not in made, made
