"""Credentials written into a repository URL (``https://user:token@host/...``): never recorded,
never printed.

A source's URL goes into the committed .memory/config.yaml and into messages; a token in it would be
published with the next commit. Git keeps credentials elsewhere (credential helpers, ssh keys), so
gitmem refuses such a URL and says where they belong, without echoing it. A user name alone
(``ssh://git@host/...``, ``git@host:path``) is fine except over HTTP(S), where the part before ``@``
is usually a token.
"""

from __future__ import annotations

from gitmem.errors import UsageError
from gitmem.linear import linear

# scheme://USER:PASSWORD@..., or http(s)://ANYTHING@... (a token given as the user name). The config
# schema holds the same rule as an ECMA regular expression (keep them in step:
# tests/test_trust_boundary.py checks both).
_WITH_CREDENTIALS = linear(
    r"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#@:]*:[^/?#@]*@|[hH][tT][tT][pP][sS]?://[^/?#@]*@"
)

HELP = (
    "keep credentials out of the URL: git's credential helpers (`git config "
    "--global credential.helper store`, or your platform's helper) or an ssh URL "
    "supply them when gitmem fetches"
)


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries a password or token before its host."""
    return _WITH_CREDENTIALS.match(url.strip()) is not None


def refuse_credentials(url: str, what: str = "the repository URL") -> None:
    """A ``UsageError`` (that does not quote the URL) when ``url`` carries credentials."""
    if has_credentials(url):
        raise UsageError(
            f"refused: {what} holds credentials (user:password@ or a token@), which would be "
            f"written into the committed config; {HELP}"
        )
