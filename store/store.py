"""The store: one database (SQLite by default) plus the Whoosh index derived from it."""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from chatmem import records as rec
from chatmem.config import Config, load_config, resolve_home
from chatmem.errors import ChatmemError, FormatError, StoreBusy, StoreError

from . import models as m
from .db import (
    SQLITE_FILE,
    WRITE_OPTION,
    Checkpoint,
    checkpoint_deferred,
    current_seq,
    init_schema,
    make_engine,
    sqlite_url,
    write_connection,
)
from .index import INDEX_TEXT_CHARS, FullTextIndex, IndexDoc, count_changed, documents
from .ingest import Ingest
from .permissions import (
    PRIVATE_DIR,
    create_private_file,
    make_private,
    permission_warnings,
    read_only_file,
)
from .quick import (
    CONTENT_STATE,
    IMPORT_LOCK,
    INDEX_DIR,
    SCHEMA_VERSION,
    SIZE_STATE,
    FileLock,
    Known,
    check_source,
    fingerprint,
    option_record,
)
from .reads import Reader
from .report import Report
from .vectors import VECTORS_DIR, VectorStore
from .writes import Writer

INDEX_LOCK = "index.lock"
GROUP_SECONDS = 1.0  # a several-source import commits its sources at least this often
CHATS_CHUNK = 500  # chat ids per IN (...) list


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _inserted_id(result: CursorResult) -> int:
    """The id the database gave the one row an INSERT wrote."""
    key = result.inserted_primary_key
    if key is None:  # not an INSERT of one row: a bug here, not the user's input
        raise StoreError("the database gave no id for a new row")
    return int(key[0])


# sources.state key: what a resumed import of the source must know is unchanged since its last
# import ({"seq": that ingest's number, "run": its run id, "chats": the chats it holds})
HELD_STATE = "held"
# sources.state keys that say nothing of where an importer resumes: kept by a whole read
# (every other key is an importer's: a `resume` state, iMessage's ROWID watermarks)
NOT_RESUME = ("chat_aliases", CONTENT_STATE, SIZE_STATE, HELD_STATE)


class Store:
    """Open with `Store.open(home)`; use as a context manager or call `close()`."""

    def __init__(self, home: Path, engine: Engine, config: Config):
        self.cut_short: list[str] = []  # messages indexed by their beginning only
        self.private_on_close = False  # set when opened to write (Store.open with create)
        self.warnings: list[str] = []  # e.g. other users can read the store (permissions.py)
        self.home = home
        self.engine = engine
        self.config = config
        self.index = FullTextIndex(home / INDEX_DIR)
        self.read_only = False  # opened from a folder it cannot write (reads only)
        self.index_busy = False  # another process was writing the index when we looked
        self.phase: str | None = None  # "database" or "index" while an import writes them
        self.vectors = VectorStore(home / VECTORS_DIR)
        # while `import_sources` imports several sources: each source's chat_aliases by platform
        # and path (read once, kept as each source lands) and the re-exported sources whose new
        # file times are to be remembered ((source id, fingerprint), written together at the end)
        self._aliases_of: dict[str, dict[str, Any]] | None = None
        self._refreshed: list[tuple[int, str | None]] | None = None
        self._last_ingest: Ingest | None = None  # the source before's, saved (see Ingest's `after`)
        self._several = False
        # while `import_sources` imports several sources: the write transaction they share (each
        # source in a savepoint of it), committed every GROUP_SECONDS, and when it began
        self._group: Connection | None = None
        self._group_began = 0.0
        # the write-ahead log of an import's last commit, folded into the database file in a
        # thread while the index catches up (db.Checkpoint)
        self._checkpoint: Checkpoint | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, home: str | os.PathLike | None = None, config: Config | None = None,
             url: str | None = None, catch_up: bool = True, *, create: bool = True,
             on_progress: Callable[..., None] | None = None) -> Store:
        """Open (with `create`, make) the store at `home`.

        A read (`create=False`) never makes a store, never takes the write lock and never
        waits for an import: it reads the database and the index as they are, catches the
        index up only when no import is writing it, and works from read-only media."""
        config = config or load_config()
        home = resolve_home(home)
        url = url or os.environ.get("CHATMEM_DATABASE_URL") or config.database
        if not create:
            return cls._open_for_reading(home, config, url, catch_up, on_progress)
        new = not home.exists()
        try:
            home.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
        except OSError as e:
            raise StoreError(f"cannot create the store folder {home}: {e.strerror}") from e
        if not os.access(home, os.W_OK):
            raise StoreError(f"the store folder {home} is read-only: imports and other changes "
                             "need a folder they can write (reads work from read-only media)")
        warnings = [] if new else permission_warnings(home)
        if url is None and read_only_file(home / SQLITE_FILE):
            raise StoreError(_read_only_database(home))
        if url is None:  # private before SQLite writes a byte (its -wal/-shm take this mode)
            create_private_file(home / SQLITE_FILE)
        engine = make_engine(url or sqlite_url(home))
        init_schema(engine)
        store = cls(home, engine, config)
        store.warnings = warnings
        store.private_on_close = True
        store.index.open()
        if new:
            make_private(home)
        if catch_up:
            store.catch_up_index(on_progress=on_progress)
        return store

    @classmethod
    def _open_for_reading(cls, home: Path, config: Config, url: str | None, catch_up: bool,
                          on_progress: Callable[..., None] | None) -> Store:
        from chatmem.errors import NoStore

        from .db import SQLITE_FILE, ensure_indexes, schema_version, sqlite_read_only_url

        if url is None and not (home / SQLITE_FILE).is_file():
            raise NoStore(f"no chatmem store at {home}: import an export first "
                          f"(`chatmem --home {home} import PATH`), or point --home or "
                          "CHATMEM_HOME at the store you imported into")
        writable = os.access(home, os.W_OK) and (url is not None or not read_only_file(home / SQLITE_FILE))
        warnings = permission_warnings(home)
        if url is None and not writable:
            url_ro, unmerged = sqlite_read_only_url(home)
            engine = make_engine(url_ro)
            warnings += [unmerged] if unmerged else []
        else:
            engine = make_engine(url or sqlite_url(home))
        version = schema_version(engine, engine.url.render_as_string(hide_password=True) if url
                                 else str(home / SQLITE_FILE))
        if version is None:
            engine.dispose()
            raise NoStore(f"{url or home / SQLITE_FILE} holds no chatmem store (no chatmem tables)")
        if version != SCHEMA_VERSION:
            if not writable:
                raise StoreError(f"the store at {home} was written by another chatmem version "
                                 f"(schema {version}) and is read-only, so it cannot be upgraded")
            init_schema(engine)  # upgrades (or refuses a newer store) under the write lock
        elif writable:
            ensure_indexes(engine)
        store = cls(home, engine, config)
        store.warnings = warnings
        store.read_only = not writable
        store.index.open(read_only=not writable)
        if catch_up and writable:
            store.catch_up_index(wait=False, on_progress=on_progress)
        elif not writable and store.index.seq < store.database_seq():
            store.warnings.append(f"the search index in {home} is behind the database, and the store "
                                  "is read-only, so it cannot catch up: search may miss the newest "
                                  "messages (open the store once where it can be written)")
        return store

    def _fold_log_in(self) -> None:
        """Wait for the checkpoint an import's last commit left running, if any."""
        checkpoint, self._checkpoint = self._checkpoint, None
        if checkpoint is not None:
            checkpoint.wait()

    def close(self) -> None:
        self._fold_log_in()
        self.index.close()
        self.engine.dispose()
        if self.private_on_close:
            # files other parts wrote meanwhile (vectors, media, state) private too, whatever
            # the umask: a command that may write leaves nothing readable by other users
            make_private(self.home)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read connection, with database errors translated; inside a several-source import,
        its transaction (what the sources before wrote is seen, not yet committed)."""
        if self._group is not None:
            try:
                yield self._group  # (its first statement takes the write lock: a write's errors)
            except OperationalError as e:
                raise StoreError(_explain_write_error(e, self.home)) from e
            return
        try:
            with self.engine.connect() as conn:
                yield conn
        except OperationalError as e:
            raise StoreError(f"the database could not be read: {e.orig}") from e

    @contextmanager
    def reader(self) -> Iterator[Reader]:
        """The read API (`store/reads.py`) over one read connection."""
        with self.read() as conn:
            yield Reader(self, conn)

    @contextmanager
    def writer(self) -> Iterator[Writer]:
        """The write API (`store/writes.py`) in one transaction; when it has committed and
        changed what the index shows, the index catches up."""
        with self.write() as conn:
            w = Writer(self, conn)
            yield w
        if w.changed_index:
            self.catch_up_index()
            self.catch_up_vectors()

    @contextmanager
    def write(self, *, checkpoint: bool = True) -> Iterator[Connection]:
        """A write transaction (committed on success, rolled back on any error); inside a
        several-source import, a savepoint of its transaction (released on success, rolled
        back on any error: the source lands whole with the next commit, or not at all).
        Without `checkpoint`, the commit leaves the write-ahead log to the caller's
        `Checkpoint` (db.write_connection)."""
        try:
            if self._group is not None:
                with self._group.begin_nested():
                    yield self._group
                return
            with write_connection(self.engine, checkpoint=checkpoint) as conn:
                yield conn
        except OperationalError as e:
            raise StoreError(_explain_write_error(e, self.home)) from e

    # ------------------------------------------------------------------ import
    @contextmanager
    def import_lock(self, wait: bool = True, on_wait: Callable[[], None] | None = None):
        lock = FileLock(self.home / IMPORT_LOCK)
        if not lock.acquire(wait=False):
            if not wait:
                raise StoreBusy(f"another chatmem import is running on {self.home}; try again when it ends")
            if on_wait:
                on_wait()
            lock.acquire(wait=True)
        try:
            yield
        finally:
            lock.release()

    def import_sources(self, sources: list[tuple[Path, rec.Importer]],
                       options: rec.ImportOptions | None = None, *, force: bool = False,
                       wait: bool = True, on_progress: Callable[..., None] | None = None,
                       on_wait: Callable[[], None] | None = None) -> list[Report]:
        """Import sources found by `chatmem.importers.find_sources`. One report per source, then
        one per symbolic link the folder walk did not follow and per file it did not recognise
        (status `skipped`)."""
        options = options or self.default_options()
        reports: list[Report] = []
        # several sources (a Meta download is one a thread): the index and the vectors catch up
        # once after them all, not after each (a few hundred small index commits, each merging
        # segments, cost more than the sources' own imports)
        several = len(sources) > 1
        with self.import_lock(wait=wait, on_wait=on_wait):
            if several:
                self._aliases_of, self._refreshed, self._several = {}, [], True
                self._begin_group()
            try:
                for src, importer in sources:
                    reports.append(self.import_source(src, importer, options, force=force,
                                                      on_progress=on_progress, index=not several))
                    if several and time.monotonic() - self._group_began >= GROUP_SECONDS:
                        self._commit_group(more=True)
                self._commit_group(more=False)
            except BaseException as e:
                with suppress(Exception):
                    self._commit_group(more=False)  # the sources that landed are saved
                if isinstance(e, Exception) and several and reports:  # and searchable
                    with suppress(Exception):
                        self._catch_up_after(reports, on_progress)
                self._fold_log_in()  # (the checkpoint of what was saved, when not waited for above)
                raise
            finally:
                self._aliases_of, self._last_ingest, self._several = None, None, False
                self._end_group()
            if several and reports:
                self._catch_up_after(reports, on_progress)
        for link in getattr(sources, "skipped_links", ()):
            reports.append(skipped_link_report(link))
        by_folder: dict[Path, list[Path]] = {}
        for file in getattr(sources, "skipped_files", ()):
            by_folder.setdefault(file.parent, []).append(file)
        for folder, files in by_folder.items():
            if len(files) <= 5:
                reports += [Report(path=str(f), platform="", status="skipped",
                                   notes=["not a chat export chatmem recognises (--platform says "
                                          "what a file is)"]) for f in files]
            else:  # a folder of photos, say: one line, not one per file
                names = ", ".join(f.name for f in files[:3])
                reports.append(Report(path=f"{folder}{os.sep}", platform="", status="skipped",
                                      notes=[f"{len(files):,} files not recognised as chat exports "
                                             f"(e.g. {names})"]))
        return reports

    def _begin_group(self) -> None:
        """One write transaction for the sources of a several-source import, each source in a
        savepoint of it: a download's grown threads paid a commit, a connection and a
        transaction's start each (~100 of them in a +1% of a 1M Messenger download)."""
        conn = self.engine.connect()
        conn.execution_options(**{WRITE_OPTION: True})  # BEGIN IMMEDIATE as it starts
        self._group, self._group_began = conn, time.monotonic()

    def _commit_group(self, more: bool) -> None:
        """Commit what the sources so far wrote (each source's rows with its state: a crash
        loses at most the sources since the last commit, and the next import reads them as it
        would have). Every GROUP_SECONDS, so that other writers (an agent's turns) and readers
        are not kept waiting by a long import; the write lock is let go in between."""
        conn = self._group
        if conn is None:
            return
        try:
            if conn.in_nested_transaction():  # interrupted inside a source's savepoint
                conn.rollback()
            else:
                self._remember_refreshed(more)
                if more:
                    conn.commit()
                else:  # the last commit: its log is folded in beside the index catch-up
                    with checkpoint_deferred(conn):
                        conn.commit()
                    self._checkpoint = Checkpoint(self.engine)
        except OperationalError as e:
            raise StoreError(_explain_write_error(e, self.home)) from e
        self._group_began = time.monotonic()
        if not more:
            self._end_group()

    def _end_group(self) -> None:
        conn, self._group = self._group, None
        if conn is not None:
            conn.close()  # (rolls back what was not committed)

    def _remember_refreshed(self, more: bool) -> None:
        """The new file times of the re-exported sources of a several-source import, written
        with the group's commit (a download's threads all get new times: one commit each cost
        more than their check). Lost in a crash, they cost only a digest of those sources next
        time. `more`: sources are still to come."""
        refreshed, self._refreshed = self._refreshed, [] if more else None
        if refreshed:
            st = m.Source.__table__
            with self.write() as conn:
                conn.execute(st.update().where(st.c.id == bindparam("b_id"))
                             .values(fingerprint=bindparam("b_fp")),
                             [{"b_id": i, "b_fp": fp} for i, fp in refreshed])

    def _catch_up_after(self, reports: list[Report], on_progress: Callable[..., None] | None) -> None:
        """The index and vectors after several sources; a note on the last report as
        `import_source` makes one."""
        started = time.monotonic()
        try:
            self.catch_up_index(on_progress=on_progress)
            self.catch_up_vectors(on_progress)
        finally:
            self._fold_log_in()
        self._note_cut_short(reports[-1])
        reports[-1].seconds += time.monotonic() - started

    def _note_cut_short(self, report: Report) -> None:
        if self.cut_short:
            report.notes.append(
                f"{len(self.cut_short)} message(s) longer than {INDEX_TEXT_CHARS:,} characters: "
                f"stored whole, searchable by their first {INDEX_TEXT_CHARS:,} characters")
            self.cut_short = []

    def default_options(self) -> rec.ImportOptions:
        return rec.ImportOptions(timezone=self.config.timezone,
                                 owner_names=list(self.config.owner_names),
                                 owner_handles=list(self.config.owner_handles),
                                 default_region=self.config.region)

    def import_source(self, path: Path, importer: rec.Importer, options: rec.ImportOptions,
                      *, force: bool = False, on_progress: Callable[..., None] | None = None,
                      keep_forgotten: bool = False, index: bool = True) -> Report:
        """One source, one transaction: all of it lands, or none of it. Without `index`, the
        search index and vectors are left for the caller to catch up."""
        started = time.monotonic()
        key = str(path.resolve())
        opt_record = option_record(options.timezone, options.date_format, options.chat, options.owner_names)
        report = Report(path=key, platform=importer.platform)
        st = m.Source.__table__
        with self.read() as conn:
            known = conn.execute(select(st).where(st.c.path == key)).first()
        check = check_source(path, importer.platform, opt_record, None if known is None else Known(
            known.id, known.fingerprint, known.state or {}, known.imported_at), force=force,
            reads_whole=getattr(importer, "reads_whole", False))
        fp: str | None = check.fingerprint
        if check.unchanged and known is not None:
            if check.refresh and self._refreshed is not None:  # several sources: at the end
                self._refreshed.append((known.id, fp))
            elif check.refresh:
                with self.write() as conn:  # the same bytes with new times: remember the new times
                    conn.execute(st.update().where(st.c.id == known.id).values(fingerprint=fp))
            report.status = "unchanged"
            report.notes += check.notes
            report.seconds = time.monotonic() - started
            return report
        state = dict(known.state or {}) if known is not None else {}
        if force or (known is not None and not known.fingerprint):
            # read it all again, not only what is new since the last import (a cleared
            # fingerprint: a chat of it was forgotten, and an import on purpose brings it back)
            state = _whole(state)
        elif known is None:  # a newer export under a new name: compare with the last one's import
            earlier = self._earlier_export(importer.platform, path.resolve(),
                                           same_name_only=getattr(importer, "same_name_only", False))
            if earlier is not None:
                state[rec.RESUME_STATE] = earlier[1]
                report.notes.append(f"a newer export of {earlier[0]}: compared with its last import")
                state[HELD_STATE] = self._held(earlier[0])
        if any(k not in NOT_RESUME for k in state):
            why = self._changed_elsewhere(state.get(HELD_STATE), key if known is not None else None)
            if why:  # what it skips may no longer be what the store has: a whole read decides
                state = _whole(state)
                report.notes.append(f"read whole: {why}")
        shared = self._shared_aliases(importer.platform, key)
        if shared:
            state["chat_aliases"] = {**shared, **(state.get("chat_aliases") or {})}
        run_options = replace(options, state=state)
        self.phase = "database"
        after, self._last_ingest = self._last_ingest, None
        try:
            # (with the index caught up here, the commit's checkpoint runs beside it)
            with self.write(checkpoint=not index) as conn:
                runs = m.ImportRun.__table__
                run_id = _inserted_id(conn.execute(runs.insert().values(
                    path=key, platform=importer.platform, started_at=_utcnow(), status="running",
                    report={})))
                ingest = Ingest(conn, report, run_id, on_progress, run_options, after=after)
                from .forget import forgotten_chats, remember_again

                records = importer.read(path, run_options)
                forgotten = forgotten_chats(conn)
                met: set[str] = set()
                if forgotten:  # `sync` leaves forgotten chats out; an import on purpose brings them back
                    records = _forgotten_left_out(records, forgotten, keep_forgotten, met)
                ingest.feed(records)
                if met and not keep_forgotten:
                    remember_again(conn, met)
                if met and keep_forgotten:
                    fp = None  # the next import on purpose reads it again, to bring them back
                if ingest.records == 0:
                    raise FormatError(f"{path}: found nothing to import (an empty file, or not "
                                      f"a {importer.platform} export?)")
                held = state.get(HELD_STATE) if any(k not in NOT_RESUME for k in state) else None
                state = dict(ingest.state.state if ingest.state else (known.state if known else {}))
                state[CONTENT_STATE], state[SIZE_STATE] = check.digest(), check.size
                chats = set(held.get("chats") or ()) if isinstance(held, dict) else set()
                state[HELD_STATE] = {"seq": ingest.seq, "run": run_id,
                                     "chats": sorted(chats | ingest.touched_chats)}
                report.run_id = run_id
                report.seconds = time.monotonic() - started
                values = {"platform": importer.platform, "options": opt_record, "fingerprint": fp,
                          "state": state, "last_run_id": run_id, "imported_at": _utcnow()}
                if known is None:
                    source_id = _inserted_id(conn.execute(st.insert().values(path=key, **values)))
                else:
                    source_id = known.id
                    conn.execute(st.update().where(st.c.id == known.id).values(**values))
                conn.execute(runs.update().where(runs.c.id == run_id).values(
                    source_id=source_id, finished_at=_utcnow(), status="ok", report=report.as_dict()))
            if self._several:  # committed: the next source's ingest may take its people over
                self._last_ingest = ingest
            kept_aliases = (self._aliases_of or {}).get(importer.platform)
            if kept_aliases is not None:  # known to the next sources once this one is saved
                kept_aliases[key] = state.get("chat_aliases")
        except ChatmemError:
            raise
        except (SQLAlchemyError, DBAPIError) as e:
            raise StoreError(f"{path}: the import was rolled back: {_explain_write_error(e, self.home)}") from e
        except (UnicodeDecodeError, OSError) as e:
            raise FormatError(f"{path}: cannot read it: {e}") from e
        except sqlite3.Error as e:
            # the store's own errors arrive wrapped by SQLAlchemy: a bare sqlite3 error comes from
            # an importer reading a damaged source database (each importer translates its own;
            # this keeps a new importer's miss from becoming a traceback)
            raise FormatError(f"{path}: cannot read the database ({e})") from e
        self.phase = None  # the source is saved (left "database" if interrupted before)
        if index:
            # the ingest's maps and filter (~5 MB at a million messages) let go of before the
            # index build, whose peak is the import's
            del ingest, records
            if self._group is None:
                self._checkpoint = Checkpoint(self.engine)
            try:
                self.catch_up_index(on_progress=on_progress)
                self.catch_up_vectors(on_progress)
            finally:
                self._fold_log_in()
            self._note_cut_short(report)
        report.seconds = time.monotonic() - started
        return report

    def _earlier_export(self, platform: str, path: Path, *,
                        same_name_only: bool = False) -> tuple[str, dict[str, Any]] | None:
        """(path, resume state) of the last import of an export of the same platform and name
        (digits aside, unless `same_name_only`: an importer whose sources' names tell them apart
        by their digits, as Meta's thread folders t_8 and t_80) whose resume state stays right
        under another name (rec.PORTABLE)."""
        st = m.Source.__table__

        def shape(name: str) -> str:
            return re.sub(r"\d+", "#", name)

        names = {path.name: 0} if same_name_only else {path.name: 0, shape(path.name): 1}
        # (the same name first, then the same shape)
        found: list[tuple[int, float, str, dict[str, Any]]] = []
        with self.read() as conn:
            # (not one with a chat forgotten since: its fingerprint is cleared, and the next
            # import on purpose must give every message to bring the chat back)
            for other, state, when in conn.execute(select(st.c.path, st.c.state, st.c.imported_at)
                                                   .where(st.c.platform == platform,
                                                          st.c.fingerprint.is_not(None))):
                resume = (state or {}).get(rec.RESUME_STATE)
                name = Path(other).name
                rank = names.get(name, names.get(shape(name)))
                if isinstance(resume, dict) and resume.get(rec.PORTABLE) and when and rank is not None:
                    found.append((rank, -when.timestamp(), other, resume))
        best = min(found, key=lambda f: f[:2], default=None)
        return (best[2], best[3]) if best is not None else None

    def _held(self, path: str) -> dict[str, Any] | None:
        """What the last import of the source at `path` held (HELD_STATE)."""
        st = m.Source.__table__
        with self.read() as conn:
            state = conn.execute(select(st.c.state).where(st.c.path == path)).scalar()
        return (state or {}).get(HELD_STATE)

    def _changed_elsewhere(self, held: Any, own: str | None) -> str | None:
        """Why a resumed import cannot skip what its last import (`held`) left unchanged: a
        message or call it had, in one of its chats, that another import changed since (an
        edit, a deletion, a merge), so that reading it again may change what the store shows;
        None when nothing did. `own` is the source's path (None for a newer export under
        another name: every import of its earlier export counts as another's then, and so
        does any message that export completed, which this one would complete again)."""
        if not isinstance(held, dict) or not isinstance(held.get("seq"), int) or held.get("run") is None:
            return "the last import did not record what it held"
        runs = m.ImportRun.__table__
        with self.read() as conn:
            mine = [r for r, in conn.execute(select(runs.c.id).where(runs.c.path == own))] if own else []
            chats = set(held.get("chats") or ())
            for table in (m.Message.__table__, m.Call.__table__):
                # rows written by a later import that were there at the last one (inserted by
                # a run up to its own), not by this source itself
                rows = _written_since(conn, table, held["seq"], held["run"], chats)
                if any(chat in chats and run not in mine for chat, run in rows):
                    return ("another export changed messages of its chats since its last import "
                            "(the whole export is compared)")
            if own is None:
                donor = conn.execute(select(runs.c.path).where(runs.c.id == held["run"])).scalar()
                rs = m.RecordSource.__table__
                if donor and conn.execute(select(rs.c.record_id).where(rs.c.origin == donor).limit(1)).first():
                    return ("the earlier export completed messages another export had; this one "
                            "is a source of them too (the whole export is compared)")
        return None

    def _shared_aliases(self, platform: str, path: str) -> dict[str, str]:
        """Chat names learned from every other export of this platform (a group renamed since
        one export keeps its chat in the next, even when that export no longer shows the rename)."""
        st = m.Source.__table__
        out: dict[str, str] = {}
        kept = None if self._aliases_of is None else self._aliases_of.get(platform)
        if kept is None:
            kept = {}
            with self.read() as conn:
                # only that key of each state: a download of a few hundred threads keeps a state a
                # thread (its blocks' digests), each decoded whole per thread otherwise
                for other, aliases in conn.execute(select(st.c.path, st.c.state["chat_aliases"])
                                                   .where(st.c.platform == platform).order_by(st.c.id)):
                    kept[other] = aliases
            if self._aliases_of is not None:  # several sources: read once, kept as each lands
                self._aliases_of[platform] = kept
        for other, aliases in kept.items():
            if other != path and isinstance(aliases, dict):
                out.update(aliases)
        return out

    # ------------------------------------------------------------------ index
    def catch_up_index(self, *, wait: bool = True,
                       on_progress: Callable[..., None] | None = None) -> int:
        """Index every message and call changed since the index's own `seq`. Without `wait`,
        an index another process is writing right now is left to it (-1: the reads answer
        from what is indexed already). `on_progress(n, total)` as documents are written."""
        with self.read() as conn:
            db_seq = current_seq(conn)
        if self.index.seq >= db_seq or self.read_only:  # read-only: said once when opened
            return 0
        lock = FileLock(self.home / INDEX_LOCK)
        if not lock.acquire(wait=wait):
            self.index_busy = True
            return -1
        try:
            self.index.refresh()
            since = self.index.seq
            if since >= db_seq:
                return 0
            fresh = self.index.doc_count() == 0
            with self.read() as conn:
                expected = count_changed(conn, since)
                languages = self.index.languages()
                self.cut_short = []
                docs = documents(conn, since, languages, self.cut_short)
                if on_progress is not None:
                    on_progress(0, expected, phase="updating the search index")
                    docs = _counted(docs, on_progress, expected)
                self.phase = "index"  # left set if this is interrupted: see interrupt_note
                try:
                    written = self.index.write(docs, db_seq, fresh=fresh, expected=expected,
                                               languages=languages)
                    self.phase = None
                    return written
                except OSError as e:
                    raise StoreError(
                        f"the search index in {self.index.folder} could not be written "
                        f"({e.strerror or e}); the database is complete, and the index will catch "
                        "up the next time the store is opened with room to write") from e
        finally:
            lock.release()

    def forget(self, chat_id: str | None = None, source_path: str | None = None) -> dict[str, int]:
        """Remove a chat, or what one source brought; the index follows at once."""
        from .forget import forget_chat, forget_source

        st = m.Source.__table__
        with self.import_lock(wait=False), self.write() as conn:
            if chat_id is not None:
                gone = forget_chat(conn, chat_id)
            else:
                source = conn.execute(select(st.c.id).where(st.c.path == source_path)).scalar()
                if source is None:
                    raise StoreError(f"no imported source at {source_path}")
                gone = forget_source(conn, source)
        self.index.delete(gone.record_ids)
        self.vectors.remove(gone.record_ids)  # search by meaning forgets them too
        return {"chats": len(gone.chats), "messages": gone.messages, "calls": gone.calls}

    def sync_preview(self) -> list[dict[str, str]]:
        """What `chatmem sync` would do with each known source, without reading any:
        "unchanged", "changed" (it would be read again) or "missing"."""
        st = m.Source.__table__
        with self.read() as conn:
            sources = conn.execute(select(st).order_by(st.c.id)).all()
        out = []
        for src in sources:
            path = Path(src.path)
            if not path.exists():
                status = "missing"
            else:
                fp = fingerprint(path, src.platform, src.options)
                status = "unchanged" if fp == src.fingerprint else "changed"
            out.append({"path": src.path, "platform": src.platform, "status": status,
                        "imported": f"{src.imported_at:%Y-%m-%d %H:%M} UTC" if src.imported_at else ""})
        return out

    def database_seq(self) -> int:
        with self.read() as conn:
            return current_seq(conn)

    def interrupt_note(self) -> str:
        """What is true when the user interrupts now (Ctrl-C)."""
        if self.phase == "index":
            return ("interrupted while updating the search index; every message is saved, and the "
                    "index catches up the next time chatmem opens this store")
        if self.phase == "database":
            return ("interrupted; nothing of the source being imported was written (sources "
                    "finished before it are saved)")
        return "interrupted"

    def reindex(self) -> int:
        """Rebuild the index from the database."""
        lock = FileLock(self.home / INDEX_LOCK)
        lock.acquire(wait=True)
        try:
            self.index.clear()
            self.vectors.clear()
        finally:
            lock.release()
        n = self.catch_up_index()
        self.catch_up_vectors()
        return n

    def merge_index(self) -> tuple[int, int]:
        """Merge the search index's small segments into full ones, without reading the database
        (`index.FullTextIndex.merge`); returns the segments before and after."""
        lock = FileLock(self.home / INDEX_LOCK)
        lock.acquire(wait=True)
        try:
            return self.index.merge()
        except OSError as e:
            raise StoreError(f"the search index in {self.index.folder} could not be merged "
                             f"({e.strerror or e}); it is as it was before") from e
        finally:
            lock.release()

    def catch_up_vectors(self, on_progress: Callable[..., None] | None = None) -> int:
        """Embed every message changed since the vectors' own `seq` (search by meaning);
        nothing without the semantic extra. Returns how many were embedded."""
        from .embedder import available, load_embedder, model_name
        from .vectors import count_since, rows_since

        if self.read_only or not available():
            return 0
        lock = FileLock(self.home / INDEX_LOCK)  # one writer of derived data at a time
        lock.acquire(wait=True)
        try:
            if not self.vectors.made_by(model_name()):  # an older model's: made again
                self.vectors.clear()
            with self.read() as conn:
                db_seq, since = current_seq(conn), self.vectors.seq
                if since >= db_seq:
                    return 0
                embedder = load_embedder()
                total = count_since(conn, since) if on_progress is not None else 0
                if on_progress is not None:
                    on_progress(0, total, phase=f"embedding {total:,} messages for search by meaning")

                def progress(n: int) -> None:
                    if on_progress is not None:
                        on_progress(n, total)

                try:
                    return self.vectors.add(rows_since(conn, since), db_seq, embedder.embed,
                                            embedder.name, on_progress=progress)
                except OSError as e:
                    raise StoreError(f"the vectors in {self.vectors.folder} could not be written "
                                     f"({e.strerror or e}); `chatmem reindex` rebuilds them") from e
        finally:
            lock.release()

    def display_names(self, conn: Connection) -> PersonNames:
        """person id -> name to show, looked up as asked and cached until the database
        changes (a new ingest seq). Loading every person up front cost ~15 ms at a million
        messages on the first call after each import."""
        seq = current_seq(conn)
        if getattr(self, "_names_seq", None) != seq:
            self._names: dict[str, str | None] = {}
            self._names_seq = seq
        return PersonNames(self, self._names)

    def mark_changed(self, conn: Connection, message_ids: list[str]) -> None:
        """Bump `seq` of some messages so the index picks them up (e.g. agent turns)."""
        from .db import next_seq

        seq = next_seq(conn)
        mt = m.Message.__table__
        conn.execute(mt.update().where(mt.c.id.in_(message_ids)).values(seq=seq))


class PersonNames(Mapping):
    """A read-only mapping person id -> name that fetches (and caches) names on first use."""

    def __init__(self, store: Store, cache: dict[str, str | None]):
        self.store = store
        self.cache = cache

    def _load(self, pid: str) -> str | None:
        if pid not in self.cache:
            pt = m.Person.__table__
            with self.store.read() as conn:  # usable after the caller's connection closed
                self.cache[pid] = conn.execute(select(pt.c.name).where(pt.c.id == pid)).scalar()
        return self.cache[pid]

    def __getitem__(self, pid: str) -> str:
        name = self._load(pid) if isinstance(pid, str) else None
        if name is None:
            raise KeyError(pid)
        return name

    def __contains__(self, pid: object) -> bool:
        return isinstance(pid, str) and self._load(pid) is not None

    def __iter__(self):
        return iter(k for k, v in self.cache.items() if v is not None)

    def __len__(self) -> int:
        return sum(1 for v in self.cache.values() if v is not None)


def _forgotten_left_out(records: Iterable[rec.Record], forgotten: set[str], leave_out: bool,
                        met: set[str]) -> Iterator[rec.Record]:
    """The records (less those of forgotten chats when `leave_out`), noting in `met` the
    forgotten chats this source holds."""
    for r in records:
        chat = r.id if isinstance(r, rec.Chat) else getattr(r, "chat_id", None)
        if chat is not None and chat in forgotten:
            met.add(chat)
            if leave_out:
                continue
        yield r


def _counted(docs: Iterable[IndexDoc], on_progress: Callable[..., None], total: int) -> Iterator[IndexDoc]:
    for n, doc in enumerate(docs, 1):
        if n % 500 == 0:
            on_progress(n, total)
        yield doc


def skipped_link_report(link: Path) -> Report:
    """The report line for a symbolic link met inside a folder and not followed."""
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    return Report(path=str(link), platform="", status="skipped",
                  notes=[f"a symbolic link (to {target}); links inside a folder are not followed, "
                         "so an import never leaves the folder or goes round in circles; name the "
                         "link on the command line to import what it points to"])


def _written_since(conn: Connection, table: Any, seq: int, run: int, chats: set[str]) -> Iterable[tuple[str, int]]:
    """(chat, run) of the rows of `table` (messages or calls) that an ingest after `seq` wrote
    and a run up to `run` had inserted, at least those in `chats`.

    Read along the (chat, seq) index, a range per chat, so that only rows written since are
    passed: a download of hundreds of threads is a source a thread, the threads imported after
    this one's last import are most of the store (along the seq index), and a long thread's own
    rows (along the chat's time index) are read one by one for their seq and run (0.43 s of a
    1M Messenger +1%, 851k rows for 104 grown threads)."""
    since = select(table.c.chat_id, table.c.run_id).where(table.c.seq > seq, table.c.run_id <= run)
    if not chats:
        return conn.execute(since)
    listed = sorted(chats)
    return (row for i in range(0, len(listed), CHATS_CHUNK)
            for row in conn.execute(since.where(table.c.chat_id.in_(listed[i:i + CHATS_CHUNK]))))


def _whole(state: dict[str, Any]) -> dict[str, Any]:
    """A source's state without where its importer would resume: it reads everything."""
    return {k: v for k, v in state.items() if k in NOT_RESUME}


def _read_only_database(home: Path) -> str:
    db = home / SQLITE_FILE
    return (f"the store's database {db} is read-only: imports and other changes need it writable "
            f"(chmod u+w '{db}'); reads work as it is")


def _explain_write_error(e: Exception, home: Path) -> str:
    text = str(getattr(e, "orig", e))
    low = text.lower()
    if ("readonly" in low or "read-only" in low) and read_only_file(home / SQLITE_FILE) \
            and os.access(home, os.W_OK):
        return _read_only_database(home)
    if "readonly" in low or "read-only" in low:
        return f"the store {home} is read-only ({text}); check the permissions of the store folder"
    if "disk is full" in low or "no space" in low:
        return f"the disk is full ({text}); nothing was written"
    if "locked" in low:
        return f"the database is locked by another process ({text}); try again"
    return text
