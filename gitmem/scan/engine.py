"""The scanning engine: a keyword prefilter, then only the rules whose keywords occur, on the lines
where they occur.

``scan_text`` is the one entry point every caller uses (memory validation, ``gitmem scan``, the
journal and MCP code before they write a session log). It decodes JSON escapes, URL-encoding and
base64 by default (``decode``), so a secret in an agent's transcript is found at its place in the
text: ``start``/``end`` are always offsets into the text passed in, ready for ``redact``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache
from itertools import islice
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from gitmem.scan import filters
from gitmem.scan.kinds import CODE, PROSE, Kind
from gitmem.scan.lazyre import lazy
from gitmem.scan.rules import RULES, RULES_BY_ID, Judged, Names, Reach, Reads, Rule

_FINGERPRINT_KEY = (
    b"gitmem-fingerprint-v1"  # the v1 fingerprints' key: it ships here, so it hides nothing
)
FINGERPRINT_PREFIX = (
    "v3:"  # where and what kind: path, rule, the line with the secret masked (see fingerprint)
)
SALTED_PREFIX = "v2:"  # a salted scrypt of the secret: still read, to be renewed
# scrypt's cost for v2 entries: 8 MiB of memory and some 25-50 ms of one core per fingerprint
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**13, 8, 1
MASK = "\u2039secret\u203a"  # what stands for the secret in the line a fingerprint digests
_CONTEXT = 200  # characters of the line on either side of the secret that the fingerprint digests

if TYPE_CHECKING:
    from gitmem.scan.unicode import HiddenChar

HIDDEN_RULE = "hidden-unicode"
_T = TypeVar("_T")
DEFAULT_DECODE_DEPTH = 2

# Inline allow pragmas, the spellings of gitmem, detect-secrets and gitleaks, in any comment syntax
# on the line.
_PRAGMA_RE = lazy(
    r"gitmem:allow(?!-next)|pragma:\s*allowlist[ -]secret|gitleaks:allow", re.IGNORECASE
)
_PRAGMA_NEXT_RE = lazy(
    r"gitmem:allow-next-line|pragma:\s*allowlist[ -]nextline[ -]secret", re.IGNORECASE
)
_PRAGMA_WORDS = ("gitmem:allow", "allowlist", "gitleaks:allow")


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) costs the pre-commit
# hook more than scanning a typical commit. Its repr leaves the digests out, as the dataclass's did.
class Finding(NamedTuple):
    """A secret (or hidden character) found in a text. It never holds the secret: where it is
    and a short preview."""

    rule: str
    line: int  # 1-based
    column: int  # 1-based
    start: int  # offset of the secret in the scanned text
    end: int
    preview: str
    # sha256 of rule and secret: kept in memory only (for old v2 entries), never written nor shown
    digest: str
    legacy: str  # the v1 fingerprint, to honour old scan.allow entries
    path: str = "-"
    context: str = (
        ""  # a digest of the line around the secret, the secret masked (see ``fingerprint``)
    )
    where: str = (
        ""  # the path a fingerprint names: from the repository's root (``path`` is as shown)
    )

    def __repr__(self) -> str:
        return (
            f"Finding(rule={self.rule!r}, line={self.line!r}, column={self.column!r}, "
            f"start={self.start!r}, end={self.end!r}, preview={self.preview!r}, path={self.path!r})"
        )

    def fingerprint(self) -> str:
        """What scan.allow holds to allow this finding: where it is and what kind (see
        ``fingerprint``); for a token in a provider's published format, also which value
        (``value_bound``).
        """
        place = self.place()
        return f"{place}:{self.digest[:16]}" if value_bound(self.rule) else place

    def place(self) -> str:
        """The finding's place alone (``v3:path:rule:line``): what a v3 entry names for a token
        without a format."""
        return FINGERPRINT_PREFIX + f"{self.where or self.path}:{self.rule}:{self.context}"

    def salted(self, salt: str) -> str:
        """The old (v2) fingerprint: a slow salted hash of the secret, to honour old scan.allow
        entries."""
        if self.rule == HIDDEN_RULE:
            return SALTED_PREFIX + self.digest[:32]
        return _slow_fingerprint(self.digest, salt)

    def describe(self) -> str:
        if self.rule == HIDDEN_RULE:
            return f"hidden Unicode character {self.preview}"
        return f"possible secret ({self.rule}): {self.preview}"


# The rules for credentials without a provider's format (a JWT, a URL's or header's credentials, a
# generic assignment, prose): a v3 entry allows their finding by its place. Every other rule reads a
# provider's published format (AKIA…, ghp_…, a private key), whose value is random enough that a
# hash of it tells nothing: its entry names the value too, so an entry written for a line before its
# key exists (or for a revoked example) never lets another, live key through in the same place. A
# new rule is bound to its value unless it is listed here.
PLACE_ONLY = frozenset(
    {
        "jwt",
        "database-url",
        "jdbc-password",
        "url-credentials",
        "url-key-parameter",
        "basic-auth-header",
        "docker-config-auth",
        "bearer-token",
        "curl-basic-auth",
        "curl-token-user",
        "curl-auth-header",
    }
)


def value_bound(rule: str) -> bool:
    """Whether ``rule`` reads a provider's published format, so that scan.allow allows its finding
    by value as well as place (see ``PLACE_ONLY``)."""
    if rule == HIDDEN_RULE or rule in PLACE_ONLY:
        return False

    found = RULES_BY_ID.get(rule)
    return found is not None and found.judged != "generic" and found.reads != "prose"


def entry_place(entry: str) -> tuple[str, str] | None:
    """(path, rule) a v3 scan.allow entry names, or None for another entry."""
    if not entry.startswith(FINGERPRINT_PREFIX):
        return None
    body = entry[len(FINGERPRINT_PREFIX) :]
    parts = body.rsplit(":", 3)
    if len(parts) == 4 and _hex16(parts[2]) and _hex16(parts[3]) and value_bound(parts[1]):
        return parts[0], parts[1]
    parts = body.rsplit(":", 2)
    return (parts[0], parts[1]) if len(parts) == 3 and _hex16(parts[2]) else None


def _hex16(text: str) -> bool:
    return len(text) == 16 and all(c in "0123456789abcdef" for c in text)


def preview(secret: str) -> str:
    """At most a few leading characters of a secret, and its length."""
    shown = min(4, len(secret) // 4)
    head = secret[:shown]
    if (
        not head.isprintable()
    ):  # a line break or control character would split or garble a one-line message
        head = head.encode("unicode_escape").decode("ascii")
    return f"{head}… ({len(secret)} chars)"


def _digest(rule: str, secret: str) -> str:
    import hashlib  # lazy: the pre-commit hook's start-up

    return hashlib.sha256(f"{rule}:{secret}".encode("utf-8", "surrogateescape")).hexdigest()


def fingerprint(path: str, rule: str, line: str) -> str:
    """What lets a team allow a finding without storing the secret, as gitleaks' location
    fingerprints do: ``v3:``, the path from the repository's root, the rule, and 16 hex digits of
    sha256 over the finding's line with the secret replaced by ``MASK`` (stripped, at most 200
    characters either side). It tells where the finding is and of what kind, and nothing about the
    value, so it costs nothing to compute and nothing to publish. It holds no line
    number: lines added above do not renew it; moving the secret to another file or editing its line
    does.
    ``line`` is the masked line (see ``masked_line``)."""
    return FINGERPRINT_PREFIX + f"{path}:{rule}:{_line_digest(line)}"


def masked_line(text: str, start: int, end: int) -> str:
    """The line (or lines) of ``text[start:end]`` with it replaced by ``MASK``, stripped,
    bounded either side."""
    line_start, line_end = _line_around(text, start, end, _CONTEXT)
    return (text[line_start:start] + MASK + text[end:line_end]).strip()


def _line_around(text: str, start: int, end: int, reach: int) -> tuple[int, int]:
    """Where the line of ``text[start:end]`` begins and ends, ``reach`` characters either side at
    most (a line of a megabyte is not read whole for each value on it)."""
    low = max(text.rfind("\n", max(0, start - reach), start) + 1, start - reach)
    high = text.find("\n", end, end + reach)
    return low, (min(len(text), end + reach) if high == -1 else high)


def _line_digest(line: str) -> str:
    import hashlib  # lazy: the pre-commit hook's start-up

    return hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _context(text: str, start: int, end: int) -> str:
    return _line_digest(masked_line(text, start, end))


def salted_fingerprint(rule: str, secret: str, salt: str = "") -> str:
    """The v2 fingerprint: ``v2:`` and 32 hex digits of scrypt over rule and secret, salted with
    ``scan.salt``.

    Derived from the secret: the salt is committed, so anyone with the repository can test guesses
    offline (scrypt only slows each guess to some 50 ms), and it costs each finding as much. Still
    honoured in scan.allow; ``gitmem scan`` asks to renew such entries (``--baseline``)."""
    if rule == HIDDEN_RULE:
        return SALTED_PREFIX + _digest(rule, secret)[:32]
    return _slow_fingerprint(_digest(rule, secret), salt)


@lru_cache(maxsize=4096)
def _slow_fingerprint(digest: str, salt: str) -> str:
    import hashlib  # lazy: the pre-commit hook's start-up

    key = hashlib.scrypt(
        bytes.fromhex(digest),
        salt=f"gitmem-fingerprint-v2:{salt}".encode(),
        n=_SCRYPT_N,
        r=_SCRYPT_R,
        p=_SCRYPT_P,
        dklen=16,
    )
    return SALTED_PREFIX + key.hex()


def legacy_fingerprint(rule: str, secret: str) -> str:
    """The v1 fingerprint: an HMAC under a key that ships in this file, so as fast to test a guess
    against as a plain hash. Still honoured in scan.allow; ``gitmem scan`` asks to renew such
    entries.
    """
    import hashlib  # lazy: the pre-commit hook's start-up
    import hmac  # lazy: the pre-commit, prompt hooks' start-up

    digest = hmac.new(
        _FINGERPRINT_KEY, f"{rule}:{secret}".encode("utf-8", "surrogateescape"), hashlib.sha256
    )
    return digest.hexdigest()[:32]


@cache
def _compiled(rule: Rule) -> re.Pattern[str]:
    return re.compile(rule.pattern, re.MULTILINE)


@cache
def _keyword_index() -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each distinct keyword, and the indexes of the rules it wakes."""
    index: dict[str, list[int]] = {}
    for number, rule in enumerate(RULES):
        for keyword in rule.keywords:
            index.setdefault(keyword, []).append(number)
    return tuple((keyword, tuple(numbers)) for keyword, numbers in index.items())


def _lowered(text: str) -> str:
    """``text`` lower-cased, each character to one: "İ", the one character whose lower case is
    two, is kept as it is, so offsets stay aligned."""
    if "\u0130" not in text:
        return text.lower()
    return "\u0130".join(piece.lower() for piece in text.split("\u0130"))


# What a generic rule's name says: no credential, a credential, a service's key, a password
_NO, _NAMED, _SERVICE, _PASSWORD = (0, 1, 2, 3)


def _secret_span(number: int, match: re.Match[str], judged: _Judged) -> tuple[int, int] | None:
    """The span of the secret a match of rule ``number`` found, or ``None`` when the match is not
    a secret after all (a generic rule's name does not say credential, a URL's password is its
    user's name and a few digits)."""
    rule = RULES[number]
    if rule.judged == "generic":
        if judged.messages:
            return None  # a translation's "password" is the word a form shows (Contrasenya*)
        for name_group, secret_group in _name_groups(rule):
            name = match.group(name_group)
            if name is None:
                continue
            # (the name and the character after it, a call's parenthesis: ``_credential_name``)
            end = match.end(name_group)
            after = match.string[end : end + 1].ljust(1)
            verdict = judged.look(_NAME_JUDGES[rule.names], name + after)
            if verdict == _NO:
                return None  # most candidates, in minified code: ``releaseDate:"2025-12-18"``
            # a string of a file's lines (``".env", "password=topsecret\\nkey=…"``): its first
            value = _LINE_BREAK_RE.split(match.group(secret_group), 1)[0]
            # A key or token holds no stray symbol (a password may); "<provider>Key" (azureKey,
            # apiMaticKey) is a key of some service when its value is unmistakably random
            if (
                filters.spells_its_name(name, value)
                or filters.access_key_id(name, value)
                or judged.test_key(name, value, match.string)
            ):
                return None
            if verdict == _PASSWORD or (
                not judged.look(filters.stray_symbols, value)
                and (verdict == _NAMED or judged.look(filters.random_key, value))
            ):
                return match.start(secret_group), match.start(secret_group) + len(value)
            return None
        return None
    user = match.groupdict().get("user")  # a URL's: its password may be the user's name again
    if user and filters.of_its_user(user, match.group("secret")):
        return None
    return match.span("secret")


_LINE_BREAK_RE = lazy(r"\\[nr]")  # a line break as a string literal writes it
# A private key's name (privateKey, my_private_key, PRIVATE_KEY_HEX, privKey), or a signing key's
# or secret's (signingKey, validSigningSecret, JWT_SECRET, hmacKey): in a test's file, the key a
# test signs with, as a wallet's or a crypto library's tests do by the hundred (wallet-core's
# ``val privateKey = "9066…".toHexBytesInByteString()`` and the address it must give), and a web
# framework's its tokens and webhooks with (slack-go's ``validSigningSecret``). A token or a
# password in a test is still found: a test that calls a live API is given a real one.
# (read in the name's words, joined by _: not designKey)
_SIGNING_KEY_NAME_RE = lazy(r"(?:^|_)(?:priv(?:ate)?|sign(?:ing)?|jwt|hmac)_?(?:key|secret)")
# Raw key material: 32 bytes or more in hex, as a crypto library takes a key or a protocol derives
# a secret. In a test's file that holds VECTORS different ones or more, under a secret's or a key's
# name, a protocol's test vectors (MLS's path and epoch secrets, by the thousand in amethyst's copy
# of the MLS working group's vectors; Lightning's basepoint secrets in lnd's and eclair's BOLT 3
# vectors). One alone is what a test was given, maybe to call a live service with.
_RAW_KEY = r"(?:[0-9a-f]{2}){32,}|(?:[0-9A-F]{2}){32,}"
_RAW_KEY_RE = lazy(_RAW_KEY)
_RAW_KEY_NAME_RE = lazy(r"^(?!(?:\w*_)?api_)\w*(?:^|_)(?:secret|key)$")  # (in words joined by _)
_RAW_KEYS_RE = lazy(rf"(?<![0-9A-Za-z])(?:{_RAW_KEY})(?![0-9A-Za-z])")
VECTORS = 3


def _vectors(text: str) -> bool:
    """Whether ``text`` holds a set of test vectors: VECTORS different raw keys or more."""
    return len({match.group() for match in _RAW_KEYS_RE.finditer(text)}) >= VECTORS


def _credential_name(name: str) -> int:
    """What a name says (``name`` and the character after it: a call's is its parenthesis, whose
    name must give its argument as the credential, not look one up by it: ``getAccessToken(code)``,
    ``filters.given_by_call``)."""
    name, after = name[:-1], name[-1:]
    if after == "(" and not filters.given_by_call(name):
        return _NO
    if filters.secret_name(name):
        return _PASSWORD if filters.password_name(name) else _NAMED
    return _SERVICE if filters.service_key_name(name) else _NO


# How a generic rule's name is judged (rules.Names)
_NAME_JUDGES: dict[Names, Callable[[str], int]] = {
    "credential": _credential_name,
    "logged": lambda name: _NAMED if filters.logged_secret_name(name[:-1]) else _NO,
}


def _checked(rule: Rule, secret: str, judged: _Judged) -> bool:
    """The rule's own last look (in prose, its prose look where it has one)."""
    prose = judged.kind == PROSE and rule.prose_check is not None
    check = rule.prose_check if prose else rule.check
    return check is None or judged.look(filters.CHECKS[check], secret)


def _format(rule: Rule, secret: str, judged: _Judged) -> bool:
    """A provider's format, holding no placeholder, nor words after its prefix where the random
    part goes (``glpat-token_for_different_git_platform``)."""
    return (
        not filters.is_placeholder(secret)
        and not filters.joined_name(secret)
        and _binary_format(rule, secret, judged)
    )


def _binary_format(rule: Rule, secret: str, judged: _Judged) -> bool:
    return (
        (rule.entropy is None or filters.entropy(secret) >= rule.entropy)
        and not filters.is_documented_example(secret)
        and _checked(rule, secret, judged)
    )


def _generic(rule: Rule, secret: str, judged: _Judged) -> bool:
    return (
        (rule.entropy is None or filters.entropy(secret) >= rule.entropy)
        and (judged.kind != CODE or filters.plausible_in_code(secret))
        and _checked(rule, secret, judged)
    )


# How a match is judged (rules.Judged): a private key by its own structure alone
_JUDGES: dict[Judged, Callable[[Rule, str, _Judged], bool]] = {
    "format": _format,
    "binary-format": _binary_format,
    "key": _checked,
    "generic": _generic,
}


class _Judged:
    """What one scan has judged: each rule's verdict on each value it met, and each look at a name
    or a value (a name's verdict, a filter). A name or a value met again anywhere in the text (on
    another line, in a layer decoded from it, by another rule) is judged once. It holds values that
    may be secrets, so it lives no longer than the scan."""

    __slots__ = ("environment", "kind", "looks", "messages", "records", "tests", "values")

    def __init__(
        self,
        kind: Kind,
        messages: bool = False,
        records: bool = False,
        tests: bool = False,
        environment: bool = False,
    ) -> None:
        self.kind = kind
        self.messages = messages  # text shown to people or looked for: a translation, a saved page
        self.records = records  # a file people review: a stored record in it is a fixture's
        self.tests = tests  # a test's file: a key beside its public key is a test vector
        self.environment = environment  # the development environment's or the tests' settings
        self.looks: dict[tuple[Callable[[str], object], str], object] = {}
        self.values: dict[tuple[int, str], bool] = {}

    def test_key(self, name: str, value: str, text: str) -> bool:
        """Whether ``name`` is a private or signing key's in a test's file: the key the test signs
        with (and derives its address from); or any secret's or key's but an API key's, when its
        ``value`` is raw key material of the test vectors ``text`` holds (``_vectors``). A token's
        or a password's is found: a test that calls a live API is given a real one."""
        if not self.tests:
            return False
        words = "_".join(filters.name_parts(name))
        if _SIGNING_KEY_NAME_RE.search(words) is not None:
            return True
        return (
            _RAW_KEY_NAME_RE.search(words) is not None
            and _RAW_KEY_RE.fullmatch(value) is not None
            and self.look(_vectors, text)
        )

    def look(self, look: Callable[[str], _T], text: str) -> _T:
        """``look(text)``, once per scan."""
        key = (look, text)
        if key not in self.looks:
            self.looks[key] = look(text)
        return cast("_T", self.looks[key])

    def value(self, number: int, secret: str) -> bool:
        """Whether rule ``number`` keeps ``secret`` (as its ``judged`` kind says)."""
        key = (number, secret)
        accepted = self.values.get(key)
        if accepted is None:
            rule = RULES[number]
            accepted = self.values[key] = _JUDGES[rule.judged](rule, secret, self)
        return accepted


@cache
def _name_groups(rule: Rule) -> tuple[tuple[str, str], ...]:
    """A generic rule's alternatives: each captures a name (``name``, ``name2``…) and its value
    (``secret``…)."""
    groups = _compiled(rule).groupindex
    return tuple(
        (g, "secret" + g[4:])
        for g in sorted(groups, key=groups.__getitem__)
        if g.startswith("name")
    )


Span = tuple[int, int, int]  # (rule index, start, end)
_Windows = Callable[[list[tuple[int, int]]], list[tuple[int, int]]]


@cache
def _automaton() -> Any:
    """An Aho–Corasick automaton of every keyword (``ahocorasick_rs``, a contiguous NFA: built in a
    sixth of a DFA's time, which a commit's few files never win back; some 70 MB/s on code, a DFA's
    80), or ``None`` where the library is missing."""
    try:
        import ahocorasick_rs  # optional: no wheel on every platform
    except ImportError:  # no wheel for this platform: the keyword loop below does the same, slower
        return None
    keywords = [keyword for keyword, _ in _keyword_index()]
    return ahocorasick_rs.AhoCorasick(
        keywords, implementation=ahocorasick_rs.Implementation.ContiguousNFA
    )


def _keywords_in(lowered: str) -> list[int]:
    """The indexes (into ``_keyword_index()``) of the keywords that occur in ``lowered``: one
    pass over the text."""
    return sorted(_occurrences(lowered))


def _occurrences(lowered: str) -> dict[int, list[int]]:
    """Where each keyword that occurs in ``lowered`` occurs (its index into ``_keyword_index()``:
    its starts, in order, overlapping ones too)."""
    automaton = _automaton()
    matches: list[tuple[int, int, int]] | None = None
    if automaton is not None:
        # a lone surrogate (undecodable bytes, a "\ud83d" escape) has no UTF-8 for the automaton
        try:
            matches = automaton.find_matches_as_indexes(lowered, overlapping=True)
        except UnicodeEncodeError:
            matches = None
    if matches is None:  # str.find does the same, slower
        matches = [
            (number, start, 0)
            for number, (keyword, _) in enumerate(_keyword_index())
            for start in _found(lowered, keyword)
        ]
    occurrences: dict[int, list[int]] = {}
    for number, start, _ in matches:
        occurrences.setdefault(number, []).append(start)
    return occurrences


def _found(text: str, word: str) -> Iterator[int]:
    """Every start of ``word`` in ``text``, in order."""
    start = text.find(word)
    while start != -1:
        yield start
        start = text.find(word, start + 1)


# The kinds of text a rule reads (rules.Reads)
_READS: dict[Reads, tuple[Kind, ...]] = {"any": (PROSE, CODE), "prose": (PROSE,)}


def _every(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return windows


def _scan_raw(text: str, judged: _Judged, touched: _Windows = _every) -> list[Span]:
    """Every match of every rule whose keywords (or trigger) occur, on the lines where they
    occur; in a layer decoded from a text, only where decoding changed something (``touched``:
    elsewhere it reads as the text did, a minified bundle's string of megabytes with a few
    escapes)."""
    spans: list[Span] = []
    for number, windows in sorted(_woken(text).items()):
        rule = RULES[number]
        if judged.kind in _READS[rule.reads]:
            for start, end in _REACH[rule.reach](text, _merge(touched(windows))):
                spans.extend(_candidates(number, text, start, end, judged))
    return spans


def _woken(text: str) -> dict[int, list[tuple[int, int]]]:
    """The rules the text wakes, each with the windows of its keywords' occurrences and its
    trigger's matches (see ``_around``), unmerged."""
    woken: dict[int, list[tuple[int, int]]] = {}
    index = _keyword_index()
    for found, starts in _occurrences(_lowered(text)).items():
        keyword, numbers = index[found]
        windows = _around(text, [(start, start + len(keyword)) for start in starts])
        for number in numbers:
            woken.setdefault(number, []).extend(windows)
    for number, trigger in _triggers():
        windows = _around(text, [match.span() for match in trigger.finditer(text)])
        if windows:
            woken.setdefault(number, []).extend(windows)
    return woken


# What judging candidates may cost in one window, in characters: CANDIDATE_WORK per character of the
# window, and SPARE_WORK for a short line. A rejected candidate costs CANDIDATE_COST (the call, the
# name's and value's filters) and its length. Ordinary text never spends it (one line, a few
# candidates); a line of candidates that overlap (``?token=`` repeated: each starts inside the one
# before, and each is read to its longest value) would cost the longest value at every character.
CANDIDATE_WORK = 4
SPARE_WORK = 2048
CANDIDATE_COST = 64


def _candidates(number: int, text: str, start: int, end: int, judged: _Judged) -> Iterator[Span]:
    """The secrets rule ``number`` finds in ``text[start:end]``, at a cost bounded by the window's
    length.

    A rejected match can hide one that starts inside it: in `url = "https://…&token=…"` the
    assignment's name is not a credential's, the query's is. So the search goes on from the next
    character (every pattern begins at a boundary, a name or a prefix, so it finds no tail of the
    same match), while the window's work lasts; once it is spent, from the end of the rejected
    match, so no character is read by more than one more candidate.
    """
    if _prechecks()[number].search(text, start, end) is None:
        return
    pattern = _compiled(RULES[number])
    budget = CANDIDATE_WORK * (end - start) + SPARE_WORK
    position = start
    while (match := pattern.search(text, position, end)) is not None:
        span = _secret_span(number, match, judged)
        if (
            span is not None
            and span[0] != span[1]
            and judged.value(number, text[span[0] : span[1]])
            and _kept_by_place(number, text, span, judged)
        ):
            yield number, span[0], span[1]
            position = max(match.end(), match.start() + 1)
            continue
        budget -= CANDIDATE_COST + match.end() - match.start()
        position = match.start() + 1 if budget > 0 else max(match.end(), match.start() + 1)


@cache
def _published_format() -> tuple[bool, ...]:
    """Whether each rule, by its index, reads a provider's published format (``value_bound``)."""
    return tuple(value_bound(rule.id) for rule in RULES)


def _kept_by_place(number: int, text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether rule ``number``'s value at ``span`` stays a finding where it is: a provider's
    format is a credential wherever it is written but in its own place (``FORMAT_PLACES``: an
    access key's id a log of calls names); any other value, unless its place clears it."""
    if _published_format()[number]:
        cleared = _format_places()[number]
        return cleared is None or not cleared(text, span)
    return not _cleared_by_place(text, span, judged)


# An access key's id in a log of AWS's API calls (CloudTrail's ``userIdentity``: the caller's
# ``principalId`` and ``arn`` beside the ``accessKeyId`` its call was signed with): every call
# names its key in the clear, as a signed request does (rules' aws-access-key-id), and no log holds
# a secret key. Splunk's and Datadog's detections and log forwarders keep such events by the dozen.
_CALLER_RE = lazy(r"""principalId\\*["']?[ \t]*[:=]""")


def _logged_caller(text: str, span: tuple[int, int]) -> bool:
    """Whether the value at ``span`` is in an object that names a call's caller."""
    members = _own_members(text, *span)
    return members is not None and _CALLER_RE.search(members) is not None


# The one place each provider's format, by its rule's id, is no credential in: its own, where the
# format's value is no secret (a key's id a log names), never where an author says so
FORMAT_PLACES: dict[str, Callable[[str, tuple[int, int]], bool]] = {
    "aws-access-key-id": _logged_caller,
}


@cache
def _format_places() -> tuple[Callable[[str, tuple[int, int]], bool] | None, ...]:
    """Each rule's own place check (``FORMAT_PLACES``), by its index."""
    return tuple(FORMAT_PLACES.get(rule.id) for rule in RULES)


def _cleared_by_place(text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether a value without a provider's format is where no credential is kept: cut short by an
    ellipsis (a document's ``eyJhbGciOi…``, whose value the rule reads up to the dots), where its
    owner publishes it to every reader (in an image's URL, as the search-only key of a search box),
    in a URL only its own machine opens (the loopback's), beside the salt it was hashed with (a
    user's record keeps its password's digest), in a reStructuredText role, in WordPress's markup of
    an embedded post (the nonce it shares with the frame), as PayPal's ids (an order's, a billing
    agreement's), or, in a file people review, in a page's script tag (a web analytics beacon's site
    token), in a test's file as one of a series of made-up values (each the one before, its last
    character counted on) or as a token signed with a key the file holds, or where its author says
    it is no secret: before a comment, or under one in its paragraph, that says to put one's own in
    its place (a template's: ``# change this``), after words on its line that give it as an example
    (``For example '…?key=…'``), in a settings file's development or test section, in a stored
    resource's record (a test's mock), an API description's example or, in a test's file, a test
    vector (a key beside the public key or the signature it yields), a token its issuer answered
    with, beside its expiry, or a credential beside a made-up account's e-mail. In a session log, a
    memory or pasted text those are the writer's word alone (an agent's proposal can put a live key
    under ``development:`` or after "e.g."), and a record there is an API's live answer, its token
    real."""
    start, end = span
    return (
        text.startswith(_ELLIPSES, end)  # cut short: token: eyJhbGciOiJSUzI1NiIs...
        or _published_query(text, start)
        or _search_only_key(text, start, end)
        or _salted_digest(text, start, end)
        or _ROLE_RE.search(text, max(0, start - ROLE_REACH), start) is not None
        or _in_embed(text, start)
        or _paypal_order(text, start, end)
        or (judged.records and _made_to_be_seen(text, span, judged))
    )


def _made_to_be_seen(text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether a value's file, one people review, shows the value as no secret: in a page's script
    tag (a site's analytics token), in a test's file as one of a series of made-up values or as a
    token signed with a key the file holds, or as its author says."""
    return (
        _in_script_tag(text, span[0], judged)
        or (
            judged.tests
            and (_in_series(text, span, judged) or _signed_in_its_file(text, span, judged))
        )
        or _said_by_its_author(text, span, judged)
    )


# A test's made-up values are often a series, each the one before with its last character counted on
# (serverless-offline's ``Bearer fc3e55ea-…-06ae6efe6e5a``, ``…6e5b``, ``…6e5c``): drawn values
# never share all but their last character. (Only in a test's file: a scanner's own test tables
# write such pairs as credentials, ``WANDB_API_KEY = '…b31'`` beside ``'…b32'``.) A text's words of
# SERIES_SHORTEST characters or more are indexed by all but their last character once per scan.
SERIES_SHORTEST = 16
_SERIES_WORD_RE = lazy(rf"[\w-]{{{SERIES_SHORTEST},}}+")


def _series(text: str) -> dict[str, set[str]]:
    """The last characters each word's first ones are written with (``_SERIES_WORD_RE``)."""
    lasts: dict[str, set[str]] = {}
    for word in _SERIES_WORD_RE.finditer(text):
        lasts.setdefault(word[0][:-1], set()).add(word[0][-1])
    return lasts


def _in_series(text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether the value at ``span`` is written again in ``text`` with another last character."""
    value = text[span[0] : span[1]]
    return len(value) >= SERIES_SHORTEST and len(judged.look(_series, text).get(value[:-1], ())) > 1


# A test's token, signed with a key its own file holds (jenkins-for-jira's build events, signed with
# its mock's 'this is a secret'; opensearch-security's, with its settings' signing key): the test
# made it, and anyone who reads the file can make another. The file's string literals are tried as
# the HMAC key, the first SIGNING_KEYS_MOST different ones, read once per scan; a scan tries one
# HMAC for every HMAC_BYTES characters of its text at most, and finds a token it has no HMAC left
# for (a test of many tokens and many strings would cost their product).
SIGNING_KEYS_MOST = 128
HMAC_BYTES = 16
_LITERAL_RE = lazy(r"""(["'`])([^"'`\\\n]{4,256})\1""")


class _SigningKeys:
    """A text's string literals, and how many HMACs its scan may still try with them."""

    __slots__ = ("left", "literals")

    def __init__(self, text: str) -> None:
        found: dict[str, None] = {}
        for literal in _LITERAL_RE.finditer(text):
            found[literal[2]] = None
            if len(found) == SIGNING_KEYS_MOST:
                break
        self.literals = tuple(found)
        self.left = len(text) // HMAC_BYTES


def _signed_in_its_file(text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether the value at ``span`` is a token signed with one of its text's string literals."""
    token = text[span[0] : span[1]]
    algorithm = filters.hmac_algorithm(token)
    if algorithm is None:  # no HMAC of the budget spent on another token
        return False
    keys = judged.look(_SigningKeys, text)
    tried = keys.literals[: keys.left]
    keys.left -= len(tried)
    return filters.signed_with(token, algorithm, tried)


def _said_by_its_author(text: str, span: tuple[int, int], judged: _Judged) -> bool:
    """Whether a value's file, one people review, says the value is no secret: its line's comment
    or words, its section, the record or example it is in (``_cleared_by_place``)."""
    start, end = span
    return (
        filters.said_to_replace(_rest_of_line(text, end))  # a template's: ``… # change this``
        or _said_to_replace_above(text, start, judged)  # ``# Replace with your values`` over it
        or filters.said_to_be_an_example(_line_before(text, start))  # ``For example '…?key=…'``
        or _in_development_section(text, start, judged)
        or _in_record(text, start, end, judged.tests)
        or _in_api_example(text, start, judged)
    )


_ELLIPSES = ("...", "…")
_COMMENT_MOST = 200  # the characters after a value read for its line's comment


def _rest_of_line(text: str, at: int) -> str:
    """What follows ``at`` on its line, ``_COMMENT_MOST`` characters at most."""
    end = text.find("\n", at, at + _COMMENT_MOST)
    return text[at : end if end >= 0 else at + _COMMENT_MOST]


def _line_before(text: str, at: int) -> str:
    """What precedes ``at`` on its line, ``_COMMENT_MOST`` characters at most."""
    reach = max(0, at - _COMMENT_MOST)
    return text[text.rfind("\n", reach, at) + 1 or reach : at]


# WordPress writes an embedded post as ``<blockquote class="wp-embedded-content" data-secret="…">``
# and an iframe of the same class whose URL ends ``#?secret=…``: a nonce of ten letters and digits
# the page shares with the frame, to tell the frame's messages from others'. Every reader's page
# holds it, and every export of the site's posts (a sample database's ``wp_posts``). A value in an
# HTML tag of that class, EMBED_REACH characters back at most, is that nonce.
EMBED_REACH = 1024
_EMBED_CLASS_RE = lazy(r"""class=\\*["']?wp-embedded-content\b""")


def _in_embed(text: str, start: int) -> bool:
    """Whether ``text[start]`` is in an HTML tag of WordPress's embedded posts."""
    return _EMBED_CLASS_RE.search(_open_tag(text, start, max(0, start - EMBED_REACH))) is not None


# A page's script tag is given to every reader's browser, and its attributes with it: a web
# analytics beacon's site token (Cloudflare's ``<script defer src='…/beacon.min.js'
# data-cf-beacon='{"token": "…"}'>``, in every page of a documentation site's theme) is published
# so that each visit is counted. A value in a script's open tag, EMBED_REACH characters back at
# most, is such a one; a value in the script's code, after its tag closes, is not.
_SCRIPT_TAG_RE = lazy(r"<script\s", re.IGNORECASE)


def _script_tags(text: str) -> bool:
    """Whether ``text`` holds a script tag at all (looked for once a scan)."""
    return _SCRIPT_TAG_RE.search(text) is not None


def _in_script_tag(text: str, start: int, judged: _Judged) -> bool:
    """Whether ``text[start]`` is in the attributes of an HTML script tag."""
    return judged.look(_script_tags, text) and (
        _SCRIPT_TAG_RE.match(_open_tag(text, start, max(0, start - EMBED_REACH))) is not None
    )


def _open_tag(text: str, position: int, window: int) -> str:
    """The HTML tag open at ``position``, from its "<" (looked for back to ``window``) up to
    ``position``; empty when none is open there."""
    at = text.rfind("<", window, position)
    tag = text[at:position] if at >= 0 else ""
    return "" if ">" in tag else tag


# PayPal sends its buyer to ``paypal.com/checkoutnow?token=<the order's id>`` (or to another of its
# pages: ``/webapps/billing/subscriptions?ba_token=<a billing agreement's id>``) and back to the
# shop with ``?token=<the order's id>&PayerID=<the buyer's id>``: ids of 17 capitals and digits (an
# express checkout's ``EC-`` or a billing agreement's ``BA-`` before them), in every log and test
# of a shop that takes PayPal. A value of that shape after ``token=`` in a query of a paypal.com
# URL, or with the buyer's id after it in the same query (256 characters at most), is such an id;
# and one with its prefix is, wherever it stands (laravel-paypal's mocks' ``"ec_token": "EC-…"``).
_PAYPAL_ID_RE = lazy(r"(?P<prefix>EC-|BA-)?[0-9A-Z]{17}")
_PAYPAL_PAGE_RE = lazy(r"paypal\.com/[^\s\"'<>?#]{0,128}\?(?:[^\s\"'<>#]{0,256}&)?(?:ba_)?token=\Z")
_PAYPAL_PAGE_REACH = 512
_PAYPAL_RETURN_RE = lazy(r"[?&]token=(?:EC-)?[0-9A-Z]{17}&[^\s\"'#]{0,256}?PayerID=")
_RETURN_LEAD = len("?token=")


def _paypal_order(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a PayPal order's or billing agreement's id: with its prefix,
    or in a URL of PayPal's pages or of its return to the shop."""
    paypal_id = _PAYPAL_ID_RE.fullmatch(text, start, end)
    return paypal_id is not None and (
        paypal_id["prefix"] is not None
        or _PAYPAL_PAGE_RE.search(text, max(0, start - _PAYPAL_PAGE_REACH), start) is not None
        or _PAYPAL_RETURN_RE.match(text, max(0, start - _RETURN_LEAD)) is not None
    )


# A template's comment above its values can say to replace them all (docker-swag's certbot
# credentials: ``# Replace with your values`` over an .ini's example keys). It speaks for the
# value's paragraph: a comment line that says so (``filters.told_to_replace``) before the value's
# line, PARAGRAPH_REACH characters back at most, with no blank line between. A text's such comment
# lines and its blank lines are found once per scan.
PARAGRAPH_REACH = 1024
_COMMENT_LINE_RE = lazy(r"^[ \t]*(?:#|//)[^\n]*", re.MULTILINE)
_BLANK_LINE_RE = lazy(r"\n[ \t]*\r?(?=\n)")


def _replace_comments(text: str) -> tuple[list[int], list[int]]:
    """Where each comment line that says to replace values ends, and where each line before a
    blank line ends (the newline a blank line follows), in order."""
    said = [
        line.end() for line in _COMMENT_LINE_RE.finditer(text) if filters.told_to_replace(line[0])
    ]
    return said, [blank.start() for blank in _BLANK_LINE_RE.finditer(text)] if said else []


def _said_to_replace_above(text: str, start: int, judged: _Judged) -> bool:
    """Whether a comment line of ``text[start]``'s paragraph, before its line, says to replace
    values with one's own."""
    said, blanks = judged.look(_replace_comments, text)
    if not said:
        return False
    line = text.rfind("\n", max(0, start - PARAGRAPH_REACH), start) + 1  # (0: none in reach)
    last = bisect.bisect_right(said, line) - 1
    if not line or last < 0 or line - said[last] > PARAGRAPH_REACH:
        return False
    blank = bisect.bisect_left(blanks, said[last])
    return blank == len(blanks) or blanks[blank] >= line - 1


# A settings file's section for an environment (Rails' config/secrets.yml and database.yml: a
# top-level ``development:`` or ``test:`` and its settings indented under it) holds what the
# framework generated for a developer's machine and for the tests; the production section reads
# its values from the environment, as the generated file says. A text's section heads are found
# once per scan; a value's head is the last before it, SECTION_REACH characters back at most, with
# no other top-level line between.
SECTION_REACH = 4096
_SECTION_HEAD_RE = lazy(r"^(?:development|test):(?:[ \t]+&\w+)?[ \t]*(?:#.*?)?\r?$", re.MULTILINE)
_TOP_LEVEL_RE = lazy(r"\n[^\s#]")  # a line that begins at its first column, no comment


def _section_heads(text: str) -> list[int]:
    """Where each line that opens a development or test section ends, in order."""
    return [head.end() for head in _SECTION_HEAD_RE.finditer(text)]


def _in_development_section(text: str, start: int, judged: _Judged) -> bool:
    """Whether ``text[start]`` is in the development environment's or the tests' settings file
    (``kinds.is_environment_settings``), or on an indented line whose top-level section, the
    nearest line before it that begins at its first column (past blank lines and comments), is
    ``development:`` or ``test:``."""
    if judged.environment:
        return True
    line = text.rfind("\n", max(0, start - SECTION_REACH), start) + 1  # (0: none in reach)
    if not line or not text.startswith((" ", "\t"), line):
        return False
    heads = judged.look(_section_heads, text)
    last = bisect.bisect_right(heads, line) - 1
    return (
        last >= 0
        and line - heads[last] <= SECTION_REACH
        and _TOP_LEVEL_RE.search(text, heads[last], line) is None
    )


# A reStructuredText role (``:token:`~MyTitle```, a reference in sphinx's production lists;
# ``:kbd:``, ``:ref:``) is markup around its text: its name is the role's, not a credential's.
ROLE_REACH = 64
_ROLE_RE = lazy(r":[A-Za-z][\w.+-]*:`\Z")


# An image's URL (a README's badge: codecov.io/…/badge.svg?token=…) is loaded by every reader's
# browser: a credential in its query without a provider's format is published to show the image
# (Codecov's graphing token, Travis CI's status-image token), and so is one in the URL of what a
# page embeds (Embedly's key=… in the frame of every reddit post that shows a video). A URL to the
# loopback (http://localhost:8888/?token=…, a notebook server's, a dev server's) opens a server only
# on the machine that printed it, for as long as it runs: the token in its query is that run's, in a
# document or a recorded trace. The "?" that ends the URL's path is looked for QUERY_REACH
# characters back at most, once per value a rule kept.
QUERY_REACH = 512
# The HTML elements whose src every reader's browser loads
_LOADING_TAGS = ("<img", "<iframe", "<embed", "<video", "<audio", "<source", "<script")
_IMAGE_EXTENSIONS = (".svg", ".png", ".gif", ".jpg", ".jpeg", ".webp")
# ... and the hosts whose every URL is a badge's image, with no extension (a README's reference
# definition, ``[codecov-shield]: https://img.shields.io/codecov/c/gh/…?token=…``)
_IMAGE_HOSTS = ("https://img.shields.io/", "https://badgen.net/", "https://badge.fury.io/")
_URL_ENDS = frozenset(" \t\r\n\"'`<>()[]")
# ... and a field that names an image's URL ("thumbnail_url": "https://i.embed.ly/1/image?…&key=…",
# in every oEmbed answer)
_IMAGE_FIELD_RE = lazy(
    r"(?:thumbnail|image|img|avatar|icon|logo|poster|picture|photo)[_-]?(?:url|uri|src)"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?$",
    re.IGNORECASE,
)
IMAGE_FIELD_REACH = 48
_LOOPBACK_RE = lazy(
    r"(?:https?|wss?)://(?:[^/@?#]*@)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?::\d+)?(?:/|$)"
)
# ... and a meeting's join link, which carries the meeting's passcode to everyone it invites (a
# Zoom meeting's or webinar's ``https://zoom.us/j/<id>?pwd=…``, in a guide's or a workflow's
# invitation to a project's public calls)
_MEETING_LINK_RE = lazy(r"https://(?:[\w-]+\.)?zoom\.us/[jw]/\d+$")


def _published_query(text: str, start: int) -> bool:
    """Whether ``text[start]`` is in the query of a URL (nothing between the "?" and it ends the
    URL) whose owner publishes it, or that only its own machine can open: a path that ends in an
    image's extension, a URL in an image's place or an embed's (an HTML ``src``, a Markdown
    image's link: shields.io's badges have no extension; a field that names an image), a URL to
    the loopback, a badge's host, a meeting's join link."""
    window = max(0, start - QUERY_REACH)
    mark = text.rfind("?", window, start)
    if mark < 0 or not _URL_ENDS.isdisjoint(text[mark:start]):
        return False
    if text[max(window, mark - 5) : mark].lower().endswith(_IMAGE_EXTENSIONS):
        return True
    url = max(text.rfind(end, window, mark) for end in _URL_ENDS) + 1  # where the URL begins
    tag = _open_tag(text, url, window).lower()
    link = text[max(window, text.rfind("![", window, url)) : url]
    return (
        (tag.startswith(_LOADING_TAGS) and tag.endswith(("src=", 'src="', "src='")))
        or (link.startswith("![") and link.endswith("](") and "\n" not in link)
        or (
            text.startswith(("https://", "http://"), url)
            and _IMAGE_FIELD_RE.search(text, max(window, url - IMAGE_FIELD_REACH), url) is not None
        )
        or _LOOPBACK_RE.match(text, url, mark) is not None
        or text.startswith(_IMAGE_HOSTS, url)
        or _MEETING_LINK_RE.match(text, url, mark) is not None
    )


# A documentation site's search box (Algolia DocSearch: ``{appId, apiKey, indexName}``) loads its
# search-only key in every reader's browser, beside the name of the index it searches. An Algolia
# key is 32 hex digits; one named as an admin's or a writer's is a secret wherever it is.
SEARCH_CONFIG_REACH = 256
_ALGOLIA_KEY_RE = lazy(r"[0-9a-f]{32}")
_INDEX_NAME_RE = lazy(r"index[_-]?name", re.IGNORECASE)


def _search_only_key(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is an Algolia key with an index's name within
    SEARCH_CONFIG_REACH characters, not named as an admin's or a writer's key."""
    if _ALGOLIA_KEY_RE.fullmatch(text, start, end) is None:
        return False
    reach = max(0, start - SEARCH_CONFIG_REACH)
    named = text[
        _line_around(text, start, end, SEARCH_CONFIG_REACH)[0] : start
    ].lower()  # its line's
    if "admin" in named or "write" in named:
        return False
    return _INDEX_NAME_RE.search(text, reach, end + SEARCH_CONFIG_REACH) is not None


# A user's record keeps its password's digest beside the salt it was hashed with (openmrs's test
# datasets: ``<users username="admin" password="4a17…" salt="c788…"/>``; the secret answer's digest
# too): the password is not there. A value that is a digest in hex (MD5's, SHA-1's, SHA-256's or
# SHA-512's length, or up to three digits fewer, as a number printed without its leading zeros),
# on a line that names a salt within SALT_REACH characters either side, is such a digest.
SALT_REACH = 512
_HEX_DIGEST_RE = lazy(filters.hex_digest(dropped=3))
_SALT_MEMBER_RE = lazy(r"""(?<![\w-])["']?salt["']?[ \t]*(?:=>?|:)""", re.IGNORECASE)


def _salted_digest(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a digest in hex, with a salt named on its line."""
    if _HEX_DIGEST_RE.fullmatch(text, start, end) is None:
        return False
    return _SALT_MEMBER_RE.search(text, *_line_around(text, start, end, SALT_REACH)) is not None


# A stored resource's record: an object with an ``id`` and a date and time, as an API returns it
# and a test's mock or a fixture keeps it (Shopify's REST examples: ``{"id": 450789469, "token":
# "2a1a…", "cart_token": "6877…", "created_at": "2012-10-12T07:05:27-04:00", …}``). Its tokens and
# keys name the resource (a checkout, a cart, a reservation), as its id does; a credential a record
# holds with a provider's format is found there as anywhere. The object's own members are read, not
# those of the objects it holds, RECORD_REACH characters and RECORD_BRACES braces either side of the
# value at most (GitHub's repository record, in the tests of tools that call its API, has its
# temp_clone_token 5,400 characters and some 20 braces in).
RECORD_REACH = 8192
RECORD_BRACES = 256
_RECORD_ID_RE = lazy(  # "id": 450789469, id: "ord_12", :id => 42
    r"""(?<![\w-])["']?id["']?\s*(?::|=>?)\s*(?:\d+(?![\w.-])|["'][\w-]{1,64}["'])"""
)
_RECORD_TIME_RE = lazy(r"""(?::|=>?)\s*["']\d{4}-\d\d-\d\d[T ]\d\d:\d\d""")
# A test vector: a key with what it must yield, its public key or a signature (wallet-core's
# ed25519_sign.json: {"msg": "c6", "secret": "cd24…", "signature": "9ec0…"}, 500 of them), as an
# object's member (``"public": …``, ``public_key: …``, ``:signature => …``), not a query's
# (``&Signature=…``, in a recorded URL) nor a variable a test's code assigns. No configuration
# keeps a signature beside its key; a node's keys (a WireGuard peer's private and public key, side
# by side in wg-easy's wg0.json) are kept out of a test's files.
_VECTOR_MEMBER_RE = lazy(
    r"""(?<![^\s{,"'])["']?(?:pub(?:lic)?(?:[_-]?key)?|signature|sig)["']?[ \t]*(?::(?!=)|=>)""",
    re.IGNORECASE,
)


def _own_members(text: str, start: int, end: int) -> str | None:
    """The text of the object ``text[start:end]`` is in, without the objects nested in it (their
    members are theirs), RECORD_REACH characters and RECORD_BRACES braces either side at most; or
    ``None`` outside any object."""
    low, high = max(0, start - RECORD_REACH), min(len(text), end + RECORD_REACH)
    back, opened = _cuts(islice(_braces_back(text, low, start), RECORD_BRACES), "}", start)
    if not opened:
        return None
    braces = list(islice(_braces_on(text, end, high), RECORD_BRACES))
    if len(braces) == RECORD_BRACES:  # read no further than the last brace walked
        high = braces[-1][0]
    on, closed = _cuts(braces, "{", end)
    if not closed and len(on) % 2:  # as far as the reach
        on.append(high)
    return "\n".join(
        text[min(a, b) : max(a, b)]
        for cuts in (back, on)
        for a, b in zip(cuts[::2], cuts[1::2], strict=True)
    )


# A token with its lifetime, as its issuer answers a request for one (GitHub's runner registration
# token: ``{"token": "…", "expires_at": …}``; an OAuth token response's ``access_token`` beside its
# ``expires_in``): in a test's file, a mock's answer or a recorded one, whose token has expired long
# since. A refresh token beside it lives on, and is found.
_EXPIRY_MEMBER_RE = lazy(
    r"""(?<![\w-])["']?expires?[_-]?(?:in|at|on)["']?[ \t]*(?::|=>?)""", re.IGNORECASE
)
_REFRESH_MEMBER_RE = lazy(r"""refresh[_-]?token["']?[ \t]*(?::|=>?)[ \t]*["']?$""", re.IGNORECASE)
MEMBER_NAME_REACH = 48
# ... and, in a test's file, a credential beside the made-up account it would be an account's (an
# e-mail at a domain kept for examples and tests, RFC 2606's, or test.com: drupal-cloudflare's
# form tests post ``'apikey' => '68ow…', 'email' => 'test@test.com'``): a live credential is an
# account's that exists.
_MADE_UP_ACCOUNT_RE = lazy(
    r"""["']?e-?mail["']?[ \t]*(?::|=>?)[ \t]*["'][\w.+-]+@(?:[\w-]+\.)*"""
    r"""(?:example\.(?:com|org|net)|test\.com|[\w-]+\.(?:test|example|invalid|localhost))["']""",
    re.IGNORECASE,
)


def _issued(text: str, start: int, members: str) -> bool:
    """Whether the value at ``start`` is a token its issuer answered with, beside its expiry in
    ``members`` (its object's own), and not a refresh token."""
    return (
        _EXPIRY_MEMBER_RE.search(members) is not None
        and _REFRESH_MEMBER_RE.search(text, max(0, start - MEMBER_NAME_REACH), start) is None
    )


def _in_record(text: str, start: int, end: int, tests: bool) -> bool:
    """Whether ``text[start:end]`` is a member's value in an object whose own members (not those of
    the objects in it) make it a fixture: an ``id``, or the value again in a URL's path (the record
    names itself by it: a Shopify checkout's ``token`` in its ``web_url``, …/checkouts/<token>), and
    a date and time (a stored resource's record), or, in a test's file, the public key or the
    signature a key yields (a test vector), the token's expiry (``_issued``) or a made-up
    account's e-mail."""
    members = _own_members(text, start, end)
    if members is None:
        return False
    if tests and (
        _VECTOR_MEMBER_RE.search(members) is not None
        or _issued(text, start, members)
        or _MADE_UP_ACCOUNT_RE.search(members) is not None
    ):
        return True
    named = _RECORD_ID_RE.search(members) is not None or f"/{text[start:end]}" in members
    return named and _RECORD_TIME_RE.search(members) is not None


# An API's description (OpenAPI, Swagger, AsyncAPI) shows its requests and responses under
# ``example``, ``examples`` or ``x-examples``: a made-up cart's token, an OAuth response's access
# token (spree's API reference: 76 places); API Blueprint's (Apiary's Markdown) under its ``+
# Request`` and ``+ Response 200`` items (judge0's reference: a submission's token in every
# response, the auth token of its example request). A value under such a key, in a text that says
# in its first API_DESCRIPTION_HEAD characters that it is such a description, is documentation; a
# credential with a provider's format is found there as anywhere. The example blocks are read from
# each line's indentation (YAML, JSON printed with it, Markdown's list items), in one pass.
API_DESCRIPTION_HEAD = 4096
# (an item of the keyword alone, or with a name and its media type: `+ Request`, `+ Response 201
# (application/json)`, `+ Request Create a note (application/json)`; not a list's prose, "- Request
# a token from the admin:", whose indented lines are no example)
_BLUEPRINT_EXAMPLE = (
    r"""(?:Request|Response[ \t]+\d{3})"""
    r"""(?:[ \t][^\n()]{0,80}+\([\w-]+/[\w.+-]+[^()\n]{0,40}+\))?[ \t]*\r?$"""
)
_API_DESCRIPTION_RE = lazy(
    r"""^[ \t]{0,4}["']?(?:openapi|swagger|asyncapi)["']?[ \t]*:[ \t]*["']?\d|^FORMAT:[ \t]*1A\b"""
    rf"""|^[ \t]*[+*-][ \t]+{_BLUEPRINT_EXAMPLE}""",
    re.MULTILINE,
)
_EXAMPLES_KEY_RE = lazy(rf"""["']?(?:x-)?examples?["']?[ \t]*:|{_BLUEPRINT_EXAMPLE}""")


def _in_api_example(text: str, start: int, judged: _Judged) -> bool:
    """Whether ``text[start]`` is in an example block of an API's description."""
    return bisect.bisect_right(judged.look(_example_blocks, text), start) % 2 == 1


def _example_blocks(text: str) -> list[int]:
    """Where the example blocks of an API's description begin and end (flat: start, end, start…),
    or nothing for another text. A line is in one when it is an examples key or any key above it
    (each line less indented, a list item's dash, plus or star counted as indentation) is."""
    if _API_DESCRIPTION_RE.search(text, 0, API_DESCRIPTION_HEAD) is None:
        return []
    blocks: list[int] = []
    above = [(-1, False)]  # each open key's indentation, and whether it is in a block
    position = 0
    for line in text.split("\n"):
        body = line.lstrip(" \t-+*")
        if body[:1] not in ("", "#"):
            indent = len(line) - len(body)
            while above[-1][0] >= indent:
                above.pop()
            inside = above[-1][1] or _EXAMPLES_KEY_RE.match(body) is not None
            above.append((indent, inside))
            if inside:
                blocks += (position, position + len(line))
        position += len(line) + 1
    return blocks


def _cuts(braces: Iterable[tuple[int, str]], inward: str, edge: int) -> tuple[list[int], bool]:
    """Where an object's own text stops and starts again, walking ``braces`` away from ``edge``:
    at each object nested in it (``inward`` is the brace that begins one on this walk), and at the
    object's own brace; and whether that brace was met."""
    cuts, depth = [edge], 0
    for position, brace in braces:
        depth += 1 if brace == inward else -1
        if depth < 0:
            cuts.append(position)
            return cuts, True
        if (depth == 1 and brace == inward) or (depth == 0 and brace != inward):
            cuts.append(position)
    return cuts, False


def _braces_on(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Each brace of ``text[start:end]`` and where it is, in order: each character read once."""
    opening, closing = text.find("{", start, end), text.find("}", start, end)
    while opening >= 0 or closing >= 0:
        if closing < 0 or 0 <= opening < closing:
            yield opening, "{"
            opening = text.find("{", opening + 1, end)
        else:
            yield closing, "}"
            closing = text.find("}", closing + 1, end)


def _braces_back(text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Each brace of ``text[start:end]`` and where it is, from the last: each character read
    once."""
    opening, closing = text.rfind("{", start, end), text.rfind("}", start, end)
    while opening >= 0 or closing >= 0:
        if opening > closing:
            yield opening, "{"
            opening = text.rfind("{", start, opening)
        else:
            yield closing, "}"
            closing = text.rfind("}", start, closing)


# A line longer than this is scanned only around its keywords, WINDOW characters either side of
# each: a minified bundle or a recorded HTTP cassette (one line of a megabyte) costs time in
# proportion to its keywords, and no secret is lost, because every pattern matches within a few
# hundred characters of its keyword.
LONG_LINE = 4096
WINDOW = 1024


def _around(text: str, hits: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The lines (start, end) holding ``hits`` (spans, in order), each once; on a long line, only
    WINDOW characters either side of each hit that does not overlap the one before."""
    found: list[tuple[int, int]] = []
    line_start = line_end = taken = -1
    for start, end in hits:
        if start < taken:
            continue
        taken = end
        if start >= line_end:  # a new line: find its bounds once, however many hits it holds
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
            line_end = len(text) if line_end == -1 else line_end
        if line_end - line_start > LONG_LINE:
            found.append((max(line_start, start - WINDOW), min(line_end, end + WINDOW)))
        elif not found or found[-1] != (line_start, line_end):
            found.append((line_start, line_end))
    return found


# A shell command goes on over the lines a backslash ends (curl … \ -H "Authorization: …"): a
# continued rule's window runs on over at most this many of them, each no longer than LONG_LINE.
CONTINUED_LINES = 20


def _run_on(
    text: str,
    windows: list[tuple[int, int]],
    most: int,
    goes_on: Callable[[str, int, int], bool],
) -> list[tuple[int, int]]:
    """``windows``, each run on over the next line while ``goes_on(text, start, end)`` says the
    line ending at ``end`` goes on there: ``most`` lines at most, each no longer than LONG_LINE."""
    out: list[tuple[int, int]] = []
    for start, end in windows:  # in order, apart (from _around or _merge)
        if out and end <= out[-1][1]:
            continue  # a line the window before runs on over: each line is looked at once
        if out and start <= out[-1][1]:
            start = out.pop()[0]
        for _ in range(most):
            if text[end : end + 1] != "\n" or not goes_on(text, start, end):
                break  # the end of the text, a window inside a long line, or a line that ends
            following = text.find("\n", end + 1)
            following = len(text) if following == -1 else following
            if following - end > LONG_LINE:
                break
            end = following
        out.append((start, end))
    return out


def _continued(text: str, windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``windows``, each run on over the lines that a backslash at the end of the line before
    continues."""
    return _run_on(
        text,
        windows,
        CONTINUED_LINES,
        lambda text, start, end: text[max(start, end - 2) : end].rstrip("\r").endswith("\\"),
    )


# A name and its value a formatter put on two lines: a line that ends in an operator or an opening
# bracket (``KEY =``, black's ``KEY = (``, ``process.env.KEY ||``, ``std::string key{``), or that
# the next line goes on with one (Java's ``KEY\n    = "…"``), runs on over the next line, twice at
# most.
_RUNS_ON = ("=", "(", "{", "||", "??", "?:", " or")
_GOES_ON_RE = lazy(r"[ \t]*(?:=|\|\||\?\?|\?:|or\b)")
WRAPPED_LINES = 2


def _wrapped(text: str, windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``windows`` (whole lines, or WINDOW characters of a long one), each run on over the lines a
    wrapped assignment goes on to."""
    return _run_on(
        text,
        windows,
        WRAPPED_LINES,
        lambda text, start, end: (
            text[max(start, end - 4) : end].rstrip().endswith(_RUNS_ON)
            or _GOES_ON_RE.match(text, end + 1) is not None
        ),
    )


# Where a rule looks (rules.Reach), from the merged windows of its keywords and trigger
_REACH: dict[Reach, Callable[[str, list[tuple[int, int]]], list[tuple[int, int]]]] = {
    "line": _wrapped,
    "text": lambda text, windows: [(0, len(text))] if windows else [],
    "continued": _continued,
}


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


@cache
def _triggers() -> tuple[tuple[int, re.Pattern[str]], ...]:
    """The rules a regex wakes (``Rule.trigger``), where no keyword can: each rule's index and
    its trigger."""
    return tuple(
        (n, re.compile(rule.trigger)) for n, rule in enumerate(RULES) if rule.trigger is not None
    )


@cache
def _prechecks() -> tuple[re.Pattern[str], ...]:
    """Each rule's ``Rule.precheck``, by the rule's index."""
    return tuple(re.compile(rule.precheck, re.MULTILINE) for rule in RULES)


def _scan_layered(text: str, depth: int, judged: _Judged, touched: _Windows = _every) -> list[Span]:
    spans = _scan_raw(text, judged, touched)
    if depth > 0:
        from gitmem.scan.decode import layers  # lazy: the pre-commit hook's start-up

        for inner in layers(text):
            for number, start, end in _scan_layered(inner.text, depth - 1, judged, inner.touched):
                outer = inner.outer(start, end)
                # a place clears a value in the text it was decoded from too: a URL-encoded run is
                # decoded without the <img src=" before it
                if outer[1] > outer[0] and _kept_by_place(number, text, outer, judged):
                    spans.append((number, *outer))
    return spans


def _resolve(spans: Iterable[Span]) -> list[Span]:
    """One finding per secret: where spans overlap, the most specific rule (the earliest in
    RULES) wins."""
    starts: list[int] = []  # the kept spans, sorted by start; they never overlap
    kept: list[Span] = []
    for span in sorted(set(spans), key=lambda s: (s[0], s[1], -s[2])):
        at = bisect.bisect_left(starts, span[1])
        if (at > 0 and kept[at - 1][2] > span[1]) or (at < len(kept) and kept[at][1] < span[2]):
            continue
        starts.insert(at, span[1])
        kept.insert(at, span)
    return sorted(kept, key=lambda s: (s[1], s[0]))


class _Lines:
    """Line numbers, columns and line text for offsets of one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        position = text.find("\n")
        while position != -1:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1

    def line(self, number: int) -> str:
        """Line ``number`` (from 1, as ``position`` numbers them: every caller's line is one)."""
        start = self.starts[number - 1]
        end = self.text.find("\n", start)
        return self.text[start : end if end != -1 else len(self.text)]


def _allowed_inline(lines: _Lines, line: int) -> bool:
    here = lines.line(line)
    if _PRAGMA_RE.search(here):
        return True
    return line > 1 and _PRAGMA_NEXT_RE.search(lines.line(line - 1)) is not None


def scan_text(
    text: str,
    path: str = "-",
    *,
    decode: int = DEFAULT_DECODE_DEPTH,
    hidden: bool = False,
    pragmas: bool = False,
    kind: Kind = PROSE,
    locale: bool = False,
    messages: bool = False,
    records: bool = False,
    tests: bool = False,
    environment: bool = False,
) -> list[Finding]:
    """Every secret in ``text``, in order of position.

    ``decode`` is how many layers of encoding (JSON escapes, URL-encoding, base64) to look through;
    0 scans the text as it is. With ``hidden``, hidden Unicode characters are findings too (rule
    ``hidden-unicode``). With ``pragmas``, lines carrying an allow pragma (``gitmem:allow``,
    ``pragma: allowlist secret``, ``gitleaks:allow``) are skipped, and so is the line after
    ``gitmem:allow-next-line``: for files people review, never for text an agent wrote (a memory, a
    session log), which could carry a pragma to smuggle a secret.
    ``kind`` is what the text is (``gitmem.scan.kinds``): ``prose`` (a memory, a journal, a session
    log: the default) runs every rule; ``code`` (a source or config file) skips the prose rules and
    holds a generic assignment's value to the stricter look of a generated secret. ``locale``: the
    text is a translation file (``gitmem.scan.kinds.is_locale``), where the directional marks inside
    strings are ordinary text. ``messages``: the text is shown to people, data and not code (a
    translation's strings, ``gitmem.scan.kinds.is_messages``; a web page a test saved as the site
    gave it, ``is_saved_page``; a detection rule's strings, what it looks for,
    ``is_detection_rules``), where a name and its value are no credential: only the rules with
    a provider's format run. ``records``: the text is a file people review, where a stored
    resource's record (an ``id`` and a date and time) is a fixture, and its tokens name the
    resource. ``tests``: the text is a test's file (``gitmem.scan.kinds.in_tests``), where a key in
    an object beside the public key or the signature it yields is a test vector, and a value named
    as a private key is the key the test signs with. ``environment``: the text is the development
    environment's or the tests' settings file (``gitmem.scan.kinds.is_environment_settings``), all
    of it what a ``development:`` section is in a file people review.
    """
    spans = _resolve(
        _scan_layered(text, decode, _Judged(kind, messages, records, tests, environment))
    )
    hidden_chars = _find_hidden(text, locale, kind) if hidden else []
    if not spans and not hidden_chars:
        return []
    lines = _Lines(text)
    lowered = text.lower() if pragmas else ""
    has_pragmas = any(word in lowered for word in _PRAGMA_WORDS)
    findings: list[Finding] = []
    # (rule, secret) -> preview and digests: a secret repeated is described once
    described: dict[tuple[str, str], tuple[str, str, str]] = {}
    for number, start, end in spans:
        line, column = lines.position(start)
        if has_pragmas and _allowed_inline(lines, line):
            continue
        key = (RULES[number].id, text[start:end])
        known = described.get(key)
        if known is None:
            known = described[key] = (preview(key[1]), _digest(*key), legacy_fingerprint(*key))
        context = _context(text, start, end)
        findings.append(Finding(key[0], line, column, start, end, *known, path, context))
    findings.extend(_hidden_findings(hidden_chars, lines, path))
    findings.sort(key=lambda f: (f.start, f.rule))  # (the secrets' spans never share a start)
    return findings


def _find_hidden(text: str, locale: bool, kind: Kind) -> list[HiddenChar]:
    from gitmem.scan.unicode import find_hidden  # lazy: the pre-commit hook's start-up

    return find_hidden(text, marks=locale, file=True, colours=kind == CODE)


def _hidden_findings(hidden: list[HiddenChar], lines: _Lines, path: str) -> list[Finding]:
    """One finding for each run of hidden characters side by side (an e-mail's preheader pads
    with hundreds): where it starts, its first character and how many follow. A character alone
    keeps the preview, digest and fingerprints it always had."""
    found = []
    described: dict[str, tuple[str, str]] = {}  # codes -> digests: a few distinct runs per text
    for run in _runs(hidden, lines):
        first, (start, end) = run[0][0], (run[0][1], run[-1][1] + 1)
        codes = " ".join(f"U+{char.codepoint:04X}" for char, _ in run)
        known = described.get(codes)
        if known is None:
            known = described[codes] = (
                _digest(HIDDEN_RULE, codes),
                legacy_fingerprint(HIDDEN_RULE, codes),
            )
        label = f"U+{first.codepoint:04X} ({first.name})"
        if len(run) > 1:
            label += f" and {len(run) - 1} more beside it"
        context = _context(lines.text, start, end)
        found.append(
            Finding(HIDDEN_RULE, first.line, first.column, start, end, label, *known, path, context)
        )
    return found


def _runs(hidden: list[HiddenChar], lines: _Lines) -> Iterator[list[tuple[HiddenChar, int]]]:
    """The hidden characters (each with its offset) in runs: characters with nothing but spaces
    between them on one line (a preheader's padding interleaves no-break spaces)."""
    run: list[tuple[HiddenChar, int]] = []
    for char in hidden:
        offset = lines.starts[char.line - 1] + char.column - 1
        if run and (
            char.line != run[-1][0].line or not _spaces(lines.text, run[-1][1] + 1, offset)
        ):
            yield run
            run = []
        run.append((char, offset))
    if run:
        yield run


def _spaces(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is empty or spaces (tabs, no-break spaces) alone."""
    return start == end or text[start:end].isspace()


REDACTED = "‹redacted:{rule}›"


def redact(text: str, findings: Iterable[Finding]) -> str:
    """``text`` with each secret replaced by ``‹redacted:RULE›`` and each hidden character
    removed."""
    out = []
    position = 0
    for finding in sorted(findings, key=lambda f: f.start):
        if finding.start < position:
            continue
        out.append(text[position : finding.start])
        out.append("" if finding.rule == HIDDEN_RULE else REDACTED.format(rule=finding.rule))
        position = finding.end
    out.append(text[position:])
    return "".join(out)


def without_allowed(
    findings: Iterable[Finding], allow: Iterable[str], salt: str = ""
) -> list[Finding]:
    """The findings whose fingerprint is not in ``allow`` (the reviewed fingerprints of
    ``scan.allow``). Old entries still allow their findings: v1 (an HMAC of the secret) and v2
    (scrypt of the secret salted with ``salt``), whose slow hash is computed only for findings no
    new entry allows, and only when ``allow`` holds any.
    """
    allowed = set(allow)
    slow = any(entry.startswith(SALTED_PREFIX) for entry in allowed)
    return [
        finding
        for finding in findings
        if finding.fingerprint() not in allowed
        and finding.legacy not in allowed
        and not (slow and finding.salted(salt) in allowed)
    ]


def renewed_by(finding: Finding, allow: Iterable[str], salt: str = "") -> str | None:
    """The old (v1 or v2) entry of ``allow`` that allows ``finding``, if any: the one its new
    fingerprint renews."""
    allowed = set(allow)
    if finding.legacy in allowed:
        return finding.legacy
    if (
        any(entry.startswith(SALTED_PREFIX) for entry in allowed)
        and finding.salted(salt) in allowed
    ):
        return finding.salted(salt)
    return None


def legacy_entries(allow: Iterable[str]) -> list[str]:
    """The old (v1 and v2) fingerprints among scan.allow's entries: derived from the secret, to
    be renewed."""
    return [entry for entry in allow if not entry.startswith(FINGERPRINT_PREFIX)]
