"""scan.allow cannot allow a secret before it exists (issue 32, point 4).

A pull request could add a v3 entry for a line not yet written; later a live key on that line passed the hook with
no word. Now: ``check`` and ``diff`` flag an added entry that allows nothing in the tree under review; the staged
scan names every finding an entry let through (never its value); and a token in a provider's published format is
allowed by its value as well as its place, so an entry for its place alone allows no other key there. Real
repositories, commits and the hook's own command.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gitmem import yamlio
from gitmem.scan.engine import fingerprint, masked_line, value_bound
from gitmem.scan.rules import RULES
from tests.conftest import Run, git, gitmem_command


def _token(seed: int) -> str:
    return "ghp_" + "".join(
        chr(ord("A") + (i * seed + 7) % 26) for i in range(36)
    )  # built at run time


def _password() -> str:
    return "".join(("Xy7#", "kq2!", "Lm9z", "Q4wR"))  # built at run time


def _set_allow(project: Path, allow: list[str]) -> None:
    path = project / ".memory/config.yaml"
    data = yamlio.load(path.read_text(encoding="utf-8")).data
    path.write_text(yamlio.dump({**data, "scan": {"allow": allow}}), encoding="utf-8")


def _place(text: str, secret: str, path: str, rule: str) -> str:
    """The v3 entry of a place alone, as a pull request can write it for a line before its secret exists."""
    start = text.index(secret)
    return fingerprint(path, rule, masked_line(text, start, start + len(secret)))


def test_an_added_entry_that_allows_nothing_is_flagged_by_check_and_diff(
    project: Path, run: Run
) -> None:
    (project / "deploy.sh").write_text("echo deploying\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    git(project, "checkout", "-qb", "pr")
    secret = _password()
    line = f'API_PASSWORD = "{secret}"\n'
    ahead = _place(
        line, secret, "deploy.sh", "generic-secret"
    )  # for a line the pull request does not write
    _set_allow(project, [ahead])
    git(project, "commit", "-qam", "allow a line not yet written")
    checked = run("check", "--json")
    guard = next(step for step in json.loads(checked.out)["checks"] if step["name"] == "guard")
    assert not guard["ok"] and checked.code == 1
    assert any("allows nothing in this tree" in line for line in guard["details"])
    data = json.loads(run("diff", "main", "HEAD", "--json").out)
    (allow,) = [change for change in data["guard"] if change["setting"] == "scan.allow"]
    assert allow["allows_nothing"] == [ahead]
    assert "allows nothing in this tree" in run("diff", "main", "HEAD").out
    # the same entry with its line written allows something: not flagged
    (project / "deploy.sh").write_text("echo deploying\n" + line)
    git(project, "commit", "-qam", "the line")
    data = json.loads(run("diff", "main", "HEAD", "--json").out)
    (allow,) = [change for change in data["guard"] if change["setting"] == "scan.allow"]
    assert allow["allows_nothing"] == []


def _hook(project: Path) -> subprocess.CompletedProcess[str]:
    """The pre-commit hook's own command, as a process: ``gitmem scan --staged`` takes its path without click."""
    return subprocess.run(
        [*gitmem_command(), "scan", "--staged"], cwd=project, capture_output=True, text=True
    )


def test_the_staged_scan_names_what_an_entry_let_through(project: Path, run: Run) -> None:
    secret = _password()
    text = f'API_PASSWORD = "{secret}"\n'
    (project / "deploy.sh").write_text(text)
    _set_allow(project, [_place(text, secret, "deploy.sh", "generic-secret")])
    git(project, "add", "-A")
    result = run("scan", "--staged")
    hook = _hook(project)
    assert result.code == 0 and hook.returncode == 0, result.out + result.err + hook.stderr
    for err in (result.err, hook.stderr):
        assert "deploy.sh:1:" in err and "allowed by scan.allow" in err
    assert secret not in result.out + result.err + hook.stdout + hook.stderr


def test_a_provider_token_is_not_allowed_by_its_place_alone(project: Path, run: Run) -> None:
    first, later = _token(5), _token(11)
    text = f'GITHUB_TOKEN = "{first}"\n'
    (project / "ci.env").write_text(text)
    git(project, "add", "-A")
    place = _place(text, first, "ci.env", "github-pat")
    _set_allow(project, [place])
    git(project, "add", "-A")
    blocked, hook = run("scan", "--staged"), _hook(project)
    assert (
        blocked.code == 1 and hook.returncode == 1
    )  # the place alone does not allow a GitHub token
    assert "allowed by its value too" in blocked.err and "allowed by its value too" in hook.stderr
    assert first not in blocked.out + blocked.err + hook.stdout + hook.stderr
    # the entry --baseline prints names the value, renewing the place-only one: it allows this token, and no other
    # on the same line
    baseline = run("scan", "ci.env", "--baseline")
    assert (
        f"(renews {place}, which names the place only)" in baseline.out
        and first not in baseline.out
    )
    entries = [
        f["fingerprint"] for f in json.loads(run("scan", "ci.env", "--json").out)["findings"]
    ]
    _set_allow(project, entries)
    git(project, "add", "-A")
    assert run("scan", "--staged").code == 0 and _hook(project).returncode == 0
    (project / "ci.env").write_text(f'GITHUB_TOKEN = "{later}"\n')
    git(project, "add", "-A")
    assert run("scan", "--staged").code == 1 and _hook(project).returncode == 1


def test_every_rule_with_a_provider_format_is_bound_to_its_value() -> None:
    formatless = [rule.id for rule in RULES if not value_bound(rule.id)]
    assert "github-pat" not in formatless and "aws-access-key-id" not in formatless
    assert {"generic-secret", "secret-in-prose", "jwt", "url-credentials"} <= set(formatless)
    assert (
        sum(value_bound(rule.id) for rule in RULES) > 100
    )  # a new rule is bound unless listed as formatless


def test_an_entry_for_a_session_log_s_finding_is_read_as_the_hook_reads_the_log(
    project: Path, run: Run
) -> None:
    """A transcript is scanned as prose (``secret-in-prose`` runs there): its entry allows something."""
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    git(project, "checkout", "-qb", "pr")
    said = f"the database password is {_password()} for staging"
    (project / "chat.jsonl").write_text(
        json.dumps({"sessionId": "s", "message": {"content": said}}) + "\n"
    )
    findings = json.loads(run("scan", "chat.jsonl", "--json").out)["findings"]
    assert [finding["rule"] for finding in findings] == ["secret-in-prose"]
    _set_allow(project, [findings[0]["fingerprint"]])
    git(project, "add", "-A")
    git(project, "commit", "-qm", "a reviewed log")
    guard = json.loads(run("diff", "main", "HEAD", "--json").out)["guard"]
    (allow,) = [change for change in guard if change["setting"] == "scan.allow"]
    assert allow["allows_nothing"] == []
