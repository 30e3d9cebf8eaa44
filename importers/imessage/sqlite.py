"""Opening the user's SQLite files read-only, with errors that say what to do."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from urllib.parse import quote

from chatmem.errors import FormatError

SQLITE_HEADER = b"SQLite format 3\x00"

FULL_DISK_ACCESS_HINT = (
    "on macOS, give the terminal (or app) running chatmem Full Disk Access in System Settings → "
    "Privacy & Security → Full Disk Access, or import a copy of the file"
)


def is_sqlite(path: Path) -> bool:
    """True when the file starts with the SQLite header (never raises)."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_HEADER
    except OSError:
        return False


def _uri(path: Path, immutable: bool) -> str:
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return uri + "&immutable=1" if immutable else uri


def open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection; FormatError naming the file when it cannot be read.

    A database on read-only media in WAL mode cannot be opened with `mode=ro` alone (SQLite
    wants to create the -shm file next to it), so that case falls back to `immutable=1`.
    """
    last: Exception | None = None
    for immutable in (False, True):
        try:
            conn = sqlite3.connect(_uri(path, immutable), uri=True)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as e:
            last = e
            if "not a database" in str(e) or "malformed" in str(e):
                raise FormatError(f"{path}: not a readable SQLite database ({e})") from e
            if "locked" in str(e):
                break
    raise FormatError(
        f"{path}: cannot open the database ({last}); {FULL_DISK_ACCESS_HINT}"
    ) from last


def translate(path: Path, error: sqlite3.Error) -> FormatError:
    """A sqlite3 error met while reading, as a FormatError naming the file."""
    hint = (
        f"; {FULL_DISK_ACCESS_HINT}" if sys.platform == "darwin" or "locked" in str(error) else ""
    )
    return FormatError(f"{path}: cannot read the database ({error}){hint}")


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
