"""Realistic rules files of every format gitmem imports, written by hand for the tests.

The 150-line AGENTS.md lives in data/AGENTS.sample.md (not named AGENTS.md, so that no tool working on gitmem itself
loads it); the others are here. ``write(root)`` puts them all in a repository.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
AGENTS_MD = (DATA / "AGENTS.sample.md").read_text(encoding="utf-8")

FILES: dict[str, str] = {
    "AGENTS.md": AGENTS_MD,
    "CLAUDE.md": """\
# Claude Code

@AGENTS.md

## Claude-specific

- Use British spelling in user-facing copy.
- Install dependencies with `pnpm install` at the repository root. Never use npm or yarn!
- Run `pnpm typecheck` before saying a task is done.
- When a test fails twice, stop and ask instead of rewriting the test.
""",
    "web/AGENTS.md": """\
# Storefront (web/)

- Server components by default; add `"use client"` only where state or effects need it.
- Images go through `next/image`; never use a bare `<img>` tag.
- Use British spelling in user-facing copy.
""",
    "GEMINI.md": """\
# Gemini CLI

@./AGENTS.md

- Keep generated SQL in `api/sql/`, one query per file.
""",
    ".cursor/rules/react.mdc": """\
---
description: React component conventions
globs: web/**/*.tsx,packages/ui/**/*.tsx
alwaysApply: false
---

# React

- Props types are named `<Component>Props` and exported next to the component.
- No inline styles: use CSS modules.
""",
    ".cursor/rules/general.mdc": """\
---
description:
globs:
alwaysApply: true
---
- Answer in English even when the question is asked in another language.
""",
    ".cursor/rules/database.mdc": """\
---
description: How to change the database schema
globs:
alwaysApply: false
---
Schema changes need a migration in `api/migrations/` and a note in the PR describing the rollout.
""",
    ".cursorrules": """\
You are working on the Acme storefront.

- Never commit `.env.local` or any file holding credentials.
""",
    ".github/copilot-instructions.md": """\
# Copilot instructions

This repository uses pnpm workspaces and Turborepo.

- Write commit messages in the Conventional Commits format.
""",
    ".github/instructions/python.instructions.md": """\
---
applyTo: "api/**/*.py"
---
# Python

- Use `httpx.AsyncClient` for outbound HTTP; `requests` blocks the event loop.
- Raise `HTTPException` only in route handlers, never in services.
""",
    ".claude/rules/testing.md": """\
---
paths:
  - "api/tests/**"
  - "web/**/*.test.ts"
---
# Tests

- Each test builds its own data with the factories in `tests/factories.py`.
""",
    ".windsurf/rules/frontend.md": """\
---
trigger: glob
globs: "web/**"
---
- Tailwind classes are sorted by the Prettier plugin; do not sort them by hand.
""",
    ".windsurfrules": """\
Always answer with the smallest change that fixes the problem.
""",
    ".clinerules/01-infra.md": """\
---
paths:
  - "infra/**"
---
# Infrastructure

- Terraform modules pin provider versions with `~>`.
""",
    ".kiro/steering/api.md": """\
---
inclusion: fileMatch
fileMatchPattern: "api/**/*.py"
---
# API

- Every endpoint declares a `response_model`.
""",
    ".kiro/steering/product.md": """\
---
inclusion: manual
---
# Product

The storefront sells refurbished phones in the UK and Ireland.
""",
    "CONVENTIONS.md": """\
# Conventions

- Prefer small pure functions over classes with state.
""",
}


def write(root: Path, files: dict[str, str] | None = None) -> None:
    for relative, text in (FILES if files is None else files).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
