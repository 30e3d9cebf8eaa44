"""Engine, schema creation and the schema version.

SQLite (the default) runs in WAL mode so readers never wait for an import; any other
SQLAlchemy URL (PostgreSQL is tested) works the same way.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import Connection, Engine, Row
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from chatmem.errors import StoreError

from .models import SCHEMA_VERSION, Base, Call, Message, Meta
from .quick import SQLITE_FILE
from .windows import keep_month_counts

BUSY_TIMEOUT_MS = 30_000
AUTOCHECKPOINT_PAGES = 1000  # SQLite's own default: a commit folds a log of more pages in
# indexes added to tables of schema 3 after it was released, made where missing
LATE_INDEXES = [ix for table in (Call.__table__, Message.__table__) for ix in table.indexes
                if ix.name in ("ix_calls_chat_time", "ix_calls_chat_seq", "ix_messages_chat_seq")]
WRITE_OPTION = "chatmem_write"  # execution option marking a connection that will write


def sqlite_url(home: Path) -> str:
    return f"sqlite:///{home / SQLITE_FILE}"


def sqlite_read_only_url(home: Path) -> tuple[str, str | None]:
    """The store's database opened for reading only, e.g. on read-only media: (url, a
    warning or None). Without a write-ahead log left behind it is opened immutable (no locks,
    no -shm file to create); with one, SQLite reads the log through its -shm index file where
    that file is there. Where it is not (and cannot be made), the database is read as it is,
    without the log's changes, and the warning says so."""
    db = home / SQLITE_FILE
    wal, shm = db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")
    read_only, immutable = f"sqlite:///file:{db}?mode=ro", "&immutable=1&uri=true"
    if not wal.exists() or wal.stat().st_size == 0:
        return read_only + immutable, None
    if shm.is_file() and os.access(shm, os.R_OK):
        return read_only + "&uri=true", None
    return read_only + immutable, (
        f"{wal} holds changes not yet merged into {db.name}, and the store folder is read-only, "
        f"so SQLite cannot make the {shm.name} file it needs to read them: they are not shown "
        "(open the store once where it can be written, and they are merged)")


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
            # The sqlite3 module's own transaction handling would start transactions late;
            # let SQLAlchemy emit BEGIN itself so a source's writes are one transaction.
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            if "mode=ro" not in url:  # a read-only database keeps the journal it has
                cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            # one transaction per source makes the WAL as big as the source; give the disk
            # back after the checkpoint instead of keeping a multi-GB -wal file around
            cur.execute("PRAGMA journal_size_limit=67108864")
            cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cur.execute("PRAGMA foreign_keys=OFF")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn):  # pragma: no cover - trivial
            # Writers take the write lock up front (BEGIN IMMEDIATE): a transaction that reads
            # first and writes later cannot wait for another writer in WAL mode, it fails at
            # once with "database is locked". Readers never block anyone.
            conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION) else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True)


def schema_version(engine: Engine, where: str) -> int | None:
    """The store's schema version, read without taking the write lock; None for a database
    without chatmem's tables. A database that cannot be opened at all is a StoreError naming
    `where`."""
    try:
        with engine.connect() as conn:
            row: Row[Any] | None = conn.execute(select(Meta.value).where(Meta.key == "schema_version")).first()
    except (SQLAlchemyError, DBAPIError) as e:
        reason = str(getattr(e, "orig", e))
        if "no such table" in reason or "not a database" in reason:
            return None
        raise StoreError(f"cannot read the store's database {where} ({reason})") from e
    return int(row[0]) if row is not None else None


def init_schema(engine: Engine) -> None:
    """Create missing tables and record (or check) the schema version."""
    try:
        with write_connection(engine) as conn:
            Base.metadata.create_all(conn)
            for ix in LATE_INDEXES:
                ix.create(conn, checkfirst=True)
            row: Row[Any] | None = conn.execute(select(Meta.value).where(Meta.key == "schema_version")).first()
            if row is None:
                conn.execute(Meta.__table__.insert(), [
                    {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                    {"key": "seq", "value": "0"},
                ])
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"this store was written by a newer chatmem (schema {row[0]}, "
                    f"this version reads {SCHEMA_VERSION}); upgrade chatmem"
                )
            elif int(row[0]) < SCHEMA_VERSION:
                migrate(conn, int(row[0]))
    except (SQLAlchemyError, DBAPIError) as e:
        raise StoreError(f"cannot open the database: {e.__class__.__name__}: {e.orig if hasattr(e, 'orig') else e}") from e


def ensure_indexes(engine: Engine) -> None:
    """Create the indexes a store written before them lacks (its tables exist, so `create_all`
    leaves them out). Reads are the same without them, only slower: a read-only store goes on
    without. One look at the schema when nothing is missing."""
    from sqlalchemy import inspect

    with engine.connect() as conn:
        found = inspect(conn)
        names = {ix["name"] for table in ("calls", "messages") for ix in found.get_indexes(table)}
    if any(ix.name not in names for ix in LATE_INDEXES):
        try:
            with write_connection(engine) as conn:
                for ix in LATE_INDEXES:
                    ix.create(conn, checkfirst=True)
        except (SQLAlchemyError, DBAPIError):
            pass  # e.g. another process holds the write lock past the timeout: next time


@contextmanager
def write_connection(engine: Engine, *, checkpoint: bool = True) -> Iterator[Connection]:
    """A transaction that holds the write lock from its first statement. Without `checkpoint`,
    its commit leaves the log to the caller (`checkpoint_deferred`)."""
    with engine.connect() as conn:
        conn.execution_options(**{WRITE_OPTION: True})
        with (nullcontext() if checkpoint else checkpoint_deferred(conn)), conn.begin():
            yield conn


@contextmanager
def checkpoint_deferred(conn: Connection) -> Iterator[None]:
    """On SQLite, the commits of `conn` inside leave the pages they wrote in the write-ahead
    log instead of copying them into the database file there and then (SQLite's automatic
    checkpoint): the caller folds them in with `Checkpoint` (an import: beside its index
    catch-up). The connection's automatic checkpoint is back afterwards (or the connection is
    dropped from the pool), so that every later write folds its log in as before."""
    raw = conn.connection.driver_connection
    if not isinstance(raw, sqlite3.Connection):
        yield
        return
    raw.execute("PRAGMA wal_autocheckpoint=0")
    try:
        yield
    finally:
        try:
            raw.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
        except sqlite3.Error:
            conn.invalidate()


class Checkpoint:
    """The write-ahead log folded into the SQLite database file in a thread of its own, while
    the caller goes on (an import's index catch-up, which mostly waits for Python while the
    checkpoint mostly waits for the disk); `wait()` before the caller returns. The checkpoint
    is SQLite's passive one, as its automatic checkpoint at a commit: it copies the committed
    pages that no reader still needs from the log, and whatever it leaves (a failure, another
    process reading an older state) the next commit or the last connection's close folds in.
    Nothing for a server database."""

    def __init__(self, engine: Engine):
        self._thread: threading.Thread | None = None
        if engine.dialect.name == "sqlite":
            self._thread = threading.Thread(target=self._run, args=(engine,), name="chatmem-checkpoint")
            self._thread.start()

    @staticmethod
    def _run(engine: Engine) -> None:
        with suppress(SQLAlchemyError, sqlite3.Error), engine.connect() as conn:
            raw = conn.connection.driver_connection  # (outside a transaction, as SQLite's own)
            if isinstance(raw, sqlite3.Connection):
                raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def migrate(conn, from_version: int) -> None:
    """Bring an older store up to SCHEMA_VERSION, one step at a time."""
    steps: dict[int, list[str | Callable[[Connection], None]]] = {
        # 1 -> 2: where each attachment's bytes are, and what the source says about it
        1: ["ALTER TABLE attachments ADD COLUMN present BOOLEAN",
            "ALTER TABLE attachments ADD COLUMN key TEXT",
            "ALTER TABLE attachments ADD COLUMN text TEXT",
            "ALTER TABLE attachments ADD COLUMN copied TEXT"],
        # 2 -> 3: the messages per chat and month are kept by the write paths, not by triggers
        # (which doubled an import's inserts): the triggers go, every chat's months are counted
        2: [keep_month_counts],
    }
    version = from_version
    while version < SCHEMA_VERSION:
        for step in steps.get(version, []):
            if isinstance(step, str):
                conn.execute(text(step))
            else:
                step(conn)
        version += 1
    conn.execute(Meta.__table__.update().where(Meta.key == "schema_version").values(value=str(version)))


def current_seq(conn) -> int:
    return int(conn.execute(select(Meta.value).where(Meta.key == "seq")).scalar_one())


def next_seq(conn) -> int:
    """Take the next ingest sequence number inside the caller's transaction."""
    seq = current_seq(conn) + 1
    conn.execute(Meta.__table__.update().where(Meta.key == "seq").values(value=str(seq)))
    return seq
