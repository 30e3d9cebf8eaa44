"""Opening the user's SQLite files read-only, with errors that say what to do."""

from __future__ import annotations

import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from chatmem.errors import FormatError

SQLITE_HEADER = b"SQLite format 3\x00"

FULL_DISK_ACCESS_HINT = (
    "on macOS, give the terminal (or app) running chatmem Full Disk Access in System Settings → "
    "Privacy & Security → Full Disk Access, or import a copy of the file"
)


def is_sqlite(path: Path) -> bool:
    """True when the file starts with the SQLite header (never raises)."""
    try:
        return sqlite_header(path)
    except OSError:
        return False


def sqlite_header(path: Path) -> bool:
    """True when the file starts with the SQLite header; OSError when it cannot be read."""
    with open(path, "rb") as f:
        return f.read(16) == SQLITE_HEADER


def check_readable(path: Path) -> None:
    """FormatError naming the file, with the Full Disk Access hint, when it cannot be read."""
    try:
        with open(path, "rb") as f:
            f.read(1)
    except PermissionError as e:
        raise FormatError(f"{path}: permission denied; {FULL_DISK_ACCESS_HINT}") from e
    except OSError as e:
        raise FormatError(f"{path}: cannot read it ({e.strerror or e})") from e


class _Connection(sqlite3.Connection):
    """A connection that removes its private copy of the database when closed."""

    private_copy: str | None = None
    file: Path | None = None  # the database file, when SQLite reads it as it is on disk

    def close(self) -> None:
        super().close()
        if self.private_copy:
            shutil.rmtree(self.private_copy, ignore_errors=True)
            self.private_copy = None


def _connect(uri: str) -> _Connection:
    conn = sqlite3.connect(uri, uri=True, factory=_Connection)
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def open_readonly(path: Path) -> _Connection:
    """A read-only connection that creates no file beside `path`; FormatError naming the file
    when it cannot be read.

    - No write-ahead log (a copy, a backup, Messages not running): opened `immutable`, which
      reads the file as it is, creates nothing and works on read-only media.
    - A live database (Messages running: -wal and -shm beside it): opened `mode=ro`, reading
      the latest writes through the existing -wal/-shm like any other reader, without copying
      a database that may be gigabytes.
    - A -wal without its -shm (a copied folder, a crash): reading it would create the -shm, so
      the database and its log are copied to a private temporary folder and read there.
    """
    resolved = path.resolve()
    wal = resolved.with_name(resolved.name + "-wal")
    shm = resolved.with_name(resolved.name + "-shm")
    uri = f"{resolved.as_uri()}?mode=ro"
    try:
        has_wal = wal.is_file() and wal.stat().st_size > 0
        if not has_wal:
            conn = _connect(uri + "&immutable=1")
            conn.file = resolved
            return conn
        if shm.is_file():
            return _connect(uri)
        tmp = tempfile.mkdtemp(prefix="chatmem-imessage-")
        try:
            shutil.copy2(resolved, Path(tmp) / resolved.name)
            shutil.copy2(wal, Path(tmp) / wal.name)
            conn = _connect(f"{(Path(tmp) / resolved.name).as_uri()}?mode=ro")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        conn.private_copy = tmp
        return conn
    except UnicodeDecodeError as e:  # a damaged schema: SQLite's own message is not UTF-8
        raise FormatError(f"{path}: not a readable SQLite database (damaged schema)") from e
    except sqlite3.DatabaseError as e:
        if "not a database" in str(e) or "malformed" in str(e):
            raise FormatError(f"{path}: not a readable SQLite database ({e})") from e
        raise FormatError(f"{path}: cannot open the database ({e}); {FULL_DISK_ACCESS_HINT}") from e
    except OSError as e:
        raise FormatError(
            f"{path}: cannot read it ({e.strerror or e}); {FULL_DISK_ACCESS_HINT}"
        ) from e


def translate(path: Path, error: sqlite3.Error | UnicodeDecodeError) -> FormatError:
    """A sqlite3 error met while reading, as a FormatError naming the file."""
    if isinstance(error, UnicodeDecodeError):  # damage SQLite reports in bytes that are not UTF-8
        return FormatError(f"{path}: cannot read the database (damaged: {error.reason})")
    hint = (
        f"; {FULL_DISK_ACCESS_HINT}" if sys.platform == "darwin" or "locked" in str(error) else ""
    )
    return FormatError(f"{path}: cannot read the database ({error}){hint}")


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
