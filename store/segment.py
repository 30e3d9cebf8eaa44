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
"""

from __future__ import annotations

import gc
import struct
import sys
import tempfile
import zlib
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from hashlib import md5
from itertools import accumulate
from operator import sub
from pathlib import Path
from pickle import dumps
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC
from whoosh.system import pack_ushort
from whoosh.util.numeric import length_to_byte

BLOCK = 128  # postings per block (W3Codec's blocklimit)
COMPRESS_LEVEL = 3  # W3Codec's compression
WRITE_TERMS = 4096  # terms whose postings and table rows are written in one go
COMPRESS_FROM = 96  # bytes of pickled block data below which a block is stored uncompressed
SPOOL_BYTES = 1 << 22  # stored fields gathered in memory before they go to the spool file
COPY_BYTES = 1 << 20  # the spool copied into the segment this much at a time
_ONE = struct.pack("!I", 1)
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


def _put_fixed(writer: Any, data: bytes, count: int) -> None:
    """All values of a fixed-width numeric column at once, big-endian as Whoosh writes them."""
    writer._dbfile.write(data)
    writer._count = count


def _put_var(writer: Any, data: Iterable[bytes], lengths: Sequence[int]) -> None:
    """All values of a variable-width column at once (a `VarBytesColumn.Writer` with nothing
    in it yet), their bytes as `data` (chunks, concatenated in order) and each value's length:
    the same bytes and length/offset arrays as adding them one by one."""
    for chunk in data:
        writer._dbfile.write(chunk)
    offsets = array("q", accumulate(lengths, initial=0))
    writer._offset_base = offsets.pop()
    for grown, numbers in ((writer._lengths, lengths), (writer._offsets, offsets)):
        if numbers:  # widened once for the largest number, as GrowableArray.append would
            top = max(numbers)
            try:
                array(grown.typecode, [top])
            except OverflowError:
                grown._retype(top)
            grown.array.extend(iter(numbers))
    writer._count = len(lengths)


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


class SegmentBuilder:
    """The postings, lengths and columns of a batch of new documents, in memory, numbered
    from 0 in the order added; their stored fields (the text, the biggest part) go to a spool
    file in `spool_dir` as they come, a few MB at a time, and are copied into the segment."""

    def __init__(self, spool_dir: Path | None = None) -> None:
        self.ids: list[str] = []
        self.spool_dir = spool_dir
        self._stored = bytearray()  # stored fields not yet in the spool: pickled and framed
        self._spool: Any = None  # an unnamed temporary file, made when the first MB are full
        self.stored_lengths = array("I")  # each document's stored fields' length in bytes
        self.ts = array("I")
        self.meta = array("I")
        self.lengths = bytearray()  # the `t` field's length per document, as Whoosh's byte
        self.total_length = 0
        self.t: dict[str, list[int]] = {}  # term -> document numbers
        self.t_freq: dict[str, dict[int, int]] = {}  # term -> {document: frequency} when > 1
        self.keys: dict[str, dict[str, list[int]]] = {"c": {}, "who": {}}
        self.postings = 0  # for the caller's memory bound

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, doc_id: str, terms: dict[str, int], chat: str, who: list[str],
            ts: int, meta: int, text: str = "") -> None:
        d = len(self.ids)
        self.ids.append(doc_id)
        # as Whoosh's writer stores them: the stored fields by name, in the schema's order
        self.add_stored(_zlib_stored(dumps({"id": doc_id, "x": text}, 2)))
        self.ts.append(ts)
        self.meta.append(meta)
        post = self.t
        length = 0
        for term, f in terms.items():
            p = post.get(term)
            if p is None:
                post[term] = [d]
            else:
                p.append(d)
            if f != 1:
                fr = self.t_freq.get(term)
                if fr is None:
                    self.t_freq[term] = {d: f}
                else:
                    fr[d] = f
            length += f
        self.lengths.append(length_byte(length))
        self.total_length += length
        c = self.keys["c"].get(chat)
        if c is None:
            self.keys["c"][chat] = [d]
        else:
            c.append(d)
        kw = self.keys["who"]
        for k in who:
            p = kw.get(k)
            if p is None:
                kw[k] = [d]
            else:
                p.append(d)
        self.postings += len(terms) + 2 + len(who)

    def add_stored(self, stored: bytes | memoryview) -> None:
        """The next document's stored fields, pickled and framed as the column holds them."""
        self.stored_lengths.append(len(stored))
        self._stored += stored
        if len(self._stored) >= SPOOL_BYTES:
            self._spill()

    def _spill(self) -> None:
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(dir=self.spool_dir)
        self._spool.write(self._stored)
        self._stored = bytearray()

    def _stored_chunks(self) -> Iterator[bytes]:
        """Every document's stored fields, in order, a chunk at a time."""
        if self._spool is not None:
            self._spool.seek(0)
            while chunk := self._spool.read(COPY_BYTES):
                yield chunk
        yield bytes(self._stored)

    def close(self) -> None:
        """Let go of the spool file (written or abandoned)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._stored = bytearray()

    # ------------------------------------------------------------------ writing
    def write(self, storage: Any, indexname: str, schema: Any, codec: Any) -> Any:
        """Write the batch as a new segment of the index in `storage`; returns the segment
        (not yet in the index's table of contents: the caller commits it)."""
        seg = codec.new_segment(storage, indexname)
        n = len(self.ids)
        pdw = codec.per_document_writer(storage, seg)
        # the per-document columns, each written whole (Whoosh's writer adds value by value)
        # pickled, then framed as zlib, values
        _put_var(pdw._get_column("_stored")._child, self._stored_chunks(), self.stored_lengths)
        self.close()
        for name, values in (("ts", self.ts), ("meta", self.meta)):
            pdw._create_column(name, schema[name].column_type)
            _put_fixed(pdw._get_column(name), values.tobytes() if _BIG_ENDIAN else _swapped(values), n)
        pdw._create_column("_t_len", LENGTHS_COLUMN)
        _put_fixed(pdw._get_column("_t_len"), bytes(self.lengths), n)
        pdw._doccount = n
        pdw._fieldlengths["t"] = self.total_length
        pdw.close()
        lengths = self.lengths

        fw = codec.field_writer(storage, seg)
        table = fw._tindex
        slots = _HashSlots()
        fields: list[tuple[str, Any, Iterable[tuple[str, Sequence[int]]], dict[str, dict[int, int]] | None]] = [
            ("c", self.keys["c"], _in_order(self.keys["c"]), None), ("id", self.ids, self._id_terms(), None),
            ("t", self.t, _in_order(self.t), self.t_freq),
            ("who", self.keys["who"], _in_order(self.keys["who"]), None)]
        for name, held, posts, freqs in fields:
            if not held:  # a field without terms is left out, as Whoosh's writer leaves it
                continue
            fw.start_field(name, schema[name])
            _write_field(fw, slots, posts, freqs, lengths if freqs is not None else None)
            fw.finish_field()
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


    def _id_terms(self) -> Iterator[tuple[str, Sequence[int]]]:
        """The `id` field's terms in order, each with its documents: the document numbers
        sorted by id (no dict of a list per document)."""
        ids = self.ids
        order = sorted(range(len(ids)), key=ids.__getitem__)
        i, n = 0, len(order)
        while i < n:
            d = order[i]
            term = ids[d]
            j = i + 1
            while j < n and ids[order[j]] == term:  # the same id twice: one term, both documents
                j += 1
            yield term, (order[i:j] if j > i + 1 else (d,))
            i = j


def _in_order(posts: dict[str, list[int]]) -> Iterator[tuple[str, list[int]]]:
    for term in sorted(posts):
        yield term, posts[term]


class _HashSlots:
    """The terms table's hash entries by bucket (the table's own `buckets` hold a tuple of
    two ints per term): each bucket's hashes and row positions in two arrays, in the order
    added."""

    def __init__(self) -> None:
        self.hashes = [array("Q") for _ in range(256)]
        self.positions = [array("q") for _ in range(256)]


def _write_field(fw: Any, slots: _HashSlots, posts: Iterable[tuple[str, Sequence[int]]],
                 freqs: dict[str, dict[int, int]] | None, lengths: bytearray | None) -> None:
    """Every term of one field, in byte order, straight into the field writer's files: each
    posting list as Whoosh's blocks of BLOCK postings (pickled, deflated when big enough), its
    statistics as a W3TermInfo row in the terms table (WRITE_TERMS rows at a time, `_add_terms`).
    A term in one document (every `id`, and the rare words) takes a shorter path to the same
    bytes."""
    postfile = fw._postfile
    prefix = pack_ushort(fw._fieldid)
    scored = freqs is not None
    offset = postfile.tell()
    chunks: list[bytes] = []
    keys: list[bytes] = []
    infos: list[bytes] = []
    pack_info, pack_int, magic = _TERM_INFO.pack, _INT.pack, WHOOSH3_HEADER_MAGIC
    for term, ids in posts:
        fmap = freqs.get(term) if scored else None  # type: ignore[union-attr]
        start = offset
        count = len(ids)
        if len(keys) >= WRITE_TERMS:
            postfile.write(b"".join(chunks))
            _add_terms(fw._tindex, slots, keys, infos)
            chunks, keys, infos = [], [], []
        keys.append(prefix + term.encode("utf-8", "surrogatepass"))
        if count == 1:
            d = ids[0]
            if not scored:
                data = dumps(((d,), None, None), 2)
                f = 1
                lb = 0
            else:
                f = fmap.get(d, 1) if fmap is not None else 1
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
        for b in range(0, count, BLOCK):
            bids = ids[b:b + BLOCK] if count > BLOCK else ids
            k = len(bids)
            deltas = tuple(map(sub, bids, [0, *bids[:-1]])) if k > 1 else (bids[0],)
            if fmap is None:
                weights: Any = None
                bmaxw = 1.0
                wsum = float(k)
                values = _ONE * k if scored else None
            else:
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
