"""Secret rules as data: a stable id, prefilter keywords, a pattern and examples that tests run.

A rule's pattern marks the secret with the named group ``secret`` (or the whole match when it has none).
Examples are built from parts so this file never holds a string its own scanner would flag.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    description: str
    keywords: tuple[str, ...]
    pattern: str
    entropy: float | None = None
    examples: tuple[str, ...] = ()
    counter_examples: tuple[str, ...] = ()


_A = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"  # 32 mixed characters to build examples from

RULES: tuple[Rule, ...] = (
    Rule(
        id="private-key",
        description="PEM private key block",
        keywords=("private key",),
        pattern=r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>[\s\S]{16,}?)-----END",
        examples=("-----BEGIN RSA " + "PRIVATE KEY-----\n" + _A * 3 + "\n-----END RSA PRIVATE KEY-----",),
        counter_examples=("-----BEGIN PUBLIC KEY-----\n" + _A + "\n-----END PUBLIC KEY-----",),
    ),
    Rule(
        id="aws-access-key-id",
        description="AWS access key id",
        keywords=("akia", "asia", "abia", "acca"),
        pattern=r"\b(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
        examples=("aws_access_key_id = " + "AKIA" + "QWERTYUI2345ZXCV",),
        counter_examples=("AKIA" + "IOSFODNN7" + "EXAMPLE",),
    ),
    Rule(
        id="github-token",
        description="GitHub personal access, OAuth, user-to-server, server-to-server or refresh token",
        keywords=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        pattern=r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,251})\b",
        examples=("token: " + "ghp_" + _A + "ab12",),
        counter_examples=("ghp_" + "x" * 10,),
    ),
    Rule(
        id="github-fine-grained-token",
        description="GitHub fine-grained personal access token",
        keywords=("github_pat_",),
        pattern=r"\b(?P<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b",
        examples=("github_pat_" + _A[:22] + "_" + (_A * 2)[:59],),
    ),
    Rule(
        id="slack-token",
        description="Slack bot, user, app or configuration token",
        keywords=("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe"),
        pattern=r"\b(?P<secret>xox(?:[bparse]|e\.xox[bp])-[0-9A-Za-z-]{10,250})",
        examples=("xoxb-" + "1234567890-1234567890123-" + _A[:24],),
    ),
    Rule(
        id="slack-webhook",
        description="Slack incoming webhook URL",
        keywords=("hooks.slack.com",),
        pattern=r"(?P<secret>https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{40,120})",
        examples=("https://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/" + _A[:24],),
    ),
    Rule(
        id="stripe-live-key",
        description="Stripe live secret or restricted key",
        keywords=("sk_live_", "rk_live_"),
        pattern=r"\b(?P<secret>[sr]k_live_[0-9A-Za-z]{20,247})\b",
        examples=("STRIPE_KEY=" + "sk_live_" + _A[:24],),
        counter_examples=("pk_live_" + _A[:24], "sk_test_" + _A[:24]),
    ),
    Rule(
        id="openai-api-key",
        description="OpenAI API key",
        keywords=("sk-", "t3blbkfj"),
        pattern=(
            r"\b(?P<secret>sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,200}"
            r"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))(?![A-Za-z0-9_-])"
        ),
        examples=("OPENAI_API_KEY=" + "sk-proj-" + _A + _A[:16],),
        counter_examples=("sk-" + "short",),
    ),
    Rule(
        id="anthropic-api-key",
        description="Anthropic API key",
        keywords=("sk-ant-",),
        pattern=r"\b(?P<secret>sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,120})(?![A-Za-z0-9_-])",
        examples=("sk-ant-" + "api03-" + (_A * 3)[:93] + "AA",),
    ),
)
