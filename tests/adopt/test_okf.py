"""Open Knowledge Format v0.2 (issue 35): `gitmem export --okf DIR` and `gitmem import --okf DIR`, lossless both
ways for what both formats hold, every imported concept scanned and proposed like any import."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

from gitmem import yamlio
from tests.conftest import Run, git

TOKEN = (
    "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"
)  # built at run time, never stored whole
MEMORIES = {
    "use-pnpm": (
        "id: use-pnpm\ntitle: Use pnpm, never npm\nkind: convention\nstatus: active\npriority: high\n"
        "body: |\n  npm rewrites pnpm-lock.yaml and breaks the workspace.\npaths:\n- web/**\ntargets:\n- claude\n"
        "tags:\n- build\nwords:\n- lockfile churn\ncreated: 2026-11-01\nexpires: 2027-03-01\n"
        "review_after: 2027-01-15\nevidence:\n- path: package.json\n  lines: 2-3\n"
        "  digest: sha256:0123456789abcdef\nsource: human\n"
    ),
    "queue-decision": (
        "id: queue-decision\ntitle: The queue is Redis streams, not Kafka\nkind: decision\nstatus: proposed\n"
        "body: |\n  One broker fewer to run.\ncreated: 2026-10-20\nsource: agent\n"
    ),
    "old-node": (
        "id: old-node\ntitle: Node 18 is the runtime\nkind: fact\nstatus: retired\ncreated: 2026-01-01\n"
        "retired: 2026-06-01\nreason: moved to Node 22\nsource: human\n"
    ),
}


def store(root: Path, run: Run) -> None:
    git(root, "init", "-q", "-b", "main")
    os.chdir(root)
    assert run("init", "--no-hooks").code == 0
    (root / "package.json").write_text('{\n  "name": "x",\n  "private": true\n}\n')


def test_export_import_round_trip_keeps_what_both_formats_hold(tmp_path: Path, run: Run) -> None:
    first = tmp_path / "first"
    first.mkdir()
    store(first, run)
    for memory_id, text in MEMORIES.items():
        (first / ".memory" / "memories" / f"{memory_id}.yaml").write_text(text)
    assert run("validate").code == 0
    exported = run("export", "--okf", "kb", "--json")
    assert exported.code == 0, exported.err
    assert json.loads(exported.out)["written"] == [
        "old-node.md",
        "queue-decision.md",
        "use-pnpm.md",
    ]
    bundle = first / "kb"
    text = (bundle / "use-pnpm.md").read_text()
    front = yamlio.load_plain(text.split("---\n")[1])
    assert front["type"] == "Convention" and front["title"] == "Use pnpm, never npm"
    assert front["status"] == "stable" and front["stale_after"] == "2027-03-01T00:00:00Z"
    assert front["sources"] == [
        {
            "id": "evidence-1",
            "resource": "package.json",
            "lines": "2-3",
            "digest": "sha256:0123456789abcdef",
        }
    ]
    assert front["verified"]["by"].startswith("human:")  # accepted by a person: human-reviewed
    assert front["generated"]["at"] == "2026-11-01T00:00:00Z"
    assert front["gitmem"] == {
        "id": "use-pnpm",
        "priority": "high",
        "paths": ["web/**"],
        "targets": ["claude"],
        "words": ["lockfile churn"],
        "review_after": date(2027, 1, 15),
    }
    assert text.endswith("---\n\nnpm rewrites pnpm-lock.yaml and breaks the workspace.\n")
    statuses = {
        name: yamlio.load_plain((bundle / f"{name}.md").read_text().split("---\n")[1])["status"]
        for name in MEMORIES
    }
    assert statuses == {"use-pnpm": "stable", "queue-decision": "draft", "old-node": "deprecated"}
    assert (bundle / "index.md").read_text().startswith('---\nokf_version: "0.2"\n---\n')

    # Into another repository: proposals (a human accepts them), the deprecated concept not proposed.
    second = tmp_path / "second"
    second.mkdir()
    store(second, run)
    (second / "kb").mkdir()
    for path in bundle.iterdir():
        (second / "kb" / path.name).write_text(path.read_text())
    result = run("import", "--okf", "kb", "--json")
    assert result.code == 0, result.out + result.err
    data = json.loads(result.out)
    assert sorted((m["id"], m["status"]) for m in data["memories"]) == [
        ("queue-decision", "proposed"),
        ("use-pnpm", "proposed"),
    ]
    assert [(s["origin"], s["why"]) for s in data["skipped"]] == [
        ("okf:old-node.md:1", "deprecated")
    ]
    assert run("accept", "use-pnpm").code == 0
    # ... and out again: the same concepts, byte for byte.
    assert run("export", "--okf", "again").code == 0
    for name in ("use-pnpm", "queue-decision"):
        assert (second / "again" / f"{name}.md").read_text() == (
            bundle / f"{name}.md"
        ).read_text(), name
    again = run("import", "--okf", "kb", "--json")
    assert json.loads(again.out)["memories"] == []  # nothing twice
    assert {k["why"] for k in json.loads(again.out)["known"]} == {"duplicate"}


def test_an_imported_concept_is_scanned_and_a_foreign_bundles_fields_map(
    repo: Path, run: Run
) -> None:
    """A concept another tool wrote (no gitmem key, v0.2 trust and lifecycle fields, a list of verifications): mapped;
    one holding a secret or hidden Unicode is refused, its text copied nowhere; index.md and log.md are not
    concepts."""
    assert run("init", "--no-hooks").code == 0
    kb = repo / "kb"
    (kb / "ops").mkdir(parents=True)
    (kb / "ops" / "freshness.md").write_text(
        "---\ntype: Pitfall\ntitle: The orders table lags at night\ntags: [oncall]\nstatus: stable\n"
        "stale_after: 2027-02-01T00:00:00Z\ngenerated: { by: kage/1.4, at: 2026-09-30T10:00:00Z }\n"
        "verified:\n  - { by: human:ana, at: 2026-10-01T09:00:00Z }\n"
        "sources:\n  - { id: dash, resource: https://example.com/dash, title: Dashboard }\n"
        "  - { id: job, resource: /jobs/orders.sql }\nresource: bq://acme.sales.orders\n---\n\n"
        "The nightly batch holds it until 06:00 UTC.\n"
    )
    (kb / "secret.md").write_text(f"---\ntype: Fact\ntitle: Deploy token\n---\n\nUse {TOKEN}.\n")
    (kb / "hidden.md").write_text("---\ntype: Fact\ntitle: Hidden\u200b text\n---\n")
    (kb / "index.md").write_text("# Index\n\n* [x](x.md)\n")
    (kb / "log.md").write_text("# Log\n\n## 2026-10-01\n* **Creation**: x\n")
    (kb / "notes.md").write_text("just notes, no front matter\n")
    result = run("import", "--okf", "kb", "--json")
    assert result.code == 1  # something was refused
    assert TOKEN not in result.out + result.err
    data = json.loads(result.out)
    assert sorted((r["origin"], r["why"]) for r in data["refused"]) == [
        ("okf:hidden.md:3", "hidden-unicode"),
        ("okf:secret.md:6", "secret"),
    ]
    assert [(s["origin"], s["why"]) for s in data["skipped"]] == [
        ("okf:notes.md:1", "not-a-concept")
    ]
    [memory] = data["memories"]
    assert (
        memory["trust"] == "human-reviewed"
    )  # what the bundle says; still a proposal for this team to accept
    stored = yamlio.load_plain((repo / ".memory" / "memories" / f"{memory['id']}.yaml").read_text())
    assert (
        stored["kind"] == "pitfall"
        and stored["status"] == "proposed"
        and stored["source"] == "import"
    )
    assert stored["expires"] == date(2027, 2, 1) and stored["created"] == date(2026, 9, 30)
    assert stored["tags"] == ["oncall"] and stored["origin"] == "okf:ops/freshness.md:1"
    assert stored["evidence"] == [{"path": "jobs/orders.sql"}]  # a URL is no file of the repository
    assert TOKEN not in "".join(p.read_text() for p in (repo / ".memory").rglob("*.yaml"))
