"""Regular expressions compiled on first use.

The pre-commit hook is a new process on every commit, and ``re.compile`` runs the pure-Python parser
of the ``re`` module: compiling every pattern of the scanner when its modules are imported cost more
than scanning a typical commit. A ``lazy`` pattern is compiled the first time one of its methods is
used; after that its methods are the compiled pattern's own (stored on the object, so no lookup goes
through ``__getattr__`` again).
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class _Lazy:
    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._source: tuple[Any, int] = (pattern, flags)  # a text's pattern or a bytes' one

    def __getattr__(self, name: str) -> Any:
        if name.startswith(
            "__"
        ):  # copy, pickle and the like ask for dunders: this object has none to give
            raise AttributeError(name)
        value = getattr(re.compile(*self._source), name)
        self.__dict__[name] = value
        return value


def lazy(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, done on the pattern's first use (a text's or a bytes')."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, flags))
