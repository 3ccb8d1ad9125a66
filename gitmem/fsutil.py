"""Atomic file writes: a temporary file in the same directory, fsync, then rename (or link, never clobbering).

The temporary file is named ``.NAME.XXXXXXXX.gitmem.tmp``: a write killed half-way (``kill -9``, power loss) can
leave one behind, so ``gitmem init`` has git ignore the pattern (``TEMP_PATTERN`` in ``.memory/.gitignore`` and
``.git/info/exclude``) and the store removes stale ones (``remove_stale_temp``).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

TEMP_SUFFIX = ".gitmem.tmp"
TEMP_PATTERN = ".*" + TEMP_SUFFIX  # as a .gitignore line
STALE_SECONDS = 600  # a temporary file this old belongs to no running write


def is_temp(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def remove_stale_temp(path: Path, now: float | None = None) -> bool:
    """Remove ``path``, a temporary file of ours, when no write can still be using it; returns whether it went."""
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
        if age < STALE_SECONDS:
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes, *, overwrite: bool = True) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never a part.

    With ``overwrite=False`` the write fails with ``FileExistsError`` when ``path`` exists, even when another
    process creates it at the same moment.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # slow to import (random, shutil): only when something is written

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:  # disk full, quota: say which file could not be written
            if exc.filename is None and exc.errno is not None:
                raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), os.fspath(path)) from exc
            raise
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_exclusive(tmp, path)
        _fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _link_exclusive(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (some network and FUSE file systems): reserve the name, then rename over it.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.replace(tmp, path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
