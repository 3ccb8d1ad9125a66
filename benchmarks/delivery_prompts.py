"""The held-out prompt set of benchmarks/bench_delivery.py: prompts a user types to an agent, each
naming the one memory that should reach the model, in three classes, and prompts that should bring
in nothing.

How it was written (so the figures can be judged): this file was written and committed BEFORE
benchmarks/delivery_memories.py existed. The prompts for the 46 memories of tests/recall_set.py were
written from their ids and ``paths`` alone (``celery-idempotent``, ``api/tasks/**``), without
reading their titles or bodies (the author had seen the wording of the first nine while reading the
code). The 54 other memories were first listed as the one-line topics below (``TOPICS``), the
prompts were written from those topics, and only afterwards were the memories themselves written
from the same topics, in delivery_memories.py. The benchmark checks each class mechanically against
the memories' real text (as the recall index stems it) and prints how many pairs break their class's
rule, so a "paraphrase" that happens to share a word is reported, not hidden.

Classes:
- ``shared``: the prompt shares words with the memory (written to use the topic's own nouns);
- ``paraphrase``: says the same need in other words (written to avoid the topic's nouns and the id's
  words);
- ``path``: names a file or folder the memory is scoped to (often deep inside it) or an identifier
  the memory is about (a function, a header, an environment variable).
"""

from __future__ import annotations

# The 54 memories beyond tests/recall_set.py, as topics (id, paths, topic). The memories were
# written from these.
TOPICS: list[tuple[str, str, str]] = [
    (
        "billing-tests",
        "services/billing/**",
        "how to run the billing service's test suite (its own make target)",
    ),
    (
        "search-tests",
        "services/search/**",
        "how to run the search service's test suite (needs a local engine)",
    ),
    (
        "notify-tests",
        "services/notify/**",
        "how to run the notification service's tests (uses a fake mail server)",
    ),
    ("billing-config", "services/billing/**", "where the billing service reads its settings from"),
    ("search-config", "services/search/**", "where the search service reads its settings from"),
    (
        "notify-config",
        "services/notify/**",
        "where the notification service reads its settings from",
    ),
    (
        "billing-rounding",
        "services/billing/**",
        "how amounts are rounded in billing (banker's rounding)",
    ),
    (
        "search-reindex",
        "services/search/**",
        "reindexing goes through an alias swap, never in place",
    ),
    ("search-analyzer", "services/search/**", "which text analyzer the search index uses and why"),
    ("notify-templates", "services/notify/**", "email templates are written in MJML and compiled"),
    (
        "notify-sms-fallback",
        "services/notify/**",
        "the SMS provider and its fallback when it is down",
    ),
    (
        "refund-idempotency",
        "services/billing/**",
        "refund requests carry an Idempotency-Key header",
    ),
    ("retry-backoff", "", "use the retry_with_backoff helper instead of hand-written retry loops"),
    ("checkout-v2-flag", "", "the CHECKOUT_V2_ENABLED environment variable gates the new checkout"),
    (
        "order-snapshot",
        "",
        "OrderSnapshot objects are immutable; build a new one instead of changing it",
    ),
    ("tenant-header", "", "every internal request needs the X-Tenant-Id header"),
    ("frozen-clock", "", "tests that depend on the current time use the frozen_clock fixture"),
    ("money-cents", "", "MoneyCents is the integer type for amounts passed between services"),
    ("db-session", "", "get a database session from get_session(), never a module-level global"),
    ("ledger-sync", "", "the nightly_ledger_sync job must never be started by hand"),
    ("cache-key", "", "cache keys are built with cache_key(), which adds a version prefix"),
    (
        "protos",
        "services/*/proto/**",
        "generated protobuf code is regenerated with make protos, not edited",
    ),
    ("soft-delete", "", "users are soft-deleted with deleted_at and every query must filter it"),
    ("kafka-topics", "", "message topics are named domain.entity.event"),
    (
        "graphql-schema",
        "gateway/**",
        "the gateway's schema file is generated; regenerate it after changes",
    ),
    (
        "terraform-state",
        "infra/terraform/**",
        "infrastructure state is locked remotely; never apply from a laptop",
    ),
    ("helm-values", "infra/helm/**", "each environment has its own values file in the chart"),
    ("k8s-limits", "infra/k8s/**", "every container must declare memory and CPU limits"),
    ("mobile-release", "mobile/**", "the phone apps are released with fastlane lanes"),
    ("mobile-deeplinks", "mobile/**", "the app's deep link scheme and how to test it"),
    (
        "design-tokens",
        "web/src/styles/**",
        "colours and spacing come from design tokens, never literal hex values",
    ),
    ("svg-sprite", "web/src/icons/**", "icons are served from one SVG sprite"),
    ("date-fns", "web/**", "dates in the browser are handled with date-fns, moment is banned"),
    ("bundle-budget", "web/**", "CI fails when the main bundle grows past its size budget"),
    (
        "openapi-client",
        "web/src/api/generated/**",
        "the typed API client is generated from the OpenAPI spec",
    ),
    ("small-prs", "", "pull requests stay under about 400 changed lines"),
    ("codeowners", "", "the CODEOWNERS file decides who must approve a change"),
    (
        "changelog-fragments",
        "",
        "changelog entries are fragments in changes/, assembled at release time",
    ),
    ("runbooks", "docs/runbooks/**", "every alert links to a runbook page under docs/runbooks"),
    ("pii-logs", "", "personal data (emails, phone numbers) is never logged; use redact()"),
    (
        "data-export",
        "",
        "user data export requests are handled by the export_user_data job within 30 days",
    ),
    ("encrypted-columns", "", "sensitive columns use the EncryptedString column type"),
    (
        "webhook-signatures",
        "",
        "incoming webhooks are verified with verify_signature before anything else",
    ),
    ("task-time-limits", "api/tasks/**", "every background task declares a time limit"),
    (
        "search-deep-paging",
        "services/search/**",
        "deep result pages use search_after, not from and size",
    ),
    ("unsubscribe-link", "services/notify/**", "every marketing email carries an unsubscribe link"),
    (
        "tax-service",
        "services/billing/**",
        "sales tax comes from the external tax service, never computed locally",
    ),
    (
        "load-tests",
        "loadtest/**",
        "load tests are k6 scripts in loadtest/, run against staging only",
    ),
    ("python-312", "", "the services run on Python 3.12"),
    ("pre-commit-hooks", "", "install the pre-commit hooks after cloning"),
    ("make-dev", "", "make dev starts the whole stack locally"),
    (
        "renovate",
        "",
        "dependency update PRs come from Renovate; major upgrades need a human review",
    ),
    ("raw-sql", "", "no string-built SQL; use bound parameters"),
    (
        "push-batching",
        "services/notify/**",
        "push notifications are sent in batches, not one request each",
    ),
]

# (class, prompt, expected memory id)
PAIRS: list[tuple[str, str, str]] = [
    # -- shared: the prompt uses the memory's own nouns --------------------------------------------
    ("shared", "Add lodash to the web package using pnpm", "use-pnpm"),
    ("shared", "Which Node version should the CI image use?", "node-20"),
    ("shared", "Run pytest on the API and stop at the first failure", "pytest-x"),
    ("shared", "Write a vitest test for the cart reducer", "vitest"),
    ("shared", "Generate an alembic migration for the new orders column", "alembic-migrations"),
    ("shared", "Can I use a postgres 16 feature in this query?", "postgres-15"),
    (
        "shared",
        "Store the refund timestamp; which timezone should timestamps use?",
        "utc-timestamps",
    ),
    ("shared", "The celery task for invoices must be idempotent, make it so", "celery-idempotent"),
    ("shared", "Format the python code with ruff", "ruff-format"),
    ("shared", "Add a feature flag around the new search page", "feature-flags"),
    ("shared", "Write the commit message for this change", "conventional-commits"),
    ("shared", "Should I squash or merge this pull request?", "squash-merge"),
    ("shared", "Set up docker compose for local development", "docker-compose-local"),
    ("shared", "Where do secrets like the payment key go? Put it in the vault?", "secrets-vault"),
    ("shared", "The e2e test for signup is flaky, fix it", "flaky-e2e"),
    ("shared", "Fix the n+1 queries in the orders endpoint", "n-plus-one"),
    ("shared", "Report this exception to Sentry properly", "sentry"),
    ("shared", "Add a storybook story for the new Badge component", "storybook"),
    ("shared", "Run the billing service tests", "billing-tests"),
    ("shared", "Run the search service tests before I merge", "search-tests"),
    ("shared", "Change a setting of the notification service", "notify-config"),
    ("shared", "How does billing round amounts?", "billing-rounding"),
    ("shared", "Reindex the search index with the new mapping", "search-reindex"),
    ("shared", "Edit the welcome email template", "notify-templates"),
    ("shared", "Our SMS provider is down, what is the fallback?", "notify-sms-fallback"),
    ("shared", "Add retry with backoff to the payment client call", "retry-backoff"),
    ("shared", "Add a field to the protobuf definitions and regenerate the code", "protos"),
    ("shared", "Name the Kafka topic for order shipped events", "kafka-topics"),
    ("shared", "Add memory limits to the worker container", "k8s-limits"),
    ("shared", "Use a design token for the button colour instead of a hex value", "design-tokens"),
    ("shared", "Keep this pull request small, how many lines is too many?", "small-prs"),
    ("shared", "Add a changelog entry for the export fix", "changelog-fragments"),
    ("shared", "Write a load test for the checkout endpoint", "load-tests"),
    ("shared", "Should I merge the Renovate PR with the major React upgrade?", "renovate"),
    (
        "shared",
        "Every marketing email needs an unsubscribe link; check the new one",
        "unsubscribe-link",
    ),
    # -- paraphrase: the same need, none of the topic's nouns --------------------------------------
    ("paraphrase", "Bring in a date formatting library for the frontend", "date-fns"),
    (
        "paraphrase",
        "I changed an already-shipped schema change script, is that okay?",
        "no-migration-edit",
    ),
    ("paraphrase", "How should I represent prices so cents never drift?", "money-decimal"),
    (
        "paraphrase",
        "Hand the customer record to the background worker job",
        "celery-no-orm-objects",
    ),
    ("paraphrase", "Wipe the queue server on the shared environment", "redis-broker"),
    (
        "paraphrase",
        "Add a lint check that forbids unused imports in the browser code",
        "eslint-flat",
    ),
    ("paraphrase", "Just cast it to any so the compiler stops complaining", "strict-ts"),
    (
        "paraphrase",
        "Load the list of invoices from the server into the dashboard page",
        "react-query",
    ),
    ("paraphrase", "Overwrite the remote main branch with my local history", "no-force-push-main"),
    ("paraphrase", "Our container image is 2 GB, slim it down", "docker-multistage"),
    ("paraphrase", "Where should a new configuration value for the SMTP host be put?", "env-files"),
    ("paraphrase", "Ship release 4.1 to customers", "deploy-tags"),
    (
        "paraphrase",
        "The pipeline passed but used an outdated package from an earlier run",
        "ci-cache",
    ),
    ("paraphrase", "Records written by one test leak into the next one", "test-db-fixture"),
    ("paraphrase", "I need fifty fake customers for a permissions check", "factory-boy"),
    ("paraphrase", "Rename a response field without breaking existing callers", "api-versioning"),
    ("paraphrase", "What should a not-found reply look like?", "error-format"),
    ("paraphrase", "Sign-in sessions should end after eight hours", "auth-jwt"),
    ("paraphrase", "The browser refuses the call from another origin", "cors"),
    ("paraphrase", "Sign-in checks get throttled with too many requests", "rate-limit"),
    ("paraphrase", "Show the Save button in German too", "i18n"),
    ("paraphrase", "A screen reader cannot tell what the close button does", "accessibility"),
    ("paraphrase", "Let people upload an avatar picture", "images-cdn"),
    (
        "paraphrase",
        "Lock a newly added Python package so everyone gets the same version",
        "uv-lock",
    ),
    ("paraphrase", "A check breaks only on the first of every month", "timezone-tests"),
    (
        "paraphrase",
        "A value from the shell is undefined once the page runs in the browser",
        "vite-env",
    ),
    ("paraphrase", "Wipe the tables of a customer who asked to close their account", "soft-delete"),
    ("paraphrase", "Someone asked for a copy of everything we store about them", "data-export"),
    (
        "paraphrase",
        "We need to keep social security numbers unreadable in the database",
        "encrypted-columns",
    ),
    (
        "paraphrase",
        "Make sure a callback from the payment provider is genuine",
        "webhook-signatures",
    ),
    (
        "paraphrase",
        "A background job hung for six hours and blocked the worker",
        "task-time-limits",
    ),
    ("paraphrase", "Compute VAT for a German customer's invoice", "tax-service"),
    ("paraphrase", "Who has to approve a change to the deployment folder?", "codeowners"),
    ("paraphrase", "A pager alert fired; where are the steps to handle it?", "runbooks"),
    ("paraphrase", "Which interpreter version do we target?", "python-312"),
    # -- path: a file or folder the memory is scoped to, or an identifier it is about --------------
    ("path", "Add a react-hook-form dependency in web/src/forms/package.json", "use-pnpm"),
    ("path", "Fix the failing test in api/tests/routes/test_orders.py", "test-db-fixture"),
    ("path", "Edit api/migrations/versions/0042_add_phone.py to fix a typo", "no-migration-edit"),
    ("path", "Add a new task in api/tasks/reports/monthly.py", "task-time-limits"),
    (
        "path",
        "Change the route handler in api/routes/v1/customers.py to return pages",
        "pagination",
    ),
    ("path", "Speed up .github/workflows/ci.yml", "ci-cache"),
    ("path", "Fix the selector in web/e2e/checkout/payment.spec.ts", "flaky-e2e"),
    ("path", "Create web/src/components/Tooltip/Tooltip.tsx", "storybook"),
    ("path", "The tests in services/billing/tests/test_refunds.py fail, run them", "billing-tests"),
    ("path", "Run the tests of services/search/src/query/parser.py", "search-tests"),
    ("path", "Run the tests for services/notify/src/channels/email.py", "notify-tests"),
    ("path", "Add a setting to services/billing/src/settings.py", "billing-config"),
    ("path", "Change a default in services/search/src/config/defaults.py", "search-config"),
    (
        "path",
        "Change how services/search/src/index/text.py tokenises German words",
        "search-analyzer",
    ),
    ("path", "Page through results in services/search/src/api/results.py", "search-deep-paging"),
    ("path", "Send notifications from services/notify/src/push/sender.py", "push-batching"),
    (
        "path",
        "Handle a duplicate POST in services/billing/src/refunds/handler.py",
        "refund-idempotency",
    ),
    (
        "path",
        "Write the invoice line for services/billing/src/invoices/tax_lines.py",
        "tax-service",
    ),
    ("path", "Edit gateway/schema/orders.graphql to add a field", "graphql-schema"),
    ("path", "Apply the change in infra/terraform/modules/rds/main.tf", "terraform-state"),
    ("path", "Raise the replicas in infra/helm/api/values-prod.yaml", "helm-values"),
    ("path", "Add a deployment at infra/k8s/workers/export.yaml", "k8s-limits"),
    ("path", "Bump the version in mobile/ios/App/Info.plist and publish it", "mobile-release"),
    (
        "path",
        "Open the order screen from a link in mobile/android/app/AndroidManifest.xml",
        "mobile-deeplinks",
    ),
    ("path", "Change the colour in web/src/styles/buttons.css", "design-tokens"),
    ("path", "Add a trash icon to web/src/icons/", "svg-sprite"),
    ("path", "Fix the type of a field in web/src/api/generated/orders.ts", "openapi-client"),
    ("path", "Why does CHECKOUT_V2_ENABLED not turn on the new flow locally?", "checkout-v2-flag"),
    ("path", "Change the status field of an OrderSnapshot after payment", "order-snapshot"),
    ("path", "The call to the inventory service is rejected without X-Tenant-Id", "tenant-header"),
    ("path", "Use frozen_clock in the expiry test", "frozen-clock"),
    ("path", "Convert the MoneyCents value to a display string", "money-cents"),
    ("path", "Call get_session() inside the report generator", "db-session"),
    ("path", "Start nightly_ledger_sync now to fix yesterday's totals", "ledger-sync"),
    ("path", "Mask the email with redact() in the signup log line", "pii-logs"),
]

# Prompts about nothing the memories cover: nothing should be injected for them.
UNRELATED: list[str] = [
    "Explain what a monad is in two sentences",
    "Rename the variable tmp to buffer in the parser",
    "What is the tallest mountain in Africa?",
    "Summarise the diff of the last commit",
    "Write a limerick about a cat",
    "Turn this while loop into a for loop",
    "Why do leaves change colour in autumn?",
    "Reverse the order of the words in this sentence",
    "How many functions are in this file?",
    "Tell me a fun fact about octopuses",
    "Translate 'thank you very much' into Spanish",
    "What does the acronym JSON stand for?",
    "Split this long function into three smaller ones",
    "Add a docstring to the helper below",
    "great, thanks",
    "keep going",
    "ok do it",
    "What is the difference between a list and a tuple?",
    "Draw a box with ASCII characters",
    "What year did the first moon landing happen?",
    "Compute 17 factorial",
    "Show me the first ten lines of the README",
    "Describe this repository's layout in one paragraph",
    "Fix the grammar in this comment",
    "Explain recursion to a beginner",
    "Give this helper a clearer name",
    "What is a closure in JavaScript?",
    "List three prime numbers over a hundred",
    "Is this regular expression greedy?",
    "Make this sentence shorter",
    "What is the Big O of binary search?",
    "Remove the trailing whitespace in this file",
    "Convert 30 degrees Celsius to Fahrenheit",
    "Why is my variable shadowed here?",
    "Write a poem about the sea",
    "undo that",
    "What does this error mean: list index out of range",
    "Sort these numbers in descending order",
    "Explain the visitor pattern",
    "How do I exit vim?",
]
