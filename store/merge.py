"""Merging the search index's segments, so that many small imports do not leave many small
segments for every search to walk.

Every import of 1,000 or more messages writes a segment of its own (`index._write_segments`), and
Whoosh's own policy (`MERGE_SMALL`) only ever merges segments much smaller than that: a store
re-imported every week would end the year with ~50 segments, each searched, looked up and kept
in memory on its own. Two policies, both Whoosh merge functions (`writer.commit(mergetype=...)`):

- `in_commit` (every commit of the index): a logarithmic policy over adjacent segments, like
  Lucene's LogMergePolicy. A segment's level is log base FACTOR of its live documents over
  FLOOR_DOCS (smaller ones are all level 0); going from the oldest segment, the segments within
  BAND levels of the highest are one band, and FACTOR adjacent segments of a band are merged into
  one. A document is so rewritten about log_FACTOR(size / FLOOR_DOCS) times over its life. One
  commit writes at most COMMIT_MERGE_DOCS documents of merges (a +1% re-import at a million
  messages stays a small write); merges that would be bigger are left to `merge_all`.
- `merge_all` (`chatmem reindex --merge`): adjacent segments smaller than FULL_DOCS are packed
  into segments of up to FULL_DOCS documents, and a segment with a fifth or more of its
  documents deleted is rewritten without them.

Only adjacent segments are merged, in their order, so documents keep their order across the
index and a search ranks them as before (ties included). A merge copies postings, lengths,
columns and stored fields as they are (no text is analysed again) and leaves deleted documents
out; the merged segment enters the index with the commit's table of contents, written after it:
a crash before that leaves the old segments in place and the new file unused (Whoosh deletes it
at the next commit).
"""

from __future__ import annotations

import gc
import math
import struct
import sys
import zlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from io import BytesIO
from itertools import accumulate, groupby
from pickle import Unpickler, loads
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, STORED_COLUMN, WHOOSH3_HEADER_MAGIC
from whoosh.reading import SegmentReader

from .segment import FIELDS, Posting, SegmentBuilder, gc_paused

FLOOR_DOCS = 16_000  # segments up to this size are all of the lowest level
FACTOR = 10  # adjacent segments of one level merged together
BAND = 0.75  # levels below the highest of a band that still belong to it (Lucene's)
COMMIT_MERGE_DOCS = 100_000  # documents one commit writes in merges at most
FULL_DOCS = 320_000  # a full segment (about the bulk build's SEGMENT_POSTINGS at a million)
DELETED_SHARE = 0.2  # a segment with this share deleted is rewritten by merge_all

_TERM_HEAD = struct.Struct("!BfIBBfII")  # W3TermInfo: flags, weight, df, lengths, max weight, ids
_POINTER = struct.Struct("!qi")  # a term's postings: offset, length
_INT = struct.Struct("!i")


# ---------------------------------------------------------------------- which segments
def level(live: int) -> float:
    return math.log(max(live, FLOOR_DOCS) / FLOOR_DOCS, FACTOR)


def plan(live: Sequence[int], budget: int = COMMIT_MERGE_DOCS) -> list[tuple[int, int]]:
    """Runs `(start, end)` of adjacent segments (by their live documents, in index order) to
    merge in one commit: FACTOR at a time within a band of levels, `budget` documents in all."""
    levels = [level(n) for n in live]
    runs: list[tuple[int, int]] = []
    left = budget
    start, count = 0, len(live)
    while start < count:
        top = max(levels[start:])
        bottom = top - BAND if top > 0 else -1.0
        upto = max(i for i in range(start, count) if levels[i] >= bottom)
        while start + FACTOR <= upto + 1:
            end, size = start, 0  # FACTOR of them, or as many as the budget takes
            while end < start + FACTOR and size + live[end] <= left:
                size += live[end]
                end += 1
            if end - start >= 2:
                runs.append((start, end))
                left -= size
                start = end
            else:
                start += 1
        start = upto + 1
    return runs


def plan_all(live: Sequence[int], deleted: Sequence[int]) -> list[tuple[int, int]]:
    """Runs for `merge_all`: adjacent segments below FULL_DOCS packed up to FULL_DOCS each; a
    segment with DELETED_SHARE or more deleted, alone, when nothing joins it."""
    runs: list[tuple[int, int]] = []
    start, count = 0, len(live)
    while start < count:
        end, size = start, 0
        while end < count and live[end] < FULL_DOCS and size + live[end] <= FULL_DOCS:
            size += live[end]
            end += 1
        if end - start > 1:
            runs.append((start, end))
            start = end
            continue
        total = live[start] + deleted[start]
        if deleted[start] and deleted[start] >= DELETED_SHARE * total:
            runs.append((start, start + 1))
        start += 1
    return runs


def in_commit(writer: Any, segments: list) -> list:
    """Whoosh merge function of every commit: empty segments dropped, `plan`'s runs merged."""
    segments = [s for s in segments if s.doc_count() > 0]
    return _merged(writer, segments, plan([s.doc_count() for s in segments]))


def merge_all(writer: Any, segments: list) -> list:
    """Whoosh merge function of `chatmem reindex --merge`: `plan_all`'s runs merged."""
    segments = [s for s in segments if s.doc_count() > 0]
    return _merged(writer, segments, plan_all([s.doc_count() for s in segments],
                                              [s.deleted_count() for s in segments]))


def _merged(writer: Any, segments: list, runs: list[tuple[int, int]]) -> list:
    out: list = []
    at = 0
    for start, end in runs:
        out += segments[at:start]
        out.append(merge_segments(writer, segments[start:end]))
        at = end
    return out + segments[at:]


# ---------------------------------------------------------------------- one merge
def merge_segments(writer: Any, segments: list) -> Any:
    """One new segment (not yet committed) holding the live documents of `segments`, in order."""
    builder = SegmentBuilder(getattr(writer.storage, "folder", None))  # its files beside the index
    readers = []  # open until the new segment is written: its stored fields are views of theirs
    try:
        with gc_paused():
            for seg in segments:
                readers.append(SegmentReader(writer.storage, writer.schema, seg))
                _add_segment(builder, readers[-1], seg)
            segment = builder.write(writer.storage, writer.indexname, writer.schema, writer.codec)
            del builder
            gc.collect()  # see index._write_segment: Whoosh's storage leaves a cycle per segment
    finally:
        for reader in readers:
            reader.close()
    return segment


def _add_segment(builder: SegmentBuilder, reader: Any, seg: Any) -> None:
    """Append one segment's live documents to `builder`, numbered after those it holds."""
    n = seg.doc_count_all()
    base = builder.count
    gone = set(seg.deleted_docs()) if seg.has_deletions() else set()
    remap: list[int] | None = None
    if gone:
        remap, k = [-1] * n, base
        for d in range(n):
            if d not in gone:
                remap[d] = k
                k += 1
    live = n - len(gone)
    perdoc = reader._perdoc
    keep = [d for d in range(n) if d not in gone] if gone else None

    def column(name: str, kind: Any, width: int) -> bytes:
        """A fixed-width column's bytes, as written (missing values 0)."""
        cr = perdoc._cached_reader(name, kind) if perdoc.has_column(name) else None
        raw = bytes(cr._dbfile.get(cr._basepos, cr._count * width)) if cr is not None else b""
        return raw + bytes(n * width - len(raw))

    for name, values in (("ts", builder.ts), ("meta", builder.meta)):
        raw = array("I", column(name, reader.schema[name].column_type, 4))
        if sys.byteorder == "little":  # Whoosh writes them big-endian
            raw.byteswap()
        values.extend(raw if keep is None else array("I", (raw[d] for d in keep)))
    lengths = column("_t_len", LENGTHS_COLUMN, 1)
    builder.lengths += lengths if keep is None else bytes(lengths[d] for d in keep)
    stored = perdoc._cached_reader("_stored", STORED_COLUMN)._child  # the compressed pickles
    offsets, sizes = stored._offsets, stored._lengths
    data = stored._dbfile.get(stored._basepos, (offsets[-1] + sizes[-1]) if n else 0)  # a view
    for d in (keep if keep is not None else range(n)):
        builder.add_stored(data[offsets[d]:offsets[d] + sizes[d]])

    # the segment's postings as a run of the builder, read from its terms table in order (each
    # field's terms in order), a term at a time; documents renumbered after those it holds
    terms = reader._terms
    names = terms._fieldunmap
    postfile = terms._postfile
    run = builder.new_run()
    counted = {"id": 0, "t": 0.0}

    def field_terms(rows: Iterator[tuple[bytes, bytes]], field: str) -> Iterator[Posting]:
        for key, value in rows:
            docs, weights = _postings(value, postfile)
            if remap is not None:
                kept = [(remap[d], w) for d, w in zip(docs, weights) if remap[d] >= 0]
                if not kept:
                    continue
                docs, weights = [d for d, _ in kept], [w for _, w in kept]
            elif base:
                docs = [d + base for d in docs]
            pairs = None
            if field == "t":
                counted["t"] += sum(weights)
                if any(w != 1 for w in weights):
                    pairs = array("I")
                    for d, w in zip(docs, weights):
                        if w != 1:
                            pairs.append(d)
                            pairs.append(int(w))
            elif field == "id":
                counted["id"] += len(docs)
            yield bytes(key[2:]), docs, pairs

    for number, rows in groupby(terms._tindex.items(), key=lambda row: bytes(row[0][:2])):
        field = names[int.from_bytes(number, "big")]
        if field in FIELDS:
            run.add_field(field, field_terms(rows, field))
    if counted["id"] != live:
        raise ValueError(f"segment {seg.segment_id()}: a document without an id")
    builder.count += live
    builder.total_length += int(counted["t"])


def _postings(value: bytes, postfile: Any) -> tuple[Sequence[int], Sequence[float]]:
    """(documents, weights) of one term, from its terms-table row and the postings file."""
    flags, weight, df, _, _, _, first, _ = _TERM_HEAD.unpack_from(value)
    if df == 1:  # one document: the row says which, and its weight
        return (first,), (weight,)
    if flags:  # postings inlined in the row (Whoosh's writer, few documents)
        ids, weights, _ = loads(value[_TERM_HEAD.size:])
        return ids, (weights if weights is not None else (1.0,) * len(ids))
    offset, length = _POINTER.unpack_from(value, _TERM_HEAD.size)
    buf = bytes(postfile.get(offset, length))
    if buf[:4] != WHOOSH3_HEADER_MAGIC:
        raise ValueError("not a Whoosh 3 posting list")
    docs: list[int] = []
    ws: list[float] = []
    f = BytesIO(buf)
    pos = 4
    while True:
        size = _INT.unpack_from(buf, pos)[0]
        f.seek(pos + 4)
        info = Unpickler(f).load()
        start = f.tell()
        end = pos + 4 + abs(size)
        raw = buf[start:end]
        deltas, bw, _ = loads(zlib.decompress(raw) if info[3] else raw)
        docs += accumulate(deltas)
        k = len(deltas)
        if bw is None:
            ws += [1.0] * k
        elif isinstance(bw, float):
            ws += [bw] * k
        else:
            ws += bw
        if size < 0:
            return docs, ws
        pos = end


MergeFunction = Callable[[Any, list], list]
