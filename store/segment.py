"""Writing many documents into the Whoosh index at once: postings gathered in memory and
written as one segment per batch, in Whoosh's own on-disk format (codec `whoosh3`).

Whoosh's own writer spends most of a bulk build in Python per posting: each goes through
`add_document`, is pickled into a temporary run, sorted, read back, then handed to the codec
one by one while the codec looks up the document's length per posting. Here the terms of a
document arrive already counted (`analysis.term_counts`), each is appended to its term's list of
document numbers, and at the end every posting list is cut into Whoosh's blocks of 128 with a
few calls per block. What Whoosh reads back is the same: the same fields, terms, block layout,
term statistics, lengths, columns and stored `id` (searches cannot tell how a segment was
written). Small updates still go through Whoosh's writer (`FullTextIndex.write`).
"""

from __future__ import annotations

import struct
import zlib
from array import array
from operator import sub
from pickle import dumps
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, WHOOSH3_HEADER_MAGIC, W3TermInfo
from whoosh.system import pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte

BLOCK = 128  # postings per block (W3Codec's blocklimit)
COMPRESS_LEVEL = 3  # W3Codec's compression
COMPRESS_FROM = 96  # bytes of pickled block data below which a block is stored uncompressed
_ONE = struct.pack("!I", 1)
_LEN_BYTE = [length_to_byte(n) for n in range(1024)]  # lengths of most messages, precomputed


def length_byte(n: int) -> int:
    return _LEN_BYTE[n] if n < 1024 else length_to_byte(n)


class SegmentBuilder:
    """The postings, lengths and columns of a batch of new documents, in memory, numbered
    from 0 in the order added."""

    def __init__(self) -> None:
        self.ids: list[str] = []
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
            ts: int, meta: int) -> None:
        d = len(self.ids)
        self.ids.append(doc_id)
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

    # ------------------------------------------------------------------ writing
    def write(self, storage: Any, indexname: str, schema: Any, codec: Any) -> Any:
        """Write the batch as a new segment of the index in `storage`; returns the segment
        (not yet in the index's table of contents: the caller commits it)."""
        seg = codec.new_segment(storage, indexname)
        n = len(self.ids)
        pdw = codec.per_document_writer(storage, seg)
        idfield, tsfield, metafield = schema["id"], schema["ts"], schema["meta"]
        ts_col, meta_col = tsfield.column_type, metafield.column_type
        for d in range(n):
            pdw.start_doc(d)
            pdw.add_field("id", idfield, self.ids[d], 0)
            pdw.add_column_value("ts", ts_col, self.ts[d])
            pdw.add_column_value("meta", meta_col, self.meta[d])
            pdw.finish_doc()
        lengths = self.lengths
        if n:
            pdw.add_column_value("_t_len", LENGTHS_COLUMN, 0)  # create it (a default value)
            lencol = pdw._get_column("_t_len")
            for d in range(n):
                lencol.add(d, lengths[d])
        pdw._fieldlengths["t"] = self.total_length
        pdw.close()

        fw = codec.field_writer(storage, seg)
        id_posts = {doc_id: [d] for d, doc_id in enumerate(self.ids)}
        fields: list[tuple[str, dict[str, list[int]], dict[str, dict[int, int]] | None]] = [
            ("c", self.keys["c"], None), ("id", id_posts, None),
            ("t", self.t, self.t_freq), ("who", self.keys["who"], None)]
        for name, posts, freqs in fields:
            if not posts:
                continue
            fw.start_field(name, schema[name])
            _write_field(fw, posts, freqs, lengths if freqs is not None else None)
            fw.finish_field()
        fw.close()
        seg.set_doc_count(n)
        if seg.should_assemble():
            seg.create_compound_file(storage)
            seg.compound = True
        return seg


def _write_field(fw: Any, posts: dict[str, list[int]], freqs: dict[str, dict[int, int]] | None,
                 lengths: bytearray | None) -> None:
    """Every term of one field, in byte order, straight into the field writer's files."""
    postfile, tindex = fw._postfile, fw._tindex
    prefix = pack_ushort(fw._fieldid)
    scored = freqs is not None
    for term in sorted(posts):
        ids = posts[term]
        fmap = freqs.get(term) if scored else None  # type: ignore[union-attr]
        info = W3TermInfo()
        start = postfile.tell()
        postfile.write(WHOOSH3_HEADER_MAGIC)
        total_w = 0.0
        maxw = 0.0
        minlb, maxlb = 255, 0
        count = len(ids)
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
            else:
                bmin = bmax = 0
            data = dumps((deltas, weights, values), 2)
            comp = COMPRESS_LEVEL if len(data) >= COMPRESS_FROM else 0
            if comp:
                data = zlib.compress(data, comp)
            infob = dumps((k, bids[-1], bmaxw, comp, bmin, bmax), 2)
            size = len(infob) + len(data)
            postfile.write_int(-size if b + BLOCK >= count else size)
            postfile.write(infob)
            postfile.write(data)
            total_w += wsum
            maxw = bmaxw if bmaxw > maxw else maxw
            if lengths is not None:
                minlb = bmin if bmin < minlb else minlb
                maxlb = bmax if bmax > maxlb else maxlb
        info._weight = total_w
        info._df = count
        info._minlength = byte_to_length(minlb) if lengths is not None else None
        info._maxlength = byte_to_length(maxlb) if lengths is not None else 0
        info._maxweight = maxw
        info._minid = ids[0]
        info._maxid = ids[-1]
        info.set_extent(start, postfile.tell() - start)
        tindex.add(prefix + term.encode("utf-8", "surrogatepass"), info.to_bytes())
