"""``gitmem scan``: secrets and hidden Unicode in files, the staged diff, session logs or stdin."""

from __future__ import annotations

import json
import sys
from itertools import repeat
from pathlib import Path
from typing import Any

import click

from gitmem import gateway
from gitmem.commands.options import refuse
from gitmem.commands.output import echo, echo_json
from gitmem.commands.scanhook import project_or_none, report, split_allowed, warn_legacy
from gitmem.errors import CannotRun, UsageError, shown
from gitmem.memory.config import scan_settings
from gitmem.scan import inputs as src
from gitmem.scan import parallel
from gitmem.scan.engine import legacy_entries, renewed_by
from gitmem.scan.engine import redact as redact_text
from gitmem.scan.policy import LOG, TYPED
from gitmem.scan.transcripts import client_logs
from gitmem.tools import TRANSCRIPT_CLIENTS as CLIENTS


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATHS]... [-]")
@click.option(
    "--staged",
    is_flag=True,
    help="Scan only the lines the staged changes add (the pre-commit hook).",
)
@click.option(
    "--log",
    "logs",
    multiple=True,
    metavar="FILE|DIR|CLIENT",
    help="A session log (or a folder of them): scanned whole, looking deeper through JSON "
    "escapes, URL-encoding and base64 (repeatable). With --user, a client's name (claude, "
    "codex, gemini, qwen, opencode) scans the transcripts that client keeps for this "
    "project in your home directory.",
)
@click.option(
    "--user",
    is_flag=True,
    help="Let --log CLIENT read the client's transcripts in your home directory.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"findings": [{path, line, column, rule, preview, …}]}.',
)
@click.option(
    "--redact", is_flag=True, help="Rewrite each file with ‹redacted:RULE› in place of each secret."
)
@click.option(
    "--baseline",
    is_flag=True,
    help="Print the fingerprints of the current findings, for scan.allow (path, rule, masked line: "
    "never the value), marking the old entries each one renews.",
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
    """Find secrets and hidden Unicode: in files and directories (recursively, skipping git-ignored
    and binary files), in the staged changes (--staged), in session logs (--log), or in stdin (-).

    Each finding is one line, `path:line:col: rule: preview`; a preview shows at most a few
    characters of a secret. Exit 1 when anything is found. Without arguments, scans the current
    directory.

    Allow a reviewed finding with a comment on its line (`gitmem:allow`; `pragma: allowlist secret`
    and `gitleaks:allow` work too), or by adding its fingerprint (from --baseline) to scan.allow in
    .memory/config.yaml; skip files with globs in scan.exclude.

    \b
    Examples:
      gitmem scan
      gitmem scan --staged
      gitmem scan --log session.jsonl --redact
      pbpaste | gitmem scan -
    """

    stdin = "-" in paths
    _check_flags(staged=staged, redact=redact, baseline=baseline, stdin=stdin, as_json=as_json)
    files = tuple(p for p in paths if p != "-")
    project = project_or_none()
    settings = src.load_settings(project, scan_settings)
    # --baseline lists every finding, whether scan.allow allows it or not
    split = settings._replace(allow=frozenset()) if baseline else settings
    jobs, found, scanned = _collect(files, staged, logs, user, stdin, redact, project, settings)
    findings, allowed = split_allowed(found, split)
    redacted = _scan_jobs(jobs, findings, split, redact=redact, allowed=allowed)

    warn_legacy(echo, settings)
    if baseline:
        _print_baseline(findings, as_json, settings)
        return 0
    if as_json:
        return _print_json(findings, allowed)
    scanned += len(jobs)
    return report(
        echo,
        findings,
        allowed,
        settings,
        scanned,
        staged=staged,
        redacted=redacted,
        quiet=stdin and redact,
    )


def _print_json(findings: list[Any], allowed: list[Any]) -> int:
    data: dict[str, Any] = {"findings": list(map(_finding_json, findings))}
    if allowed:  # what a scan.allow entry let through, named (never the value)
        data["allowed"] = [
            {"path": f.path, "line": f.line, "rule": f.rule, "preview": f.preview} for f in allowed
        ]
    echo_json(data)
    return 1 if findings else 0


def _check_flags(*, staged: bool, redact: bool, baseline: bool, stdin: bool, as_json: bool) -> None:
    refuse(
        (staged and redact, "--redact rewrites files: give it paths or --log, not --staged"),
        (baseline and redact, "give --baseline or --redact, not both"),
        (
            stdin and redact and as_json,
            "--redact with '-' prints the redacted text: it cannot be combined with --json",
        ),
    )


Job = tuple[Any, Any]  # a source and its scan.policy.Policy


def _collect(
    files: tuple[str, ...],
    staged: bool,
    logs: tuple[str, ...],
    user: bool,
    stdin: bool,
    redact: bool,
    project: Any,
    settings: Any,
) -> tuple[list[Job], list[Any], int]:
    """What to scan, as jobs; and, for a large tree scanned in other processes, its findings (the
    allowed ones too, split off as each job's are) and files scanned. A session log is an agent's
    text, never reviewed line by line, so a pragma in it allows nothing.
    """

    jobs: list[Job] = []  # (a source, how it is scanned: None for its own policy)
    findings: list[Any] = []
    scanned = 0
    if staged:
        if project is None:
            raise CannotRun("--staged needs a git repository: run it inside one")
        jobs += zip(src.read_staged(project, files, settings), repeat(None))
    elif files or not (stdin or logs):
        entries = src.path_entries(files or (".",), project, settings)
        if not redact and parallel.worth_processes(entries):
            scanned, findings = parallel.in_processes(entries, settings)
        else:
            jobs += zip(filter(None, map(src.read_entry, entries)), repeat(None))
    every_log = tuple(_client_logs(logs, project, user))
    jobs += zip(src.read_paths(every_log, project, src.Settings()), repeat(LOG))
    if stdin:
        jobs.append((src.Source("-", src.decode_bytes(sys.stdin.buffer.read())), TYPED))
    return jobs, findings, scanned


def _scan_jobs(
    jobs: list[Job],
    findings: list[Any],
    settings: Any,
    *,
    redact: bool,
    allowed: list[Any],
) -> list[str]:
    """Scan each job, adding to ``findings`` (and to ``allowed`` what a scan.allow entry let
    through); with ``redact``, rewrite each file (or print stdin) redacted. The files redacted."""

    redacted: list[str] = []
    for source, how in jobs:
        found = src.findings_in(source, settings, how, honour_allow=False)
        found, passed = split_allowed(found, settings)
        findings += found
        allowed += passed
        if not redact:
            continue
        if source.file is None:  # stdin: the redacted text is the output
            click.echo(redact_text(source.text, found), nl=False)
        elif found:
            gateway.write_given(
                source.file, src.encode_text(redact_text(source.text, found), source.encoding)
            )
            redacted.append(source.display)
    return redacted


def _client_logs(logs: tuple[str, ...], project: Any, user: bool) -> list[str]:
    """``--log`` values as paths: a client's name (not an existing path) stands for its transcripts
    of this project, read from the home directory only with ``--user``."""

    out: list[str] = []
    for log in logs:
        if log not in CLIENTS or Path(log).exists():
            out.append(log)
            continue
        if not user:
            raise UsageError(
                f"--log {log}: reading {log}'s transcripts in your home directory needs --user"
            )
        if project is None:
            raise CannotRun(
                f"--log {log} finds the transcripts of this repository: run it inside one"
            )
        found = client_logs(log, project.root, Path.home())
        if not found:
            echo(f"no {log} transcripts of {project.root} found", err=True)
        out.extend(map(str, found))
    return out


def _finding_json(finding: Any) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "rule": finding.rule,
        "preview": finding.preview,
        "fingerprint": finding.fingerprint(),
    }


_BASELINE_HEADER = (
    "# gitmem scan --baseline: {count} finding(s). Review each one; to allow it, keep its line\n"
    "# under scan.allow in .memory/config.yaml. A fingerprint names the place, not the secret: the "
    "path, the rule\n"
    "# and a digest of the line with the secret masked. It tells nothing about the value "
    "(docs/security.md);\n"
    "# editing the line or moving it to another file makes it a new finding. A token in a "
    "provider's format\n"
    "# (AKIA…, ghp_…) is allowed by its value too: its fingerprint ends with a digest of a value "
    "too random\n"
    "# to guess from it."
)


def _print_baseline(findings: list[Any], as_json: bool, settings: Any) -> None:
    """The scan.allow block for the current findings; each one an old (v1, v2) entry allows is
    marked as renewing it, and the old entries that allow nothing now are listed, so the block
    printed replaces the old list.
    """

    old = set(legacy_entries(settings.allow))
    renews = {id(f): renewed_by(f, old, settings.salt) for f in findings}
    stale = sorted(old - set(renews.values()))
    if as_json:
        entries = [{**_finding_json(f), "renews": renews[id(f)]} for f in findings]
        echo_json({"allow": entries, "stale": stale})
        return
    if not findings and not stale:
        echo("# gitmem scan --baseline: no findings, nothing to allow")
        return
    echo(_BASELINE_HEADER.format(count=len(findings)))
    if old:
        echo(
            f"# scan.allow holds {len(old)} old fingerprint(s) derived from the secret: "
            "replace the list with this one."
        )
    echo("scan:\n  allow:")
    first: dict[str, Any] = {}
    for f in findings:
        first.setdefault(f.fingerprint(), f)
    for fingerprint, f in first.items():
        place, renewed = f.place(), renews[id(f)]
        note = (
            f" (renews {renewed})"
            if renewed
            else f" (renews {place}, which names the place only)"
            if fingerprint != place and place in settings.allow
            else ""
        )
        echo(f"    - {_yaml_scalar(fingerprint)}  # {shown(f.path)}:{f.line} {f.rule}{note}")
    for entry in stale:
        echo(f"  # {entry}: an old entry that allows no current finding: dropped")


def _yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when it is safe so, else double-quoted (a path with
    ``#``, ``: ``, quotes)."""

    plain = (
        text.isprintable()
        and not any(mark in text for mark in (": ", " #", "'", '"', "\\"))
        and text == text.strip()
    )
    return text if plain else json.dumps(text, ensure_ascii=False)
