"""``gitmem scan --staged`` as the pre-commit hook runs it, without click: ``gitmem.__main__``
answers that exact command line here (it runs on every commit), and ``gitmem.commands.scan`` renders
its results with the same functions, so both print the same bytes.

Nothing here imports click, the store, YAML or JSON Schema (tests/test_architecture.py keeps it so).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gitmem.errors import CannotRun, Problem
from gitmem.gateway import find_project
from gitmem.scan import inputs as src
from gitmem.scan.engine import HIDDEN_RULE, legacy_entries, value_bound, without_allowed
from gitmem.scan.lazyre import lazy

if TYPE_CHECKING:
    from gitmem.project import Project
    from gitmem.scan.engine import Finding
    from gitmem.scan.inputs import Settings

ALLOW_HINT = (
    "remove them (and rotate any real secret: it may already be in your history), or allow a "
    "reviewed finding with a `gitmem:allow` comment on its line or its fingerprint in "
    "scan.allow (gitmem scan --baseline)"
)

Echo = Callable[[str, bool], None]  # (text, to stderr)


def finding_lines(findings: list[Finding]) -> str:
    """The findings, one ``path:line:col: rule: what`` line each: one text, written at once (a file
    of zero-width characters once held a finding per character)."""

    lines = []
    for f in findings:
        what = "hidden Unicode character" if f.rule == HIDDEN_RULE else "possible secret:"
        lines.append(str(Problem(f.path, f.line, f.column, f.rule, f"{what} {f.preview}")))
    return "\n".join(lines)


def allowed_lines(allowed: list[Finding], found: list[Finding], settings: Settings) -> str:
    """Every finding a scan.allow entry let through, named (never its value), and every one an entry
    names only by its place while its format is a provider's (such a token is allowed by value:
    ``engine.value_bound``).
    """

    lines = [
        str(
            Problem(
                f.path,
                f.line,
                f.column,
                f.rule,
                f"allowed by scan.allow ({f.place()}…): {f.preview}",
            )
        )
        for f in allowed
    ]
    lines += [
        str(Problem(f.path, f.line, f.column, f.rule,
                    "scan.allow names this place, but a token in a provider's format is allowed "
                    "by its value too: `gitmem scan --baseline` prints the entry if it is meant"))
        for f in found
        if value_bound(f.rule) and f.place() in settings.allow
    ]  # fmt: skip
    return "\n".join(lines)


def summary(findings: list[Finding], redacted: list[str]) -> str:
    count = len({f.path for f in findings})
    return f"{len(findings)} finding(s) in {count} file(s): " + (
        f"redacted in {', '.join(redacted)}; check the result" if redacted else ALLOW_HINT
    )


def clean(scanned: int, staged: bool) -> str:
    return f"ok: no secrets in {scanned} {'file' if scanned == 1 else 'files'}" + (
        " (staged)" if staged else ""
    )


def warn_legacy(echo: Echo, settings: Settings) -> None:
    """On stderr, a warning when scan.allow holds old (v1, v2) entries, derived from the secret."""
    old = legacy_entries(settings.allow)
    if old:
        echo(
            f"warning: scan.allow holds {len(old)} old fingerprint(s) derived from the secret (v1, "
            "v2): they still allow their findings, but anyone with the repository can test guesses "
            "at the secret against them, and each costs every scan; renew them: `gitmem scan "
            "--baseline` prints the list to replace them with (v3: the place, not the value)",
            True,
        )


def project_or_none() -> Project | None:
    """The repository here, or ``None`` outside one (a scan of files, logs or stdin needs none)."""
    try:
        return find_project()
    except CannotRun:
        return None


def split_allowed(every: list[Finding], settings: Settings) -> tuple[list[Finding], list[Finding]]:
    """The findings no scan.allow entry allows, and those one does."""
    if not settings.allow:
        return every, []
    kept = without_allowed(every, settings.allow, settings.salt)
    return kept, [finding for finding in every if finding not in kept]


def staged(echo: Echo) -> int:
    """``gitmem scan --staged``: the lines the index adds, scanned; findings on stdout, the summary
    on stderr.
    Exit 1 when anything is found. Raises gitmem's errors, as a command does."""

    project = project_or_none()
    settings = src.load_settings(project, _config_settings)
    if project is None:
        raise CannotRun("--staged needs a git repository: run it inside one")

    findings: list[Finding] = []
    allowed: list[Finding] = []
    texts = list(src.read_staged(project, (), settings))
    for source in texts:
        kept, passed = split_allowed(
            src.findings_in(source, settings, honour_allow=False), settings
        )
        findings += kept
        allowed += passed
    warn_legacy(echo, settings)
    return report(echo, findings, allowed, settings, len(texts), staged=True)


def report(
    echo: Echo,
    findings: list[Finding],
    allowed: list[Finding],
    settings: Settings,
    scanned: int,
    *,
    staged: bool,
    redacted: list[str] | None = None,
    quiet: bool = False,
) -> int:
    """A scan's outcome in text, for the hook and ``gitmem scan``: what scan.allow let through, the
    findings (the command's output: stdout, ``gitmem scan | grep``) and their summary (a message:
    stderr); exit 1 when anything is found. ``quiet``: stdout carries stdin's redacted text, so the
    findings go to stderr and a clean scan says nothing."""

    notes = allowed_lines(allowed, findings, settings)
    if notes:
        echo(notes, True)
    if findings:
        echo(finding_lines(findings), quiet)
        echo(summary(findings, redacted or []), True)
        return 1
    if not quiet:
        echo(clean(scanned, staged), False)
    return 0


# -- output as click.echo writes it ----------------------------------------------------------------

_ANSI_RE = lazy(r"\033\[[0-?]*[ -/]*[@-~]")  # click's own pattern (click._compat._ansi_re)


def plain_echo(text: str, err: bool) -> None:
    """``gitmem.commands.output.echo`` without importing click: the same bytes (ANSI codes stripped
    unless colour is on, a newline, a flush). Where click would re-wrap the stream (an
    ASCII-configured one, the Windows console), it is click that writes."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    if sys.platform == "win32" or not _utf8(stream):
        from gitmem.commands.output import echo  # lazy: the pre-commit hook's start-up

        echo(text, err=err)
        return
    color = not os.environ.get("NO_COLOR") and hasattr(stream, "isatty") and stream.isatty()
    stream.write((text if color or "\033" not in text else _ANSI_RE.sub("", text)) + "\n")
    stream.flush()


def _utf8(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None)
    return isinstance(encoding, str) and encoding.lower().replace("_", "-") in ("utf-8", "utf8")


def _config_settings(project: Project) -> Settings:
    """The scanner's settings read from the config, only when their cache misses (the config module
    and the YAML reader are slow to import for a hook run on every commit)."""
    from gitmem.memory.config import scan_settings  # lazy: the pre-commit hook's start-up

    return scan_settings(project)
