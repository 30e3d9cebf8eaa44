"""Finding and opening a Signal Desktop database, plain or SQLCipher-encrypted, read-only.

Accepted paths:
- a plain SQLite copy (e.g. from `sigtop export-database`) with tables conversations, messages
  and items;
- the Signal Desktop folder (`config.json` + `sql/db.sqlite`), or that `db.sqlite` itself:
  encrypted with the hex key in config.json, opened through the optional `sqlcipher3` module.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError

SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every plain SQLite file
REQUIRED_TABLES = ("conversations", "messages")
DETECT_TABLES = {"conversations", "messages", "items"}
HEX_KEY = re.compile(r"[0-9a-fA-F]{32,128}")

SQLCIPHER_HINT = (
    "install the sqlcipher extra (pip install 'chatmem[sqlcipher]') or make a plain copy with "
    "`sigtop export-database` and import that file"
)
KEYCHAIN_HINT = (
    "its key is sealed by the operating system's keychain (config.json has only "
    "'encryptedKey'), which chatmem cannot open; make a plain copy with "
    "`sigtop export-database` (it asks the keychain) and import that file"
)


def signal_folder_of(path: Path) -> Path | None:
    """The Signal Desktop folder when `path` is it or its `sql/db.sqlite`, else None."""
    if path.is_dir():
        folder = path
    elif path.name == "db.sqlite" and path.parent.name == "sql":
        folder = path.parent.parent
    else:
        return None
    if (folder / "config.json").is_file() and (folder / "sql" / "db.sqlite").is_file():
        return folder
    return None


def has_sqlite_header(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def table_names(conn: Any) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def column_names(conn: Any, table: str) -> list[str]:
    # table_xinfo also lists generated columns (SQLite 3.26+); we never select those by *.
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def detect_database(path: Path) -> bool:
    """A Signal Desktop folder, or a plain SQLite file with Signal's tables. Never raises."""
    try:
        if signal_folder_of(path) is not None:
            return True
        if not path.is_file() or not has_sqlite_header(path):
            return False
        conn = _connect_plain(path)
        try:
            return DETECT_TABLES <= table_names(conn)
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False


@dataclass
class Database:
    """An open Signal database: the connection, its tables, and the errors its driver raises."""

    conn: Any  # sqlite3.Connection or sqlcipher3's look-alike
    tables: set[str]
    errors: tuple[type[Exception], ...]  # sqlite3.DatabaseError (and sqlcipher3's)


@contextmanager
def open_database(path: Path) -> Iterator[Database]:
    """The Signal database at `path`, read-only; FormatError when it cannot be read."""
    folder = signal_folder_of(path)
    tmp: str | None = None
    errors: tuple[type[Exception], ...] = (sqlite3.DatabaseError,)
    try:
        if folder is not None and not has_sqlite_header(folder / "sql" / "db.sqlite"):
            conn, tmp, errors = _open_encrypted(folder)
        elif folder is not None:
            conn = _open_plain(folder / "sql" / "db.sqlite")  # already decrypted in place
        else:
            conn = _open_plain(path)
        try:
            tables = table_names(conn)
        except errors as e:
            conn.close()
            raise FormatError(f"{path}: cannot read the database ({e})") from e
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            conn.close()
            raise FormatError(
                f"{path}: not a Signal Desktop database (missing table {', '.join(missing)})"
            )
        try:
            yield Database(conn, tables, errors)
        finally:
            conn.close()
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _connect_plain(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def _open_plain(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    if not has_sqlite_header(path):
        raise FormatError(
            f"{path}: not a plain SQLite database (an encrypted Signal database is read from "
            "the Signal folder that holds config.json and sql/db.sqlite)"
        )
    conn = _connect_plain(path)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError:
        # A WAL database on read-only media cannot make its -shm file: read it as immutable.
        conn.close()
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    return conn


def _read_key(folder: Path) -> str:
    config_path = folder / "config.json"
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise FormatError(f"{config_path}: cannot read the Signal config ({e})") from e
    key = config.get("key") if isinstance(config, dict) else None
    if not key:
        db = folder / "sql" / "db.sqlite"
        if isinstance(config, dict) and config.get("encryptedKey"):
            raise FormatError(f"{db} is encrypted and {KEYCHAIN_HINT}")
        raise FormatError(f"{config_path}: no database key ('key') in the Signal config")
    if not isinstance(key, str) or not HEX_KEY.fullmatch(key):
        raise FormatError(f"{config_path}: the database key is not hexadecimal")
    return key


def _open_encrypted(folder: Path) -> tuple[Any, str | None, tuple[type[Exception], ...]]:
    """Open sql/db.sqlite with SQLCipher, never writing in the Signal folder."""
    db = folder / "sql" / "db.sqlite"
    key = _read_key(folder)
    try:
        import sqlcipher3  # optional extra: chatmem[sqlcipher]
    except ImportError:
        raise FormatError(f"{db} is encrypted; {SQLCIPHER_HINT}") from None
    tmp: str | None = None
    wal = db.with_name("db.sqlite-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        # Unmerged writes live in the -wal file, and reading them needs a writable -shm next to
        # it: read a private copy of both instead of touching the user's folder.
        tmp = tempfile.mkdtemp(prefix="chatmem-signal-")
        shutil.copy2(db, Path(tmp) / "db.sqlite")
        shutil.copy2(wal, Path(tmp) / "db.sqlite-wal")
        conn = sqlcipher3.connect(str(Path(tmp) / "db.sqlite"))
    else:
        conn = sqlcipher3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        conn.execute(f"PRAGMA key = \"x'{key}'\"")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlcipher3.DatabaseError as e:
        conn.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise FormatError(f"{db}: cannot decrypt with the key in config.json ({e})") from e
    return conn, tmp, (sqlite3.DatabaseError, sqlcipher3.DatabaseError)
