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
                "known": [o.to_dict() for o in report.known],
                "skipped": [o.to_dict() for o in report.skipped],
                "refused": [o.to_dict() for o in report.refused],
            }
        )
    else:
        verb = done("propose", dry_run)
        for memory, origin, tier in report.memories:
            echo(
                f"{verb} [{memory.id}] {memory.title} ({memory.kind}; from {origin}, "
                f"{tier} in the bundle)"
            )
        for outcome in report.known:
            echo(f"known: {outcome.origin}: repeats [{outcome.id}]")
        for outcome in report.skipped:
            echo(f"skipped: {outcome.origin}: {outcome.why} ({outcome.detail})")
        for outcome in report.refused:
            echo(f"refused: {outcome.origin}: {outcome.why} ({outcome.detail})", err=True)
        echo(f"{len(report.memories)} proposal(s); a human accepts them: gitmem accept ID")
    return 1 if report.refused else 0
