"""Whether a source changed since its last import, told with the standard library only.

A source is unchanged when the size and modification time of every file under it, its platform
and the import options are what its last import recorded (the stat fingerprint: what rsync and
git trust), or, when they are not, when the bytes are (a content digest: a re-export with new
file times). `chatmem import` asks `unchanged_imports` before it loads the store: an export that
did not change then costs Python's start, a stat of its files and one query through the
standard `sqlite3` module, not the import of SQLAlchemy, Whoosh and every importer (~0.6 s CPU).
The store's own import path (`Store.import_source`) decides with the same `check_source`.

The versions of the database schema and of the index's format live here so that this check
can tell a store that its next open would upgrade (that one goes the long way).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from chatmem import read_digests

from .permissions import read_only_file
from .report import Report

SCHEMA_VERSION = 3  # the database's tables (store/models.py, migrations in store/db.py)
INDEX_VERSION = 6  # the Whoosh index's format (store/index.py): another version is rebuilt
INDEX_STATE_FILE = "chatmem-index.json"  # in the index folder: its version and the seq it holds
SQLITE_FILE = "chatmem.db"
INDEX_DIR = "index"
IMPORT_LOCK = "import.lock"
CONTENT_STATE = "content"  # sources.state key: content_digest of what was imported
SIZE_STATE = "content_size"  # sources.state key: how many bytes the imported files held
CONTENT_BUDGET = 1 << 30  # bytes read for a content digest at most (beyond: none, read as changed)
# The content digest's kind, written before its hex digits ("xxh3_128:..."). XXH3 (128 bits, not a
# cryptographic hash: it tells a re-export from an edit, nobody forges exports against it) reads
# the 622 MB 1M chat.db in 0.08 s CPU against SHA-256's 0.42 s (with the CPU's SHA instructions).
# A digest a store recorded in an earlier kind is compared in that kind (DIGEST_KINDS), so an
# upgrade never turns an unchanged source into a changed one.
CONTENT_HASH = "xxh3_128"
DIGEST_KINDS = ("xxh3_128", "sha256")
READ_BLOCK = 1 << 20


class FileLock:
    """An OS advisory lock on a file: released by the kernel when the process dies."""

    def __init__(self, path: Path):
        self.path = path
        self.fd: int | None = None

    def acquire(self, wait: bool = True) -> bool:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            return False
        return True

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


# A database given as one file keeps its newest writes beside it while its app runs (SQLite's
# write-ahead log: Messages' chat.db-wal); the importers read them, so they count as its content.
# (A -shm file is an index every reader writes to, not content: left out in folders too.)
SIDECARS = ("-wal",)
READER_FILES = ("-shm",)


# a source's resolved path and the files under it, listed once for its fingerprint, size and digest
Listing = tuple[Path, list[Path]]


def _files(path: Path) -> Listing:
    root = path.resolve()  # the same files, however the path was typed or reached
    if root.is_file():
        return root, [root, *(side for suffix in SIDECARS
                              if (side := root.with_name(root.name + suffix)).is_file())]
    found: list[str] = []
    _walk_files(str(root), found)
    return root, sorted(map(Path, found))


def _walk_files(folder: str, found: list[str]) -> None:
    """The regular files under `folder`, told apart by the folder's own listing (no stat per
    entry: a Meta download is a few hundred thread folders, each listed for every check).
    Links inside a folder are not imported (importers.find_sources), so not looked at."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _walk_files(entry.path, found)
        elif entry.is_file(follow_symlinks=False) and not entry.name.endswith(READER_FILES):
            found.append(entry.path)


def _name(root: Path, f: Path) -> str:
    """How a file under a source is named in its digests: "" for the source itself."""
    return "" if f == root else f.relative_to(root).as_posix() if f.is_relative_to(root) else f.name


def fingerprint(path: Path, platform: str, options: Mapping[str, Any] | None,
                listed: Listing | None = None) -> str:
    """What tells a source changed: the size and modification time of every file under
    `path`, its platform and the import options (as recorded with the source)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(json.dumps({"platform": platform, **(options or {})}, sort_keys=True, default=str).encode())
    root, files = listed or _files(path)
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        name = _name(root, f)
        h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _new_hash(kind: str) -> Any:
    if kind == "xxh3_128":
        import xxhash  # only when a digest is made: the unchanged check needs none

        return xxhash.xxh3_128()
    return hashlib.new(kind)


def _file_digest(fh: Any, kind: str) -> bytes:
    if kind != "xxh3_128":
        return hashlib.file_digest(fh, kind).digest()
    h = _new_hash(kind)
    buf = bytearray(READ_BLOCK)
    view = memoryview(buf)
    while n := fh.readinto(buf):
        h.update(view[:n])
    return h.digest()


def _read_digest(fh: Any, kind: str) -> bytes | None:
    if kind != "xxh3_128":
        return None
    return read_digests.take(os.fstat(fh.fileno()))


def digest_kind(recorded: object) -> str:
    """The kind of a recorded content digest ("sha256:..." -> "sha256"); CONTENT_HASH for one
    of no kind this version makes (it will not match, and the source is read once)."""
    kind = recorded.partition(":")[0] if isinstance(recorded, str) else ""
    return kind if kind in DIGEST_KINDS else CONTENT_HASH


def content_digest(path: Path, options: dict, kind: str = CONTENT_HASH,
                   listed: Listing | None = None) -> str | None:
    """The bytes of every file under `path` (names and options too), as "<kind>:<hex>", or None
    beyond CONTENT_BUDGET: a re-export with only new modification times is then seen as
    unchanged for about 0.02 s of CPU per 100 MB, instead of being read and compared whole."""
    h = _new_hash(kind)
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    root, files = listed or _files(path)
    budget = CONTENT_BUDGET
    for f in files:
        try:
            budget -= f.stat().st_size
            if budget < 0:
                return None
            h.update(f"{_name(root, f)}\0".encode())
            with f.open("rb") as fh:
                read = _read_digest(fh, kind)  # the importer's read of it, when it made one
                h.update(read if read is not None else _file_digest(fh, kind))
        except OSError:
            return None
    return f"{kind}:{h.hexdigest()}"


def total_size(path: Path, listed: Listing | None = None) -> int:
    """The bytes of every file under `path` (as the digests see them)."""
    size = 0
    for f in (listed or _files(path))[1]:
        try:
            size += f.stat().st_size
        except OSError:
            pass
    return size


class Digesting:
    """A content digest made in a thread of its own (reading and hashing let other threads
    run): for a source that changed for sure, the digest is only kept for the next import, so
    it need not hold the import up. `after_read`: made when asked for, after the import, from
    the digest its importer made on its own read of the file (`chatmem.read_digests`), not by reading
    the file a second time beside it."""

    def __init__(self, path: Path, options: dict, listed: Listing | None = None,
                 after_read: bool = False) -> None:
        self.digest: str | None = None
        self._thread = threading.Thread(target=self._run, args=(path, options, listed), daemon=True)
        if not after_read:
            self._thread.start()

    def _run(self, path: Path, options: dict, listed: Listing | None) -> None:
        try:
            self.digest = content_digest(path, options, listed=listed)
        except Exception:  # noqa: BLE001 - no digest is only a slower next re-export
            self.digest = None

    def result(self) -> str | None:
        if self._thread.ident is None:  # after the import: made here, once
            self._thread.start()
        self._thread.join()
        return self.digest


class Known(NamedTuple):
    """What the store recorded of a source's last import."""

    id: int
    fingerprint: str | None  # None: a chat of it was forgotten, the next import reads it all
    state: dict[str, Any]
    imported_at: datetime | None


@dataclass
class Check:
    fingerprint: str
    size: int = 0  # the bytes of its files, when the fingerprint did not settle it
    content: str | None = None  # the content digest, when the fingerprint did not settle it
    digesting: Digesting | None = None  # or the digest being made, when the size settled it
    notes: list[str] = field(default_factory=list)  # set when unchanged: what the report says
    refresh: bool = False  # the same bytes under new times: remember the new fingerprint

    @property
    def unchanged(self) -> bool:
        return bool(self.notes)

    def digest(self) -> str | None:
        """The content digest (waiting for it when it is being made)."""
        return self.digesting.result() if self.digesting is not None else self.content


def check_source(path: Path, platform: str, options: dict[str, Any], known: Known | None,
                 force: bool = False, reads_whole: bool = False) -> Check:
    """Whether `path` is unchanged since `known` was recorded: same sizes and times (nothing
    read), else the same bytes (read once, digested). When the bytes cannot decide it (a new
    source, --force, another total size than the last import recorded), the digest kept for next
    time is made meanwhile, in a thread (`Check.digest()`), not before the import; or, for a
    source of one file that its importer reads whole (`reads_whole`: it hands over the file's
    digest, `chatmem.read_digests`), after it, from that read."""
    when = f"{known.imported_at:%Y-%m-%d %H:%M}" if known is not None and known.imported_at else "?"
    listed = _files(path)
    check = Check(fingerprint(path, platform, options, listed))
    if known is not None and known.fingerprint == check.fingerprint and not force:
        check.notes.append(f"unchanged since it was imported on {when} UTC; --force reads it again")
        return check
    check.size = total_size(path, listed)
    digest_options = {"platform": platform, **options}
    # (a source whose fingerprint was cleared, e.g. by forget, is read again on purpose)
    if (known is None or force or not known.fingerprint or not known.state.get(CONTENT_STATE)
            or known.state.get(SIZE_STATE) not in (None, check.size)):
        one_file = listed[1] == [listed[0]]
        check.digesting = Digesting(path, digest_options, listed,  # read whatever its bytes say
                                    after_read=reads_whole and one_file)
        return check
    # (in the kind the store recorded: a digest an earlier version made still matches)
    recorded = known.state.get(CONTENT_STATE)
    check.content = content_digest(path, digest_options, digest_kind(recorded), listed)
    if check.content is not None and recorded == check.content:
        check.refresh = True
        check.notes.append(f"the same content as imported on {when} UTC (only its time changed); "
                           "--force reads it again")
    return check


def option_record(timezone: object, date_format: str | None, chat: str | None,
                  owner_names: Iterable[str]) -> dict[str, Any]:
    """The import options as recorded with a source (part of its fingerprint)."""
    return {"timezone": str(timezone), "date_format": date_format, "chat": chat,
            "owner_names": list(owner_names)}


def index_state(home: Path) -> dict[str, Any]:
    try:
        state = json.loads((home / INDEX_DIR / INDEX_STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


# a folder's entries as the importers' `find_sources` walks them (it sets links aside)
Entries = Callable[[Path, list[Path]], list[Path]]


def unchanged_imports(home: Path, paths: Iterable[Path], platform: str | None,
                      options: dict[str, Any], entries: Entries) -> list[Report] | None:
    """The reports of an import of `paths` when every one is a source the SQLite store at `home`
    imported and none changed; None when anything needs the store itself (a path not imported
    as itself, one that changed, a store to upgrade, an index behind the database, another
    import running, another database): the caller then imports the usual way. A re-export (the
    same bytes, new times) has its new fingerprint remembered, as the long way would."""
    started = time.monotonic()
    db = home / SQLITE_FILE
    if not db.is_file() or not os.access(home, os.W_OK) or read_only_file(db):
        return None  # (a database made read-only: the long way says so, and writes nothing)
    lock = FileLock(home / IMPORT_LOCK)
    if not lock.acquire(wait=False):
        return None
    try:
        reports, refresh = _check_all(db, home, paths, platform, options, entries, started)
        if reports is not None and refresh:
            conn = sqlite3.connect(db, timeout=30, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("UPDATE sources SET fingerprint = ? WHERE id = ?", refresh)
                conn.execute("COMMIT")
            finally:
                conn.close()
        return reports
    except (sqlite3.Error, OSError, ValueError, TypeError):
        return None  # the long way says what is wrong, in its words
    finally:
        lock.release()


def _walk(conn: sqlite3.Connection, path: Path, platform: str | None, options: dict[str, Any],
          entries: Entries, started: float, reports: list[Report], refresh: list[tuple[str, int]]) -> bool:
    """Check `path` as `find_sources` would find it: the path itself when it was imported as a
    source, else (a folder) each entry of it the same way. False at the first thing that needs
    the long way: a file never imported (a new export, or one to report as not recognised), a
    symbolic link inside, a source that changed."""
    key = str(path.resolve())
    row = conn.execute("SELECT id, platform, fingerprint, state, imported_at FROM sources "
                       "WHERE path = ?", (key,)).fetchone()
    if row is None:
        if not path.is_dir():
            return False
        links: list[Path] = []
        children = entries(path, links)
        return not links and all(_walk(conn, child, platform, options, entries, started, reports, refresh)
                                 for child in children)
    if not row[2] or (platform is not None and platform != row[1]):
        return False
    state = json.loads(row[3]) if row[3] else {}
    known = Known(row[0], row[2], state if isinstance(state, dict) else {},
                  datetime.fromisoformat(row[4]) if row[4] else None)
    check = check_source(path, row[1], options, known)
    if not check.unchanged:
        return False
    if check.refresh:
        refresh.append((check.fingerprint, known.id))
    reports.append(Report(path=key, platform=row[1], status="unchanged", notes=check.notes,
                          seconds=time.monotonic() - started))
    return True


def _check_all(db: Path, home: Path, paths: Iterable[Path], platform: str | None,
               options: dict[str, Any], entries: Entries, started: float) -> tuple[list[Report] | None, list[tuple[str, int]]]:
    refresh: list[tuple[str, int]] = []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', 'seq')"))
        index = index_state(home)
        if (int(meta.get("schema_version", -1)) != SCHEMA_VERSION or index.get("version") != INDEX_VERSION
                or int(index.get("seq", 0)) < int(meta.get("seq", 0))):
            return None, refresh
        reports: list[Report] = []
        for given in paths:
            path = Path(given).expanduser()
            if not path.exists() or not _walk(conn, path, platform, options, entries, started, reports, refresh):
                return None, refresh
        return reports, refresh
    finally:
        conn.close()
