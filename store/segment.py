"""Writing many documents into the Whoosh index at once: postings gathered in memory and
written as one segment per batch, in Whoosh's own on-disk format (codec `whoosh3`).

Whoosh's own writer spends most of a bulk build in Python per posting: each goes through
`add_document`, is pickled into a temporary run, sorted, read back, then handed to the codec
one by one while the codec looks up the document's length per posting. Here the terms of a
document arrive already counted (`analysis.term_counts`), each is appended to its term's list of
document numbers, and at the end every posting list is cut into Whoosh's blocks of 128 with a
few calls per block. What Whoosh reads back is the same: the same fields, terms, block layout,
term statistics, lengths, columns and stored `id` and `x` (searches cannot tell how a segment was
written). Small updates still go through Whoosh's writer (`FullTextIndex.write`).

A builder holds RUN_POSTINGS postings at most in memory, whatever the segment's size: past that,
its postings and ids go to a run file (each field's terms in order, each with its documents),
and the segment is written from its runs merged term by term, a term at a time. So the memory of
a bulk build does not grow with the segment (a million-message import builds segments of ~330k
documents with the same memory as a 100k import's one segment), and the segment's files are the
same bytes as if everything had been held at once. A merge of segments (`merge.py`) hands each
segment's postings to the builder as a run of its own, read from the segment's terms table in
order: it holds one term at a time too.
"""

from __future__ import annotations

import gc
import heapq
import struct
import sys
import tempfile
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from hashlib import md5
from itertools import accumulate, chain
from operator import sub
from pathlib import Path
from pickle import dumps
from typing import IO, Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC
from whoosh.system import pack_ushort
from whoosh.util.numeric import length_to_byte

BLOCK = 128  # postings per block (W3Codec's blocklimit)
COMPRESS_LEVEL = 3  # W3Codec's compression
WRITE_TERMS = 4096  # terms whose postings and table rows are written in one go
COMPRESS_FROM = 96  # bytes of pickled block data below which a block is stored uncompressed
WRITE_BYTES = 1 << 20  # posting bytes gathered before they go to the postings file
SPOOL_BYTES = 1 << 22  # stored fields gathered in memory before they go to the spool file
# postings a builder holds in memory at most (with the ids of their documents) before they go to
# a run file: a few MB as arrays (~20k messages; a 100k import's whole index is ~1.2 million)
RUN_POSTINGS = 250_000
RUN_READ_BYTES = 1 << 16  # read buffer of each run file while the runs are merged
FIELDS = ("c", "id", "t", "who")  # the fields a segment's terms are in, in the terms table's order
COPY_BYTES = 1 << 20  # the spool copied into the segment this much at a time
COLUMN_NUMBERS = 1 << 16  # a column's lengths and offsets written this many at a time
PER_DOC = 1 << 16  # documents whose time, meta and stored length are held before the numbers file
_NUMBERS = ("stored_lengths", "ts", "meta")  # the builder's per-document numbers (array "I")
_ONE = struct.pack("!I", 1)
_NONE = array("I")  # no (document, frequency) pairs
_INT = struct.Struct("!i")  # a block's length (negative: the term's last block)
_UINT = struct.Struct("!I")
# W3TermInfo.to_bytes of a term whose postings are in the postings file: flags, total weight,
# document frequency, min/max length bytes, max weight, first/last document, offset, length
_TERM_INFO = struct.Struct("!BfIBBfIIqi")
_LEN_BYTE = [length_to_byte(n) for n in range(1024)]  # lengths of most messages, precomputed


_BIG_ENDIAN = sys.byteorder == "big"


def _swapped(values: array) -> bytes:
    out = array(values.typecode, values)
    out.byteswap()
    return out.tobytes()


def _put_fixed(writer: Any, data: Iterable[bytes | bytearray], count: int) -> None:
    """All values of a fixed-width numeric column at once (chunks of their bytes, in order),
    big-endian as Whoosh writes them."""
    for chunk in data:
        writer._dbfile.write(chunk)
    writer._count = count


def _grown_typecode(top: int) -> str:
    """The typecode Whoosh's `GrowableArray(allow_longs=False)` ends with after holding numbers
    up to `top` (it starts as "B" and widens to the smallest type that takes a number too big)."""
    if top < 1 << 8:
        return "B"
    if top < 1 << 16:
        return "H"
    if top < 1 << 31:
        return "i"
    if top < 1 << 32:
        return "I"
    raise OverflowError(f"{top!r} is too big to fit in an array")


def _put_var(writer: Any, data: Iterable[bytes | bytearray],
             lengths: Callable[[], Iterable[array]]) -> None:
    """All values of a variable-width column at once (a `VarBytesColumn.Writer` with nothing
    in it yet), their bytes as `data` (chunks, concatenated in order) and each value's length
    (`lengths()`: the lengths in order, in parts, read again for each use): the same bytes as
    adding them one by one and finishing the column, its arrays of lengths and offsets written
    COLUMN_NUMBERS at a time (the column's writer holds both, a number per document, until it
    finishes; its `finish` then has nothing left to write)."""
    dbfile = writer._dbfile
    for chunk in data:
        dbfile.write(chunk)
    n = top = total = last = 0
    for part in lengths():
        if part:
            n, top, total, last = n + len(part), max(top, max(part)), total + sum(part), part[-1]
    lcode = _grown_typecode(top)
    for part in lengths():
        for i in range(0, len(part), COLUMN_NUMBERS):
            numbers = array(lcode, part[i:i + COLUMN_NUMBERS])
            dbfile.write(numbers.tobytes() if _BIG_ENDIAN or lcode == "B" else _swapped(numbers))
    # Whoosh writes the offsets only for a column of many values (VarBytesColumn.Writer.finish)
    with_offsets = writer.allow_offsets and n > writer.cutoff
    if with_offsets:
        base = 0
        ocode = _grown_typecode(total - last)  # the last offset is the largest
        for part in lengths():
            for i in range(0, len(part), COLUMN_NUMBERS):
                numbers = array(ocode, accumulate(part[i:i + COLUMN_NUMBERS], initial=base))
                base = numbers.pop()
                dbfile.write(numbers.tobytes() if _BIG_ENDIAN or ocode == "B" else _swapped(numbers))
    dbfile.write(lcode.encode("ascii") + (ocode.encode("ascii") + b"X" if with_offsets else b""))
    writer._count = n
    writer.finish = _finished


def _finished(doccount: int) -> None:
    """The `finish` of a column whose values and arrays `_put_var` wrote."""


def _deflate(data: bytes, level: int = COMPRESS_LEVEL) -> bytes:
    """zlib data that `zlib.decompress` reads, with a small window: for values of a few hundred
    bytes this is the same size and many times faster to start than `zlib.compress`."""
    c = zlib.compressobj(level, zlib.DEFLATED, 10, 2)
    return c.compress(data) + c.flush()


_STORED_HEAD = struct.Struct("<HH")
_ADLER = struct.Struct(">I")


def _zlib_stored(data: bytes) -> bytes:
    """`data` as a zlib stream of one stored (uncompressed) deflate block: what
    `zlib.decompress` reads, made without starting a compressor (for values of a few dozen
    bytes, which compression would not shrink)."""
    n = len(data)
    if n > 0xFFFF:
        return zlib.compress(data)
    return b"\x78\x01\x01" + _STORED_HEAD.pack(n, n ^ 0xFFFF) + data + _ADLER.pack(zlib.adler32(data))


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: bulk work that allocates millions of small lists and
    tuples (none of them in cycles) otherwise pays for collections that scan them again and
    again (about a tenth of a bulk index build)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def length_byte(n: int) -> int:
    return _LEN_BYTE[n] if n < 1024 else length_to_byte(n)


Posting = tuple[bytes, Sequence[int], "array | None"]
"""A term of a field (its UTF-8 bytes), its documents in increasing order, and the (document,
frequency) pairs of those where the term occurs more than once, flattened (None: no such)."""


class SegmentBuilder:
    """The postings, lengths and columns of a batch of new documents, numbered from 0 in the
    order added. Their stored fields (the text, the biggest part) go to a spool file in
    `spool_dir` as they come, a few MB at a time; their postings and ids are held in memory
    until the caller `spill`s them to a run file there (at RUN_POSTINGS `run_postings`). What
    stays in memory for every document of the segment is 1 byte (its length); its time, meta
    and stored length go to a numbers file PER_DOC documents at a time."""

    def __init__(self, spool_dir: Path | None = None) -> None:
        self.spool_dir = spool_dir
        self.count = 0  # documents
        self.ids: list[str] = []  # the ids of the documents added since the last spill, in order
        self._run_base = 0  # the number of the first of them
        self._stored = bytearray()  # stored fields not yet in the spool: pickled and framed
        self._spool: Any = None  # an unnamed temporary file, made when the first MB are full
        # each document's stored fields' length in bytes, time and meta: those not yet in the
        # numbers file (an unnamed temporary file, with where each array's spilled parts are)
        self.stored_lengths = array("I")
        self.ts = array("I")
        self.meta = array("I")
        self._numbers: Any = None
        self._number_parts: dict[str, list[tuple[int, int]]] = {name: [] for name in _NUMBERS}
        self.lengths = bytearray()  # the `t` field's length per document, as Whoosh's byte
        self.total_length = 0
        self.t: dict[str, array] = {}  # term -> document numbers (those held in memory)
        self.t_freq: dict[str, array] = {}  # term -> (document, frequency) pairs where above 1
        self.keys: dict[str, dict[str, array]] = {"c": {}, "who": {}}
        self.postings = 0  # the segment's, for the caller's bound on its size
        self.run_postings = 0  # those held in memory now
        self._runs: list[_Run] = []

    def __len__(self) -> int:
        return self.count

    def add(self, doc_id: str, terms: dict[str, int], chat: str, who: list[str],
            ts: int, meta: int, text: str = "") -> None:
        d = self.count
        self.count = d + 1
        self.ids.append(doc_id)
        # as Whoosh's writer stores them: the stored fields by name, in the schema's order
        self.add_stored(_zlib_stored(dumps({"id": doc_id, "x": text}, 2)))
        self.ts.append(ts)
        self.meta.append(meta)
        post, freqs = self.t, self.t_freq
        length = 0
        for term, f in terms.items():
            p = post.get(term)
            if p is None:
                post[term] = p = array("I")
            p.append(d)
            if f != 1:
                fr = freqs.get(term)
                if fr is None:
                    freqs[term] = fr = array("I")
                fr.append(d)
                fr.append(f)
            length += f
        self.lengths.append(length_byte(length))
        self.total_length += length
        if len(self.ts) >= PER_DOC:
            self._spill_numbers()
        c = self.keys["c"].get(chat)
        if c is None:
            self.keys["c"][chat] = c = array("I")
        c.append(d)
        kw = self.keys["who"]
        for k in who:
            p = kw.get(k)
            if p is None:
                kw[k] = p = array("I")
            p.append(d)
        n = len(terms) + 2 + len(who)
        self.postings += n
        self.run_postings += n

    def add_stored(self, stored: bytes | memoryview) -> None:
        """The next document's stored fields, pickled and framed as the column holds them."""
        self.stored_lengths.append(len(stored))
        self._stored += stored
        if len(self._stored) >= SPOOL_BYTES:
            self._spill_stored()

    def _spill_numbers(self) -> None:
        """The per-document numbers held in memory go to the numbers file."""
        if self._numbers is None:
            self._numbers = tempfile.TemporaryFile(dir=self.spool_dir, buffering=0)
        for name in _NUMBERS:
            values: array = getattr(self, name)
            if values:
                self._number_parts[name].append((self._numbers.seek(0, 2), len(values)))
                self._numbers.write(values.tobytes())
                setattr(self, name, array("I"))

    def _numbers_of(self, name: str) -> Iterator[array]:
        """Every document's number `name` ("ts", "meta", "stored_lengths"), in order, a part at
        a time."""
        for at, count in self._number_parts[name]:
            self._numbers.seek(at)
            part = array("I")
            part.frombytes(self._numbers.read(4 * count))
            yield part
        held: array = getattr(self, name)
        if held:
            yield held

    def _spill_stored(self) -> None:
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(dir=self.spool_dir)
        self._spool.write(self._stored)
        self._stored = bytearray()

    def _stored_chunks(self) -> Iterator[bytes | bytearray]:
        """Every document's stored fields, in order, a chunk at a time."""
        if self._spool is not None:
            self._spool.seek(0)
            while chunk := self._spool.read(COPY_BYTES):
                yield chunk
        yield self._stored  # (not a copy: up to SPOOL_BYTES)

    def _held(self) -> list[tuple[str, Iterator[Posting]]]:
        """The postings held in memory, field by field, each field's terms in order."""
        return [("c", _in_order(self.keys["c"], None)), ("id", _id_terms(self.ids, self._run_base)),
                ("t", _in_order(self.t, self.t_freq)), ("who", _in_order(self.keys["who"], None))]

    def run_full(self) -> bool:
        """Whether the postings held in memory are RUN_POSTINGS: time to `spill` them."""
        return self.run_postings >= RUN_POSTINGS

    def spill(self) -> None:
        """The postings and ids held in memory go to a run file of their own."""
        if self.ids or self.run_postings:
            run = _Run(self.spool_dir)
            self._runs.append(run)
            for name, posts in self._held():
                run.add_field(name, posts)
            self._forget_held()

    def new_run(self) -> _Run:
        """An empty run for the postings of the documents numbered from `count` on (what is
        held in memory goes to its own run first)."""
        if self.ids or self.run_postings:
            self.spill()
        run = _Run(self.spool_dir)
        self._runs.append(run)
        return run

    def _forget_held(self) -> None:
        self.ids = []
        self._run_base = self.count
        self.t, self.t_freq, self.keys = {}, {}, {"c": {}, "who": {}}
        self.run_postings = 0

    def _drop_numbers(self) -> None:
        """Let go of the numbers file (its columns written, or abandoned)."""
        if self._numbers is not None:
            self._numbers.close()
            self._numbers = None

    def close(self) -> None:
        """Let go of the spool, numbers and run files (written or abandoned)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._drop_numbers()
        self._stored = bytearray()
        for run in self._runs:
            run.file.close()
        self._runs = []

    # ------------------------------------------------------------------ writing
    def write(self, storage: Any, indexname: str, schema: Any, codec: Any) -> Any:
        """Write the batch as a new segment of the index in `storage`; returns the segment
        (not yet in the index's table of contents: the caller commits it)."""
        seg = codec.new_segment(storage, indexname)
        n = self.count
        pdw = codec.per_document_writer(storage, seg)
        # the per-document columns, each written whole (Whoosh's writer adds value by value)
        # pickled, then framed as zlib, values
        _put_var(pdw._get_column("_stored")._child, self._stored_chunks(),
                 lambda: self._numbers_of("stored_lengths"))
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._stored = bytearray()
        for name in ("ts", "meta"):
            pdw._create_column(name, schema[name].column_type)
            _put_fixed(pdw._get_column(name), (values.tobytes() if _BIG_ENDIAN else _swapped(values)
                                               for values in self._numbers_of(name)), n)
        pdw._create_column("_t_len", LENGTHS_COLUMN)
        _put_fixed(pdw._get_column("_t_len"), (self.lengths,), n)
        pdw._doccount = n
        pdw._fieldlengths["t"] = self.total_length
        pdw.close()
        # what only the columns needed is let go of before the terms are written (the stored
        # column's writer holds a length and an offset per document until it is dropped)
        del pdw
        self.stored_lengths, self.ts, self.meta = array("I"), array("I"), array("I")
        self._drop_numbers()
        lengths = self.lengths

        fw = codec.field_writer(storage, seg)
        table = fw._tindex
        slots = _HashSlots()
        if self._runs:  # the runs merged, a term at a time
            self.spill()
            fields = [(name, _merged([run.terms(name) for run in self._runs])) for name in FIELDS]
        else:
            fields = self._held()
        for name, posts in fields:
            first = next(posts, None)
            if first is None:  # a field without terms is left out, as Whoosh's writer leaves it
                continue
            fw.start_field(name, schema[name])
            scored = name == "t"
            _write_field(fw, slots, chain((first,), posts), scored, lengths if scored else None)
            fw.finish_field()
        self.close()
        # the terms table's hash tables, written here; closing then finds no buckets left and
        # writes the directory of these tables and the rest as usual
        _write_hash_tables(table, slots)
        table.buckets = []
        fw.close()
        seg.set_doc_count(n)
        if seg.should_assemble():
            seg.create_compound_file(storage)
            seg.compound = True
        return seg


_RUN_HEAD = struct.Struct("=III")  # a term in a run: its length, documents, frequency numbers
_RUN_DOC = struct.Struct("=I")


class _Run:
    """Postings of consecutive documents in an unnamed temporary file: each field's terms in
    order, each as its `_RUN_HEAD`, its UTF-8 bytes, its documents and its (document, frequency)
    pairs (as unsigned ints of this machine)."""

    def __init__(self, folder: Path | None) -> None:
        # written in chunks of a few thousand terms, without a buffer of its own (a segment of a
        # million-message import has a dozen runs); read back through a small one
        self.file: IO[bytes] = tempfile.TemporaryFile(dir=folder, buffering=0)
        self.fields: dict[str, tuple[int, int]] = {}  # field -> (where its terms start, terms)

    def add_field(self, name: str, posts: Iterable[Posting]) -> None:
        """A field's terms (in increasing order; each field once)."""
        head, one = _RUN_HEAD.pack, _RUN_DOC.pack
        start = self.file.tell()
        n = 0
        parts: list[bytes] = []
        for term, docs, pairs in posts:
            count = len(docs)
            if count == 1 and not pairs:  # every id, and the rare words
                parts += (head(len(term), 1, 0), term, one(docs[0]))
            else:
                parts += (head(len(term), count, len(pairs) if pairs else 0), term,
                          docs.tobytes() if type(docs) is array else array("I", docs).tobytes())
                if pairs:
                    parts.append(pairs.tobytes())
            n += 1
            if len(parts) >= 4096:
                self.file.write(b"".join(parts))
                parts = []
        self.file.write(b"".join(parts))
        if n:
            self.fields[name] = (start, n)

    def terms(self, name: str) -> Iterator[Posting]:
        """A field's terms, in order, read back."""
        at = self.fields.get(name)
        if at is None:
            return
        self.file.seek(at[0])
        with open(self.file.fileno(), "rb", buffering=RUN_READ_BYTES, closefd=False) as f:
            read, unpack, size, one = f.read, _RUN_HEAD.unpack, _RUN_HEAD.size, _RUN_DOC.unpack
            for _ in range(at[1]):
                length, count, numbers = unpack(read(size))
                term = read(length)
                docs: Sequence[int]
                if count == 1:
                    docs = one(read(4))
                else:
                    docs = array("I")
                    docs.frombytes(read(4 * count))
                pairs = None
                if numbers:
                    pairs = array("I")
                    pairs.frombytes(read(4 * numbers))
                yield term, docs, pairs


def _merged(streams: list[Iterator[Posting]]) -> Iterator[Posting]:
    """Terms of runs of consecutive documents (in the runs' order) as one field's terms in
    order: a term in several runs with their documents one after the other."""
    if len(streams) == 1:
        yield from streams[0]
        return
    heap = []
    for i, stream in enumerate(streams):
        first = next(stream, None)
        if first is not None:
            heap.append((first[0], i, first, stream))
    heapq.heapify(heap)
    while heap:
        term, _, item, stream = heap[0]
        after = next(stream, None)
        if after is None:
            heapq.heappop(heap)
        else:
            heapq.heapreplace(heap, (after[0], _, after, stream))
        if heap and heap[0][0] == term:  # in later runs too (ties come in the runs' order)
            docs = array("I", item[1])
            pairs = array("I", item[2]) if item[2] else None
            while heap and heap[0][0] == term:
                _, j, more, stream = heap[0]
                docs.extend(more[1])
                if more[2]:
                    pairs = more[2] if pairs is None else pairs + more[2]
                after = next(stream, None)
                if after is None:
                    heapq.heappop(heap)
                else:
                    heapq.heapreplace(heap, (after[0], j, after, stream))
            item = (term, docs, pairs)
        yield item


def _id_terms(ids: list[str], base: int) -> Iterator[Posting]:
    """The `id` field's terms in order, each with its documents (numbered from `base`): the
    document numbers sorted by id (no dict of a list per document)."""
    order = sorted(range(len(ids)), key=ids.__getitem__)
    i, n = 0, len(order)
    while i < n:
        d = order[i]
        term = ids[d]
        j = i + 1
        while j < n and ids[order[j]] == term:  # the same id twice: one term, both documents
            j += 1
        docs = array("I", [base + k for k in order[i:j]]) if j > i + 1 else (base + d,)
        yield term.encode("utf-8", "surrogatepass"), docs, None
        i = j


def _in_order(posts: dict[str, array], freqs: dict[str, array] | None) -> Iterator[Posting]:
    for term in sorted(posts):
        yield (term.encode("utf-8", "surrogatepass"), posts[term],
               freqs.get(term) if freqs is not None else None)


class _HashSlots:
    """The terms table's hash entries by bucket (the table's own `buckets` hold a tuple of
    two ints per term): each bucket's hashes and row positions in two arrays, in the order
    added."""

    def __init__(self) -> None:
        self.hashes = [array("I") for _ in range(256)]  # md5_hash: the digest's last 4 bytes
        self.positions = [array("q") for _ in range(256)]


def _write_field(fw: Any, slots: _HashSlots, posts: Iterable[Posting], scored: bool,
                 lengths: bytearray | None) -> None:
    """Every term of one field, in byte order, straight into the field writer's files: each
    posting list as Whoosh's blocks of BLOCK postings (pickled, deflated when big enough), its
    statistics as a W3TermInfo row in the terms table (WRITE_TERMS rows or WRITE_BYTES of
    postings at a time, `_add_terms`). A term in one document (every `id`, and the rare words)
    takes a shorter path to the same bytes."""
    postfile = fw._postfile
    prefix = pack_ushort(fw._fieldid)
    offset = postfile.tell()
    pending = offset  # where the postings not yet written start
    chunks: list[bytes] = []
    keys: list[bytes] = []
    infos: list[bytes] = []
    pack_info, pack_int, magic = _TERM_INFO.pack, _INT.pack, WHOOSH3_HEADER_MAGIC
    for term, ids, pairs in posts:
        start = offset
        count = len(ids)
        if len(keys) >= WRITE_TERMS or offset - pending >= WRITE_BYTES:
            postfile.write(b"".join(chunks))
            _add_terms(fw._tindex, slots, keys, infos)
            chunks, keys, infos = [], [], []
            pending = offset
        keys.append(prefix + term)
        if count == 1:
            d = ids[0]
            if not scored:
                data = dumps(((d,), None, None), 2)
                f = 1
                lb = 0
            else:
                f = pairs[1] if pairs else 1
                data = dumps(((d,), None if f == 1 else (float(f),), _UINT.pack(f)), 2)
                lb = lengths[d]  # type: ignore[index]
            if len(data) >= COMPRESS_FROM:
                data = _deflate(data)
                infob = dumps((1, d, float(f), COMPRESS_LEVEL, lb, lb), 2)
            else:
                infob = dumps((1, d, float(f), 0, lb, lb), 2)
            chunk = magic + pack_int(-(len(infob) + len(data))) + infob + data
            chunks.append(chunk)
            offset += len(chunk)
            infos.append(pack_info(0, float(f), 1, lb, lb, float(f), d, d, start, offset - start))
            continue
        out = [magic]
        total_w = 0.0
        maxw = 0.0
        minlb, maxlb = 255, 0
        # the documents with a frequency above 1 and their frequencies, walked along the blocks
        # (a dict of them all took ~100 bytes a pair: ~10 MB for a common word of a 1M segment)
        pdocs, pfreqs, at = (pairs[::2], pairs[1::2], 0) if pairs else (_NONE, _NONE, 0)
        for b in range(0, count, BLOCK):
            bids = ids[b:b + BLOCK] if count > BLOCK else ids
            k = len(bids)
            deltas = tuple(map(sub, bids, [0, *bids[:-1]])) if k > 1 else (bids[0],)
            end = bisect_right(pdocs, bids[-1], at)
            if end == at:  # every frequency of the block is 1
                weights: Any = None
                bmaxw = 1.0
                wsum = float(k)
                values = _ONE * k if scored or pairs else None
            else:
                fmap = dict(zip(pdocs[at:end], pfreqs[at:end]))
                at = end
                fs = [fmap.get(d, 1) for d in bids]
                bmaxw = float(max(fs))
                wsum = float(sum(fs))
                weights = None if bmaxw == 1.0 else tuple(map(float, fs))
                values = struct.pack(f"!{k}I", *fs)
            if lengths is not None:
                lbs = [lengths[d] for d in bids]
                bmin, bmax = min(lbs), max(lbs)
                minlb = bmin if bmin < minlb else minlb
                maxlb = bmax if bmax > maxlb else maxlb
            else:
                bmin = bmax = 0
            data = dumps((deltas, weights, values), 2)
            comp = COMPRESS_LEVEL if len(data) >= COMPRESS_FROM else 0
            if comp:
                data = _deflate(data, comp)
            infob = dumps((k, bids[-1], bmaxw, comp, bmin, bmax), 2)
            size = len(infob) + len(data)
            out += (pack_int(-size if b + BLOCK >= count else size), infob, data)
            total_w += wsum
            maxw = bmaxw if bmaxw > maxw else maxw
        chunk = b"".join(out)
        chunks.append(chunk)
        offset += len(chunk)
        if lengths is None:
            minlb = 0
        infos.append(pack_info(0, total_w, count, minlb, maxlb, maxw, ids[0], ids[-1],
                               start, offset - start))
    postfile.write(b"".join(chunks))
    _add_terms(fw._tindex, slots, keys, infos)


_ROW_HEAD = struct.Struct("!ii")  # a terms-table row: key length, value length


def _add_terms(table: Any, slots: _HashSlots, keys: list[bytes], values: list[bytes]) -> None:
    """Rows of Whoosh's terms table (`filetables.OrderedHashWriter`), keys in increasing order,
    written at once: the same bytes and key positions as `add` row by row, the hash entries
    in `slots` (in the order `add` puts them in the table's buckets)."""
    if not keys:
        return
    if keys[0] <= table.lastkey:
        raise ValueError(f"terms table keys must increase: {table.lastkey!r}..{keys[0]!r}")
    dbfile = table.dbfile
    pos = dbfile.tell()
    positions = []
    rows: list[bytes] = []
    hashes, at = slots.hashes, slots.positions
    head = _ROW_HEAD.pack
    for key, value in zip(keys, values):
        h = int.from_bytes(md5(key, usedforsecurity=False).digest()[12:], "big")  # md5_hash
        hashes[h & 255].append(h)
        at[h & 255].append(pos)
        positions.append(pos)
        rows += (head(len(key), len(value)), key, value)
        pos += 8 + len(key) + len(value)
    dbfile.write(b"".join(rows))
    index = table.index  # a GrowableArray: widened once for the largest position, as append would
    try:
        array(index.typecode, [positions[-1]])
    except OverflowError:
        index._retype(positions[-1])
    index.array.extend(positions)
    table.lastkey = keys[-1]


_POINTER = struct.Struct("!Iq")  # a hash table slot: the key's hash, the row's position


def _write_hash_tables(table: Any, slots: _HashSlots) -> None:
    """`HashWriter._write_hashes` with a write per table instead of per slot: each of the 256
    buckets as an open-addressing table of twice its entries, filled in the same order with
    the same linear probing, so the bytes are the same."""
    dbfile = table.dbfile
    pack = _POINTER.pack
    for entry_hashes, entry_positions in zip(slots.hashes, slots.positions):
        table.directory.append((dbfile.tell(), 2 * len(entry_hashes)))
        if not entry_hashes:
            continue
        numslots = 2 * len(entry_hashes)
        hashes = [0] * numslots
        positions = [0] * numslots  # 0: empty (no row starts at 0, the file's header is there)
        for hashval, position in zip(entry_hashes, entry_positions):
            slot = (hashval >> 8) % numslots
            while positions[slot]:
                slot = (slot + 1) % numslots
            hashes[slot] = hashval
            positions[slot] = position
        dbfile.write(b"".join(map(pack, hashes, positions)))
