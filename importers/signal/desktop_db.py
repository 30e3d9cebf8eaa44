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
from collections.abc import Callable, Iterator
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
    except (OSError, sqlite3.Error, UnicodeDecodeError):
        return False


@dataclass
class Database:
    """An open Signal database: the connection, its tables, and the errors its driver raises."""

    conn: Any  # sqlite3.Connection or sqlcipher3's look-alike
    tables: set[str]
    errors: tuple[type[Exception], ...]  # sqlite3.DatabaseError (and sqlcipher3's)
    file: Path | None = None  # the plain file read as it is on disk (no -wal, not encrypted)


@contextmanager
def open_database(path: Path) -> Iterator[Database]:
    """The Signal database at `path`, read-only; FormatError when it cannot be read."""
    folder = signal_folder_of(path)
    db = folder / "sql" / "db.sqlite" if folder is not None else path
    encrypted = folder is not None and not has_sqlite_header(db)
    if not encrypted:
        _check_plain(db)
    connect, key, errors = (_sqlcipher(folder) if encrypted and folder is not None
                            else (sqlite3.connect, None, ()))
    # UnicodeDecodeError: a damaged schema whose error message SQLite writes in non-UTF-8 bytes
    errors = (sqlite3.DatabaseError, UnicodeDecodeError, *errors)
    conn, tmp = None, None
    try:
        conn, tmp = _open_read_only(db, connect)
        if key is not None:
            conn.execute(f"PRAGMA key = \"x'{key}'\"")
        try:
            tables = table_names(conn)
        except errors as e:
            if key is not None:
                raise FormatError(f"{db}: cannot decrypt with the key in config.json ({e})") from e
            raise FormatError(f"{path}: cannot read the database ({e})") from e
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            raise FormatError(
                f"{path}: not a Signal Desktop database (missing table {', '.join(missing)})"
            )
        plain = db.resolve() if key is None and tmp is None else None
        yield Database(conn, tables, errors, plain)
    finally:
        if conn is not None:
            conn.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _connect_plain(path: Path) -> sqlite3.Connection:
    """Read-only and immutable: opening a WAL database even read-only would otherwise create
    -wal and -shm files next to it. (Unmerged writes are handled by `_open_read_only`.)"""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)


def _open_read_only(db: Path, connect: Callable[..., Any]) -> tuple[Any, str | None]:
    """A connection that never writes in `db`'s folder, and the private temp dir it needs.

    Writes not yet merged into the database (Signal running, or a crash) are in the -wal file,
    and reading them needs a writable -shm beside it: then a private copy of both is read.
    Otherwise the file is opened immutable, which creates nothing and works on read-only media.
    """
    wal = db.with_name(db.name + "-wal")
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            tmp = tempfile.mkdtemp(prefix="chatmem-signal-")
            try:
                shutil.copy2(db, Path(tmp) / db.name)
                shutil.copy2(wal, Path(tmp) / wal.name)
                return connect(str(Path(tmp) / db.name)), tmp
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
        return connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True), None
    except OSError as e:
        raise FormatError(f"{db}: cannot read it ({e.strerror or e})") from e


def _check_plain(path: Path) -> None:
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    if not has_sqlite_header(path):
        raise FormatError(
            f"{path}: not a plain SQLite database (an encrypted Signal database is read from "
            "the Signal folder that holds config.json and sql/db.sqlite)"
        )


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


def _sqlcipher(folder: Path) -> tuple[Callable[..., Any], str, tuple[type[Exception], ...]]:
    """sqlcipher3's connect, the key, and its error class; FormatError saying what to do."""
    key = _read_key(folder)
    try:
        import sqlcipher3  # optional extra: chatmem[sqlcipher]
    except ImportError:
        raise FormatError(
            f"{folder / 'sql' / 'db.sqlite'} is encrypted; {SQLCIPHER_HINT}"
        ) from None
    return sqlcipher3.connect, key, (sqlcipher3.DatabaseError,)
