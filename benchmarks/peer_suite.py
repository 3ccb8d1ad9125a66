"""The peers' own published test tables, as a benchmark suite built at run time (issue 26).

trufflehog's detector pattern tests (``pkg/detectors/**/*_test.go``: each case's ``input`` and
``want``), gitleaks' rule tables (``cmd/generate/config/rules/*.go``: ``tps`` and ``fps``, the
generated samples made from their regexes here) and detect-secrets' plugin tests
(``tests/plugins/*_test.py``: ``(line, should_flag)`` pairs) are read from the snapshots the
``fetch`` tool brings under /work/.mirror (``git --git-dir=… show HEAD:path``); nothing of them is
committed. Each case is one text, a positive or a negative, of one family (the project and the
detector, rule or plugin it tests). Families are split, by a hash of their name, into a tuning part
and a held-out part (a quarter), so a figure on the held-out part was not tuned for.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

MIRRORS = Path("/work/.mirror")
PEERS = {
    "trufflehog": "trufflesecurity+trufflehog",
    "gitleaks": "gitleaks+gitleaks",
    "detect-secrets": "Yelp+detect-secrets",
}


class Case(NamedTuple):
    project: str
    family: str
    text: str
    positive: bool

    @property
    def held_out(self) -> bool:
        return hashlib.sha1(f"{self.project}/{self.family}".encode()).digest()[0] % 4 == 0


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", f"--git-dir={repo}", *args], capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


def _files(repo: Path, pattern: str) -> list[str]:
    names = _git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    return [name for name in names if re.search(pattern, name)]


def available() -> dict[str, Path]:
    """The peers whose snapshot is here (fetch ``github:trufflesecurity/trufflehog`` and the
    others to add one)."""
    return {
        name: MIRRORS / folder / "repo"
        for name, folder in PEERS.items()
        if (MIRRORS / folder / "repo").exists()
    }


# -- Go source -------------------------------------------------------------------------------------

_GO_STRING = re.compile(r'`([^`]*)`|"((?:[^"\\\n]|\\.)*)"')
_GO_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "'": "'",
    "a": "\a",
    "b": "\b",
    "f": "\f",
}


def _go_unquote(match: re.Match[str]) -> str:
    raw, quoted = match.group(1), match.group(2)
    if raw is not None:
        return raw
    out, index = [], 0
    while index < len(quoted):
        char = quoted[index]
        if char == "\\" and index + 1 < len(quoted):
            nxt = quoted[index + 1]
            if nxt in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[nxt]
                out.append(chr(int(quoted[index + 2 : index + 2 + width], 16)))
                index += 2 + width
                continue
            out.append(_GO_ESCAPES.get(nxt, nxt))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _closing(text: str, start: int, opening: str = "{", closing: str = "}") -> int:
    """The index just past the bracket that closes the one at ``start`` (strings skipped)."""
    depth, index = 0, start
    while index < len(text):
        string = _GO_STRING.match(text, index)
        if string:
            index = string.end()
            continue
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


def _literals(text: str) -> list[str]:
    return [_go_unquote(m) for m in _GO_STRING.finditer(text)]


# -- trufflehog ------------------------------------------------------------------------------------


def _go_value(expression: str, variables: dict[str, str]) -> str | None:
    """A Go string expression: literals and variables joined by ``+``; ``fmt.Sprintf`` of them;
    else ``None``."""
    expression = expression.strip().rstrip(",").strip()
    sprintf = re.match(r"fmt\.Sprintf\((.*)\)$", expression, re.DOTALL)
    if sprintf:
        parts = _split_args(sprintf.group(1))
        values = [_go_value(part, variables) for part in parts]
        if not values or any(v is None for v in values):
            return None
        try:
            return re.sub(r"%[sdv]", "{}", values[0] or "").format(*values[1:])
        except (IndexError, ValueError):
            return None
    return _joined(expression, lambda part: variables.get(part))


def _split_args(text: str, separator: str = ",") -> list[str]:
    parts, depth, index, start = [], 0, 0, 0
    while index < len(text):
        string = _GO_STRING.match(text, index)
        if string:
            index = string.end()
            continue
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
        index += 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


_ASSIGN = re.compile(r"(?m)^\s*(\w+)\s*(?::=|=)\s*")


def _variables(source: str) -> dict[str, str]:
    variables: dict[str, str] = {}
    for match in _ASSIGN.finditer(source):
        end = source.find("\n", match.end())
        line = source[match.end() : end if end != -1 else len(source)]
        if line.startswith("`"):  # a raw string over several lines
            close = source.find("`", match.end() + 1)
            line = source[match.end() : close + 1]
        value = _go_value(line, variables)
        if value is not None:
            variables[match.group(1)] = value
    return variables


def trufflehog(repo: Path) -> Iterator[Case]:
    for name in _files(repo, r"^pkg/detectors/.+_test\.go$"):
        if name.endswith("_integration_test.go"):
            continue
        source = _git(repo, "show", f"HEAD:{name}")
        family = name.split("/")[2]
        variables = _variables(source)
        for match in re.finditer(r"\binput:\s*", source):
            end = source.find("\n", match.end())
            expression = source[match.end() : end]
            if expression.lstrip().startswith("`"):
                close = source.find("`", match.end() + expression.index("`") + 1)
                expression = source[match.end() : close + 1]
            text = _go_value(expression, variables)
            if not text:
                continue
            after = source[match.end() : match.end() + 4000]
            want = re.search(r"\bwant:\s*(nil|\[\]string\{)", after)
            nxt = re.search(r"\binput:", after[1:])
            if want and (nxt is None or want.start() < nxt.start() + 1) and want.group(1) != "nil":
                body_start = match.end() + want.end() - 1
                body = source[body_start : _closing(source, body_start)]
                positive = bool(_literals(body)) or bool(re.search(r"\w", body[1:-1]))
            else:
                positive = False
            yield Case("trufflehog", family, text, positive)


# -- gitleaks --------------------------------------------------------------------------------------

_CLASSES = {
    "AlphaNumeric": "[a-zA-Z0-9]",
    "AlphaNumericExtendedShort": "[a-z0-9_-]",
    "AlphaNumericExtended": "[a-z0-9=_-]",
    "AlphaNumericExtendedLong": "[a-z0-9\\.=_-]",
    "Hex": "[a-f0-9]",
    "Numeric": "[0-9]",
}


def _sample(pattern: str, rng: random.Random) -> str | None:
    """A string matching ``pattern`` (Go's syntax, as far as Python's parser reads it), or
    ``None``."""
    import re._parser as sre_parse  # type: ignore[import-not-found]

    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return None
    out: list[str] = []
    try:
        _emit(parsed, rng, out)
    except (ValueError, KeyError, RecursionError):
        return None
    return "".join(out)


_CATEGORY = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_WORD": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "abcdefghijkABCDEF0123456789",
    "CATEGORY_NOT_DIGIT": "abcdefghijkABCDEF",
    "CATEGORY_NOT_WORD": "-",
}


def _emit(parsed: object, rng: random.Random, out: list[str]) -> None:
    for op, arg in parsed:  # type: ignore[attr-defined]
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789"))
        elif name == "IN":
            out.append(rng.choice(_class_chars(arg)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, item = arg
            high = low + 8 if str(high) == "MAXREPEAT" or high > low + 8 else high
            for _ in range(rng.randint(low, max(low, high))):
                _emit(item, rng, out)
        elif name == "SUBPATTERN":
            _emit(arg[-1], rng, out)
        elif name == "BRANCH":
            _emit(rng.choice(arg[1]), rng, out)
        elif name in ("AT", "ASSERT", "ASSERT_NOT", "GROUPREF"):
            continue
        elif name == "CATEGORY":
            out.append(rng.choice(_CATEGORY.get(str(arg), "a")))
        else:
            raise ValueError(name)


def _class_chars(items: list[tuple[object, object]]) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(arg))  # type: ignore[arg-type]
        elif name == "RANGE":
            low, high = arg  # type: ignore[misc]
            chars.extend(chr(c) for c in range(low, min(high, low + 200) + 1))
        elif name == "CATEGORY":
            chars.extend(_CATEGORY.get(str(arg), "a"))
    if negate:
        return "".join(
            c
            for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            if c not in chars
        )
    return "".join(chars) or "a"


def _secret_expression(expression: str, rng: random.Random) -> str | None:
    """gitleaks' sample secret expressions: literals, ``secrets.NewSecret(…)`` and
    ``utils.AlphaNumeric("36")``."""
    return _joined(expression, lambda part: _generated(part, rng))


def _joined(expression: str, other: Callable[[str], str | None]) -> str | None:
    """A Go expression of parts joined by ``+``: each a string literal, or what ``other`` makes of
    it (``None``: the expression cannot be read)."""
    pieces = []
    for part in _split_args(expression, "+"):
        part = part.strip()
        literal = _GO_STRING.fullmatch(part)
        value = _go_unquote(literal) if literal else other(part)
        if value is None:
            return None
        pieces.append(value)
    return "".join(pieces)


def _generated(part: str, rng: random.Random) -> str | None:
    """A sample for one of gitleaks' generated parts."""
    helper = re.fullmatch(r"utils\.(\w+)\(\"(\d+)\"\)", part)
    if helper and helper.group(1) in _CLASSES:
        return _sample(f"{_CLASSES[helper.group(1)]}{{{helper.group(2)}}}", rng)
    if part == "utils.Hex8_4_4_4_12()":
        return _sample("[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}", rng)
    inner = re.fullmatch(r"secrets\.NewSecret\((.*)\)", part, re.DOTALL)
    if inner is None:
        return None
    pattern_text = inner.group(1).strip()
    literal = _GO_STRING.fullmatch(pattern_text)
    if literal:
        return _sample(_go_unquote(literal), rng)
    return _secret_expression(pattern_text, rng)  # utils.AlphaNumeric("32") inside NewSecret


def gitleaks(repo: Path, seed: int = 26) -> Iterator[Case]:
    rng = random.Random(seed)
    for name in _files(repo, r"^cmd/generate/config/rules/[^/]+\.go$"):
        source = _git(repo, "show", f"HEAD:{name}")
        for function in re.split(r"\nfunc ", source)[1:]:
            rule = re.search(r'RuleID:\s*"([^"]+)"', function)
            if rule is None:
                continue
            family = rule.group(1)
            lists = []  # the spans of the tps and fps lists: their calls are their elements'
            for match in re.finditer(r"\b(tps|fps)\s*:?=\s*\[\]string\{", function):
                start = match.end() - 1
                end = _closing(function, start)
                lists.append((start, end))
                # each element, whole: a literal, literals and generated parts joined by "+", or a
                # sample generated (a literal inside a call is the call's argument, no case)
                for element in _split_args(_without_comments(function[start + 1 : end - 1])):
                    text = _element(element, rng)
                    if text:
                        yield Case("gitleaks", family, text, match.group(1) == "tps")
            for match in re.finditer(r"utils\.GenerateSampleSecrets?\(", function):
                if any(start <= match.start() < end for start, end in lists):
                    continue
                text = _sample_secret(function[match.start() :], rng)
                if text is not None:
                    yield Case("gitleaks", family, text, True)


def _element(expression: str, rng: random.Random) -> str | None:
    """A tps or fps element of gitleaks: a sample secret generated, or an expression of literals
    and generated parts (``None``: one that cannot be read)."""
    expression = expression.strip()
    if re.match(r"utils\.GenerateSampleSecrets?\(", expression):
        return _sample_secret(expression, rng)
    return _secret_expression(expression, rng)


def _without_comments(text: str) -> str:
    """Go source without its line comments (a ``//`` inside a string stays)."""
    out, index = [], 0
    while index < len(text):
        string = _GO_STRING.match(text, index)
        if string:
            out.append(string.group())
            index = string.end()
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = len(text) if end == -1 else end
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def _sample_secret(call: str, rng: random.Random) -> str | None:
    """``utils.GenerateSampleSecret(identifier, secret)`` at the start of ``call``: the line
    gitleaks makes of them."""
    start = call.index("(")
    args = _split_args(call[start + 1 : _closing(call, start, "(", ")") - 1])
    if len(args) != 2:
        return None
    identifier = _GO_STRING.fullmatch(args[0].strip())
    secret = _secret_expression(args[1], rng)
    if identifier is None or secret is None:
        return None
    return f'{_go_unquote(identifier)}_api_token = "{secret}"'


# -- detect-secrets --------------------------------------------------------------------------------


def detect_secrets(repo: Path) -> Iterator[Case]:
    for name in _files(repo, r"^tests/plugins/[^/]+_test\.py$"):
        family = name.rsplit("/", 1)[1].removesuffix("_test.py")
        try:
            tree = ast.parse(_git(repo, "show", f"HEAD:{name}"))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Tuple) or len(node.elts) != 2:
                continue
            line, flag = node.elts
            if not (isinstance(line, ast.Constant) and isinstance(flag, ast.Constant)):
                continue
            if isinstance(line.value, str) and isinstance(flag.value, bool) and line.value.strip():
                yield Case("detect-secrets", family, line.value, flag.value)


READERS = {"trufflehog": trufflehog, "gitleaks": gitleaks, "detect-secrets": detect_secrets}


def cases() -> list[Case]:
    """Every case of every peer whose snapshot is here, without duplicates (the first of a text
    is kept)."""
    seen: set[str] = set()
    out = []
    for name, repo in available().items():
        for case in READERS[name](repo):
            if case.text in seen or len(case.text) > 20_000:
                continue
            seen.add(case.text)
            out.append(case)
    return out
