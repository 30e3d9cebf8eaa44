"""Message vectors for search by meaning: derived data beside the full-text index.

Layout of `<home>/vectors/`:

    state.json             model, ingest seq caught up to, segment names, chat and person codes
    seg-000001/            one folder per catch-up (an import, a sync, a rebuild)
        ids.npy            message ids (bytes)
        vec.npy            int8 vectors, one row of 256 bytes per message (unit vector x 127)
        chat.npy person.npy   int32 codes of the message's chat and person (filters, seat scope)
        ts.npy             uint32 seconds since 1970 (UTC) of the message (date filters)
        dead.npy           rows replaced by a later segment (an edited message) or removed

256 bytes of vector and 31 of keys per message: 287 MB at a million. Like the index it is caught
up by the ingest sequence number after every import and rebuilt by `reindex`; a message edited
since gets a new vector in a newer segment, and the older row is marked dead. Searching is an
exact scan in two steps: Hamming distance on the vectors' sign bits (made on load, 32 bytes a
row) over every row the filters allow; then, for the nearest `MIDDLE` of those, a finer guess
from the sign and magnitude bits (a second 32 bytes a row, made on load: whether each dimension
is far from zero); then the int8 cosine of the best `shortlist` rows.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from chatmem.errors import StoreError

if TYPE_CHECKING:
    import numpy as np

VECTORS_DIR = "vectors"
STATE = "state.json"
FORMAT = 2  # 2: vectors of the distilled MiniLM table (1: WordLlama's)
EMBED_BATCH = 2048
# rows re-scored by int8 cosine after the Hamming pass. On 940k real vectors the scan's top 10
# held 0.76 of the exact top 10 with 1,000, 0.88 with 4,000, 0.95 with 16,000; but 4,000 costs
# ~9 ms more CPU a search (rows read from the memory-mapped file) and put hybrid's any-word p95
# at 1M over 60 ms (benchmarks/NOTES.md)
SHORTLIST = 1000
# Between the two: the rows nearest by sign bits that the sign + magnitude bits order before the
# int8 step (ternary codes: -1, 0, +1 a dimension, zero when |x| <= MAGNITUDE of 127). On the
# same 940k vectors, the top 10 held 0.76 of the exact top 10 without this step, 0.92 with
# 8,000 rows ordered by it, for ~1 ms CPU and 32 bytes a row in memory (benchmarks/NOTES.md)
MIDDLE = 8000
MAGNITUDE = 5  # ~0.6 of a dimension's spread (unit vectors of 256 dimensions x 127)
STRONG = 2.0  # how much more a far-from-zero dimension counts than a near-zero one, minus one
# A catch-up writes a segment every SEGMENT_ROWS rows (~38 MB of columns), so embedding a
# million messages holds one segment's columns, not all of them (~600 MB at 1M before).
SEGMENT_ROWS = 1 << 17
MAX_SEGMENTS = 12  # more small segments than this and the next catch-up packs them into full ones
CONTEXT_MAX_CHARS = 0  # neighbours' text added to short messages (0: off; see benchmarks)
COLUMNS = ("ids", "vec", "chat", "person", "ts")


class VectorRow(NamedTuple):
    """One message to embed: its id, text and the keys filters use (`ts`: UTC seconds)."""

    id: str
    text: str
    chat_id: str
    person_id: str | None
    ts: int


def quantize(v: np.ndarray) -> np.ndarray:
    """Unit float vectors to int8 (x 127, rounded): cosine order is kept to ~1e-3."""
    import numpy as np

    return np.clip(np.rint(v * 127.0), -127, 127).astype(np.int8)


def sign_bits(q: np.ndarray) -> np.ndarray:
    """(n, 256) int8 to (4, n) uint64 sign bits, column-major for a fast Hamming scan."""
    import numpy as np

    packed = np.packbits(q >= 0, axis=1)  # (n, 32) uint8
    return np.ascontiguousarray(packed.view(np.uint64).T)


def magnitude_bits(q: np.ndarray) -> np.ndarray:
    """(n, 256) int8 to (4, n) uint64 bits: which dimensions are far from zero (|x| > MAGNITUDE)."""
    import numpy as np

    packed = np.packbits((q > MAGNITUDE) | (q < -MAGNITUDE), axis=1)
    return np.ascontiguousarray(packed.view(np.uint64).T)


class VectorStore:
    """The vectors of one store: append a segment per catch-up, scan them all to search."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._loaded: _Loaded | None = None

    # ------------------------------------------------------------------ state
    def state(self) -> dict[str, Any]:
        try:
            return json.loads((self.folder / STATE).read_text())
        except FileNotFoundError:
            return {"format": FORMAT, "model": None, "seq": 0, "segments": [], "chats": [], "people": []}
        except (OSError, ValueError) as e:
            raise StoreError(f"the vector state {self.folder / STATE} is unreadable ({e}); "
                             "`chatmem reindex` rebuilds it") from e

    def made_by(self, model: str) -> bool:
        """False when vectors exist that another model or format made (they need a rebuild)."""
        state = self.state()
        return not state.get("segments") or (state.get("model") == model
                                             and state.get("format") == FORMAT)

    @property
    def seq(self) -> int:
        return int(self.state().get("seq", 0))

    def _write_state(self, state: dict[str, Any]) -> None:
        tmp = self.folder / (STATE + ".tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, self.folder / STATE)  # readers see the old or the new state, never half

    def clear(self) -> None:
        """Forget every vector (reindex builds them again)."""
        with self._lock:
            shutil.rmtree(self.folder, ignore_errors=True)
            self._loaded = None

    def count(self) -> int:
        """Live vectors (one per message embedded)."""
        return self._load().alive_count

    def nbytes(self) -> int:
        """Bytes of vector and key data on disk (file headers left out)."""
        import numpy as np

        if not self.folder.exists():
            return 0
        return sum(np.load(f, mmap_mode="r").nbytes for f in self.folder.glob("seg-*/*.npy"))

    # ------------------------------------------------------------------ writing
    def add(self, rows: Iterable[VectorRow], seq: int, embed: Callable[[list[str]], np.ndarray],
            model: str, on_progress: Callable[[int], None] | None = None) -> int:
        """Embed `rows` into a new segment and mark older rows of the same ids dead; the state
        says `seq` afterwards. Returns how many vectors were written."""
        import numpy as np

        self.folder.mkdir(parents=True, exist_ok=True)
        state = self.state()
        if state.get("model") not in (None, model) or state.get("format") != FORMAT:
            raise StoreError(f"the vectors in {self.folder} were made by another model or format; "
                             "`chatmem reindex` rebuilds them")
        chats = {c: i for i, c in enumerate(state["chats"])}
        people = {p: i for i, p in enumerate(state["people"])}
        older = list(state["segments"])  # rows of these may be replaced by the new ones
        segments = list(older)
        writer = _SegmentWriter(self, segments, _next_number(segments),
                                before_write=lambda cols: self._mark_dead(older, cols["ids"]))
        n = 0
        for batch in _batches(rows, EMBED_BATCH):
            writer.add({
                "vec": quantize(embed([r.text for r in batch])),
                "ids": np.array([r.id.encode() for r in batch]),
                "chat": np.array([chats.setdefault(r.chat_id, len(chats)) for r in batch], dtype=np.int32),
                "person": np.array([people.setdefault(r.person_id, len(people)) if r.person_id else -1
                                    for r in batch], dtype=np.int32),
                "ts": np.clip(np.array([r.ts for r in batch], dtype=np.int64), 0, 2**32 - 1).astype(np.uint32),
            })
            n += len(batch)
            if on_progress is not None:
                on_progress(n)
        writer.flush()
        # (the state names the new segments only now: a catch-up cut short leaves the vectors
        # as they were, and its segment folders are overwritten by the next one)
        state.update(format=FORMAT, model=model, seq=seq, segments=segments,
                     chats=list(chats), people=list(people))
        self._write_state(state)
        if sum(self._rows(s) < SEGMENT_ROWS for s in segments) > MAX_SEGMENTS:
            self.compact()
        with self._lock:
            self._loaded = None
        return n

    def remove(self, message_ids: Iterable[str]) -> int:
        """Mark the vectors of these messages dead (the messages were deleted)."""
        message_ids = list(message_ids)
        if not message_ids or not self.folder.exists():
            return 0  # no vectors (e.g. without the semantic extra): nothing to do, no numpy
        import numpy as np

        ids = np.array([i.encode() for i in message_ids])
        state = self.state()
        n = self._mark_dead(state["segments"], ids)
        state["dead_version"] = int(state.get("dead_version", 0)) + 1  # other readers reload
        self._write_state(state)
        with self._lock:
            self._loaded = None
        return n

    def compact(self) -> None:
        """Pack the live rows of the small segments (under SEGMENT_ROWS rows) into as few
        segments as they fill, one at a time: full segments are left as they are, so packing
        holds at most about two segments' columns."""

        state = self.state()
        small = [s for s in state["segments"] if self._rows(s) < SEGMENT_ROWS]
        if len(small) < 2:
            return
        segments = [s for s in state["segments"] if s not in small]
        writer = _SegmentWriter(self, segments, _next_number(state["segments"]))
        for name in small:
            seg = self._read_segment(name, mmap=False)
            keep = ~seg["dead"]
            writer.add({c: seg[c][keep] for c in COLUMNS})
        if writer.held or not segments:
            writer.flush(even_empty=True)
        state["segments"] = segments
        self._write_state(state)
        for o in small:
            shutil.rmtree(self.folder / o, ignore_errors=True)

    def _rows(self, segment: str) -> int:
        import numpy as np

        return int(np.load(self.folder / segment / "ids.npy", mmap_mode="r").shape[0])

    def _mark_dead(self, segments: list[str], ids: np.ndarray) -> int:
        import numpy as np

        marked = 0
        if not len(ids) or not segments:
            return 0
        probe = _IdProbe(ids)
        for name in segments:
            hit = probe.among(np.load(self.folder / name / "ids.npy"))
            if hit.any():
                dead_path = self.folder / name / "dead.npy"
                dead = np.load(dead_path)
                marked += int((hit & ~dead).sum())
                _save(dead_path, dead | hit)
        return marked

    def _write_segment(self, name: str, cols: dict[str, np.ndarray]) -> None:
        import numpy as np

        tmp = self.folder / (name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for c in COLUMNS:
            np.save(tmp / f"{c}.npy", cols[c])
        np.save(tmp / "dead.npy", np.zeros(len(cols["ids"]), dtype=bool))
        os.replace(tmp, self.folder / name)

    def _read_segment(self, name: str, mmap: bool = True) -> dict[str, np.ndarray]:
        import numpy as np

        d = self.folder / name
        out = {c: np.load(d / f"{c}.npy", mmap_mode="r" if mmap and c == "vec" else None)
               for c in COLUMNS}
        out["dead"] = np.load(d / "dead.npy")
        return out

    # ------------------------------------------------------------------ reading
    def _load(self) -> _Loaded:
        with self._lock:
            state = self.state()
            if self._loaded is not None and self._loaded.key == _key(state):
                return self._loaded
            self._loaded = _Loaded.build(self, state)
            return self._loaded

    def search(self, query: np.ndarray, k: int, *, chats: Iterable[str] | None = None,
               people: Iterable[str] | None = None, since: datetime | None = None,
               until: datetime | None = None, shortlist: int = SHORTLIST) -> list[tuple[str, float]]:
        """The `k` messages nearest to the unit vector `query` among those the filters allow
        (chat ids, person ids, UTC bounds inclusive): (id, cosine), best first."""
        import numpy as np

        data = self._load()
        if data.n == 0:
            return []
        allowed = None if data.alive_count == data.n else data.alive.copy()

        def keep(mask: np.ndarray) -> np.ndarray:
            return mask if allowed is None else allowed & mask

        if chats is not None:
            codes = [data.chat_codes[c] for c in chats if c in data.chat_codes]
            allowed = keep(np.isin(data.chat, np.array(codes, dtype=np.int32)))
        if people is not None:
            codes = [data.person_codes[p] for p in people if p in data.person_codes]
            allowed = keep(np.isin(data.person, np.array(codes, dtype=np.int32)))
        if since is not None:
            allowed = keep(data.ts >= _epoch(since))
        if until is not None:
            allowed = keep(data.ts <= _epoch(until))
        q8 = quantize(query[None, :])
        qbits = sign_bits(q8)[:, 0]
        if allowed is None:  # every row
            rows, dist = None, _hamming(data.bits, qbits)
        else:
            rows = np.flatnonzero(allowed)
            if len(rows) == 0:
                return []
            if len(rows) * 8 < data.n:  # a few rows: only theirs
                dist = _hamming(data.bits[:, rows], qbits)
            else:
                dist = _hamming(data.bits, qbits)
                dist[~allowed] = FILTERED
                rows = None
        near = _nearest(dist, max(MIDDLE, shortlist, k))
        rows = near if rows is None else rows[near]
        if len(rows) > max(shortlist, k):
            rows = _finer(data, rows, dist[near], qbits, magnitude_bits(q8)[:, 0], max(shortlist, k))
        vecs = data.vec_rows(rows).astype(np.float32)
        norms = np.linalg.norm(vecs, axis=1)
        sims = (vecs @ query.astype(np.float32)) / np.where(norms > 0, norms, 1)
        order = np.argsort(-sims, kind="stable")[:k]
        return [(data.ids[rows[i]].decode(), float(sims[i])) for i in order]


FILTERED = 511  # the distance of a row the filters leave out: above any Hamming distance (256)


class _SegmentWriter:
    """Columns gathered a part at a time and written as segments of about SEGMENT_ROWS rows, so
    a catch-up or a packing holds one segment's columns at a time; each name is appended to
    `segments` as it is written."""

    def __init__(self, vs: VectorStore, segments: list[str], number: int,
                 before_write: Callable[[dict[str, np.ndarray]], object] | None = None) -> None:
        self.vs, self.segments, self.number, self.before_write = vs, segments, number, before_write
        self.parts: dict[str, list[np.ndarray]] = {c: [] for c in COLUMNS if c != "vec"}
        # the vectors (256 of the ~290 bytes a row) are copied into one array as they come, not
        # gathered in parts and joined: joining held the segment's vectors twice (~32 MB more)
        self.vec: np.ndarray | None = None
        self.held = 0

    def add(self, cols: dict[str, np.ndarray]) -> None:
        import numpy as np

        for c in self.parts:
            self.parts[c].append(cols[c])
        vec, n = cols["vec"], len(cols["ids"])
        if self.vec is None or self.held + n > len(self.vec):  # (a packing's parts may overshoot)
            # np.empty: the pages of rows not written yet take no memory
            grown = np.empty((max(SEGMENT_ROWS, self.held + n), vec.shape[1]), dtype=vec.dtype)
            if self.vec is not None:
                grown[:self.held] = self.vec[:self.held]
            self.vec = grown
        self.vec[self.held:self.held + n] = vec
        self.held += n
        if self.held >= SEGMENT_ROWS:
            self.flush()

    def flush(self, even_empty: bool = False) -> None:
        import numpy as np

        if not self.held and not even_empty:
            return
        cols = {c: np.concatenate(v) if v else _empty(c) for c, v in self.parts.items()}
        cols["vec"] = self.vec[:self.held] if self.vec is not None else _empty("vec")
        if self.before_write is not None:
            self.before_write(cols)
        name = f"seg-{self.number:06d}"
        self.number += 1
        self.vs._write_segment(name, cols)
        self.segments.append(name)
        self.parts, self.held = {c: [] for c in self.parts}, 0  # (self.vec is written over next)


def _hamming(bits: np.ndarray, qbits: np.ndarray) -> np.ndarray:
    """Hamming distance of every row's 256 sign bits (4 x uint64, column-major) to the query's."""
    import numpy as np

    word = np.empty(bits.shape[1], dtype=np.uint64)
    dist = np.zeros(bits.shape[1], dtype=np.uint16)
    for j in range(4):
        np.bitwise_xor(bits[j], qbits[j], out=word)
        dist += np.bitwise_count(word)
    return dist


def _finer(data: _Loaded, rows: np.ndarray, dist: np.ndarray, qbits: np.ndarray, qmag: np.ndarray,
           m: int) -> np.ndarray:
    """The m of `rows` nearest by ternary codes: the dot product of sign x (1 + STRONG x magnitude
    bit) of the row and of the query, counted with popcounts (`dist`: the rows' Hamming distances),
    ties in the given order."""
    import numpy as np

    signs = data.bits[:, rows]
    mags = data.mags[:, rows]
    agree = ~(signs ^ qbits[:, None])

    def signed(bits: np.ndarray) -> np.ndarray:  # sum over the bits of +1 where signs agree, -1 not
        return (2 * np.bitwise_count(agree & bits).sum(axis=0, dtype=np.int32)
                - np.bitwise_count(bits).sum(axis=0, dtype=np.int32))

    both = mags & qmag[:, None]
    score = (256 - 2 * dist.astype(np.float32)
             + STRONG * (signed(mags) + signed(np.broadcast_to(qmag[:, None], mags.shape)))
             + STRONG * STRONG * signed(both))
    return rows[np.argsort(-score, kind="stable")[:m]]


def _nearest(dist: np.ndarray, m: int) -> np.ndarray:
    """Positions of the m smallest distances that are not FILTERED (fewer if there are not m),
    ties cut in row order. A histogram of the small integer distances finds the cut: at a
    million rows that is 3x faster than argpartition."""
    import numpy as np

    counts = np.cumsum(np.bincount(dist, minlength=FILTERED + 1)[:FILTERED])
    if counts[-1] <= m:
        return np.flatnonzero(dist < FILTERED)
    cut = int(np.searchsorted(counts, m))  # the distance at which the m-th row lies
    below = np.flatnonzero(dist < cut)
    return np.concatenate([below, np.flatnonzero(dist == cut)[:m - len(below)]])


class _Loaded:
    """Every segment's columns concatenated in memory, with the sign bits made once."""

    key: tuple
    n: int
    segs: list[dict[str, np.ndarray]]
    offsets: np.ndarray  # where each segment's rows start, then the total
    ids: np.ndarray
    chat: np.ndarray
    person: np.ndarray
    ts: np.ndarray
    alive: np.ndarray
    alive_count: int
    bits: np.ndarray
    mags: np.ndarray
    chat_codes: dict[str, int]
    person_codes: dict[str, int]

    @classmethod
    def build(cls, vs: VectorStore, state: dict[str, Any]) -> _Loaded:
        import numpy as np

        self = cls()
        self.key = _key(state)
        segs = [vs._read_segment(name) for name in state["segments"]]
        self.segs = segs
        self.offsets = np.cumsum([0] + [len(s["ids"]) for s in segs])
        self.n = int(self.offsets[-1])
        def cat(c: str) -> np.ndarray:
            return np.concatenate([s[c] for s in segs]) if segs else _empty(c)

        self.ids = cat("ids")
        self.chat = cat("chat")
        self.person = cat("person")
        self.ts = cat("ts")
        self.alive = ~np.concatenate([s["dead"] for s in segs]) if segs else np.zeros(0, bool)
        self.alive_count = int(self.alive.sum())
        self.bits = (np.concatenate([sign_bits(np.asarray(s["vec"])) for s in segs], axis=1)
                     if segs else np.zeros((4, 0), np.uint64))
        self.mags = (np.concatenate([magnitude_bits(np.asarray(s["vec"])) for s in segs], axis=1)
                     if segs else np.zeros((4, 0), np.uint64))
        self.chat_codes = {c: i for i, c in enumerate(state["chats"])}
        self.person_codes = {p: i for i, p in enumerate(state["people"])}
        return self

    def vec_rows(self, rows: np.ndarray) -> np.ndarray:
        import numpy as np

        seg_of = np.searchsorted(self.offsets, rows, side="right") - 1
        out = np.empty((len(rows), self.segs[0]["vec"].shape[1] if self.segs else 0), np.int8)
        for s in np.unique(seg_of):
            pick = seg_of == s
            out[pick] = self.segs[s]["vec"][rows[pick] - self.offsets[s]]
        return out


PROBE_BITS = 22  # the id probe's table: 4 MB of flags, ~0.25% of rows a candidate for 10,000 ids


def _fold(ids: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each id (a fixed-width bytes array), the same for the same id in arrays of
    any width: the id's bytes 8 at a time, all-zero words left out (a wider array's padding adds
    only those)."""
    import numpy as np

    n, width = len(ids), ids.dtype.itemsize
    raw = np.ascontiguousarray(ids).view(np.uint8).reshape(n, width)
    if width % 8:
        raw = np.concatenate([raw, np.zeros((n, 8 - width % 8), np.uint8)], axis=1)
    words = np.ascontiguousarray(raw).view(np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    for j in range(words.shape[1]):
        word = words[:, j]
        mixed = (h ^ word) * np.uint64(0x9E3779B97F4A7C15)
        mixed ^= mixed >> np.uint64(32)
        h = np.where(word != 0, mixed, h)
    return h


class _IdProbe:
    """Which rows of a segment's ids are among `ids`: a table of flags by hash picks the few
    candidates, compared exactly. np.isin over each segment sorted the segment's ids with the
    new ones (a re-import of 10,000 messages into a million: 0.25 s CPU, growing with the store);
    this reads each id once (~0.05 s)."""

    def __init__(self, ids: np.ndarray) -> None:
        import numpy as np

        self.ids = ids
        self.shift = np.uint64(64 - PROBE_BITS)  # the top bits: those a product mixes most
        self.table = np.zeros(1 << PROBE_BITS, dtype=bool)
        self.table[(_fold(ids) >> self.shift).astype(np.intp)] = True

    def among(self, seg_ids: np.ndarray) -> np.ndarray:
        import numpy as np

        hit = np.zeros(len(seg_ids), dtype=bool)
        if len(seg_ids):
            cand = np.flatnonzero(self.table[(_fold(seg_ids) >> self.shift).astype(np.intp)])
            hit[cand] = np.isin(seg_ids[cand], self.ids)
        return hit


def _key(state: dict[str, Any]) -> tuple:
    return (state.get("seq"), tuple(state.get("segments", ())), state.get("dead_version"))


def _save(path: Path, arr: np.ndarray) -> None:
    import numpy as np

    tmp = path.with_name(path.stem + ".tmp.npy")
    np.save(tmp, arr)
    os.replace(tmp, path)


def _empty(column: str) -> np.ndarray:
    import numpy as np

    return {"ids": np.zeros(0, "S18"), "vec": np.zeros((0, 256), np.int8),
            "chat": np.zeros(0, np.int32), "person": np.zeros(0, np.int32),
            "ts": np.zeros(0, np.uint32)}[column]


def _epoch(t: datetime) -> int:
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return max(0, min(int(t.timestamp()), 2**32 - 1))


def _next_number(segments: list[str]) -> int:
    return max((int(s.rsplit("-", 1)[1]) for s in segments), default=0) + 1


def _batches(rows: Iterable[VectorRow], size: int) -> Iterator[list[VectorRow]]:
    batch: list[VectorRow] = []
    for r in rows:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def rows_since(conn: Any, since: int) -> Iterator[VectorRow]:
    """Messages with text changed after ingest seq `since`, as rows to embed."""
    from sqlalchemy import BigInteger, Integer, cast, func, select

    from . import models as m

    mt = m.Message.__table__
    if conn.dialect.name == "postgresql":
        ts = cast(func.extract("epoch", mt.c.sent_at), BigInteger)
    else:  # SQLite keeps UTC times as text: its strftime makes seconds without a Python datetime
        ts = cast(func.strftime("%s", mt.c.sent_at), Integer)
    q = (select(mt.c.id, mt.c.text, mt.c.chat_id, mt.c.person_id, ts)
         .where(mt.c.seq > since, mt.c.text != "").execution_options(yield_per=EMBED_BATCH))
    for r in conn.execute(q):
        yield VectorRow._make(r)


def count_since(conn: Any, since: int) -> int:
    from sqlalchemy import func, select

    from . import models as m

    mt = m.Message.__table__
    return conn.execute(select(func.count()).select_from(mt).where(mt.c.seq > since, mt.c.text != "")).scalar_one()
