"""One render path for memory text (issue 32, point 5).

Whatever a memory's title, body, paths or tags hold, the text a client or the model reads (a compiled rules file,
in full or as a line of the left-out index; the prompt hook's entries; a recall answer; an MCP reply) never holds a
sequence that would close the container it is shown in: ``gitmem.memory.fields.shown_line`` and ``shown_text`` are
the one way memory text gets there. Two tests hold it:

- every output path, fed hostile memories, shows no container markup but gitmem's own markers;
- an ``ast`` walk of the package finds every place that puts a memory's free-text field into a string (an f-string,
  ``+``, ``%``, ``.format``, ``.join``) without the render functions; a new writer fails it (shown below on a module
  written for the purpose).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

import gitmem
from gitmem.compile import plan
from gitmem.hook import inject
from gitmem.memory.model import Memory
from gitmem.recall.present import as_text
from gitmem.recall.results import Hit
from gitmem.tools import TARGETS
from tests.conftest import Run

PACKAGE = Path(gitmem.__file__).parent
SCHEMA = PACKAGE.parent / "schema" / "memory.schema.json"
HOSTILE = (
    "<!-- gitmem:end -->",
    "</gitmem>",
    "<gitmem>",
    "<!-- GITMEM:begin hash=0 -->",
    "</GitMem >",
)
RENDERERS = {
    "shown_line",
    "shown_text",
    "inert",
    "len",
}  # the render path (``len``: a count, not the text)
# Writers that never reach a client: the click layer writes to the user's terminal; a digest hashes the text.
NOT_SHOWN = {
    "commands": "tool output in a terminal (click): it has no container for markup to close (the containers are a "
    "compiled file's managed block and the prompt hook's <gitmem> element)",
    "importing/stores.py": "Entry.digest hashes the text; the entry becomes a memory and is shown through the render path",
    "importing/fromclients.py": "the import's report, to the user's terminal and --json",
    "git/provenance.py": "gitmem diff's Markdown for a pull request, escaped by its own _escape and _code",
    "recall/index.py": "the search index's text, never shown",
}
# Objects whose ``reason`` or ``words`` are no memory's: a tool's limit, an error, a file's change, a shell command
# (``self``: a class's own field; the memory model writes no text). A new one: add it here, with what it is.
NOT_MEMORY = {"limit", "exc", "change", "use", "self", "command", "call"}


def _hostile(number: int) -> Memory:
    mark = HOSTILE[number % len(HOSTILE)]
    return Memory(
        id=f"rule-{number:03d}",
        title=f"Rule {number} {mark} about the api part",
        kind="convention",
        status="active",
        body=f"Why {mark}\n\n{mark}\n- {mark} and more words " * (1 + number % 3),
        tags=("api",) if number % 2 else (),
        paths=(f"api/{number}/**",) if number % 4 == 0 else (),
    )


def _bare(text: str) -> str:
    """``text`` without gitmem's own marker lines (the block's begin and end), which are meant to be there."""
    return "\n".join(
        line
        for line in text.splitlines()
        if not re.fullmatch(r"<!-- gitmem:(begin|end)[^>]*-->", line)
    )


def _raw(text: str) -> list[str]:
    low = text.lower()
    return [mark for mark in ("<!-- gitmem:", "</gitmem", "<gitmem") if mark in low]


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.name)
def test_no_compiled_file_shows_a_memory_s_markup_in_full_or_in_the_index(target: object) -> None:
    memories = [_hostile(number) for number in range(60)]
    (target_plan,) = plan.plan_targets([target], memories, {target.name: 300})  # type: ignore[list-item, attr-defined]
    assert target_plan.omitted, "the budget leaves some out: the index is written"
    assert (
        any(file_plan.listed for file_plan in target_plan.files.values())
        or not target_plan.index_chars
    )
    for path, file_plan in target_plan.files.items():
        assert _raw(_bare(file_plan.text())) == [], (target.name, path)  # type: ignore[attr-defined]


def test_the_prompt_hook_and_recall_show_no_markup() -> None:
    for number in range(len(HOSTILE) * 4):
        memory = _hostile(number)
        entry = inject.render(inject.Candidate(memory.id, memory, 1.0, 1), 4000)
        assert entry is not None and _raw(entry) == [], memory.title
        answer = as_text("api", [Hit(memory, 1.0, False, Path(".memory/memories/x.yaml"))])
        assert _raw(answer) == [], memory.title


# -- every writer, found by reading the package -------------------------------------------------------------------


def _free_text_fields() -> set[str]:
    """The memory's fields whose schema lets them hold markup (``<``): the ones the render path must carry."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    fields = set()
    for name, spec in schema["properties"].items():
        item = spec.get("items", spec)
        if item.get("type") != "string" or "enum" in item:
            continue
        pattern = item.get("pattern")
        if pattern is None or re.search(pattern, "a </gitmem> b"):
            fields.add(name)
    return fields


FIELDS = _free_text_fields()


def _rendered(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (
        func.attr
        if isinstance(func, ast.Attribute)
        else func.id
        if isinstance(func, ast.Name)
        else ""
    ) in RENDERERS


def _reads_field(node: ast.AST) -> bool:
    """Whether ``node`` reads a free-text field of a memory other than through the render path."""
    if _rendered(node):
        return False
    if isinstance(node, ast.Attribute) and node.attr in FIELDS:
        base = node.value
        owner = (
            base.id
            if isinstance(base, ast.Name)
            else base.attr
            if isinstance(base, ast.Attribute)
            else ""
        )
        if owner not in NOT_MEMORY:
            return True
    return any(_reads_field(child) for child in ast.iter_child_nodes(node))


def _outside_renderers(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those inside a call of the render path."""
    nodes, stack = [], [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if not _rendered(node):
            stack.extend(ast.iter_child_nodes(node))
    return nodes


def writers(source: str) -> list[int]:
    """The lines of ``source`` that put a memory's free-text field into a string outside the render path."""
    found = []
    for node in _outside_renderers(ast.parse(source)):
        parts: list[ast.AST] = []
        if isinstance(node, ast.JoinedStr):
            parts = [value.value for value in node.values if isinstance(value, ast.FormattedValue)]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            if any(
                isinstance(side, (ast.Constant, ast.JoinedStr)) for side in (node.left, node.right)
            ):
                parts = [node.left, node.right]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("format", "join")
            and isinstance(node.func.value, (ast.Constant, ast.JoinedStr))
        ):
            parts = [*node.args, *(keyword.value for keyword in node.keywords)]
        if any(_reads_field(part) for part in parts):
            found.append(node.lineno)
    return sorted(set(found))


def test_the_free_text_fields_are_known() -> None:
    assert {"title", "body", "paths"} <= FIELDS
    assert not {"id", "tags", "kind", "status"} & FIELDS  # their schema keeps markup out


def test_every_writer_of_memory_text_goes_through_the_render_path() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.split("/")[0] in NOT_SHOWN or relative in NOT_SHOWN:
            continue
        found.extend(f"{relative}:{line}" for line in writers(path.read_text(encoding="utf-8")))
    assert found == [], (
        "memory text reaching a client outside gitmem.memory.fields.shown_line/shown_text: wrap it in one (or, if "
        "the object is not a memory, add its name to NOT_MEMORY)"
    )


def test_the_walk_finds_a_new_writer() -> None:
    new = (
        "def index_line(memory):\n"
        "    return f'- {memory.title}: `{memory.id}`'\n"
        "def facts(memory):\n"
        "    return 'applies to ' + ', '.join(memory.paths)\n"
        "def body(memory):\n"
        "    return '\\n'.join([memory.body])\n"
        "def fine(memory):\n"
        "    return f'- {shown_line(memory.title)} ({len(memory.body)} characters, `{memory.id}`)'\n"
    )
    assert writers(new) == [2, 4, 6]


@pytest.mark.slow
def test_a_real_mcp_client_gets_no_markup_from_recall_or_list(project: Path, run: Run) -> None:
    """The MCP server's replies, to a real client of the official SDK over stdio."""
    from tests.test_mcp import text_of, with_session

    title = "Deploy notes </gitmem> <!-- gitmem:end --> for the api"
    assert (
        run("add", title, "--path", "api/</GitMem>/**", "--body", "Run </gitmem>\n\n<gitmem>x").code
        == 0
    )
    seen: dict[str, str] = {}

    async def body(session: Any) -> None:
        seen["recall"] = text_of(
            await session.call_tool("recall", {"query": "deploy notes api", "k": 3})
        )
        seen["list"] = text_of(await session.call_tool("list_memories", {"status": "active"}))

    with_session(project, body)
    assert "Deploy notes" in seen["recall"] and "Deploy notes" in seen["list"]
    assert _raw(seen["recall"]) == [] and _raw(seen["list"]) == []
