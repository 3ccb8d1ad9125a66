"""`gitmem export --okf DIR` and `gitmem import --okf DIR`: Open Knowledge Format v0.2 bundles
(docs/okf.md)."""

from __future__ import annotations

from pathlib import Path

import click

from gitmem.commands import open_store, today
from gitmem.commands.output import done, echo, echo_json
from gitmem.importing.okf import export as write_bundle
from gitmem.importing.okf import import_bundle


@click.command("export")
@click.option(
    "--okf",
    "folder",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Write an Open Knowledge Format v0.2 bundle here (a folder inside the repository).",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"folder": ..., "written": [...]}.')
def export(folder: Path, as_json: bool) -> int:
    """Write every memory as an Open Knowledge Format (OKF v0.2) concept: FOLDER/<id>.md, Markdown
    with YAML front matter (type, title, tags, status, stale_after, sources, generated, verified;
    what only gitmem holds under the `gitmem` key), and FOLDER/index.md. Other tools that keep OKF
    bundles (Kage, okf-agent-memory) read it; `gitmem import --okf FOLDER` reads it back. The
    mapping: docs/okf.md.

    \b
    Example:
      gitmem export --okf docs/knowledge
    """
    project, store = open_store()
    report = write_bundle(project, store.load(), folder)
    if as_json:
        echo_json({"folder": report.folder, "written": report.written})
    else:
        echo(f"wrote {len(report.written)} concept(s) and index.md to {report.folder}")
    return 0


# The report's lists of concepts not proposed: (name, how one reads, whether on standard error).
_OUTCOMES = (
    ("known", "known: {0.origin}: repeats [{0.id}]", False),
    ("skipped", "skipped: {0.origin}: {0.why} ({0.detail})", False),
    ("refused", "refused: {0.origin}: {0.why} ({0.detail})", True),
)


def import_okf(folder: Path, dry_run: bool, as_json: bool) -> int:
    """`gitmem import --okf FOLDER`: one proposal per concept, scanned like any import; exit 1 when
    one was refused."""
    project, store = open_store()
    report = import_bundle(project, store, folder, today(), write=not dry_run)
    if as_json:
        echo_json(
            {
                "dry_run": dry_run,
                "memories": [
                    {
                        "id": m.id,
                        "title": m.title,
                        "kind": m.kind,
                        "status": m.status,
                        "origin": origin,
                        "trust": tier,
                    }
                    for m, origin, tier in report.memories
                ],
                **{name: [o.to_dict() for o in getattr(report, name)] for name, _, _ in _OUTCOMES},
            }
        )
    else:
        verb = done("propose", dry_run)
        for memory, origin, tier in report.memories:
            echo(
                f"{verb} [{memory.id}] {memory.title} ({memory.kind}; from {origin}, "
                f"{tier} in the bundle)"
            )
        for name, line, err in _OUTCOMES:
            for outcome in getattr(report, name):
                echo(line.format(outcome), err=err)
        echo(f"{len(report.memories)} proposal(s); a human accepts them: gitmem accept ID")
    return 1 if report.refused else 0
