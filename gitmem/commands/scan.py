"""``gitmem scan``: secrets and hidden Unicode in files, the staged diff, session logs or stdin."""

from __future__ import annotations

import sys
from typing import Any

import click

from gitmem.render import echo, echo_json

_ALLOW_HINT = (
    "remove them (and rotate any real secret: it may already be in your history), or allow a reviewed finding "
    "with a `gitmem:allow` comment on its line or its fingerprint in scan.allow (gitmem scan --baseline)"
)


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATHS]... [-]")
@click.option("--staged", is_flag=True, help="Scan only the lines the staged changes add (the pre-commit hook).")
@click.option(
    "--log",
    "logs",
    multiple=True,
    metavar="FILE",
    help="A session log: scanned whole, looking deeper through JSON escapes, URL-encoding and base64 (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"findings": [{path, line, column, rule, preview, …}]}.')
@click.option("--redact", is_flag=True, help="Rewrite each file with ‹redacted:RULE› in place of each secret.")
@click.option("--baseline", is_flag=True, help="Print the fingerprints of the current findings, for scan.allow.")
def scan(
    paths: tuple[str, ...], staged: bool, logs: tuple[str, ...], as_json: bool, redact: bool, baseline: bool
) -> int:
    """Find secrets and hidden Unicode: in files and directories (recursively, skipping git-ignored and binary
    files), in the staged changes (--staged), in session logs (--log), or in stdin (-).

    Each finding is one line, `path:line:col: rule: preview`; a preview shows at most a few characters of a
    secret. Exit 1 when anything is found. Without arguments, scans the current directory.

    Allow a reviewed finding with a comment on its line (`gitmem:allow`; `pragma: allowlist secret` and
    `gitleaks:allow` work too), or by adding its fingerprint (from --baseline) to scan.allow in
    .memory/config.yaml; skip files with globs in scan.exclude.

    \b
    Examples:
      gitmem scan
      gitmem scan --staged
      gitmem scan --log session.jsonl --redact
      pbpaste | gitmem scan -
    """
    from gitmem.errors import CannotRun, CheckFailed, Problem, UsageError
    from gitmem.fsutil import write_atomic
    from gitmem.project import find_project
    from gitmem.scan import sources as src
    from gitmem.scan.engine import HIDDEN_RULE
    from gitmem.scan.engine import redact as redact_text
    from gitmem.scan.kinds import PROSE

    if staged and redact:
        raise UsageError("--redact rewrites files: give it paths or --log, not --staged")
    if baseline and redact:
        raise UsageError("give --baseline or --redact, not both")
    stdin = "-" in paths
    if stdin and redact and as_json:
        raise UsageError("--redact with '-' prints the redacted text: it cannot be combined with --json")
    files = tuple(p for p in paths if p != "-")

    project = _project_or_none(find_project)
    settings = src.load_settings(project)

    # (source, decode depth, whether allow pragmas count): a session log is an agent's text, never reviewed line
    # by line, so a pragma in it allows nothing
    jobs: list[tuple[src.Source, int, bool, str]] = []
    if staged:
        if project is None:
            raise CannotRun("--staged needs a git repository: run it inside one")
        jobs += [_job(source) for source in src.read_staged(project, files, settings)]
    elif files or not (stdin or logs):
        jobs += [_job(source) for source in src.read_paths(files or (".",), project, settings)]
    for log in logs:
        jobs += [(s, LOG_DECODE_DEPTH, False, PROSE) for s in src.read_paths((log,), project, src.Settings())]
    if stdin:
        jobs.append((src.Source("-", src.decode_bytes(sys.stdin.buffer.read())), LOG_DECODE_DEPTH, True, PROSE))

    findings = []
    redacted: list[str] = []
    for source, depth, pragmas, kind in jobs:
        found = src.findings_in(source, settings, decode=depth, pragmas=pragmas, honour_allow=not baseline, kind=kind)
        findings += found
        if not redact:
            continue
        if source.file is None:  # stdin: the redacted text is the output
            click.echo(redact_text(source.text, found), nl=False)
        elif found:
            write_atomic(source.file, src.encode_text(redact_text(source.text, found)))
            redacted.append(source.display)

    if baseline:
        _print_baseline(findings, as_json)
        return 0
    if as_json:
        echo_json({"findings": [_finding_json(f) for f in findings]})
        return 1 if findings else 0
    if findings:
        problems = [
            Problem(
                f.path,
                f.line,
                f.column,
                f.rule,
                f"hidden Unicode character {f.preview}" if f.rule == HIDDEN_RULE else f"possible secret: {f.preview}",
            )
            for f in findings
        ]
        count = len({f.path for f in findings})
        summary = f"{len(findings)} finding(s) in {count} file(s): " + (
            f"redacted in {', '.join(redacted)}; check the result" if redacted else _ALLOW_HINT
        )
        raise CheckFailed(problems, summary)
    if not (stdin and redact):
        scanned = len(jobs)
        echo(f"ok: no secrets in {scanned} {'file' if scanned == 1 else 'files'}" + (" (staged)" if staged else ""))
    return 0


LOG_DECODE_DEPTH = 3


def _job(source: Any) -> tuple[Any, int, bool, str]:
    """How to scan a file: gitmem's own session logs as logs (decoded deeper), and in them and in memories an allow
    pragma allows nothing (an agent writes that text; nobody reviews it line by line). Memories and logs are
    prose; every other file is code (gitmem.scan.kinds)."""
    from gitmem.scan.engine import DEFAULT_DECODE_DEPTH
    from gitmem.scan.kinds import file_kind

    relative = source.root_relative or ""
    kind = file_kind(source.root_relative or source.display)
    if relative.startswith(".memory/journal/"):
        return source, LOG_DECODE_DEPTH, False, kind
    return source, DEFAULT_DECODE_DEPTH, not relative.startswith(".memory/memories/"), kind


def _project_or_none(find: Any) -> Any:
    from gitmem.errors import CannotRun

    try:
        return find()
    except CannotRun:
        return None


def _finding_json(finding: Any) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "rule": finding.rule,
        "preview": finding.preview,
        "fingerprint": finding.fingerprint,
    }


def _print_baseline(findings: list[Any], as_json: bool) -> None:
    if as_json:
        echo_json({"allow": [_finding_json(f) for f in findings]})
        return
    if not findings:
        echo("# gitmem scan --baseline: no findings, nothing to allow")
        return
    echo(f"# gitmem scan --baseline: {len(findings)} finding(s). Review each one; to allow it, keep its line")
    echo("# under scan.allow in .memory/config.yaml (a fingerprint is a keyed hash: it does not reveal the secret).")
    echo("scan:")
    echo("  allow:")
    seen: set[str] = set()
    for f in findings:
        if f.fingerprint in seen:
            continue
        seen.add(f.fingerprint)
        echo(f"    - {f.fingerprint}  # {f.path}:{f.line} {f.rule}")
