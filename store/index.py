"""The Whoosh full-text index: derived data, rebuilt from the database at any time.

What is searched is analysed (`analysis.py`) once per document, in Python, and handed to Whoosh
as finished terms; everything else is a column or one compact key per document:

| field   | holds                                                   | format            |
|---------|---------------------------------------------------------|-------------------|
| `id`    | the message or call id (stored)                         | unique term       |
| `x`     | the text `t` was made of (stored: phrases are checked   | stored            |
|         | on it without reading the database)                     |                   |
| `t`     | text, call summaries/transcripts, attachment names:     | term frequencies  |
|         | exact, stemmed (`~stem`), compound parts, CJK pairs     | (scored, BM25)    |
| `p`     | (index v3 only: word pairs; no longer written or read)  |                   |
| `c`     | the chat (`source`) id                                  | existence         |
| `who`   | sender name, handle, display name, `#person-id`         | existence         |
| `ts`    | UTC seconds                                             | column            |
| `meta`  | platform, kind, group, attachment, deleted, packed      | column            |

Snippets and everything shown come from the database; the stored text only serves the phrase
check. The index remembers the highest ingest
`seq` it has applied (in its own small file, written after the Whoosh commit), the language it
guessed per chat, and what it holds (platforms, time span), so `Store.open` can notice an index
that is behind the database and catch up, and searches can drop filters that match everything.
Whoosh's own lock is an OS file lock: a killed writer never leaves it stale.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import struct
import sys
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import String, bindparam, func, select, type_coerce
from sqlalchemy.engine import Connection
from whoosh import columns, formats
from whoosh import index as windex
from whoosh.analysis import IDTokenizer
from whoosh.fields import COLUMN, ID, STORED, FieldType, Schema
from whoosh.system import pack_uint, pack_ushort

from chatmem.errors import StoreError
from chatmem.records import KINDS

from . import models as m
from .analysis import DEFAULT_LANGUAGE, doc_terms, guess_language
from .heap import map_large_blocks, release_memory
from .media import ATTACHMENT_TYPES, attachment_type
from .merge import in_commit, merge_all
from .people import sender_name
from .permissions import make_private
from .quick import INDEX_STATE_FILE as STATE_FILE
from .quick import INDEX_VERSION
from .segment import SegmentBuilder, gc_paused
from .whoosh_files import install as _read_segments_in_place

_read_segments_in_place()

# 3: pre-analysed text only (exact + stems + parts + CJK pairs), word pairs for phrases, names
#    no longer indexed as text, chat/sender as compact keys, platform/kind/flags in a column
# 4: the attachment types of a message in `meta` (has:image, has:video, ...)
# 5: the text each document was indexed from, stored (`x`): phrases are checked on it
# 6: a CJK run's characters one by one beside its pairs (a one-character word is found)
# The number itself is INDEX_VERSION in store/quick.py (bump it there), beside the state file's
# name: `chatmem import` tells an index to rebuild without loading Whoosh.
# from this many documents on, an update writes new segments straight from memory (10,000 new
# messages into a 1M store: 0.9 s CPU, 2.5 s through Whoosh's writer, whose merges leave
# segments of that size alone anyway); fewer go through the writer, which merges tiny segments
BULK_THRESHOLD = 1_000
SEGMENT_POSTINGS = 4_000_000  # postings of a segment at most (held RUN_POSTINGS at a time: segment.py)
INDEX_BATCH = 1000  # messages read (and held) at a time, their attachments with them
IN_IDS = 999  # ids in one `IN (...)` at most (older SQLite builds allow 999 variables)
LANGUAGE_SAMPLE = 200  # messages read to guess a chat's language

# the `meta` column: bits 0-7 platform (a number per platform name, kept in the index state),
# 8-10 kind, 11 group, 12 attachment, 13 deleted, 14-18 attachment types (ATTACHMENT_TYPES)
_PLATFORM_BITS, _KIND_SHIFT, _KIND_BITS = 0xFF, 8, 0x7
GROUP_BIT, ATTACHMENT_BIT, DELETED_BIT = 1 << 11, 1 << 12, 1 << 13
TYPE_BITS = {kind: 1 << (14 + i) for i, kind in enumerate(ATTACHMENT_TYPES)}
MAX_TS = 2**32 - 1
_EPOCH, _SECOND = datetime(1970, 1, 1), timedelta(seconds=1)
OTHER_PLATFORMS = 0xFF  # the 255th platform name and every one after it share a number
# A message longer than this is searchable by its first INDEX_TEXT_CHARS characters (it is
# stored whole): Whoosh kept every position of every word of a document in memory while
# indexing it, ~13x the text, so a 100 MB message cost 1.4 GB.
INDEX_TEXT_CHARS = 1_000_000


def kind_code(kind: str) -> int:
    return KINDS.index(kind) + 1 if kind in KINDS else 0


class TermsField(FieldType):
    """Terms analysed before they reach Whoosh: a {term: frequency} dict (scored field) or a
    list of terms (existence only). Skips Whoosh's per-token analyzer chain entirely."""

    def __init__(self, scorable: bool = False):
        self.format = formats.Frequency() if scorable else formats.Existence()
        self.analyzer = IDTokenizer()  # only for strings given by hand (e.g. Whoosh's parser)
        self.scorable = scorable
        self.stored = False
        self.unique = False
        self.vector = None

    def index(self, value, **kwargs):
        if isinstance(value, dict):
            for term, freq in value.items():
                yield term.encode("utf-8"), freq, float(freq), pack_uint(freq)
        elif isinstance(value, str):
            yield value.encode("utf-8"), 1, 1.0, b""
        else:
            for term in value:
                yield term.encode("utf-8"), 1, 1.0, b""


def make_schema() -> Schema:
    return Schema(
        id=ID(stored=True, unique=True),
        x=STORED(),  # the text `t` was analysed from (the phrase check reads it, not the database)
        t=TermsField(scorable=True),
        p=TermsField(),
        c=TermsField(),
        who=TermsField(),
        # The time is a column, not terms: a NUMERIC field writes 16 range terms per document,
        # and ranges over it expand into many terms at search time.
        ts=COLUMN(columns.NumericColumn("I")),
        meta=COLUMN(columns.NumericColumn("I")),
    )


@dataclass
class IndexDoc:
    """What one message or call puts into the index."""

    id: str
    text: str
    chat_id: str
    platform: str
    kind: str
    when: datetime  # UTC (naive or aware)
    who: list[str] = field(default_factory=list)  # sender keys, lower-cased; "#person" ids
    group: bool = False
    attachment: bool = False
    deleted: bool = False
    lang: str = DEFAULT_LANGUAGE
    types: frozenset[str] = frozenset()  # the attachment types (ATTACHMENT_TYPES) it carries

    def timestamp(self) -> int:
        when = self.when
        if when.tzinfo is not None:
            when = when.astimezone(timezone.utc).replace(tzinfo=None)
        return min(max((when - _EPOCH) // _SECOND, 0), MAX_TS)

    def meta(self, platform_codes: dict[str, int]) -> int:
        """The `meta` column's value (a platform not seen before gets the next number)."""
        code = platform_codes.get(self.platform)
        if code is None:
            code = platform_codes[self.platform] = min(len(platform_codes) + 1, OTHER_PLATFORMS)
        meta = (code | kind_code(self.kind) << _KIND_SHIFT
                | (GROUP_BIT if self.group else 0) | (ATTACHMENT_BIT if self.attachment else 0)
                | (DELETED_BIT if self.deleted else 0))
        for kind in self.types:
            meta |= TYPE_BITS[kind]
        return meta

    def who_keys(self) -> list[str]:
        return [k for k in dict.fromkeys(self.who) if k]

    def fields(self, platform_codes: dict[str, int]) -> dict[str, Any]:
        """The document as Whoosh's `add_document` takes it."""
        out: dict[str, Any] = {"id": self.id, "x": self.text or "", "c": [self.chat_id],
                               "ts": self.timestamp(), "meta": self.meta(platform_codes)}
        terms = doc_terms(self.text or "", self.lang)
        if terms:
            out["t"] = terms
        who = self.who_keys()
        if who:
            out["who"] = who
        return out


def sender_key(name: str) -> str:
    """The `who` term of a sender name or handle (as the `sender` filter writes it)."""
    return name.strip().lower()


def person_key(person_id: str) -> str:
    return "#" + person_id.lower()


MAX_IDLE_SEARCHERS = 4  # searchers kept open between calls (about the calls that run at once)


class FullTextIndex:
    """A Whoosh index in a folder, plus the `seq` it has caught up to."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._ix = None
        # Open searchers no call is using, kept for the next call: opening one reads every
        # segment's lengths and dictionaries (~150 ms at a million messages). A searcher serves
        # one call at a time (Whoosh readers seek and read shared file handles), whatever thread
        # runs it; at most MAX_IDLE_SEARCHERS wait here, so open files stay bounded by the calls
        # running at once, not by the threads that ever ran one (a server's worker threads come
        # and go). `_generation` moves on close(): a searcher of an older one is closed on return.
        self._lock = threading.Lock()
        self._idle: list = []
        self._generation = 0
        self._columns: dict[tuple[str, str], array] = {}
        self.rebuilt = False  # set when open() found an index of an older version

    # ------------------------------------------------------------------ lifecycle
    def open(self, read_only: bool = False) -> FullTextIndex:
        """Open the index, making (or remaking, for another version: the store then rebuilds
        it from the database) it unless `read_only`."""
        try:
            exists = windex.exists_in(str(self.folder))
            if exists and self._state().get("version") == INDEX_VERSION:
                self._ix = windex.open_dir(str(self.folder))
            elif read_only:
                raise StoreError(f"the search index in {self.folder} is missing or from another "
                                 "chatmem version, and the store is read-only, so it cannot be "
                                 "rebuilt here")
            else:
                self.rebuilt = exists
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
        self._write_state({"seq": 0})

    def clear(self) -> None:
        """Empty the index (for a rebuild)."""
        self.close()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._create()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            self._generation += 1
        for s in idle:
            s.close()
        self._columns = {}
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

    def _write_state(self, state: dict) -> None:
        tmp = self.folder / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps({**state, "version": INDEX_VERSION}))
        os.replace(tmp, self.folder / STATE_FILE)
        make_private(self.folder)  # segments and state 0600, whatever the umask

    @property
    def seq(self) -> int:
        return int(self._state().get("seq", 0))

    def languages(self) -> dict[str, str]:
        """chat id -> the language its words are stemmed in."""
        return dict(self._state().get("languages") or {})

    def holds(self) -> dict[str, Any]:
        """What the index holds, as far as dropping needless filters goes: `platforms` (name ->
        number in the `meta` column), and the time span `min_ts`/`max_ts` (never narrower than
        the truth)."""
        st = self._state()
        return {"platforms": dict(st.get("platforms") or {}), "min_ts": st.get("min_ts"),
                "max_ts": st.get("max_ts")}

    # ------------------------------------------------------------------ writing
    def write(self, docs: Iterable[IndexDoc], seq: int, *, fresh: bool, expected: int = 0,
              languages: dict[str, str] | None = None) -> int:
        """Add (fresh index) or update documents, commit, then record `seq` as applied.

        Many documents (a first import, a rebuild, a big re-import) are written as new segments
        straight from memory (`segment.SegmentBuilder`); a few go through Whoosh's writer, which
        replaces a document of the same id in place and merges small segments."""
        state = self._state()
        platforms: dict[str, int] = dict(state.get("platforms") or {})
        span = [state.get("min_ts"), state.get("max_ts")]
        if fresh or expected >= BULK_THRESHOLD:
            n = self._write_segments(docs, platforms, span, replace=not fresh)
        else:
            n = self._write_documents(docs, platforms, span)
        state.update(platforms=platforms, min_ts=span[0], max_ts=span[1])
        if languages is not None:
            state["languages"] = languages
        state["seq"] = seq
        self._write_state(state)
        return n

    def _commit(self, writer, state_before: dict, platforms: dict[str, int], span: list,
                **commit_args: Any) -> None:
        # what the documents say about the index may only widen: written before the commit so
        # a crash after it never leaves the index holding more than its state says
        self._write_state({**state_before, "platforms": platforms, "min_ts": span[0],
                           "max_ts": span[1]})
        writer.commit(**commit_args)

    def _write_documents(self, docs: Iterable[IndexDoc], platforms: dict[str, int],
                         span: list) -> int:
        state = self._state()
        writer = self.ix.writer()
        n = 0
        try:
            for doc in docs:
                f = doc.fields(platforms)
                _widen(span, f["ts"])
                writer.update_document(**f)
                n += 1
        except BaseException:
            writer.cancel()
            raise
        self._commit(writer, state, platforms, span, mergetype=in_commit)
        return n

    def _write_segments(self, docs: Iterable[IndexDoc], platforms: dict[str, int], span: list,
                        *, replace: bool) -> int:
        """New documents as new segments, SEGMENT_POSTINGS postings at most each, built in runs
        of RUN_POSTINGS (what is held in memory does not grow with the segment: see
        store/segment.py); with `replace`, documents of the same ids already indexed are deleted
        (a run's at a time)."""
        state = self._state()
        ix = self.ix
        writer = ix.writer()
        segments = []
        n = 0
        map_large_blocks()  # the builder's big arrays and buffers mapped, given back when freed
        release_memory()  # and what the ingest before it left free in the heap
        builder = SegmentBuilder(self.folder)  # its spool and run files beside the index, on its disk
        metas: dict[tuple, int] = {}
        with gc_paused():  # the builder's many small lists make collections slow
            try:
                for doc in docs:
                    ts = doc.timestamp()
                    _widen(span, ts)
                    # the `meta` value depends on a few flags only: worked out once per combination
                    key = (doc.platform, doc.kind, doc.group, doc.attachment, doc.deleted, doc.types)
                    meta = metas.get(key)
                    if meta is None:
                        meta = metas[key] = doc.meta(platforms)
                    builder.add(doc.id, doc_terms(doc.text or "", doc.lang), doc.chat_id,
                                doc.who_keys(), ts, meta, doc.text or "")
                    n += 1
                    if builder.run_full() or builder.postings >= SEGMENT_POSTINGS:
                        if replace:
                            _delete_ids(writer, builder.ids)
                        if builder.postings >= SEGMENT_POSTINGS:
                            segments.append(_write_segment(builder, writer))
                            builder = SegmentBuilder(self.folder)
                        else:
                            builder.spill()
                if len(builder):
                    if replace and builder.ids:
                        _delete_ids(writer, builder.ids)
                    segments.append(_write_segment(builder, writer))
                writer.segments.extend(segments)
            except BaseException:
                builder.close()
                writer.cancel()
                raise
        self._commit(writer, state, platforms, span, mergetype=in_commit)
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
        writer.commit(mergetype=in_commit)
        self.refresh()
        return len(ids)

    def merge(self) -> tuple[int, int]:
        """Merge small segments into full ones and drop deleted documents (`merge.merge_all`);
        returns the segments before and after."""
        writer = self.ix.writer()
        before = len(writer.segments)
        try:
            writer.commit(mergetype=merge_all)
        except BaseException:
            writer.cancel()
            raise
        self.refresh()
        return before, self.segment_count()

    def segment_count(self) -> int:
        return len(self.ix._segments())

    def doc_count(self) -> int:
        """Documents in the index, from its table of contents (no segment is opened)."""
        return sum(seg.doc_count() for seg in self.ix._segments())

    @contextmanager
    def reading(self):
        """A searcher current with the last commit, for this call alone; it goes back to the
        idle ones afterwards (or is closed, when enough wait already)."""
        with self._lock:
            s = self._idle.pop() if self._idle else None
            generation = self._generation
        if s is not None and not s.up_to_date():
            # a new searcher, not Searcher.refresh(): that fails on an index that was empty
            s.close()
            s = None
        if s is None:
            s = self.ix.searcher()
        try:
            yield s
        finally:
            with self._lock:
                keep = generation == self._generation and len(self._idle) < MAX_IDLE_SEARCHERS
                if keep:
                    self._idle.append(s)
            if not keep:
                s.close()

    def refresh(self) -> None:
        """See documents other processes committed since we opened."""
        if self._ix is not None and not self._ix.up_to_date():
            self.close()
            self.open()

    def column(self, reader, name: str) -> array:
        """A segment's column as an array of ints, loaded once per segment."""
        key = (reader.segment().segment_id(), name)
        values = self._columns.get(key)
        if values is None:
            values = _load_column(reader, name)
            self._columns[key] = values
        return values


def _write_segment(builder: SegmentBuilder, writer: Any) -> Any:
    """A builder's documents as a new segment of the index `writer` writes (not yet committed).

    Whoosh's file storage keeps a caught exception in a local variable when it makes a folder:
    a reference cycle that holds the writing frames, and with them the memory of a whole
    segment's write, until the cycle is collected: collected here, as collections are paused.
    With collections paused, everything made since (the cycle too) is in the youngest
    generation: collecting it alone frees the cycle without walking every older object of the
    process (a full collection cost ~0.04-0.1 s per re-import; the youngest alone ~0.3 ms after
    a segment of 2,000 documents, and a full one after it finds nothing more)."""
    segment = builder.write(writer.storage, writer.indexname, writer.schema, writer.codec)
    gc.collect(0)
    release_memory()  # what the write freed, back to the system before the next segment's build
    return segment


def _delete_ids(writer: Any, ids: list[str]) -> None:
    """Mark the documents of these record ids deleted in the segments `writer` started from:
    one look into each segment's terms table per id (Whoosh's `delete_by_term` builds a query,
    a matcher and a searcher per id: 0.9 s of CPU for 10,000 ids at a million messages; its
    `term in reader` walks five calls and hashes the id again per segment: 0.18 s; here each id
    is hashed once and its table slots read straight from the mapped file: 0.05 s)."""
    reader = writer.reader()
    try:
        hashes: dict[tuple[Any, bytes], int] = {}
        encoded = [(record_id, record_id.encode("utf-8")) for record_id in ids]
        for leaf, base in reader.leaf_readers():
            for record_id in _present(leaf, encoded, hashes):
                for docnum in leaf.postings("id", record_id).all_ids():
                    writer.delete_document(base + docnum)
    finally:
        reader.close()


_SLOT = struct.Struct("!Iq")  # a slot of a Whoosh hash table: the key's hash, where the key is
_KEY_LENGTHS = struct.Struct("!ii")  # before a key in a Whoosh hash file: its length, the value's


def _present(leaf: Any, encoded: list[tuple[str, bytes]], hashes: dict[tuple[Any, bytes], int]) -> list[str]:
    """The record ids (of (id, its UTF-8 bytes) pairs) that have an `id` term in the segment
    `leaf`: a look into its terms table (`filetables.HashReader.ranges_for_key`, with the hash
    of each key made once for every segment, in `hashes`); Whoosh's own `in` where the segment
    is not laid out as expected."""
    tindex = getattr(getattr(leaf, "_terms", None), "_tindex", None)
    buf = getattr(getattr(tindex, "dbfile", None), "_buf", None)
    fieldmap = getattr(getattr(leaf, "_terms", None), "_fieldmap", None)
    if tindex is None or buf is None or fieldmap is None or not hasattr(tindex, "tables"):
        return [record_id for record_id, _ in encoded if ("id", record_id) in leaf]
    if "id" not in fieldmap:
        return []
    prefix, hashfn, tables = pack_ushort(fieldmap["id"]), tindex.hashfn, tindex.tables
    slot_at, lengths_at, size = _SLOT.unpack_from, _KEY_LENGTHS.unpack_from, _SLOT.size
    found = []
    for record_id, raw in encoded:
        key = prefix + raw
        keyhash = hashes.get((hashfn, key))
        if keyhash is None:
            keyhash = hashes[hashfn, key] = hashfn(key)
        start, slots = tables[keyhash & 255]
        if not slots:
            continue
        end = start + slots * size
        pos = start + ((keyhash >> 8) % slots) * size
        for _ in range(slots):
            slot_hash, item = slot_at(buf, pos)
            if not item:
                break
            if slot_hash == keyhash:
                keylen = lengths_at(buf, item)[0]
                at = item + _KEY_LENGTHS.size
                if keylen == len(key) and buf[at:at + keylen] == key:
                    found.append(record_id)
                    break
            pos += size
            if pos == end:
                pos = start
    return found


def _widen(span: list, ts: int) -> None:
    if span[0] is None or ts < span[0]:
        span[0] = ts
    if span[1] is None or ts > span[1]:
        span[1] = ts


def _load_column(reader, name: str) -> array:
    """Read a fixed-width numeric column straight into an array (the column reader decodes one
    value per Python call)."""
    cr = reader.column_reader(name)
    doccount = reader.doc_count_all()
    values = array("I")
    inner = getattr(cr, "_dbfile", None)
    if inner is not None and getattr(cr, "_fixedlen", 0) == 4:
        raw = inner.get(cr._basepos, cr._count * 4)
        values.frombytes(bytes(raw))
        if sys.byteorder == "little":
            values.byteswap()  # Whoosh writes big-endian ("!I")
    else:  # an unexpected reader: decode value by value
        values.extend(cr[d] for d in range(doccount))
    if len(values) < doccount:
        values.extend([0] * (doccount - len(values)))
    return values


# ---------------------------------------------------------------------- documents
def count_changed(conn: Connection, since: int) -> int:
    """Messages and calls changed after ingest `seq` `since`: the documents to (re)write."""
    mt, ct = m.Message.__table__, m.Call.__table__
    return (conn.execute(select(func.count()).select_from(mt).where(mt.c.seq > since)).scalar_one()
            + conn.execute(select(func.count()).select_from(ct).where(ct.c.seq > since)).scalar_one())


def documents(conn: Connection, since: int, languages: dict[str, str],
              cut_short: list[str] | None = None) -> Iterator[IndexDoc]:
    """The index document of every message and call changed after ingest `seq` `since`.
    Guesses the language of chats not seen before (and adds them to `languages`); the ids of
    messages indexed by their first INDEX_TEXT_CHARS characters only go to `cut_short`.

    Rows are read as the driver gives them (`extra` as JSON text, times as text on SQLite):
    SQLAlchemy's per-row conversions cost more than the rest of this reading, and `extra` only
    matters when it holds a poll. What depends only on the sender (their index keys) is worked
    out once per sender."""
    pt = m.Person.__table__
    names = {r.id: r.name for r in conn.execute(select(pt.c.id, pt.c.name))}
    mt, ct, ch = m.Message.__table__, m.Call.__table__, m.Chat.__table__
    groups = {r.id: bool(r.is_group) for r in conn.execute(select(ch.c.id, ch.c.is_group))}
    attachments_of = _attachments_reader(conn)

    def lang_of(chat_id: str) -> str:
        lang = languages.get(chat_id)
        if lang is None:
            sample = conn.execute(select(mt.c.text).where(mt.c.chat_id == chat_id, mt.c.kind == "text")
                                  .limit(LANGUAGE_SAMPLE)).scalars()
            lang = languages[chat_id] = guess_language(t or "" for t in sample)
        return lang

    senders: dict[tuple[str | None, str | None, str | None], list[str]] = {}

    def who_of(sender: str | None, handle: str | None, person_id: str | None) -> list[str]:
        key = (sender, handle, person_id)
        who = senders.get(key)
        if who is None:
            shown = sender_name(_Sender(sender, person_id), names)
            who = [sender_key(sender or ""), sender_key(handle or ""), sender_key(shown or "")]
            if person_id:
                who.append(person_key(person_id))
            who = senders[key] = [k for k in dict.fromkeys(who) if k]
        return who

    raw = String()  # read as stored: no JSON decoding, no date parsing, no bool conversion
    q = (select(mt.c.id, mt.c.chat_id, mt.c.platform, mt.c.sender, mt.c.sender_handle,
                mt.c.person_id, mt.c.text, mt.c.kind, type_coerce(mt.c.sent_at, raw),
                type_coerce(mt.c.extra, raw), type_coerce(mt.c.deleted, raw))
         .where(mt.c.seq > since).execution_options(yield_per=INDEX_BATCH))
    no_types: frozenset[str] = frozenset()
    for (msg_id, chat_id, platform, sender, handle, person_id, text, kind, sent_at, extra,
         deleted), attachments, types in _with_attachments(conn.execute(q), attachments_of):
        text = text or ""
        text = with_poll(text, extra)
        if len(text) > INDEX_TEXT_CHARS:
            text = text[:INDEX_TEXT_CHARS]
            if cut_short is not None:
                cut_short.append(msg_id)
        files = attachments.get(msg_id)
        if files:
            text = " ".join([text, *files])
        lang = lang_of(chat_id)
        yield IndexDoc(id=msg_id, text=text, chat_id=chat_id, platform=platform, kind=kind,
                       when=_utc(sent_at), who=who_of(sender, handle, person_id),
                       group=groups.get(chat_id, False), attachment=bool(files),
                       deleted=bool(int(deleted or 0)), lang=lang,
                       types=frozenset(types[msg_id]) if msg_id in types else no_types)
    q = select(ct).where(ct.c.seq > since).execution_options(yield_per=INDEX_BATCH)
    for r in conn.execute(q):
        text = " ".join(x for x in (r.summary, r.transcript) if x) or f"{r.direction} {r.media} call"
        yield IndexDoc(id=r.id, text=text, chat_id=r.chat_id, platform=r.platform, kind="call",
                       when=r.started_at, who=[sender_key(r.peer or "")],
                       group=groups.get(r.chat_id, False), lang=lang_of(r.chat_id))


Files = dict[str, list[str]]  # message id -> the words of its attachments
Types = dict[str, set[str]]  # message id -> the types of its attachments


def _with_attachments(rows: Any, attachments_of: Callable[[list[str]], tuple[Files, Types]]
                      ) -> Iterator[tuple[tuple[Any, ...], Files, Types]]:
    """Each message row with the attachments of its batch (INDEX_BATCH rows, read together):
    what is held grows with a batch, not with the range indexed."""
    for batch in rows.partitions():
        files, types = attachments_of([row[0] for row in batch])
        for row in batch:
            yield row, files, types


def _attachments_reader(conn: Connection) -> Callable[[list[str]], tuple[Files, Types]]:
    """A function giving, for a batch of message ids, the words of their attachments (its name
    or type, and what the source said of it: caption, transcript, title) and their types."""
    at = m.Attachment.__table__
    wanted = (at.c.message_id, at.c.name, at.c.mime_type, at.c.text)
    marker = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(conn.dialect.paramstyle)
    if marker is not None:  # the driver's own query: SQLAlchemy's expanding IN costs as much again
        quote = conn.dialect.identifier_preparer.quote
        head = (f"SELECT {', '.join(quote(c.name) for c in wanted)} FROM {quote(at.name)} "
                f"WHERE {quote(at.c.message_id.name)} IN ")

        def read(ids: list[str]) -> Any:
            return conn.exec_driver_sql(f"{head}({', '.join([marker] * len(ids))})", tuple(ids))
    else:
        q = select(*wanted).where(at.c.message_id.in_(bindparam("ids", expanding=True)))

        def read(ids: list[str]) -> Any:
            return conn.execute(q, {"ids": ids})

    def attachments_of(ids: list[str]) -> tuple[Files, Types]:
        files: Files = {}
        types: Types = {}
        for i in range(0, len(ids), IN_IDS):
            for message_id, name, mime_type, text in read(ids[i:i + IN_IDS]):
                files.setdefault(message_id, []).extend([name or mime_type or "", *([text] if text else [])])
                types.setdefault(message_id, set()).add(attachment_type(mime_type, name))
        return files, types

    return attachments_of


@dataclass
class _Sender:
    """What `people.sender_name` reads of a message row."""

    sender: str | None
    person_id: str | None


def _utc(value: datetime | str) -> datetime:
    """A stored UTC time as a datetime: SQLite gives the text SQLAlchemy wrote
    ('YYYY-MM-DD HH:MM:SS.ffffff'), other databases a datetime."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


def with_poll(text: str, extra: str | dict | None) -> str:
    """A message's text as the index reads it: with its poll's question and options, if any
    (`extra` as stored)."""
    if extra and "poll" in extra:
        poll = _json_object(extra).get("poll")
        if poll:
            return " ".join([text, str(poll.get("question", ""))] +
                            [str(o.get("text", "")) for o in poll.get("options", [])])
    return text


def _json_object(value: str | dict | None) -> dict:
    """A JSON column as stored: text on SQLite, already decoded by other drivers."""
    if isinstance(value, str):
        value = json.loads(value)
    return value if isinstance(value, dict) else {}
