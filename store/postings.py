"""Whoosh queries evaluated a posting list at a time, in arrays (numpy), not a document at a time.

Whoosh's matchers walk the documents of a query one by one in Python (`id()`, `score()`,
`next()`, `skip_to()` per posting and per tree node), which made a common word or a phrase of
common words cost a second at a million messages. Here each term's postings are read block by
block straight from Whoosh's posting file into arrays (decoded arrays of large terms are kept
in a small cache), and the query tree is combined with sorted-array set operations:

| Whoosh query | here                                                     |
|--------------|----------------------------------------------------------|
| `Term`       | its documents, BM25 score (Whoosh's formula, idf, lengths) × boost |
| `Or`         | the union, scores added                                  |
| `And`        | the intersection, scores added                           |
| `AndNot`     | the left side without the right side's documents         |
| `AndMaybe`   | the left side, plus the right side's score where both    |

Filters on the columns (time, platform, kind, flags) are masks over the matches; the exact
total is the number left; the top `need` come from a partial sort. The index is still Whoosh's
(built, stored, merged and read by Whoosh); only the evaluation moved.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from pickle import loads
from typing import Any

import numpy as np
from whoosh import query as Q
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher
from whoosh.matching.wrappers import FilterMatcher
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length

FIELD = "t"
CACHE_POSTINGS = 8_000_000  # decoded postings kept (ids + weights: ~8 bytes each)
CACHE_MIN = 2_000  # only terms with at least this many postings are worth keeping
_LENGTH_TABLE = np.array([byte_to_length(i) for i in range(256)], dtype=np.float32)
_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_SCORES = np.zeros(0, dtype=np.float32)


class Unsupported(Exception):
    """A query node this evaluator does not know (the caller falls back to Whoosh's matchers)."""


class PostingCache:
    """Decoded (ids, weights) of large terms per segment, least recently used out first."""

    def __init__(self, budget: int = CACHE_POSTINGS):
        self.budget = budget
        self._items: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._lengths: dict[str, np.ndarray] = {}

    def get(self, key: tuple) -> tuple[np.ndarray, np.ndarray] | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: tuple, value: tuple[np.ndarray, np.ndarray]) -> None:
        n = len(value[0])
        if n < CACHE_MIN or n > self.budget:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = value
            self._size += n
            while self._size > self.budget and self._items:
                _, old = self._items.popitem(last=False)
                self._size -= len(old[0])

    def lengths(self, reader) -> np.ndarray:
        """The `t` field length of every document of a segment."""
        sid = reader.segment().segment_id()
        arr = self._lengths.get(sid)
        if arr is None:
            arr = _load_lengths(reader)
            self._lengths[sid] = arr
        return arr

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0
            self._lengths.clear()


def _load_lengths(reader) -> np.ndarray:
    n = reader.doc_count_all()
    raw = None
    perdoc = getattr(reader, "_perdoc", None)
    cr = (perdoc._cached_reader(f"_{FIELD}_len", LENGTHS_COLUMN)
          if perdoc is not None and hasattr(perdoc, "_cached_reader") else None)
    inner = getattr(cr, "_dbfile", None)
    if cr is not None and inner is not None and getattr(cr, "_fixedlen", 0) == 1:
        raw = np.frombuffer(bytes(inner.get(cr._basepos, cr._count)), dtype=np.uint8)
    if raw is None or len(raw) < n:
        raw = np.array([_length_byte(reader, d) for d in range(n)], dtype=np.uint8)
    return _LENGTH_TABLE[raw[:n]]


def _length_byte(reader, docnum: int) -> int:
    from whoosh.util.numeric import length_to_byte

    return length_to_byte(reader.doc_field_length(docnum, FIELD, 0))


def term_postings(reader, text: str, cache: PostingCache | None,
                  fieldname: str = FIELD) -> tuple[np.ndarray, np.ndarray]:
    """(document numbers, term frequencies) of one term in one segment."""
    key = (reader.segment().segment_id(), fieldname, text)
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    try:
        m = reader.postings(fieldname, text)
    except Exception:  # TermNotFound (and its kin): no documents
        return _EMPTY_IDS, _EMPTY_SCORES
    if isinstance(m, FilterMatcher):  # a segment with deletions: `alive` drops them later
        m = m.child
    if isinstance(m, W3LeafMatcher) and not m._byteids:
        ids_parts, w_parts = [], []
        while not m._atend:
            b = m._postfile.get(m._dataoffset, m._nextoffset - m._dataoffset)
            data = loads(zlib.decompress(b) if m._compression else b)
            ids = np.cumsum(np.asarray(data[0], dtype=np.int64))
            ids_parts.append(ids)
            w = data[1]
            if w is None:
                w_parts.append(np.ones(len(ids), dtype=np.float32))
            elif isinstance(w, float):
                w_parts.append(np.full(len(ids), w, dtype=np.float32))
            else:
                w_parts.append(np.asarray(w, dtype=np.float32))
            if m._lastblock:
                break
            m._goto(m._nextoffset)
        ids_a = np.concatenate(ids_parts) if ids_parts else _EMPTY_IDS
        w_a = np.concatenate(w_parts) if w_parts else _EMPTY_SCORES
    else:  # inlined postings (a term in one document) or another codec
        ids_l, w_l = [], []
        while m.is_active():
            ids_l.append(m.id())
            w_l.append(m.weight())
            m.next()
        ids_a, w_a = np.array(ids_l, dtype=np.int64), np.array(w_l, dtype=np.float32)
    if cache is not None:
        cache.put(key, (ids_a, w_a))
    return ids_a, w_a


class Evaluator:
    """Evaluates one query over one segment: (sorted document numbers, scores)."""

    def __init__(self, searcher, reader, cache: PostingCache | None, scored: bool = True):
        self.searcher, self.reader, self.cache, self.scored = searcher, reader, cache, scored
        w = BM25F()
        self.B, self.K1 = w.B, w.K1
        self.avgfl = searcher.avg_field_length(FIELD) or 1.0
        self.n_all = searcher.doc_count_all()
        self._norm: np.ndarray | None = None

    def norm(self) -> np.ndarray:
        """K1 * ((1 - B) + B * length / average length) per document of the segment."""
        if self._norm is None:
            lengths = self.cache.lengths(self.reader) if self.cache is not None else _load_lengths(self.reader)
            self._norm = (self.K1 * ((1 - self.B) + self.B * lengths / self.avgfl)).astype(np.float32)
        return self._norm

    def run(self, q: Q.Query) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(q, Q.Term):
            if q.fieldname == FIELD:
                ids, tf = term_postings(self.reader, q.text, self.cache)
                if not self.scored or not len(ids):
                    return ids, np.zeros(len(ids), dtype=np.float32)
                df = self.searcher.doc_frequency(FIELD, q.text)
                idf = np.log(self.n_all / (df + 1)) + 1
                s = idf * (tf * (self.K1 + 1)) / (tf + self.norm()[ids])
                return ids, (s * q.boost).astype(np.float32)
            ids, _ = term_postings(self.reader, q.text, self.cache, q.fieldname)
            return ids, np.zeros(len(ids), dtype=np.float32)
        if q is Q.NullQuery or isinstance(q, Q.NullQuery.__class__):
            return _EMPTY_IDS, _EMPTY_SCORES
        if isinstance(q, Q.Or):
            parts = [self.run(c) for c in q.subqueries]
            return _scaled(_union(parts), q.boost)
        if isinstance(q, Q.And):
            parts = sorted((self.run(c) for c in q.subqueries), key=lambda p: len(p[0]))
            ids, scores = parts[0]
            for oid, osc in parts[1:]:
                if not len(ids):
                    break
                ids, scores = _intersect(ids, scores, oid, osc)
            return _scaled((ids, scores), q.boost)
        if isinstance(q, Q.AndNot):
            ids, scores = self.run(q.a)
            if len(ids):
                bad, _ = self.run(q.b)
                keep = ~_member(ids, bad)
                ids, scores = ids[keep], scores[keep]
            return ids, scores
        if isinstance(q, Q.AndMaybe):
            ids, scores = self.run(q.a)
            if len(ids) and self.scored:
                oid, osc = self.run(q.b)
                pos = np.searchsorted(oid, ids)
                pos[pos >= len(oid)] = 0
                hit = (oid[pos] == ids) if len(oid) else np.zeros(len(ids), dtype=bool)
                scores = scores + np.where(hit, osc[pos] if len(oid) else 0, 0).astype(np.float32)
            return ids, scores
        raise Unsupported(type(q).__name__)


def _scaled(pair: tuple[np.ndarray, np.ndarray], boost: float) -> tuple[np.ndarray, np.ndarray]:
    if boost == 1.0:
        return pair
    return pair[0], (pair[1] * boost).astype(np.float32)


def _union(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    parts = [p for p in parts if len(p[0])]
    if not parts:
        return _EMPTY_IDS, _EMPTY_SCORES
    if len(parts) == 1:
        return parts[0]
    ids = np.concatenate([p[0] for p in parts])
    scores = np.concatenate([p[1] for p in parts])
    uniq, inverse = np.unique(ids, return_inverse=True)
    return uniq, np.bincount(inverse, weights=scores, minlength=len(uniq)).astype(np.float32)


def _intersect(a: np.ndarray, sa: np.ndarray, b: np.ndarray, sb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pos = np.searchsorted(b, a)
    pos[pos >= len(b)] = 0
    hit = b[pos] == a if len(b) else np.zeros(len(a), dtype=bool)
    return a[hit], (sa[hit] + sb[pos[hit]]).astype(np.float32)


def _member(ids: np.ndarray, other: np.ndarray) -> np.ndarray:
    if not len(other):
        return np.zeros(len(ids), dtype=bool)
    pos = np.searchsorted(other, ids)
    pos[pos >= len(other)] = 0
    return other[pos] == ids


def alive(reader, ids: np.ndarray) -> np.ndarray:
    """Which of `ids` are not deleted (postings still list deleted documents until a merge)."""
    if not reader.has_deletions() or not len(ids):
        return np.ones(len(ids), dtype=bool)
    dead = np.fromiter(reader.deleted_docs_set, dtype=np.int64)
    dead.sort()
    return ~_member(ids, dead)


def column_array(values: Any) -> np.ndarray:
    """An `array('I')` column (index.py) as a numpy view."""
    return np.frombuffer(values, dtype=np.uint32) if len(values) else np.zeros(0, dtype=np.uint32)
