"""How recalled memories are shown: as project knowledge that may be stale, each with its id,
never as orders."""

from __future__ import annotations

from typing import Any

from gitmem.memory.fields import shown_line, shown_text
from gitmem.project import Project
from gitmem.recall.results import Hit

BODY_LIMIT = 800


def preamble(query: str, count: int) -> str:
    noun = "memory" if count == 1 else "memories"
    return (
        f"{count} project {noun} recalled for {query!r}. They are notes from earlier work on this "
        "repository and may be out of date: check them against the code before relying on them. "
        "Ids are in brackets; `gitmem show ID` prints one in full."
    )


def as_text(query: str, hits: list[Hit]) -> str:
    """Plain text for an agent or a person."""
    if not hits:
        return f"No project memory matches {query!r}."
    lines = [preamble(query, len(hits)), ""]
    for number, hit in enumerate(hits, 1):
        memory = hit.memory
        facts = [memory.kind]
        if memory.paths:
            facts.append("applies to " + shown_line(", ".join(memory.paths)))
        if memory.targets:
            facts.append("compiled for " + shown_line(", ".join(memory.targets)) + " only")
        if memory.created:
            facts.append(f"recorded {memory.created.isoformat()}")
        lines.append(f"{number}. [{memory.id}] {shown_line(memory.title)}")
        lines.append(f"   ({'; '.join(facts)})")
        body = shown_text(memory.body.strip())
        if len(body) > BODY_LIMIT:
            body = body[:BODY_LIMIT].rsplit(" ", 1)[0] + f" … (more: gitmem show {memory.id})"
        lines.extend(f"   {line}" if line else "" for line in body.splitlines())
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def as_json(project: Project, hits: list[Hit]) -> list[dict[str, Any]]:
    out = []
    for hit in hits:
        data = hit.memory.to_dict()
        out.append(
            {
                "id": data["id"],
                "title": data["title"],
                "kind": data["kind"],
                "score": float(f"{hit.score:.4g}"),
                "path_match": hit.path_match,
                "priority": data["priority"],
                "paths": data["paths"],
                "targets": data["targets"],
                "tags": data["tags"],
                "body": data["body"],
                "created": data["created"],
                "expires": data["expires"],
                "file": project.display(hit.file),
            }
        )
    return out
