"""The recall index: SQLite FTS5 over every memory's title, body, tags and ``words``, kept under
.git/gitmem/.

It is brought up to date on every query, cheaply: each memory file's stat is compared with the one
recorded when it was indexed (inode, size, mtime and ctime, as ``gitmem.memory.cache`` does), and
only files that differ are read again. A file whose timestamps were within a second of its indexing
("racily clean": it could change again without its stat changing) is not trusted on stat alone: it
is read and its content hash compared on the next query. A file whose content changed is checked
again with ``gitmem.memory.schema.check_memory`` (or taken from the store's own cache when that has
checked the same stat). Invalid files are recorded with their problems and left out of the results.

The index is only a cache: when it cannot be opened, is corrupt or was built by another version of
gitmem, it is rebuilt; when .git/gitmem/ cannot be written, an in-memory index serves the query.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import gateway
from gitmem.errors import CheckFailed, Problem, UsageError
from gitmem.memory.model import Memory
from gitmem.project import Project
from gitmem.recall import anchors, files
from gitmem.recall.files import SUFFIX, Key
from gitmem.recall.globs import any_match, matches
from gitmem.recall.ranking import PATH_BOOST, PHRASE_DEPTH, PHRASE_GAP, PHRASED, WEIGHTS
from gitmem.recall.results import Anchor, Census, Hit, PromptMatch, Recalled, Refreshed, query_terms

_FORMAT = 4  # 4: the memory count kept in info; 3: words of two or more in a column of their own
_RACY_NS = 1_000_000_000
DB_NAME = "recall.sqlite3"

# How long a hook's refresh may take (of its 10 s): what it does not reach, the next prompt's
# refresh does.
HOOK_REFRESH_SECONDS = 4.0


def hook_deadline() -> float:
    """The ``deadline`` of a hook's refresh."""
    return time.monotonic() + HOOK_REFRESH_SECONDS


BATCH_SECONDS = 0.25  # of checking files per transaction: what a refresh killed in the middle loses

# What a file is recorded with when a refresh was stopped (killed by a hook's timeout) while
# checking it: it is left out of recall until it changes, and the session's status says so.
COSTLY = (
    "took too long to check (a refresh was stopped while checking it): left out until it changes"
)
LOCK_TIMEOUT = 15.0  # seconds to wait for another process writing the index
_STORE_CACHE_AFTER = (
    50  # misses from which the store's cache is worth reading (it holds every memory)
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    name TEXT PRIMARY KEY,
    ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
    trusted INTEGER NOT NULL,  -- 0: racily clean when read, so check the content next time
    digest TEXT NOT NULL,
    doc INTEGER,               -- rowid in memories; NULL when the file is invalid
    problems TEXT              -- JSON [[line, column, field, message], ...] when invalid
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_invalid ON files(name) WHERE problems IS NOT NULL;
CREATE TABLE IF NOT EXISTS memories(
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL, status TEXT NOT NULL, expires TEXT, scoped INTEGER NOT NULL,
    title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL, words TEXT NOT NULL,
    data TEXT NOT NULL         -- the memory as JSON
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
    title, body, tags, words, content='memories', content_rowid='n',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""


# Words that carry no meaning in a question ("how do we run the tests?"). BM25 would weigh them down
# anyway; leaving them out keeps the query fast on large stores.
def _salt() -> str:
    from gitmem.memory.cache import checks_salt  # lazy: the prompt, stop hooks' start-up

    return f"{_FORMAT}:{checks_salt()}"


class RecallIndex:
    def __init__(self, project: Project, *, in_memory: bool = False) -> None:
        self.project = project
        self.directory = project.memories_dir
        self.path = project.cache_dir / DB_NAME
        self.conn = self._memory() if in_memory else self._connect()

    # -- opening -----------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        salt = _salt()
        for attempt in range(2):
            try:
                gateway.make_dirs(self.project, self.path.parent)
                conn = sqlite3.connect(
                    gateway.resolve(self.project, self.path),
                    timeout=LOCK_TIMEOUT,
                    isolation_level=None,
                )
                conn.execute(
                    "PRAGMA synchronous=NORMAL"
                )  # a cache: losing the last write to a crash is fine
                return self._prepare(conn, salt)
            except sqlite3.OperationalError:
                # locked by another process for too long, or read-only: do without the file this
                # time
                break
            except sqlite3.DatabaseError:
                # Corrupt, or not a database: it is only a cache, so start again.
                if attempt == 0:
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        with contextlib.suppress(OSError):
                            gateway.remove(self.project, f"{self.path}{suffix}")
            except OSError:
                break
        return self._memory()

    @classmethod
    def _memory(cls) -> sqlite3.Connection:
        return cls._prepare(sqlite3.connect(":memory:", isolation_level=None), _salt())

    @staticmethod
    def _prepare(conn: sqlite3.Connection, salt: str) -> sqlite3.Connection:
        def current() -> bool:
            with contextlib.suppress(sqlite3.OperationalError):
                row = conn.execute("SELECT value FROM info WHERE key = 'salt'").fetchone()
                return row is not None and row[0] == salt
            return False

        if current():
            return conn
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if not current():  # another process may have built it while we waited for the lock
                for table in ("docs", "memories", "files", "info"):
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                for statement in _SCHEMA.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO info(key, value) VALUES ('salt', ?)", (salt,))
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return conn

    def close(self) -> None:
        self.conn.close()

    # -- keeping it current ------------------------------------------------------------------------

    def refresh(self, deadline: float = math.inf) -> Refreshed:
        """Bring the index up to date with the memory files; with ``deadline``
        (``time.monotonic()``), stop there and leave the rest to the next refresh
        (``Refreshed.complete`` is then false).

        Files are checked in transactions of a quarter second, each begun with a committed note of
        where it begins: a refresh that is killed (a hook's timeout) keeps all it did before its
        last transaction, the refresh after it goes one file a transaction, and a file a refresh is
        killed checking on its own is recorded as too costly and skipped until it changes
        (``COSTLY``): one file never holds back the index, whatever the store holds
        (``_check_changed``)."""
        # (a .memory link to elsewhere is not read, as by the store)
        with gateway.Folder(self.project, self.directory, missing_ok=True) as folder:
            started_ns = _now_ns()
            names, listing = self._listed(folder, started_ns)
            names, stats = files.stat_all(folder, names)
            signature = files.signature(names, stats)
            if self._info("signature") == signature:
                # every file has the stat it had when indexed, long enough ago to trust it
                if listing:  # listed, and the listing can be trusted next time (if writable)
                    # a note that saves time: never waited for (another process writing the
                    # index would hold a prompt up to LOCK_TIMEOUT); the next refresh keeps it
                    with contextlib.suppress(sqlite3.OperationalError), self._writing(wait=False):
                        self._keep_listing(listing, names)
                return Refreshed()
            on_disk = files.memories(names, stats)
            # Only entries that were not racily clean when indexed can be trusted on their stat
            # alone.
            trusted = self.conn.execute(
                "SELECT name, ino, size, mtime, ctime FROM files WHERE trusted = 1"
            ).fetchall()
            listed = {(name, *files.key(st)) for name, st in on_disk.items()}
            changed = sorted(name for name, *_ in listed.difference(trusted))
            stored = {name for (name,) in self.conn.execute("SELECT name FROM files")}
            removed = sorted(stored - on_disk.keys())
            outcome = Refreshed(read=len(changed), removed=len(removed))
            with self._writing():
                for name in removed:
                    self._forget(name)
            try:
                moved = self._check_changed(
                    folder, changed, on_disk, self._info("checking"), started_ns, deadline, outcome
                )
            except BaseException:  # interrupted here (^C), not killed: no file is to blame
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute(
                        "INSERT OR REPLACE INTO info(key, value) VALUES ('checking', '')"
                    )
                raise
            if not outcome.complete:
                return outcome  # the rest next time; the signature stays unwritten
            with self._writing():
                (untrusted,) = self.conn.execute(
                    "SELECT count(*) FROM files WHERE trusted = 0"
                ).fetchone()
                # The signature stands for "nothing to check": only when every entry is trusted,
                # and was recorded with the stat the signature was computed from.
                value = "" if untrusted or moved else signature
                self.conn.execute(
                    "INSERT OR REPLACE INTO info(key, value) VALUES ('signature', ?)", (value,)
                )
                if listing:
                    self._keep_listing(listing, names)
                self.conn.execute(
                    "INSERT OR REPLACE INTO info(key, value) SELECT 'size', count(*) FROM memories"
                )
            return outcome

    def _listed(self, folder: gateway.Folder, started_ns: int) -> tuple[list[str], str]:
        """The ``.yaml`` names in ``folder`` (``files.listed``'s) and the folder's stat to keep with
        them (``""``: nothing to keep). A name added, removed or renamed changes the folder's mtime,
        so when its stat is the one kept with the last listing, that listing is taken again (at
        10,000 memories, a tenth of a new one's cost); a stat within a second of now is not
        trusted (the racily-clean rule of the files')."""
        st = folder.own_stat()
        if st is None:
            return files.listed(folder), ""
        key = f"{st.st_dev}:{st.st_ino}:{st.st_mtime_ns}:{st.st_ctime_ns}"
        if max(st.st_mtime_ns, st.st_ctime_ns) >= started_ns - _RACY_NS:
            key = ""
        elif self._info("listed") == key:
            kept = self._info("names")
            return kept.split("/") if kept else [], ""
        return files.listed(folder), key

    def _keep_listing(self, key: str, names: list[str]) -> None:
        """Keep ``names`` (a listing, no name holds a "/") with the folder's stat ``key``, unless
        one is no UTF-8 (that folder is listed every time)."""
        value = "/".join(names)
        try:
            value.encode()
        except UnicodeEncodeError:
            return
        self.conn.executemany(
            "INSERT OR REPLACE INTO info(key, value) VALUES (?, ?)",
            (("listed", key), ("names", value)),
        )

    def _info(self, key: str) -> str:
        """The index's note ``key`` (``""`` when it has none)."""
        row = self.conn.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else ""

    def _check_changed(
        self,
        folder: gateway.Folder,
        changed: list[str],
        on_disk: dict[str, os.stat_result],
        stopped: str,
        started_ns: int,
        deadline: float,
        outcome: Refreshed,
    ) -> bool:
        """Index each of ``changed``, in transactions of some BATCH_SECONDS each; whether any was
        recorded with another stat than its listing's.

        Before each transaction, a note of where it begins is committed (``info.checking``):
        ``batch:NAME``, or ``one:NAME`` when it holds one file. A refresh that finds ``batch:…`` was
        killed in a batch: it goes one file a transaction, so that the next kill names its file; one
        that finds ``one:NAME`` was killed checking NAME, and records it as too costly (``COSTLY``).
        """
        store_cache = self._store_cache() if len(changed) >= _STORE_CACHE_AFTER else None
        # one file a transaction after a kill in a batch; ``blamed`` is never a file's name unless
        # the note was ``one:NAME`` (a name holds no colon)
        mode, budget = ("one", 0.0) if stopped.startswith("batch:") else ("batch", BATCH_SECONDS)
        blamed = stopped.removeprefix("one:")
        moved = False
        index = 0
        while index < len(changed):
            if time.monotonic() > deadline:
                outcome.complete = False
                return moved
            with self._writing():
                self.conn.execute(
                    "INSERT OR REPLACE INTO info(key, value) VALUES ('checking', ?)",
                    (f"{mode}:{changed[index]}",),
                )
                # the memories' count, taken again once the refresh is complete (``size``): dropped
                # once a transaction, not once a memory indexed
                self.conn.execute("DELETE FROM info WHERE key = 'size'")
            with self._writing():
                began = time.monotonic()
                while index < len(changed):
                    name = changed[index]
                    if name == blamed:  # the last refresh was killed checking it
                        self._record(
                            name, on_disk[name], started_ns, "", None, [[1, 1, "file", COSTLY]]
                        )
                        outcome.costly.append(name)
                        recorded: Key | None = files.key(on_disk[name])
                    else:
                        checked, recorded = self._update(
                            folder, name, on_disk[name], started_ns, store_cache
                        )
                        outcome.checked += checked
                    moved |= recorded != files.key(on_disk[name])
                    index += 1
                    if time.monotonic() - began >= budget:
                        break
                self.conn.execute("INSERT OR REPLACE INTO info(key, value) VALUES ('checking', '')")
        return moved

    def costly(self) -> list[str]:
        """The memory files left out because checking one stopped a refresh (as shown, from the
        repository)."""
        prefix = self.project.display(self.directory)
        rows = self.conn.execute(
            "SELECT name, problems FROM files WHERE problems IS NOT NULL"
        ).fetchall()
        return [f"{prefix}/{name}" for name, problems in rows if COSTLY in problems]

    @contextlib.contextmanager
    def _writing(self, *, wait: bool = True) -> Iterator[None]:
        """A write transaction; without ``wait``, sqlite3.OperationalError at once when another
        process is writing (with it, after the connection's timeout: LOCK_TIMEOUT)."""
        if wait:
            self.conn.execute("BEGIN IMMEDIATE")
        else:
            (timeout,) = self.conn.execute("PRAGMA busy_timeout").fetchone()
            self.conn.execute("PRAGMA busy_timeout = 0")
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            finally:
                self.conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _store_cache(self) -> Any:
        # lazy: the prompt, stop hooks' start-up. The store's salt is checks_salt (memory.store's
        # _salt): taken from here, the first prompt does not import the store (difflib,
        # dataclasses and inspect with it).
        from gitmem.memory.cache import FileCache, checks_salt

        return FileCache(self.project.cache_dir / "store.json", checks_salt())

    def _forget(self, name: str) -> None:
        for (doc,) in self.conn.execute(
            "SELECT doc FROM files WHERE name = ? AND doc IS NOT NULL", (name,)
        ).fetchall():
            self._drop_doc(doc)
        self.conn.execute("DELETE FROM files WHERE name = ?", (name,))

    def _drop_doc(self, n: int) -> None:
        old = self.conn.execute(
            "SELECT title, body, tags, words FROM memories WHERE n = ?", (n,)
        ).fetchone()
        if old is not None:
            self.conn.execute(
                "INSERT INTO docs(docs, rowid, title, body, tags, words) VALUES ('delete', "
                "?, ?, ?, ?, ?)",
                (n, *old),
            )
            self.conn.execute("DELETE FROM memories WHERE n = ?", (n,))
            self.conn.execute("DELETE FROM info WHERE key = 'size'")

    def _update(
        self,
        folder: gateway.Folder,
        name: str,
        st: os.stat_result,
        started_ns: int,
        store_cache: Any,
    ) -> tuple[int, Key | None]:
        """Index one new or changed file; returns 1 when its content had to be checked (else 0), and
        the stat recorded for it (``None`` when it is gone)."""
        # no huge file read, nor a link leading nowhere (one leading out: the read refuses it)
        refusal = files.too_large(st) or files.unfollowed(folder, name, st)
        if refusal is not None:
            self._record(name, st, started_ns, "", None, [refusal])
            return 0, files.key(st)
        from gitmem.memory.schema import MAX_FILE_BYTES  # (imported already by ``files.too_large``)

        try:
            # the stat of what is read (it may have changed since the listing)
            raw, st = folder.read(name, limit=MAX_FILE_BYTES)
        except FileNotFoundError:
            self._forget(name)
            return 0, None
        except OSError as exc:
            self._record(
                name, st, started_ns, "", None, [[1, 1, "file", f"cannot read: {exc.strerror}"]]
            )
            return 0, files.key(st)
        except CheckFailed as exc:  # a link leading outside, or grown past the limit since the stat
            problem = exc.problems[0]
            self._record(name, st, started_ns, "", None, [[1, 1, problem.field, problem.message]])
            return 0, files.key(st)
        digest = hashlib.sha256(raw).hexdigest()
        known, doc, stored = self.conn.execute(
            "SELECT digest, doc, problems FROM files WHERE name = ?", (name,)
        ).fetchone() or ("", None, None)
        if known == digest:  # touched, not changed: only the stat is new
            self._record(name, st, started_ns, digest, doc, json.loads(stored or "null"))
            return 0, files.key(st)
        if doc is not None:
            self._drop_doc(doc)
        data, problems = self._check(name, raw, st, store_cache)
        doc = None
        if not problems:  # (then data is the memory's mapping)
            doc = self._add_doc(data)
        self._record(name, st, started_ns, digest, doc, problems)
        return 1, files.key(st)

    @staticmethod
    def _check(
        name: str, raw: bytes, st: os.stat_result, store_cache: Any
    ) -> tuple[Any, list[Any]]:
        if store_cache is not None:
            from gitmem.memory.cache import stat_key  # lazy: the prompt, stop hooks' start-up

            cached = store_cache.get(name, stat_key(st))
            if cached is not None:
                return cached[0], list(cached[1])
        # lazy: the hooks' start-up
        from gitmem.memory.schema import check_memory, fails_scan

        data, problems = check_memory(raw, name[: -len(SUFFIX)])
        rows = [[p.line, p.column, p.field, p.message] for p in problems]
        if fails_scan(
            [p.message for p in problems]
        ):  # nothing of such a file is kept, not even a preview
            return None, [
                [1, 1, "file", "holds a secret or hidden Unicode: `gitmem validate` shows where"]
            ]
        return data, rows

    def _add_doc(self, data: dict[str, Any]) -> int:
        """Index a memory's ``data`` as validated (dates as YYYY-MM-DD text, as ``Memory.to_dict``
        gives them): read as it is, no ``Memory`` built."""
        title, body, said = data["title"], data.get("body", ""), data.get("words", ())
        tags = " ".join([*data.get("tags", ()), *(w for w in said if len(w.split()) == 1)])
        words = "\n".join(w for w in said if len(w.split()) > 1)
        cursor = self.conn.execute(
            "INSERT INTO memories(id, status, expires, scoped, title, body, tags, words, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                data["id"],
                data["status"],
                data.get("expires"),
                int(bool(data.get("paths"))),
                title,
                body,
                tags,
                words,
                json.dumps(data, separators=(",", ":"), ensure_ascii=False),
            ),
        )
        n = int(cursor.lastrowid or 0)
        self.conn.execute(
            "INSERT INTO docs(rowid, title, body, tags, words) VALUES (?, ?, ?, ?, ?)",
            (n, title, body, tags, words),
        )
        return n

    def _record(
        self,
        name: str,
        st: os.stat_result,
        started_ns: int,
        digest: str,
        doc: int | None,
        problems: Any,
    ) -> None:
        trusted = max(st.st_mtime_ns, st.st_ctime_ns) < started_ns - _RACY_NS
        self.conn.execute(
            "INSERT OR REPLACE INTO files(name, ino, size, mtime, ctime, trusted, digest, doc, "
            "problems) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                name,
                st.st_ino,
                st.st_size,
                st.st_mtime_ns,
                st.st_ctime_ns,
                1 if trusted else 0,
                digest,
                doc,
                json.dumps(problems) if problems else None,
            ),
        )

    def problems(self) -> list[Problem]:
        """The problems of every invalid memory file (they are left out of recall)."""
        prefix = self.project.display(self.directory)
        out: list[Problem] = []
        for name, rows in self.conn.execute(
            "SELECT name, problems FROM files WHERE problems IS NOT NULL"
        ):
            display = os.path.join(prefix, name)
            out.extend(Problem(display, *row) for row in json.loads(rows))
        return sorted(out)

    # -- searching ---------------------------------------------------------------------------------

    def search(
        self,
        terms: list[str],
        k: int,
        today: date,
        path: str | None = None,
        extra: Sequence[Extra] = (),
    ) -> list[Hit]:
        """The ``k`` live memories that best match ``terms`` (BM25), those whose paths cover
        ``path`` boosted.

        ``extra``: memories that have no file in the store (shared packs'), each with where it comes
        from, searched together with the indexed ones (added for this query only, so their scores
        compare) and never kept.
        """
        if not terms:
            return []
        with self._extra(extra) as origins:
            return list(self._search(terms, k, today, path, origins).values())

    def search_prompt(
        self,
        terms: list[str],
        k: int,
        today: date,
        extra: Sequence[Extra] = (),
        paths: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        rare: int = 2,
        pairs: Sequence[tuple[str, str]] = (),
    ) -> PromptMatch:
        """``search``'s hits for ``terms`` and those holding one of ``pairs`` (``_phrased``), the
        memories the prompt's ``paths`` and ``identifiers`` tie it to (``_anchored``), the query
        terms each hit's and anchored memory's text matches, and which terms are rare (at most
        ``rare`` memories hold them)."""
        with self._extra(extra) as origins:
            hits = self._search(terms, k, today, None, origins) if terms else {}
            phrased = self._phrased(terms, pairs, today, origins)
            seen = {hit.memory.id for hit in hits.values()}
            hits.update((n, hit) for n, hit in phrased.items() if hit.memory.id not in seen)
            anchors = self._anchored(paths, identifiers, today, rare, origins)
            rows = {n: hit.memory.id for n, hit in hits.items()}
            rows.update((n, anchor.memory.id) for n, anchor in anchors.items())
            return PromptMatch(
                list(hits.values()),
                list(anchors.values()),
                self._matched_terms(rows, terms),
                self.rare_terms(terms, rare),
                frozenset(hit.memory.id for hit in phrased.values()),
            )

    @contextlib.contextmanager
    def _extra(self, extra: Sequence[Extra]) -> Iterator[dict[int, Path]]:
        """``extra`` memories (without a file here) in the index for one query, so their scores
        compare with the others', and gone after it (a savepoint rolled back); yields where each
        comes from, by row."""
        self.conn.execute("SAVEPOINT extra")
        try:
            yield {self._add_doc(memory.to_dict()): Path(where) for memory, where in extra}
        finally:
            self.conn.execute("ROLLBACK TO extra")
            self.conn.execute("RELEASE extra")

    def rare_terms(self, terms: Sequence[str], rare: int) -> dict[str, set[str]]:
        """The ``terms`` that at most ``rare`` indexed memories hold (but one at least) in their
        title, each with the ids of those memories: a word that rare, in a title, names the memory.
        """
        out: dict[str, set[str]] = {}
        for term in terms:
            quoted = _quoted(term)
            (count,) = self.conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM docs WHERE docs MATCH ? LIMIT ?)",
                (quoted, rare + 1),
            ).fetchone()
            if 0 < count <= rare:
                rows = self.conn.execute(
                    "SELECT m.id FROM docs JOIN memories m ON m.n = docs.rowid WHERE docs MATCH ?",
                    ("title : " + quoted,),
                ).fetchall()
                if rows:
                    out[term] = {memory_id for (memory_id,) in rows}
        return out

    def _anchored(
        self,
        paths: Sequence[str],
        identifiers: Sequence[str],
        today: date,
        rare: int,
        origins: dict[int, Path],
    ) -> dict[int, Anchor]:
        """The live memories whose ``paths`` cover one of ``paths`` (each with how many segments of
        its closest glob are spelled out), and those whose text holds one of ``identifiers`` as
        written (any case) when at most ``rare`` memories do: a common one ties the prompt to
        nothing in particular. By row, the closest first."""
        day = today.isoformat()
        found = {**self._by_path(paths, day), **self._by_identifier(identifiers, day, rare)}
        if not found:
            return {}
        marks = ",".join("?" * len(found))
        out = {}
        for n, data in self.conn.execute(
            f"SELECT n, data FROM memories WHERE n IN ({marks})", tuple(found)
        ):
            memory = Memory.from_dict(json.loads(data))
            if memory.is_live(today):
                where = origins.get(n) or self.directory / f"{memory.id}{SUFFIX}"
                out[n] = Anchor(memory, found[n][0], found[n][1], where)
        return dict(sorted(out.items(), key=lambda item: (-item[1].level, item[1].memory.id)))

    def _by_path(self, paths: Sequence[str], day: str) -> dict[int, tuple[int, str]]:
        """The live path-scoped memories whose globs cover one of ``paths``, by row, each with its
        level (one more than the segments its closest glob spells out)."""
        if not paths:
            return {}
        subjects = [anchors.subject(path) for path in paths]
        found: dict[int, tuple[int, str]] = {}
        for n, globs in self.conn.execute(
            f"SELECT n, json_extract(data, '$.paths') FROM memories WHERE scoped = 1 AND {_LIVE}",
            (day,),
        ):
            # a scoped memory's paths are never empty
            levels = [
                anchors.specificity(g)
                for g in json.loads(globs)
                if any(matches(g, subject) for subject in subjects)
            ]
            if levels:
                found[n] = (1 + max(levels), "path")
        return found

    def _by_identifier(
        self, identifiers: Sequence[str], day: str, rare: int
    ) -> dict[int, tuple[int, str]]:
        """The live memories whose text holds one of ``identifiers`` (any case), by row, for each
        identifier at most ``rare`` memories hold."""
        found: dict[int, tuple[int, str]] = {}
        for identifier in identifiers:
            rows = self.conn.execute(
                f"SELECT n FROM memories WHERE {_LIVE} "
                "AND instr(lower(title || ' ' || body || ' ' || tags || ' ' || words), ?) > 0 "
                "LIMIT ?",
                (day, identifier.lower(), rare + 1),
            ).fetchall()
            if len(rows) <= rare:
                found.update((n, (anchors.IDENTIFIER_LEVEL, "identifier")) for (n,) in rows)
        return found

    def size(self) -> int:
        """How many memories the index holds (every status): the corpus BM25 scores are relative to.
        Counted once after the memories change (``info.size``), not on every prompt: counting reads
        the whole table."""
        counted = self._info("size")
        if counted:
            return int(counted)
        (count,) = self.conn.execute("SELECT count(*) FROM memories").fetchone()
        return int(count)

    def enforced(self, today: date) -> list[Memory]:
        """The live memories that carry an ``enforce`` field (what the pre-tool hook checks a
        call against)."""
        return [
            memory
            for (data,) in self.conn.execute(
                "SELECT data FROM memories "
                "WHERE status = 'active' AND (expires IS NULL OR expires >= ?) "
                "AND instr(data, '\"enforce\":') > 0 ORDER BY id",
                (today.isoformat(),),
            )
            if (memory := Memory.from_dict(json.loads(data))).enforce is not None
        ]

    def live_memories(self, today: date) -> list[Memory]:
        """Every live memory of the index (for searching a small store together with another)."""
        day = today.isoformat()
        return [
            Memory.from_dict(json.loads(data))
            for (data,) in self.conn.execute(
                "SELECT data FROM memories WHERE status = 'active' AND (expires IS NULL OR "
                "expires >= ?) ORDER BY id",
                (day,),
            )
        ]

    def _search(
        self, terms: list[str], k: int, today: date, path: str | None, origins: dict[int, Path]
    ) -> dict[int, Hit]:
        """The ``k`` best hits, by row (``search``)."""
        match = " OR ".join(_quoted(term) for term in terms)
        day = today.isoformat()
        # The best matches from the full-text index alone (cheap), then the live ones among them;
        # when too few of those are live (proposed and retired memories are indexed too), look
        # further down the ranking.
        depth = max(4 * k, 20)
        while True:
            ranked = self.conn.execute(
                "SELECT rowid, bm25(docs, ?, ?, ?, ?) AS rank FROM docs WHERE docs MATCH ? "
                "ORDER BY rank LIMIT ?",
                (*WEIGHTS, match, depth),
            ).fetchall()
            rows = self._live(ranked, day)
            if len(rows) >= k or len(ranked) < depth:
                break
            depth *= 4
        if (
            path is not None
        ):  # path-scoped memories can be boosted past the plain top: look at them separately
            scoped = self.conn.execute(
                "SELECT docs.rowid, bm25(docs, ?, ?, ?, ?) AS rank "
                "FROM docs JOIN memories m ON m.n = docs.rowid "
                "WHERE docs MATCH ? AND m.scoped = 1 AND m.status = 'active' "
                "AND (m.expires IS NULL OR m.expires >= ?) "
                "ORDER BY rank LIMIT ?",
                (*WEIGHTS, match, day, max(50, 10 * k)),
            ).fetchall()
            rows += self._live(scoped, day)
        return dict(list(self._hits(rows, path, origins).items())[:k])

    def _hits(
        self,
        rows: list[tuple[int, str, float]],
        path: str | None,
        origins: dict[int, Path],
    ) -> dict[int, Hit]:
        """The memories of ``rows`` (n, data, rank: ``_live``'s) as hits, by row, best first."""
        hits: dict[int, Hit] = {}
        for n, data, rank in rows:
            if n in hits:
                continue
            memory = Memory.from_dict(json.loads(data))
            covered = path is not None and any_match(memory.paths, path)
            score = -float(rank) * (PATH_BOOST if covered else 1.0)
            hits[n] = Hit(
                memory, score, covered, origins.get(n) or self.directory / f"{memory.id}{SUFFIX}"
            )
        return dict(sorted(hits.items(), key=lambda item: (-item[1].score, item[1].memory.id)))

    def _phrased(
        self,
        terms: list[str],
        pairs: Sequence[tuple[str, str]],
        today: date,
        origins: dict[int, Path],
    ) -> dict[int, Hit]:
        """The live memories whose title or words hold one of ``pairs`` (two consecutive words of
        the query) at most ``PHRASE_GAP`` words apart, scored for ``terms`` as ``_search`` scores
        them (they may rank below its top), by row.
        """
        if not pairs or not terms:
            return {}
        near = " OR ".join(f"NEAR({_quoted(a)} {_quoted(b)}, {PHRASE_GAP})" for a, b in pairs)
        rows = self.conn.execute(
            "SELECT rowid FROM docs WHERE docs MATCH ? LIMIT ?",
            (f"{PHRASED} : ({near})", PHRASE_DEPTH),
        )
        found = [n for (n,) in rows]
        if not found:
            return {}
        match = " OR ".join(_quoted(term) for term in terms)
        marks = ",".join("?" * len(found))
        ranked = self.conn.execute(
            "SELECT rowid, bm25(docs, ?, ?, ?, ?) FROM docs WHERE docs MATCH ? AND rowid "
            f"IN ({marks})",
            (*WEIGHTS, match, *found),
        ).fetchall()
        return self._hits(self._live(ranked, today.isoformat()), None, origins)

    def _matched_terms(self, rows: dict[int, str], terms: list[str]) -> dict[str, set[str]]:
        """For the memory of each of ``rows`` (row: id), the query ``terms`` its text matches (as
        the index stems them), by id: how much of a question a memory answers, which a BM25 score
        alone does not say. Looked up by row (a word most memories hold costs no more than another).
        """
        if not rows or not terms:
            return {}
        marks = ",".join("?" * len(rows))
        out: dict[str, set[str]] = {memory_id: set() for memory_id in rows.values()}
        for term in terms:
            for (n,) in self.conn.execute(
                f"SELECT rowid FROM docs WHERE docs MATCH ? AND rowid IN ({marks})",
                (_quoted(term), *rows),
            ):
                out[rows[n]].add(term)
        return out

    def census(self, today: date) -> list[Census]:
        """Every valid memory's id, status, whether it is path-scoped, whether it is live on
        ``today``, and the targets it is compiled for (empty: every target)."""
        day = today.isoformat()
        return [
            Census(
                memory_id,
                status,
                bool(scoped),
                status == "active" and (expires is None or expires >= day),
                tuple(json.loads(targets)) if targets else (),
            )
            for memory_id, status, scoped, expires, targets in self.conn.execute(
                "SELECT id, status, scoped, expires, json_extract(data, '$.targets') FROM "
                "memories ORDER BY id"
            )
        ]

    def _live(self, ranked: list[tuple[int, float]], day: str) -> list[tuple[int, str, float]]:
        """(n, data, rank) of the ranked memories that are active and unexpired on ``day``, in
        rank order."""
        if not ranked:
            return []
        rank_of = dict(ranked)
        marks = ",".join("?" * len(rank_of))
        rows = self.conn.execute(
            f"SELECT n, data FROM memories WHERE n IN ({marks}) AND status = 'active' "
            "AND (expires IS NULL OR expires >= ?)",
            (*rank_of, day),
        ).fetchall()
        return sorted(((n, data, rank_of[n]) for n, data in rows), key=lambda row: row[2])


_LIVE = "status = 'active' AND (expires IS NULL OR expires >= ?)"  # with today's date


def _quoted(term: str) -> str:
    """``term`` as one FTS5 string (its own words, never query syntax)."""
    return '"' + term.replace('"', '""') + '"'


Extra = tuple[
    Memory, str
]  # a memory without a file here, and where it comes from (e.g. acme@v1:.memory/...)
_now_ns = time.time_ns  # the clock the racily-clean rule reads
# What a query raises when the index is locked too long or cannot be written (callers may do without
# it).
Unavailable = sqlite3.OperationalError


def recall(
    project: Project,
    query: str,
    k: int,
    today: date,
    path: str | None = None,
    extra: Sequence[Extra] = (),
) -> Recalled:
    """The top ``k`` live memories for ``query``, with the invalid files that were left out.
    ``extra``: live memories without a file in the store (shared packs'), ranked with the others."""
    if k < 1:
        raise UsageError("-k must be at least 1")
    terms = query_terms(query)
    if not terms:
        raise UsageError(
            "nothing to search for: give a few words, e.g. gitmem recall 'how do we run the tests'"
        )
    index = RecallIndex(project)
    try:
        try:
            index.refresh()
            hits = index.search(terms, k, today, path, extra)
        except (
            sqlite3.OperationalError
        ):  # locked too long, or the disk is read-only or full: answer from memory
            index.close()
            index = RecallIndex(project, in_memory=True)
            index.refresh()
            hits = index.search(terms, k, today, path, extra)
        return Recalled(hits, index.problems(), terms)
    finally:
        index.close()


def repo_path(project: Project, given: str) -> str:
    """A ``--path`` argument as a repository-relative path with / separators."""
    candidate = Path(given)
    absolute = candidate if candidate.is_absolute() else Path.cwd() / candidate
    try:
        relative = Path(os.path.normpath(absolute)).relative_to(project.root)
    except ValueError:
        with contextlib.suppress(ValueError):
            relative = gateway.real(os.path.normpath(absolute)).relative_to(
                gateway.real(project.root)
            )
            return relative.as_posix()
        raise UsageError(f"--path {given!r} is outside the repository") from None
    return relative.as_posix()
