"""Session logs on disk: .memory/journal/<YYYY-MM-DD>-<slug>.md, each scanned before it is written.

A log with a secret is refused (nothing is written and the secret is never repeated), or, when the
caller asks, stored with each secret replaced by ``‹redacted:RULE›``. A log with hidden Unicode is
always refused: those characters carry text a reviewer cannot see. A log is otherwise stored byte
for byte as given.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from gitmem import gateway
from gitmem import markdown as md
from gitmem.errors import CheckFailed, GitmemError, Problem, UsageError
from gitmem.journal.markdown import SECTION_TITLES, SECTIONS, parse, section_of
from gitmem.memory.model import slugify
from gitmem.project import Project
from gitmem.scan import Finding, find_hidden, scan_text

MAX_LOG_BYTES = 1024 * 1024
SUFFIX = ".md"
SLUG_MAX = 48
_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-(.+)\.md$")

TEMPLATE = """\
# Session {day}: {title}

<!-- A session log for gitmem. One item per bullet; an item may run over several lines and hold
     code. Never write secrets, tokens, passwords or personal data here: every log is scanned before
     it is stored. `gitmem journal harvest` turns Decisions, Difficulties and Conventions into
     proposed memories that a human accepts; To do items stay in the log. -->

## Decisions
<!-- What was chosen, and why.
     e.g. "- Recall uses SQLite FTS5: it ships with Python and needs no server." -->

## Difficulties
<!-- What went wrong or cost time, and what fixed it:
     the next session should not fall into it again. -->

## Conventions
<!-- How things are done here, learned or agreed this session.
     e.g. "- Run ruff format before committing." -->

## To do
<!-- What is left for the next session. -->
"""


def template(day: date, title: str = "") -> str:
    """The text of a new, empty session log."""
    return TEMPLATE.format(
        day=day.isoformat(), title=title.strip() or "what this session was about"
    )


def redaction(rule: str) -> str:
    return f"‹redacted:{rule}›"


@dataclass
class Stored:
    """What storing a log did."""

    path: Path
    existed: bool = False  # the same text was already in the journal: nothing was written
    redacted: list[tuple[int, str]] = field(
        default_factory=list
    )  # (line, rule) of each secret replaced


_TOO_LARGE = f"too large for a session log (the limit is {MAX_LOG_BYTES // 1024} KiB)"


def check_log(
    text: str, display: str, *, redact: bool = False
) -> tuple[str, list[tuple[int, str]]]:
    """The text to store, and what was redacted; ``CheckFailed`` (naming lines, never secrets)
    when refused."""
    for refused, why in (
        (len(text.encode("utf-8")) > MAX_LOG_BYTES, _TOO_LARGE),
        (not text.strip(), "the log is empty"),
        ("\x00" in text, "binary content (NUL byte); a session log is Markdown text"),
    ):
        if refused:
            raise UsageError(f"{display}: {why}")
    sections = _section_lines(text)
    hidden = find_hidden(text)
    if hidden:
        problems = [
            Problem(display, c.line, c.column, _section_at(sections, c.line), c.describe())
            for c in hidden
        ]
        raise CheckFailed(
            problems, "refused: the log holds hidden Unicode characters; nothing was written"
        )
    findings = scan_text(text, display)
    if not findings:
        return text, []
    if not redact:
        problems = [
            Problem(
                display,
                f.line,
                f.column,
                _section_at(sections, f.line),
                f"{f.describe()}; never log secrets",
            )
            for f in findings
        ]
        noun = "secret" if len(findings) == 1 else "secrets"
        raise CheckFailed(
            problems,
            f"refused: the log holds {len(findings)} possible {noun}; nothing was written "
            "(remove them, or store the log with --redact to replace each with ‹redacted:RULE›)",
        )
    redacted: list[tuple[int, str]] = []
    for _ in range(3):  # a replacement could in theory complete another match: scan until clean
        text, done = _redact(text, findings)
        redacted.extend(done)
        findings = scan_text(text, display)
        if not findings:
            return text, sorted(redacted)
    problems = [
        Problem(display, f.line, f.column, "log", "possible secret left after redaction")
        for f in findings
    ]
    raise CheckFailed(problems, "refused: nothing was written")


def _redact(text: str, findings: list[Finding]) -> tuple[str, list[tuple[int, str]]]:
    parts: list[str] = []
    done: list[tuple[int, str]] = []
    position = 0
    for finding in sorted(findings, key=lambda f: (f.start, -f.end)):
        if finding.start < position:  # overlaps one already replaced
            continue
        parts.append(text[position : finding.start])
        parts.append(redaction(finding.rule))
        done.append((finding.line, finding.rule))
        position = finding.end
    parts.append(text[position:])
    return "".join(parts), done


def _section_lines(text: str) -> list[tuple[int, str]]:
    """(line, title) of each section heading, for naming where a problem is."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        heading = md.heading(line)
        if heading is not None and heading[1].strip():
            section = section_of(heading[1])
            found.append((number, SECTION_TITLES[section] if section else "log"))
    return found


def _section_at(sections: list[tuple[int, str]], line: int) -> str:
    name = "log"
    for start, title in sections:
        if start <= line:
            name = title
    return name


def log_slug(text: str, hint: str = "") -> str:
    """A file-name slug for a log: from ``hint``, else the log's title, else "session"."""
    for candidate in (hint, _title_for_slug(text)):
        slug = slugify(candidate)
        if len(slug) > SLUG_MAX:
            slug = slug[:SLUG_MAX].rsplit("-", 1)[0]
        if slug:
            return slug
    return "session"


def _title_for_slug(text: str) -> str:
    title = parse(text).title or ""
    title = re.sub(r"^\s*(session( log)?)\b\s*", "", title, flags=re.IGNORECASE)
    title = re.sub(r"^\s*\d{4}-\d{2}-\d{2}\s*", "", title)
    return title.lstrip(":-–— ").strip()


def store_log(
    project: Project,
    text: str,
    display: str,
    day: date,
    *,
    slug: str = "",
    redact: bool = False,
) -> Stored:
    """Check ``text`` and store it as a new log in the journal; the same text stored twice is
    kept once."""
    text, redacted = check_log(text, display, redact=redact)
    directory = project.journal_dir
    data = text.encode("utf-8")
    for existing in _log_files(directory):
        with contextlib.suppress(OSError, GitmemError):
            if (
                existing.stat().st_size == len(data)
                and gateway.read_bytes(project, existing, limit=MAX_LOG_BYTES) == data
            ):
                return Stored(existing, existed=True, redacted=redacted)
    base = f"{day.isoformat()}-{log_slug(text, slug)}"
    for number in range(1, 1000):
        path = gateway.require(
            project, directory / (base + (f"-{number}" if number > 1 else "") + SUFFIX)
        )
        try:
            gateway.write(project, path, data, overwrite=False)
        except FileExistsError:  # taken, or by another process this instant: the next number
            continue
        return Stored(path, redacted=redacted)
    raise UsageError(f"too many logs named {base}-N{SUFFIX}: choose another --slug")


def append_to_log(project: Project, text: str, day: date, slug: str = "session") -> Path:
    """Add ``text`` to the end of the day's log ``<day>-<slug>.md`` (created when missing), after
    the checks: of ``text``, then of the whole log it makes."""
    text, _ = check_log(text, "text")
    path = gateway.require(
        project, project.journal_dir / f"{day.isoformat()}-{log_slug('', slug)}{SUFFIX}"
    )
    with _locked(project):
        try:
            before = gateway.read_text(project, path, limit=MAX_LOG_BYTES)
        except FileNotFoundError:
            before = f"# Session {day.isoformat()}\n"
        joined = before.rstrip("\n") + "\n\n" + text.strip("\n") + "\n"
        # What the journal will hold, not only the new part: a key split over two appends is whole
        # in the file.
        check_log(joined, project.display(path))
        gateway.write(project, path, joined)
    return path


@contextlib.contextmanager
def _locked(project: Project) -> Iterator[None]:
    """Serialise appends to the journal between processes (where the platform has file locks)."""
    try:
        import fcntl  # optional: no fcntl on Windows
    except ImportError:  # Windows: appends are rare and atomic writes keep each file whole
        yield
        return
    with gateway.locked_file(project, project.cache_dir / "journal.lock") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@dataclass(frozen=True)
class LogInfo:
    path: Path
    day: date | None
    title: str | None
    counts: dict[str, int]  # items per section

    def to_dict(self, project: Project) -> dict[str, object]:
        return {
            "path": project.display(self.path),
            "date": self.day.isoformat() if self.day else None,
            "title": self.title,
            **{section: self.counts.get(section, 0) for section in SECTIONS},
        }


def list_logs(project: Project) -> list[LogInfo]:
    """Every log in the journal, oldest first."""
    logs = []
    for path in _log_files(project.journal_dir):
        try:  # a committed log that links elsewhere is not read: refused (exit 1)
            text = gateway.read_text(project, path, limit=MAX_LOG_BYTES, errors="replace")
        except OSError:
            continue
        parsed = parse(text)
        counts = {section: parsed.count(section) for section in SECTIONS}
        match = _NAME.match(path.name)
        day = None
        if match:
            with contextlib.suppress(ValueError):
                day = date.fromisoformat(match.group(1))
        logs.append(LogInfo(path, day, parsed.title, counts))
    return logs


def _log_files(directory: Path) -> list[Path]:
    names = sorted(gateway.names_in(directory))
    return [
        directory / n
        for n in names
        if n.endswith(SUFFIX) and not n.startswith(".") and (directory / n).is_file()
    ]
