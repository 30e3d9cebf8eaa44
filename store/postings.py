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
CACHE_MIN = 2_000
DENSE_SHARE = 16  # ids of a union at least 1/16 of the segment's documents: merged densely
MAX_SEGMENTS = 64  # segments whose lengths (and BM25 norms) are kept  # only terms with at least this many postings are worth keeping
DF_MEMO = 100_000  # document frequencies remembered per reader at most
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
        self._norms: dict[tuple, np.ndarray] = {}

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
            if len(self._lengths) >= MAX_SEGMENTS:
                self._lengths.clear()
            self._lengths[sid] = arr
        return arr

    def norm(self, reader, k1: float, b: float, avgfl: float) -> np.ndarray:
        """BM25's K1 * ((1 - B) + B * length / average length) of every document of a
        segment (a million floats: computed once per segment and average, not per query)."""
        key = (reader.segment().segment_id(), k1, b, avgfl)
        arr = self._norms.get(key)
        if arr is None:
            arr = (k1 * ((1 - b) + b * self.lengths(reader) / avgfl)).astype(np.float32)
            with self._lock:
                if len(self._norms) >= MAX_SEGMENTS:  # segments merged away, averages moved on
                    self._norms.clear()
                self._norms[key] = arr
        return arr

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._size = 0
            self._lengths.clear()
            self._norms.clear()


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


_query = threading.local()  # this thread's running query: the small terms it decoded


class query_memo:
    """`with query_memo():` the postings of small terms (below CACHE_MIN, not kept in the
    shared cache) are decoded once per query, not once per use: an any-word query reads each
    word for all its words, then on its own, then at the matches."""

    def __enter__(self) -> None:
        self.outer = getattr(_query, "memo", None)
        _query.memo = {} if self.outer is None else self.outer

    def __exit__(self, *exc: object) -> None:
        _query.memo = self.outer


def doc_frequency(reader, fieldname: str, text: str) -> int:
    """The number of documents of a (multi-segment) reader holding a term, remembered by the
    reader (a searcher's reader never changes; a newer index gets a new searcher): a query
    asks for the same terms again and again (each form of each word, per segment when scoring),
    and each answer is a look-up in every segment's terms table."""
    memo = reader.__dict__.get("_chatmem_df")
    if memo is None:
        memo = reader.__dict__["_chatmem_df"] = {}
    key = (fieldname, text)
    n = memo.get(key)
    if n is None:
        if len(memo) >= DF_MEMO:
            memo.clear()
        n = memo[key] = reader.doc_frequency(fieldname, text)
    return n


def term_postings(reader, text: str, cache: PostingCache | None,
                  fieldname: str = FIELD) -> tuple[np.ndarray, np.ndarray]:
    """(document numbers, term frequencies) of one term in one segment."""
    key = (reader.segment().segment_id(), fieldname, text)
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    memo = getattr(_query, "memo", None)
    if memo is not None:
        hit = memo.get(key)
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
    if memo is not None and len(ids_a) < CACHE_MIN:
        memo[key] = (ids_a, w_a)
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
            if self.cache is not None:
                self._norm = self.cache.norm(self.reader, self.K1, self.B, self.avgfl)
            else:
                lengths = _load_lengths(self.reader)
                self._norm = (self.K1 * ((1 - self.B) + self.B * lengths / self.avgfl)).astype(np.float32)
        return self._norm

    def term_scores(self, q: Q.Term, ids: np.ndarray, tf: np.ndarray) -> np.ndarray:
        """BM25 (Whoosh's formula) of a `t` term in the documents `ids` holding it `tf` times."""
        if not self.scored or not len(ids):
            return np.zeros(len(ids), dtype=np.float32)
        df = doc_frequency(self.searcher.reader(), FIELD, q.text)
        idf = np.log(self.n_all / (df + 1)) + 1
        s = idf * (tf * (self.K1 + 1)) / (tf + self.norm()[ids])
        return (s * q.boost).astype(np.float32)

    def intersection(self, subqueries: list[Q.Query]) -> tuple[np.ndarray, np.ndarray]:
        """The documents every subquery matches, their scores added. The terms' documents are
        intersected first and scored after, only where all hold (a phrase of common words
        scored half a million postings to keep a few thousand)."""
        size = self.reader.doc_count_all()
        terms = {k: term_postings(self.reader, c.text, self.cache) for k, c in enumerate(subqueries)
                 if isinstance(c, Q.Term) and c.fieldname == FIELD}
        if len(terms) < len(subqueries):
            # the terms first (the shortest list first): when they have no document in common,
            # the other parts (a word's forms, a compound) are never read
            ids = None
            for other in sorted((p[0] for p in terms.values()), key=len):
                ids = other if ids is None else ids[_member(ids, other, size)]
                if not len(ids):
                    return _EMPTY_IDS, _EMPTY_SCORES
        parts: list[tuple[np.ndarray, np.ndarray, Q.Term | None]] = []
        for k, c in enumerate(subqueries):
            parts.append((*terms[k], c) if k in terms else (*self.run(c), None))
        parts.sort(key=lambda p: len(p[0]))
        # the shortest list first; where the documents left are in each list is found with them
        # (one pass over each list, not one to intersect and another to find the places)
        ids = parts[0][0]
        at = [np.arange(len(ids))]
        for other, _, _ in parts[1:]:
            if not len(ids):
                at.append(_EMPTY_IDS)
                continue
            hit, pos = _locate(ids, other, size)
            if not hit.all():
                ids = ids[hit]
                at = [a[hit] for a in at]
            at.append(pos)
        total: np.ndarray | None = None
        for (_, values, term), pos in zip(parts, at):  # added up in the order the lists were intersected
            v = values[pos] if len(ids) else values[:0]
            s = self.term_scores(term, ids, v) if term is not None else v
            total = s if total is None else (total + s).astype(np.float32)
        assert total is not None
        return ids, total

    def scores_at(self, q: Q.Query, ids: np.ndarray) -> np.ndarray:
        """The score `q` gives each of the sorted `ids` (0 where it does not match), found
        term by term at those documents: the optional words of an any-word query ("what did
        they say about ...") are common, and their union is never built."""
        size = self.reader.doc_count_all()
        if isinstance(q, Q.Term) and q.fieldname == FIELD:
            tids, tf = term_postings(self.reader, q.text, self.cache)
            hit, pos = _locate(ids, tids, size)
            out = np.zeros(len(ids), dtype=np.float32)
            if len(pos):
                out[hit] = self.term_scores(q, ids[hit], tf[pos])
            return out
        if isinstance(q, Q.Or):
            acc = np.zeros(len(ids), dtype=np.float64)  # as _union adds (float64, in order)
            for c in q.subqueries:
                acc += self.scores_at(c, ids)
            return _scaled((ids, acc.astype(np.float32)), q.boost)[1]
        oid, osc = self.run(q)
        out = np.zeros(len(ids), dtype=np.float32)
        if len(oid):
            hit = _member(ids, oid, size)
            out[hit] = osc[_positions(oid, ids[hit], size)]
        return out

    def run(self, q: Q.Query) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(q, Q.Term):
            if q.fieldname == FIELD:
                ids, tf = term_postings(self.reader, q.text, self.cache)
                return ids, self.term_scores(q, ids, tf)
            ids, _ = term_postings(self.reader, q.text, self.cache, q.fieldname)
            return ids, np.zeros(len(ids), dtype=np.float32)
        if q is Q.NullQuery or isinstance(q, Q.NullQuery.__class__):
            return _EMPTY_IDS, _EMPTY_SCORES
        if isinstance(q, Q.Or):
            parts = [self.run(c) for c in q.subqueries]
            return _scaled(_union(parts, self.reader.doc_count_all()), q.boost)
        if isinstance(q, Q.And):
            return _scaled(self.intersection(q.subqueries), q.boost)
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
                scores = scores + self.scores_at(q.b, ids)
            return ids, scores
        raise Unsupported(type(q).__name__)


def _scaled(pair: tuple[np.ndarray, np.ndarray], boost: float) -> tuple[np.ndarray, np.ndarray]:
    if boost == 1.0:
        return pair
    return pair[0], (pair[1] * boost).astype(np.float32)


def _union(parts: list[tuple[np.ndarray, np.ndarray]], size: int) -> tuple[np.ndarray, np.ndarray]:
    """The union of sorted id lists, scores added; `size` is the segment's document count.
    Lists that together hold a good share of the segment are merged over a dense array of
    the segment (linear) rather than sorted (n log n: common words at a million messages)."""
    parts = [p for p in parts if len(p[0])]
    if not parts:
        return _EMPTY_IDS, _EMPTY_SCORES
    if len(parts) == 1:
        return parts[0]
    ids = np.concatenate([p[0] for p in parts])
    scores = np.concatenate([p[1] for p in parts])
    if len(ids) * DENSE_SHARE >= size:
        seen = np.zeros(size, dtype=bool)
        seen[ids] = True
        uniq = np.flatnonzero(seen)
        return uniq, np.bincount(ids, weights=scores, minlength=size)[uniq].astype(np.float32)
    uniq, inverse = np.unique(ids, return_inverse=True)
    return uniq, np.bincount(inverse, weights=scores, minlength=len(uniq)).astype(np.float32)


def _positions(ids: np.ndarray, sub: np.ndarray, size: int) -> np.ndarray:
    """Where each of `sub` (a sorted subset of the sorted `ids`) is in `ids`."""
    if len(ids) == len(sub):
        return np.arange(len(sub))
    if len(sub) * DENSE_SHARE >= size:
        at = np.zeros(size, dtype=np.int64)
        at[ids] = np.arange(len(ids))
        return at[sub]
    return np.searchsorted(ids, sub)


def _locate(ids: np.ndarray, other: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Which of the sorted `ids` are in the sorted `other`, and where those are in `other`
    (`_member` and `_positions` in one pass)."""
    if not len(other) or not len(ids):
        return np.zeros(len(ids), dtype=bool), _EMPTY_IDS
    if len(ids) * DENSE_SHARE >= size:
        where = np.full(size, -1, dtype=np.int32)  # (a segment holds fewer than 2**31 documents)
        where[other] = np.arange(len(other), dtype=np.int32)
        pos = where[ids]
        hit = pos >= 0
        return hit, pos[hit]
    pos = np.searchsorted(other, ids)
    pos[pos >= len(other)] = 0
    hit = other[pos] == ids
    return hit, pos[hit]


def _member(ids: np.ndarray, other: np.ndarray, size: int = 0) -> np.ndarray:
    """Which of the sorted `ids` are in the sorted `other`; over a dense array of the
    segment's `size` documents when the lists are long (linear, not a binary search each)."""
    if not len(other):
        return np.zeros(len(ids), dtype=bool)
    if size and len(ids) * DENSE_SHARE >= size:
        seen = np.zeros(size, dtype=bool)
        seen[other] = True
        return seen[ids]
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
