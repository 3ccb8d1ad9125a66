"""``gitmem scan``: secrets and hidden Unicode in files, the staged diff, session logs or stdin."""

from __future__ import annotations

import sys
from typing import Any

import click

from gitmem.commands.output import echo, echo_json
from gitmem.commands.scanhook import LOG_DECODE_DEPTH, clean, finding_lines, job, legacy_warning, summary


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATHS]... [-]")
@click.option("--staged", is_flag=True, help="Scan only the lines the staged changes add (the pre-commit hook).")
@click.option(
    "--log",
    "logs",
    multiple=True,
    metavar="FILE|DIR|CLIENT",
    help="A session log (or a folder of them): scanned whole, looking deeper through JSON escapes, URL-encoding and "
    "base64 (repeatable). With --user, a client's name (claude, codex, gemini, qwen, opencode) scans the transcripts "
    "that client keeps for this project in your home directory.",
)
@click.option("--user", is_flag=True, help="Let --log CLIENT read the client's transcripts in your home directory.")
@click.option("--json", "as_json", is_flag=True, help='Print {"findings": [{path, line, column, rule, preview, …}]}.')
@click.option("--redact", is_flag=True, help="Rewrite each file with ‹redacted:RULE› in place of each secret.")
@click.option(
    "--baseline",
    is_flag=True,
    help="Print the fingerprints of the current findings, for scan.allow (path, rule, masked line: never the value), "
    "marking the old entries each one renews.",
)
def scan(
    paths: tuple[str, ...],
    staged: bool,
    logs: tuple[str, ...],
    user: bool,
    as_json: bool,
    redact: bool,
    baseline: bool,
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
    from gitmem import gateway
    from gitmem.errors import CannotRun, UsageError
    from gitmem.project import find_project
    from gitmem.scan import sources as src
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
        jobs += [job(source) for source in src.read_staged(project, files, settings)]
    elif files or not (stdin or logs):
        jobs += [job(source) for source in src.read_paths(files or (".",), project, settings)]
    for log in _client_logs(logs, project, user):
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
            gateway.write_given(source.file, src.encode_text(redact_text(source.text, found), source.encoding))
            redacted.append(source.display)

    _warn_legacy(settings)
    if baseline:
        _print_baseline(findings, as_json, settings)
        return 0
    if as_json:
        echo_json({"findings": [_finding_json(f) for f in findings]})
        return 1 if findings else 0
    if findings:
        # Findings are the command's output (stdout: `gitmem scan | grep`), except where stdout carries the redacted
        # text of stdin; the summary is a message (stderr).
        to_stderr = stdin and redact
        echo(finding_lines(findings), err=to_stderr)
        echo(summary(findings, redacted), err=True)
        return 1
    if not (stdin and redact):
        echo(clean(len(jobs), staged))
    return 0


def _client_logs(logs: tuple[str, ...], project: Any, user: bool) -> list[str]:
    """``--log`` values as paths: a client's name (not an existing path) stands for its transcripts of this
    project, read from the home directory only with ``--user``."""
    from pathlib import Path

    from gitmem.errors import CannotRun, UsageError
    from gitmem.scan.transcripts import client_logs
    from gitmem.tools import TRANSCRIPT_CLIENTS as CLIENTS

    out: list[str] = []
    for log in logs:
        if log not in CLIENTS or Path(log).exists():
            out.append(log)
            continue
        if not user:
            raise UsageError(f"--log {log}: reading {log}'s transcripts in your home directory needs --user")
        if project is None:
            raise CannotRun(f"--log {log} finds the transcripts of this repository: run it inside one")
        found = client_logs(log, project.root, Path.home())
        if not found:
            echo(f"no {log} transcripts of {project.root} found", err=True)
        out.extend(str(path) for path in found)
    return out


def _project_or_none(find: Any) -> Any:
    from gitmem.errors import CannotRun

    try:
        return find()
    except CannotRun:
        return None


def _warn_legacy(settings: Any) -> None:
    warning = legacy_warning(settings)
    if warning:
        click.echo(warning, err=True)


def _finding_json(finding: Any) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "rule": finding.rule,
        "preview": finding.preview,
        "fingerprint": finding.fingerprint(),
    }


def _print_baseline(findings: list[Any], as_json: bool, settings: Any) -> None:
    """The scan.allow block for the current findings; each one an old (v1, v2) entry allows is marked as renewing
    it, and the old entries that allow nothing now are listed, so the block printed replaces the old list."""
    from gitmem.scan.engine import legacy_entries, renewed_by

    old = set(legacy_entries(settings.allow))
    renews = {id(f): renewed_by(f, old, settings.salt) if old else None for f in findings}
    stale = sorted(old - set(renews.values()))
    if as_json:
        entries = [{**_finding_json(f), "renews": renews[id(f)]} for f in findings]
        echo_json({"allow": entries, "stale": stale})
        return
    if not findings and not stale:
        echo("# gitmem scan --baseline: no findings, nothing to allow")
        return
    echo(f"# gitmem scan --baseline: {len(findings)} finding(s). Review each one; to allow it, keep its line")
    echo("# under scan.allow in .memory/config.yaml. A fingerprint names the place, not the secret: the path, the rule")
    echo("# and a digest of the line with the secret masked. It tells nothing about the value (docs/security.md);")
    echo("# editing the line or moving it to another file makes it a new finding.")
    if old:
        echo(
            f"# scan.allow holds {len(old)} old fingerprint(s) derived from the secret: replace the list with this one."
        )
    echo("scan:")
    echo("  allow:")
    seen: set[str] = set()
    for f in findings:
        fingerprint = f.fingerprint()
        if fingerprint in seen:
            continue
        seen.add(fingerprint)
        note = f" (renews {renews[id(f)]})" if renews[id(f)] else ""
        echo(f"    - {_yaml_scalar(fingerprint)}  # {f.path}:{f.line} {f.rule}{note}")
    for entry in stale:
        echo(f"  # {entry}: an old entry that allows no current finding: dropped")


def _yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when it is safe so, else double-quoted (a path with ``#``, ``: ``, quotes)."""
    import json

    plain = (
        text.isprintable() and not any(mark in text for mark in (": ", " #", "'", '"', "\\")) and text == text.strip()
    )
    return text if plain else json.dumps(text, ensure_ascii=False)
