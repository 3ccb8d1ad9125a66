"""Prompt -> memory pairs for the prompt hook: prompts as a user types them to an agent (tasks, not
questions about memory), each naming the memory that should reach the model, and prompts that should
inject nothing.

The memories are those of tests/recall_set.py (a Python API and a TypeScript web app). The prompts
are this set's own, written as instructions; ``benchmarks/bench_hook_recall.py`` measures how often
the right memory reaches the model with the hooks and without them (only the rules file compiled
under a 200-token budget).
"""

from __future__ import annotations

# (prompt, expected memory id)
PAIRS: list[tuple[str, str]] = [
    ("Install zod as a dependency of the web app", "use-pnpm"),
    ("Bump the Node version in the Dockerfile to the newest release", "node-20"),
    ("Run the API tests and fix whatever fails", "pytest-x"),
    ("Write unit tests for the date picker component in the frontend", "vitest"),
    ("Add a nullable phone column to the users table", "alembic-migrations"),
    ("Fix the typo in the 0042 users migration", "no-migration-edit"),
    ("Use a Postgres 16 feature in the orders query", "postgres-15"),
    ("Store the time an order was shipped", "utc-timestamps"),
    ("Add a discount amount field to invoices", "money-decimal"),
    (
        "The send-receipt celery task sometimes runs twice after a worker restart",
        "celery-idempotent",
    ),
    ("Pass the user model to the welcome email celery task", "celery-no-orm-objects"),
    ("Clear the redis cache on staging", "redis-broker"),
    ("Reformat the python code in api/app", "ruff-format"),
    ("Add an eslint rule that forbids console.log in the web app", "eslint-flat"),
    ("Silence the typescript error in api.ts with an any cast", "strict-ts"),
    ("Fetch the orders list from the server in the Orders react page", "react-query"),
    ("Hide the new checkout flow behind a feature flag until it is ready", "feature-flags"),
    ("Commit these changes with a good commit message", "conventional-commits"),
    ("Merge the pull request for the billing branch", "squash-merge"),
    ("Force push my rebased branch to main", "no-force-push-main"),
    ("Make the API docker image smaller", "docker-multistage"),
    ("Start postgres and redis on my machine for local development", "docker-compose-local"),
    ("Add a setting for the SMTP host to the API config", "env-files"),
    ("Put the Stripe API key for production somewhere safe", "secrets-vault"),
    ("Deploy version 2.3 to production", "deploy-tags"),
    ("CI is green but the build uses a stale cached dependency", "ci-cache"),
    ("The playwright login test is flaky on CI", "flaky-e2e"),
    ("Orders created in one test show up in the next test's database", "test-db-fixture"),
    ("Create ten user rows for the permissions test", "factory-boy"),
    ("Rename a field of the public API without breaking clients", "api-versioning"),
    ("Replace parse_obj calls with the pydantic v2 equivalent", "pydantic-v2"),
    ("Return a 404 error response when the invoice does not exist", "error-format"),
    ("Make access tokens expire after a day", "auth-jwt"),
    ("Safari blocks the login request with a CORS error", "cors"),
    ("The login tests get 429 Too Many Requests", "rate-limit"),
    ("Translate the Save button label to German", "i18n"),
    ("The icon-only close button fails the axe check", "accessibility"),
    ("Let users upload a profile image", "images-cdn"),
    ("Add logging to the payment webhook handler", "logging-json"),
    ("Find out why production exceptions are not showing up in Sentry", "sentry"),
    ("The orders list endpoint issues hundreds of queries per page", "n-plus-one"),
    ("Add pagination to the customers list endpoint", "pagination"),
    ("Add httpx as a dependency of the API", "uv-lock"),
    ("A test fails only on the first day of every month", "timezone-tests"),
    ("The API_URL environment variable is undefined in the browser bundle", "vite-env"),
    ("Create a new Card UI component", "storybook"),
]

# Prompts about nothing the memories cover: the hook should inject nothing for them.
UNRELATED: list[str] = [
    "Explain what this regular expression does",
    "Rename the variable x to count in utils.py",
    "What is the capital of Australia?",
    "Summarise the last three commits",
    "Write a haiku about autumn",
    "Convert this for loop into a list comprehension",
    "Why is the sky blue?",
    "Sort this list of names alphabetically",
    "How many lines does main.py have?",
    "Tell me a joke about programmers",
    "Translate 'good morning' into French",
    "What does the acronym HTTP stand for?",
    "Refactor the parse function into two smaller functions",
    "Add a docstring to the helper in strings.py",
    "thanks, that looks good",
    "continue",
    "yes, go ahead",
    "Explain the difference between a process and a thread",
    "Draw an ASCII art cat",
    "What time zone is Tokyo in?",
    "Compute the factorial of 12",
    "Show me the contents of the README",
    "Describe the architecture of this repository in two sentences",
    "Fix the spelling in the comments of geometry.py",
]
