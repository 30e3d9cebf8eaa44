"""The Whoosh full-text index: derived data, rebuilt from the database at any time.

Only the id is stored; snippets and fields shown to users come from the database. The index
remembers the highest ingest `seq` it has applied (in its own small file, written after the
Whoosh commit), so `Store.open` can notice an index that is behind the database and catch up.
Whoosh's own lock is an OS file lock: a killed writer never leaves it stale.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from whoosh import columns
from whoosh import index as windex
from whoosh.analysis import CharsetFilter, LowercaseFilter, RegexTokenizer
from whoosh.fields import COLUMN, ID, KEYWORD, TEXT, Schema
from whoosh.support.charset import accent_map

from chatmem.errors import StoreError

from . import models as m
from .people import chat_name, sender_name

STATE_FILE = "chatmem-index.json"
INDEX_VERSION = 2  # 2: `ts` is a column only (no range terms), `day` dropped
BULK_THRESHOLD = 20_000  # above this many documents, write with two processes
INDEX_BATCH = 5000  # rows read from the database at a time while indexing


def _analyzer():
    # No stop words (phrases like "the code" must match) and no stemming (chats are
    # multilingual); accents folded so "cafe" finds "café".
    return RegexTokenizer(r"\w+(?:[.'’]\w+)*") | LowercaseFilter() | CharsetFilter(accent_map)


def make_schema() -> Schema:
    analyzer = _analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        text=TEXT(analyzer=analyzer, phrase=True),
        sender=TEXT(analyzer=analyzer, phrase=True),
        chat=TEXT(analyzer=analyzer, phrase=True),
        platform=ID,
        source=ID,
        # lower-cased sender name and handle, comma-separated, for exact sender filters
        sender_key=KEYWORD(commas=True, lowercase=True),
        person=KEYWORD(commas=True, lowercase=True),
        group=ID,  # "1" or "0"
        kind=ID,
        # The time is a column, not terms: a NUMERIC field writes 16 range terms per document
        # (it halved indexing speed), and ranges over it expand into many terms at search time.
        # Date bounds are checked on the column (see `in_time_range`); sorting uses it too.
        ts=COLUMN(columns.NumericColumn("q")),
    )


@dataclass
class IndexDoc:
    id: str
    text: str
    sender: str
    chat: str
    platform: str
    source: str
    sender_keys: list[str]
    group: bool
    kind: str
    when: datetime  # UTC (naive or aware)
    person: str | None = None

    def fields(self) -> dict:
        when = self.when if self.when.tzinfo else self.when.replace(tzinfo=timezone.utc)
        ts = int(when.timestamp())
        return {
            "id": self.id,
            "text": self.text or "",
            "sender": self.sender or "",
            "chat": self.chat or "",
            "platform": self.platform,
            "source": self.source,
            "sender_key": ",".join(k.lower().replace(",", " ") for k in self.sender_keys if k),
            "person": self.person or "",
            "group": "1" if self.group else "0",
            "kind": self.kind,
            "ts": ts,
        }


class FullTextIndex:
    """A Whoosh index in a folder, plus the `seq` it has caught up to."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._ix = None
        # One open searcher per thread, kept between calls: opening one reads every
        # segment's lengths and dictionaries (~150 ms at a million messages). Whoosh readers
        # seek and read shared file handles, so threads do not share them.
        self._local = threading.local()

    # ------------------------------------------------------------------ lifecycle
    def open(self, read_only: bool = False) -> FullTextIndex:
        """Open the index, making (or remaking, for another version) it unless `read_only`."""
        try:
            current = (windex.exists_in(str(self.folder))
                       and self._state().get("version") == INDEX_VERSION)
            if current:
                self._ix = windex.open_dir(str(self.folder))
            elif read_only:
                raise StoreError(f"the search index in {self.folder} is missing or from another "
                                 "chatmem version, and the store is read-only, so it cannot be "
                                 "rebuilt here")
            else:
                self.folder.mkdir(parents=True, exist_ok=True)
                self._create()
        except OSError as e:
            raise StoreError(f"cannot open the search index in {self.folder}: {e}") from e
        return self

    def _create(self) -> None:
        for child in self.folder.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()
        self._ix = windex.create_in(str(self.folder), make_schema())
        self._write_state(0)

    def clear(self) -> None:
        """Empty the index (for a rebuild)."""
        self.close()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._create()

    def close(self) -> None:
        for s in getattr(self, "_searchers", []):
            s.close()
        self._searchers = []
        self._local = threading.local()
        if self._ix is not None:
            self._ix.close()
            self._ix = None

    @property
    def ix(self):
        if self._ix is None:
            self.open()
        return self._ix

    # ------------------------------------------------------------------ state
    def _state(self) -> dict:
        try:
            return json.loads((self.folder / STATE_FILE).read_text())
        except (OSError, ValueError):
            return {}

    def _write_state(self, seq: int) -> None:
        tmp = self.folder / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps({"version": INDEX_VERSION, "seq": seq}))
        os.replace(tmp, self.folder / STATE_FILE)

    @property
    def seq(self) -> int:
        return int(self._state().get("seq", 0))

    # ------------------------------------------------------------------ writing
    def write(self, docs: Iterable[IndexDoc], seq: int, *, fresh: bool, expected: int = 0) -> int:
        """Add (fresh index) or update documents, commit, then record `seq` as applied."""
        ix = self.ix
        bulk = fresh and expected >= BULK_THRESHOLD
        writer = ix.writer(procs=2, multisegment=True) if bulk else ix.writer()
        n = 0
        try:
            put = writer.add_document if fresh else writer.update_document
            for doc in docs:
                put(**doc.fields())
                n += 1
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        self._write_state(seq)
        return n

    def delete(self, ids: Iterable[str]) -> int:
        """Remove these records' documents (forgotten messages and calls)."""
        ids = list(ids)
        if not ids:
            return 0
        writer = self.ix.writer()
        try:
            for record_id in ids:
                writer.delete_by_term("id", record_id)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        self.refresh()
        return len(ids)

    def doc_count(self) -> int:
        return self.ix.doc_count()

    @contextmanager
    def reading(self):
        """This thread's searcher, current with the last commit; stays open for the next call."""
        s = getattr(self._local, "searcher", None)
        if s is None:
            s = self.ix.searcher()
            self._searchers = [*getattr(self, "_searchers", []), s]
        elif not s.up_to_date():
            # a new searcher, not Searcher.refresh(): that fails on an index that was empty
            s.close()
            fresh = self.ix.searcher()
            self._searchers = [x for x in getattr(self, "_searchers", []) if x is not s] + [fresh]
            s = fresh
        self._local.searcher = s
        yield s

    def refresh(self) -> None:
        """See documents other processes committed since we opened."""
        if self._ix is not None and not self._ix.up_to_date():
            self.close()
            self.open()


def in_time_range(searcher, query, lo: int | None, hi: int | None) -> set[int]:
    """Document numbers matching `query` whose `ts` (UTC seconds) lies in [lo, hi]."""
    ts = searcher.reader().column_reader("ts")
    return {d for d in searcher.docs_for_query(query)
            if (lo is None or ts[d] >= lo) and (hi is None or ts[d] <= hi)}


# ---------------------------------------------------------------------- what goes into a document


def count_changed(conn: Connection, since: int) -> int:
    """Messages and calls changed after ingest `seq` `since`: the documents to (re)write."""
    mt, ct = m.Message.__table__, m.Call.__table__
    return (conn.execute(select(func.count()).select_from(mt).where(mt.c.seq > since)).scalar_one()
            + conn.execute(select(func.count()).select_from(ct).where(ct.c.seq > since)).scalar_one())


def documents(conn: Connection, since: int) -> Iterator[IndexDoc]:
    """The index document of every message and call changed after ingest `seq` `since`."""
    mt, ct, ch, pt = m.Message.__table__, m.Call.__table__, m.Chat.__table__, m.Person.__table__
    names = {r.id: r.name for r in conn.execute(select(pt.c.id, pt.c.name))}
    chats = {r.id: r for r in conn.execute(
        select(ch.c.id, ch.c.name, ch.c.is_group, ch.c.platform, ch.c.person_id))}
    q = (select(mt.c.id, mt.c.chat_id, mt.c.platform, mt.c.sender, mt.c.sender_handle,
                mt.c.person_id, mt.c.text, mt.c.kind, mt.c.sent_at, mt.c.extra)
         .where(mt.c.seq > since).execution_options(yield_per=INDEX_BATCH))
    for r in conn.execute(q):
        chat = chats.get(r.chat_id)
        text = r.text
        extra = r.extra or {}
        if extra.get("poll"):
            poll = extra["poll"]
            text = " ".join([text, str(poll.get("question", ""))] +
                            [str(o.get("text", "")) for o in poll.get("options", [])])
        sender = sender_name(r, names)
        yield IndexDoc(id=r.id, text=text, sender=sender if sender == r.sender else f"{sender} {r.sender}",
                       chat=chat_name(chat, names),
                       platform=r.platform, source=r.chat_id,
                       sender_keys=[r.sender, r.sender_handle or "", sender],
                       person=r.person_id,
                       group=bool(chat.is_group) if chat else False, kind=r.kind, when=r.sent_at)
    q = select(ct).where(ct.c.seq > since).execution_options(yield_per=INDEX_BATCH)
    for r in conn.execute(q):
        chat = chats.get(r.chat_id)
        text = " ".join(x for x in (r.summary, r.transcript) if x) or f"{r.direction} {r.media} call"
        yield IndexDoc(id=r.id, text=text, sender=r.peer or "", chat=chat_name(chat, names),
                       platform=r.platform, source=r.chat_id, sender_keys=[r.peer or ""],
                       group=bool(chat.is_group) if chat else False, kind="call", when=r.started_at)
