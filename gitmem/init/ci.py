"""`gitmem init --ci github`: the GitHub Actions workflow that holds pull requests to `gitmem
check`, comments what each changes in memory, and heals the default branch after a merge no gitmem
code ran for (the hosting service's merge button runs no merge driver and no hook).

Its logic is gitmem commands (`gitmem check`, `gitmem diff BASE...HEAD --format markdown`, `gitmem
compile --commit`); the YAML around them only installs gitmem, checks out with history, and posts
one comment, found again by its first line and edited in place on each push. The install line is
``gitmem.INSTALL_CI`` (one place for every install line): it reads the repository's ``GITMEM_URL``
variable, or the git URL this gitmem was installed from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gitmem import INSTALL_CI, gateway
from gitmem.errors import UsageError
from gitmem.project import Project

WORKFLOW = ".github/workflows/gitmem.yml"
HEADER = "# Written by `gitmem init --ci github`"
# the first line of the pull request's comment: how the next run finds it
MARKER = "<!-- gitmem:diff -->"
BOT = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
VARIABLE = "${{ vars.GITMEM_URL }}"


def source_url() -> str | None:
    """Where this gitmem came from, when pip recorded a git URL for it (PEP 610), pinned to the
    commit: what ``INSTALL_CI`` installs in CI. ``None`` for an install from a checkout or a wheel.
    """
    raw = gateway.installed_record("gitmem-cli", "direct_url.json")
    try:
        data = json.loads(raw or "null")
    except ValueError:
        return None
    match data:
        case {"url": str(url), "vcs_info": {"vcs": "git"} as vcs} if url.startswith("https://"):
            commit = vcs.get("commit_id")
            return f"{url}@{commit}" if isinstance(commit, str) and commit else url
        case _:
            return None


def workflow_text(branch: str, url: str | None) -> str:
    """The workflow for a repository whose default branch is ``branch``, installing gitmem from
    ``url`` (``None``: the repository variable GITMEM_URL)."""
    if not branch or not set(branch).isdisjoint("\n\"'*?[]{}:#") or branch.startswith(("-", " ")):
        raise UsageError(
            f"the default branch {branch!r} cannot be named in a workflow: rename it or "
            "write it by hand"
        )
    source = (
        json.dumps(url)
        if url
        else f"{VARIABLE} # set the repository variable GITMEM_URL to gitmem's repository"
    )
    install = f"""      - name: Install gitmem
        run: {INSTALL_CI}
        env:
          GITMEM_URL: {source}"""
    setup = f"""      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # gitmem diff and check need the merge base
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
{install}"""
    return f"""{HEADER}: every pull request is held to `gitmem check` and gets one
# comment saying what it changes in memory (added, changed, retired, displaced, guard changes,
# tokens per target), edited in place on each push; after a merge into {branch}, rules files a
# merge left stale are recompiled in a commit of their own. See docs/team.md, "CI".
# Run `gitmem init --ci github` again to update it.
name: gitmem
on:
  pull_request:
  push:
    branches: [{json.dumps(branch)}]
permissions:
  contents: read
concurrency:
  group: gitmem-${{{{ github.ref }}}}
  cancel-in-progress: true
jobs:
  review:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    permissions:
      contents: read
      pull-requests: write
    steps:
{setup}
      - name: What the pull request changes in memory
        run: gitmem diff "origin/$BASE_REF...HEAD" --format markdown > "$RUNNER_TEMP/gitmem-diff.md"
        env:
          BASE_REF: ${{{{ github.base_ref }}}}
      - name: Show it in the run's summary
        run: cat "$RUNNER_TEMP/gitmem-diff.md" >> "$GITHUB_STEP_SUMMARY"
      - name: One comment on the pull request, edited in place on each push
        # a pull request from a fork gets a read-only token: the summary has it all the same
        continue-on-error: true
        env:
          GH_TOKEN: ${{{{ github.token }}}}
          PR: ${{{{ github.event.pull_request.number }}}}
        run: |
          body="$RUNNER_TEMP/gitmem-comment.md"
          {{ echo '{MARKER}'; cat "$RUNNER_TEMP/gitmem-diff.md"; }} > "$body"
          id="$(gh api "repos/$GITHUB_REPOSITORY/issues/$PR/comments" --paginate \\
            --jq '.[] | select(.user.login == "{BOT}" and (.body | startswith("{MARKER}"))) | .id' |
            head -n 1)"
          if [ -n "$id" ]; then
            gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" \\
              -F "body=@$body" > /dev/null
          else
            gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" \\
              -F "body=@$body" > /dev/null
          fi
      - name: gitmem check
        run: gitmem check
  refresh:
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
{setup}
      - name: Recompile the rules files a merge left stale, in a commit of their own
        run: |
          git config user.name "{BOT}"
          git config user.email "{BOT_EMAIL}"
          gitmem compile --commit
          git push origin "HEAD:$GITHUB_REF"
      - name: gitmem check
        run: gitmem check
"""


@dataclass(frozen=True)
class Written:
    action: str  # "created", "updated", "unchanged"
    path: str
    url_known: bool


def write_workflow(project: Project, branch: str) -> Written:
    """Write (or bring up to date) the workflow; a file of that name gitmem did not write is
    refused."""
    url = source_url()
    text = workflow_text(branch, url)
    path = gateway.require(project, project.root / WORKFLOW, WORKFLOW)
    old = gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT) if path.exists() else None
    if old is not None and not old.startswith(HEADER):
        raise UsageError(
            f"{WORKFLOW} exists and gitmem did not write it: move it away, or add gitmem's "
            "steps by hand"
        )
    if old == text:
        return Written("unchanged", WORKFLOW, url is not None)
    gateway.write(project, path, text)
    return Written("created" if old is None else "updated", WORKFLOW, url is not None)
