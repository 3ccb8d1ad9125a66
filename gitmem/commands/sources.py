from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json, style, table
from gitmem.memory.config import load_config
from gitmem.scopes import packs, source_changes
from gitmem.scopes.clone import MEMORIES_PATH
from gitmem.scopes.packs import short_rev

if TYPE_CHECKING:
    from gitmem.scopes.source_changes import Update


@click.group()
def sources() -> None:
    """Shared memory packs: other git repositories whose memories are compiled here, pinned at a
    revision.

    A pack is any repository with memories under .memory/memories/ (a team's or a company's
    conventions). Its active memories are compiled with the project's, read-only, as PACK/ID. The
    pin lives in .memory/config.yaml (`sources`), so it is reviewed like any change; the clone is
    cached under .git/gitmem/sources/.

    \b
    Examples:
      gitmem sources add https://github.com/acme/memory-pack.git --rev v1.2.0 --name acme
      gitmem sources update            # each pin to its newest tag; prints what changed
      gitmem sources mute acme no-tabs # do not compile acme/no-tabs here
      gitmem sources list
    """


@sources.command("add")
@click.argument("repo")
@click.option(
    "--rev",
    metavar="REV",
    help="The tag or commit to pin (a branch: its head, followed by update). Default: the "
    "newest tag.",
)
@click.option(
    "--name",
    metavar="NAME",
    help="The pack's short name, its memories' prefix (default: from REPO).",
)
@click.option(
    "--track", metavar="BRANCH", help="Make `sources update` follow this branch's head, not tags."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the new source and its memories as JSON."
)
def add(repo: str, rev: str | None, name: str | None, track: str | None, as_json: bool) -> int:
    """Record a shared pack: fetch REPO (a URL, or a path), check its memories at REV, pin it in the
    config.

    Nothing is recorded when the repository cannot be fetched (exit 3) or a memory there is invalid
    (exit 1).
    A relative path is recorded relative to the repository root.

    \b
    Examples:
      gitmem sources add https://github.com/acme/memory-pack.git --rev v1.2.0 --name acme
      gitmem sources add ../team-memories --track main
    """
    project, _ = open_store()
    added = source_changes.add(project, load_config(project), repo, rev, name, track)
    source, pack = added.source, added.pack
    live = pack.live(today())
    if as_json:
        echo_json(
            {
                **source_changes.source_dict(source),
                "commit": pack.commit,
                "compiled": [m.id for m in live],
            }
        )
        return 0
    follow = f", following {source.track}" if source.track else ""
    echo(
        f"added source {source.name} ({source.repo}) pinned at "
        f"{packs.short_rev(source.rev)}{follow}: {len(live)} active memories ({source.name}/ID)"
    )
    if not pack.memories:
        echo(
            f"warning: {source.repo} has no memories under {MEMORIES_PATH}/ at that revision",
            err=True,
        )
    echo("run `gitmem compile` to write them into the rules files", err=True)
    return 0


@sources.command("update")
@click.argument("names", metavar="[NAME]...", nargs=-1)
@click.option(
    "--branch",
    is_flag=True,
    help="Move to the head of the branch (`track`, or the default branch).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print each source's old and new pin and its changes as JSON.",
)
def update(names: tuple[str, ...], branch: bool, as_json: bool) -> int:
    """Move each pin (or NAME's) to the newest tag, or with `track` or --branch to the branch head;
    print what that changes in the compiled memories.

    A pin never moves back to an older tag, nor to a revision with invalid memories. A source that
    cannot be fetched is reported (exit 3) and left as it is; the others move.

    \b
    Examples:
      gitmem sources update
      gitmem sources update acme --branch
    """
    project, _ = open_store()
    results = source_changes.update(project, load_config(project), names, branch, today())
    if as_json:
        echo_json(list(map(_update_json, results)))
    else:
        for result in results:
            _print_update(result)
        moved = sum(result.moved for result in results)
        if moved:
            echo(f"updated {moved} pin(s) in .memory/config.yaml: run `gitmem compile`", err=True)
    if any(result.error for result in results):
        return 3
    return 1 if any(result.problems for result in results) else 0


def _update_json(result: Update) -> dict[str, Any]:
    return {
        "name": result.source.name,
        "old": result.old_rev,
        "new": result.source.rev,
        "moved": result.moved,
        "added": result.added,
        "changed": result.changed,
        "removed": result.removed,
        "note": result.note or None,
        "error": result.error or None,
        "problems": list(map(str, result.problems)),
    }


def _print_update(result: Update) -> None:

    name = result.source.name
    if result.error:
        echo(f"error: {result.error}", err=True)
        return
    for problem in result.problems:
        echo(str(problem), err=True)
    if result.note:
        echo(f"{name}: {result.note}")
        return
    if not result.moved:
        echo(f"{name}: up to date at {short_rev(result.source.rev)}")
        return
    counts = (
        f"{len(result.added)} added, {len(result.changed)} changed, {len(result.removed)} removed"
    )
    echo(f"{name}: {short_rev(result.old_rev)} -> {short_rev(result.source.rev)}: {counts}")
    for sign, ids, colour in (
        ("+", result.added, "green"),
        ("~", result.changed, "yellow"),
        ("-", result.removed, "red"),
    ):
        for memory_id in ids:
            echo(f"  {style(sign, fg=colour)} {memory_id}  {result.titles[memory_id]}")


@sources.command("list")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON array: name, repo, rev, track, mute, commit...",
)
def list_sources(as_json: bool) -> int:
    """List the shared packs, their pins and how many of their memories are compiled (from the
    cache: no fetch).

    \b
    Example:
      gitmem sources list --json | jq -r '.[] | "\\(.name) \\(.rev)"'
    """
    project, _ = open_store()
    config = load_config(project)
    loaded, _missing = packs.load(project, config, fetch_missing=False)
    by_name = {pack.name: pack for pack in loaded}
    day = today()
    items = []
    for source in config.sources:
        pack = by_name.get(source.name)
        cached = (
            {"commit": pack.commit, "memories": len(pack.memories), "compiled": len(pack.live(day))}
            if pack
            else dict.fromkeys(("commit", "memories", "compiled"))  # not fetched yet
        )
        items.append(
            {
                **source_changes.source_dict(source),
                "track": source.track,
                "mute": list(source.mute),
                **cached,
            }
        )
    if as_json:
        echo_json(items)
        return 0
    if not items:
        echo("no sources yet: gitmem sources add REPO --rev REV", err=True)
        return 0
    rows = [
        [
            item["name"],
            packs.short_rev(item["rev"]) + (f" ({item['track']})" if item["track"] else ""),
            "not fetched yet" if item["commit"] is None else str(item["compiled"]),
            str(len(item["mute"])),
            item["repo"],
        ]
        for item in items
    ]
    echo(table(["NAME", "REV", "COMPILED", "MUTED", "REPO"], rows, [{"bold": True}]))
    return 0


@sources.command("mute")
@click.argument("name")
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
def mute(name: str, memory_ids: tuple[str, ...]) -> int:
    """Stop compiling some of a pack's memories here (recorded in the config's `mute` list).

    \b
    Example:
      gitmem sources mute acme no-tabs
    """
    return _mute(name, memory_ids, muted=True)


@sources.command("unmute")
@click.argument("name")
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
def unmute(name: str, memory_ids: tuple[str, ...]) -> int:
    """Compile muted pack memories again.

    \b
    Example:
      gitmem sources unmute acme no-tabs
    """
    return _mute(name, memory_ids, muted=False)


def _mute(name: str, memory_ids: tuple[str, ...], muted: bool) -> int:

    project, _ = open_store()
    changed = source_changes.mute(project, load_config(project), name, memory_ids, muted)
    verb = "muted" if muted else "unmuted"
    for memory_id in changed:
        echo(f"{verb} {name}/{memory_id}")
    if not changed:
        echo(f"nothing to do: already {verb}")
    else:
        echo("run `gitmem compile` to update the rules files", err=True)
    return 0


@sources.command("remove")
@click.argument("name")
def remove(name: str) -> int:
    """Forget a shared pack: remove it from the config and delete its cached clone.

    \b
    Example:
      gitmem sources remove acme
    """
    project, _ = open_store()
    source = source_changes.remove(project, load_config(project), name)
    echo(
        f"removed source {source.name} ({source.repo}): run `gitmem compile` to take its "
        "memories out"
    )
    return 0
