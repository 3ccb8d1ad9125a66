"""The store of benchmarks/bench_delivery.py: tests/recall_set.py's 46 memories and 54 more, written
from the topics of benchmarks/delivery_prompts.py after the prompts were (see that file for how).

The project grows a few services (billing, search, notify) beside the API and the web app:
near-identical memories of different components (each service's tests and settings) and memories
about one identifier.

``WORDS``: for every memory, the few words a teammate would use when it matters (the memory's
``words`` field), written as an agent writing the memory would: from the memory's own topic,
symptoms and synonyms. They were written after the prompts, by the same author, so the benchmark
prints its figures with and without them, and with words written blind by another session that saw
only the memories (delivery_words_blind.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import recall_set

# (id, kind, title, body, tags, paths)
MORE: list[tuple[str, str, str, str, list[str], list[str]]] = [
    ("billing-tests", "convention", "Run the billing service's tests with make test-billing",
     "It starts the ledger stub first; plain pytest in services/billing fails on the missing stub.",
     ["testing"], ["services/billing/**"]),
    ("search-tests", "convention", "Run the search service's tests with make test-search",
     "It starts a throwaway OpenSearch container; the suite needs it on port 9201.", ["testing"],
     ["services/search/**"]),
    ("notify-tests", "convention", "Run the notify service's tests with make test-notify",
     "It starts MailHog as the fake SMTP server; assertions read the captured mails from its API.",
     ["testing"], ["services/notify/**"]),
    ("billing-config", "fact",
     "The billing service reads its settings from services/billing/settings.toml",
     "Environment variables prefixed BILLING_ override the file; there is no .env in this service.",
     ["config"], ["services/billing/**"]),
    ("search-config", "fact",
     "The search service reads its settings from services/search/config.yaml",
     "Per-environment overrides live in config.<env>.yaml next to it.", ["config"],
     ["services/search/**"]),
    ("notify-config", "fact",
     "The notify service reads its settings from environment variables only",
     "See services/notify/README for the list; NOTIFY_ prefix, no config file.", ["config"],
     ["services/notify/**"]),
    ("billing-rounding", "convention",
     "Billing rounds half to even (banker's rounding) at the last step only",
     "Use decimal.ROUND_HALF_EVEN once, on the invoice total; rounding each line made totals off "
     "by a cent.", ["money"], ["services/billing/**"]),
    ("search-reindex", "convention", "Reindex by building a new index and swapping the alias",
     "Never reindex in place: queries fail while it runs. Build orders_v<N+1>, then move the "
     "orders alias.", ["search"], ["services/search/**"]),
    ("search-analyzer", "decision",
     "The search index uses the ICU analyzer with German decompounding",
     "Most customers search in German; the standard analyzer missed compound words like "
     "Lieferadresse.", ["search"], ["services/search/**"]),
    ("notify-templates", "convention",
     "Email templates are MJML files compiled with pnpm build:mail",
     "Edit the .mjml sources in services/notify/templates, never the compiled HTML.", ["email"],
     ["services/notify/**"]),
    ("notify-sms-fallback", "fact",
     "SMS goes through Twilio, with MessageBird as the automatic fallback",
     "The fallback switches after three failed sends in a minute; both keys are in the vault.",
     ["sms"], ["services/notify/**"]),
    ("refund-idempotency", "pitfall", "Refund requests must carry an Idempotency-Key header",
     "Without it a retried POST refunds twice. The handler rejects requests without the key with "
     "400.", ["payments"], ["services/billing/**"]),
    ("retry-backoff", "convention", "Use retry_with_backoff instead of hand-written retry loops",
     "It lives in api/app/util/retry.py and adds jitter and a deadline:\n\n```python\n"
     "@retry_with_backoff(attempts=5, deadline=30)\ndef call_inventory(): ...\n```",
     ["reliability"], []),
    ("checkout-v2-flag", "fact", "CHECKOUT_V2_ENABLED turns the new checkout flow on",
     "It is read at start-up only; restart the API after changing it. Off by default in every "
     "environment.", ["checkout"], []),
    ("order-snapshot", "pitfall",
     "OrderSnapshot objects are frozen: build a new one with .evolve()",
     "Setting an attribute raises FrozenInstanceError; the audit trail relies on snapshots never "
     "changing.", ["orders"], []),
    ("tenant-header", "convention", "Every service-to-service call sends the X-Tenant-Id header",
     "Services reject requests without it with 403. The shared http client adds it from the "
     "request context.", ["http"], []),
    ("frozen-clock", "convention", "Time-dependent tests use the frozen_clock fixture",
     "Never patch datetime.now by hand:\n\n```python\ndef test_expiry(frozen_clock):\n    "
     "frozen_clock.move_to('2026-03-01')\n```", ["testing", "time"], []),
    ("money-cents", "convention", "Amounts between services are MoneyCents (integer cents)",
     "Never send floats or decimals over the wire; convert with MoneyCents.from_decimal at the "
     "edge.", ["money"], []),
    ("db-session", "pitfall",
     "Get a database session from get_session(), never a module-level global",
     "A global session leaks between requests and holds transactions open. Use `with get_session() "
     "as s:`.", ["database"], []),
    ("ledger-sync", "pitfall", "Never start nightly_ledger_sync by hand",
     "A second run while the nightly one holds its lock double-books entries. Ask #finance-eng to "
     "rerun it.", ["finance"], []),
    ("cache-key", "convention", "Build cache keys with cache_key(), which adds the schema version",
     "Hand-built keys survived a schema change and served stale shapes after a deploy.", ["cache"],
     []),
    ("protos", "convention",
     "Generated protobuf code is regenerated with make protos, never edited",
     "The *_pb2.py files are overwritten on the next generation; change the .proto file instead.",
     ["grpc"], ["services/*/proto/**"]),
    ("soft-delete", "pitfall", "Users are soft-deleted: every query filters deleted_at IS NULL",
     "Deleting rows breaks invoices that reference them; use the active() query helper.",
     ["database"], []),
    ("kafka-topics", "convention", "Kafka topics are named domain.entity.event",
     "For example orders.order.shipped; the consumer groups rely on the prefix.", ["events"], []),
    ("graphql-schema", "convention", "Regenerate gateway/schema.graphql after changing a resolver",
     "Run make gateway-schema; CI fails when the committed schema differs from the generated one.",
     ["graphql"], ["gateway/**"]),
    ("terraform-state", "pitfall", "Never run terraform apply from a laptop",
     "State is locked in S3 with DynamoDB; applies go through the Atlantis comment on the PR.",
     ["infra"], ["infra/terraform/**"]),
    ("helm-values", "convention", "Each environment has its own values-<env>.yaml in the chart",
     "Never change values.yaml for one environment; it is the shared default.", ["infra"],
     ["infra/helm/**"]),
    ("k8s-limits", "convention", "Every container declares memory and CPU requests and limits",
     "The admission controller rejects pods without them.", ["infra"], ["infra/k8s/**"]),
    ("mobile-release", "convention", "Release the phone apps with fastlane (fastlane ios release)",
     "The lanes bump the build number and upload to the stores; do not bump versions by hand.",
     ["mobile"], ["mobile/**"]),
    ("mobile-deeplinks", "fact", "The app's deep links use the acme:// scheme and universal links",
     "Test them with xcrun simctl openurl or adb shell am start -d.", ["mobile"], ["mobile/**"]),
    ("design-tokens", "convention",
     "Colours and spacing come from design tokens, never literal hex values",
     "Use var(--color-primary) and the spacing scale; stylelint rejects hex colours.", ["css"],
     ["web/src/styles/**"]),
    ("svg-sprite", "convention", "Icons go into the SVG sprite, not as separate files",
     "Add the SVG to web/src/icons/sprite/ and run pnpm icons; reference it with <Icon name=...>.",
     ["icons"], ["web/src/icons/**"]),
    ("date-fns", "decision", "The web app uses date-fns; moment is banned",
     "moment added 70 KB to the bundle and is unmaintained.", ["javascript"], ["web/**"]),
    ("bundle-budget", "fact", "CI fails when the main JS bundle exceeds 250 KB gzipped",
     "Check with pnpm size before pushing; lazy-load heavy pages.", ["performance"], ["web/**"]),
    ("openapi-client", "convention",
     "The typed API client in web/src/api/generated is generated, never edited",
     "Regenerate it with pnpm gen:api from the API's openapi.json.", ["api"],
     ["web/src/api/generated/**"]),
    ("small-prs", "preference", "Keep pull requests under about 400 changed lines",
     "Split larger work behind a flag; reviews of big PRs stall for days.", ["review"], []),
    ("codeowners", "fact", "CODEOWNERS decides who must approve a change",
     "The infra and billing folders need a review from their owning team.", ["review"], []),
    ("changelog-fragments", "convention", "Changelog entries are towncrier fragments in changes/",
     "Add changes/<PR>.<type>.md; never edit CHANGELOG.md by hand.", ["release"], []),
    ("runbooks", "convention", "Every alert links to a runbook under docs/runbooks",
     "A new alert without a runbook page fails review.", ["operations"], ["docs/runbooks/**"]),
    ("pii-logs", "pitfall", "Never log personal data such as emails or phone numbers",
     "Wrap them with redact() before they reach a log call; the logs go to a third party.",
     ["privacy"], []),
    ("data-export", "fact", "User data export requests are answered by the export_user_data job",
     "GDPR gives us 30 days; support triggers the job from the admin panel.", ["privacy"], []),
    ("encrypted-columns", "convention", "Sensitive columns use the EncryptedString column type",
     "It encrypts with the KMS key at rest; never store such values as plain String.",
     ["security", "database"], []),
    ("webhook-signatures", "pitfall",
     "Verify incoming webhooks with verify_signature before parsing them",
     "An unverified endpoint accepted forged payment events in a pentest.",
     ["security", "payments"], []),
    ("task-time-limits", "convention", "Every background task declares soft and hard time limits",
     "A task without limits blocked a worker for hours. Set soft_time_limit and time_limit in the "
     "decorator.", ["celery"], ["api/tasks/**"]),
    ("search-deep-paging", "pitfall", "Deep result pages use search_after, not from/size",
     "from/size beyond 10,000 hits is rejected by the engine and slow before that.", ["search"],
     ["services/search/**"]),
    ("unsubscribe-link", "convention", "Every marketing email carries an unsubscribe link",
     "The base MJML layout includes it; do not build marketing mails without that layout.",
     ["email"], ["services/notify/**"]),
    ("tax-service", "decision",
     "Sales tax comes from the external tax service, never computed locally",
     "Rates change too often; call TaxClient.quote and store the returned breakdown.", ["money"],
     ["services/billing/**"]),
    ("load-tests", "convention", "Load tests are k6 scripts in loadtest/, run against staging only",
     "Running them against production paged the on-call engineer.", ["performance"],
     ["loadtest/**"]),
    ("python-312", "fact", "The services run on Python 3.12", "CI and the base images pin 3.12.",
     ["python"], []),
    ("pre-commit-hooks", "convention", "Run pre-commit install after cloning",
     "The hooks run ruff, the secret scan and the schema checks before each commit.", ["tooling"],
     []),
    ("make-dev", "fact", "make dev starts the whole stack locally",
     "It runs docker compose up for the databases and starts every service with reload.",
     ["tooling"], []),
    ("renovate", "convention",
     "Dependency update PRs come from Renovate; major upgrades need a human review",
     "Minor and patch updates are grouped and auto-merged when green.", ["dependencies"], []),
    ("raw-sql", "pitfall", "Never build SQL from strings; use bound parameters",
     "Use text() with :name parameters when the ORM cannot express a query.",
     ["database", "security"], []),
    ("push-batching", "convention", "Push notifications are sent in batches of up to 500",
     "One request per device hit the provider's rate limit; use PushBatcher.", ["push"],
     ["services/notify/**"]),
]  # fmt: skip

# The words a teammate would use when each memory matters (the ``words`` field), by id.
WORDS: dict[str, list[str]] = {
    "use-pnpm": ["install package", "add dependency", "lockfile"],
    "node-20": ["node version", "nodejs upgrade", "runtime version"],
    "pytest-x": ["run tests", "test suite", "slow tests"],
    "vitest": ["frontend tests", "unit test", "jest"],
    "alembic-migrations": ["schema change", "new column", "database migration"],
    "no-migration-edit": ["change old migration", "fix migration", "revision script"],
    "postgres-15": ["database version", "sql feature", "rds"],
    "utc-timestamps": ["time zone", "datetime", "date column"],
    "money-decimal": ["price", "amount", "currency", "float rounding"],
    "celery-idempotent": ["task runs twice", "duplicate job", "background job retry"],
    "celery-no-orm-objects": ["pass model to task", "background job argument", "worker"],
    "redis-broker": ["flush redis", "clear cache", "queue server"],
    "ruff-format": ["format code", "formatter", "black"],
    "eslint-flat": ["lint rule", "linter config", "eslintrc"],
    "strict-ts": ["type error", "any cast", "typescript strict"],
    "react-query": ["fetch data", "load from server", "api call in component"],
    "feature-flags": ["hide feature", "toggle", "gradual rollout"],
    "conventional-commits": ["commit message", "commit format"],
    "squash-merge": ["merge pull request", "merge strategy"],
    "no-force-push-main": ["force push", "rewrite history", "overwrite main"],
    "docker-multistage": ["image size", "smaller image", "dockerfile"],
    "docker-compose-local": ["local databases", "start postgres locally", "dev environment"],
    "env-files": ["new setting", "configuration value", "environment variable"],
    "secrets-vault": ["api key", "password", "credentials", "where to store secret"],
    "deploy-tags": ["release", "ship to production", "deploy version"],
    "ci-cache": ["stale dependency", "pipeline cache", "outdated package"],
    "flaky-e2e": ["flaky test", "intermittent failure", "playwright"],
    "test-db-fixture": ["test isolation", "data leaks between tests", "database in tests"],
    "factory-boy": ["test data", "fake users", "fixtures"],
    "api-versioning": ["breaking change", "rename field", "backwards compatible"],
    "pydantic-v2": ["parse_obj", "model validation", "pydantic migration"],
    "error-format": ["error response", "404", "problem json"],
    "auth-jwt": ["token expiry", "login session", "access token"],
    "cors": ["cross origin", "blocked request", "preflight"],
    "rate-limit": ["429", "too many requests", "throttled"],
    "i18n": ["translation", "german text", "localisation"],
    "accessibility": ["screen reader", "aria label", "a11y"],
    "images-cdn": ["upload image", "avatar", "profile picture"],
    "logging-json": ["add logging", "log format", "structured logs"],
    "sentry": ["error tracking", "exceptions missing", "crash report"],
    "n-plus-one": ["too many queries", "slow endpoint", "eager loading"],
    "pagination": ["page results", "list endpoint", "cursor"],
    "uv-lock": ["add python dependency", "lock file", "pin version"],
    "timezone-tests": ["test fails on first day of month", "date dependent test", "midnight"],
    "vite-env": ["env variable undefined", "browser environment", "import.meta.env"],
    "storybook": ["new component", "ui component", "stories"],
    "billing-tests": ["run billing tests", "ledger stub"],
    "search-tests": ["run search tests", "opensearch container"],
    "notify-tests": ["run notify tests", "fake smtp", "mailhog"],
    "billing-config": ["billing setting", "billing configuration"],
    "search-config": ["search setting", "search configuration"],
    "notify-config": ["notify setting", "notification configuration"],
    "billing-rounding": ["round amount", "cent off", "rounding error"],
    "search-reindex": ["rebuild index", "new mapping", "alias"],
    "search-analyzer": ["tokeniser", "compound words", "german search"],
    "notify-templates": ["email template", "mail layout", "html email"],
    "notify-sms-fallback": ["sms down", "text message", "twilio outage"],
    "refund-idempotency": ["double refund", "duplicate post", "retried request"],
    "retry-backoff": ["retry loop", "transient failure", "backoff"],
    "checkout-v2-flag": ["new checkout", "checkout flag"],
    "order-snapshot": ["change order after payment", "frozen", "immutable order"],
    "tenant-header": ["403 between services", "tenant", "internal call rejected"],
    "frozen-clock": ["mock time", "freeze time", "datetime now in tests"],
    "money-cents": ["amount between services", "cents", "money over the wire"],
    "db-session": ["database session", "transaction left open", "connection"],
    "ledger-sync": ["rerun ledger", "fix totals", "nightly job"],
    "cache-key": ["stale cache", "cache invalidation", "redis key"],
    "protos": ["protobuf", "pb2", "grpc definition"],
    "soft-delete": ["delete user", "remove account", "erase customer"],
    "kafka-topics": ["topic name", "event name", "message queue"],
    "graphql-schema": ["graphql", "resolver change", "schema out of date"],
    "terraform-state": ["terraform apply", "infrastructure change", "state lock"],
    "helm-values": ["replicas", "chart values", "per environment config"],
    "k8s-limits": ["pod rejected", "memory limit", "resources"],
    "mobile-release": ["publish app", "app store", "testflight", "version bump"],
    "mobile-deeplinks": ["deep link", "open screen from link", "universal link"],
    "design-tokens": ["colour", "color", "hex value", "spacing"],
    "svg-sprite": ["icon", "svg", "add icon"],
    "date-fns": ["date library", "moment", "format dates"],
    "bundle-budget": ["bundle size", "javascript too big", "size limit"],
    "openapi-client": ["generated client", "api types", "openapi"],
    "small-prs": ["big pull request", "split pr", "review takes long"],
    "codeowners": ["who approves", "reviewers", "required review"],
    "changelog-fragments": ["changelog", "release notes", "towncrier"],
    "runbooks": ["alert", "on-call", "incident steps", "pager"],
    "pii-logs": ["personal data in logs", "email in log", "gdpr logging"],
    "data-export": ["gdpr request", "copy of my data", "subject access request"],
    "encrypted-columns": ["encrypt", "sensitive data", "ssn", "at rest"],
    "webhook-signatures": ["webhook", "callback", "forged request", "verify"],
    "task-time-limits": ["task hangs", "stuck worker", "timeout"],
    "search-deep-paging": ["page through results", "deep pagination", "10000 hits"],
    "unsubscribe-link": ["marketing email", "opt out", "newsletter"],
    "tax-service": ["vat", "sales tax", "tax rate"],
    "load-tests": ["load test", "k6", "performance test", "stress test"],
    "python-312": ["python version", "interpreter version"],
    "pre-commit-hooks": ["git hooks", "after clone", "setup"],
    "make-dev": ["start everything", "run locally", "dev stack"],
    "renovate": ["dependency update", "major upgrade", "bot pr"],
    "raw-sql": ["sql injection", "string query", "raw query"],
    "push-batching": ["push notification", "send notifications", "rate limit provider"],
}


def memory_files(words: str = "author") -> dict[str, dict[str, Any]]:
    """Every memory of the store as the YAML data of its file, with its ``words``: the author's
    (``"author"``), those written blind (``"blind"``: delivery_words_blind.py) or none (``"none"``).
    """
    out = recall_set.memory_files()
    for memory_id, kind, title, body, tags, paths in MORE:
        data: dict[str, Any] = {
            "id": memory_id,
            "title": title,
            "kind": kind,
            "status": "active",
            "body": body,
            "tags": tags,
            # as recall_set's and the fillers': no head start in the keep order,
            "created": "2026-01-15",
        }
        if paths:
            data["paths"] = paths
        out[memory_id] = data
    if words == "author":
        for memory_id, data in out.items():
            data["words"] = WORDS[memory_id]
    elif words == "blind":
        from delivery_words_blind import BLIND_WORDS

        for memory_id, data in out.items():
            if memory_id in BLIND_WORDS:
                data["words"] = BLIND_WORDS[memory_id]
    return out
