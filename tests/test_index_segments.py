"""A bulk import writes its index segments straight from memory (store/segment.py) instead of
through Whoosh's per-document writer. Searches must not be able to tell: the same documents
written both ways give the same terms, postings, frequencies, lengths, columns, stored ids, texts and
scores; big updates replace documents of the same id; a batch cut into several segments finds
the same messages."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from whoosh import query as Q

from chatmem.store import index as index_mod
from chatmem.store import merge as merge_mod
from chatmem.store import segment as segment_mod
from chatmem.store.analysis import doc_terms
from chatmem.store.index import FullTextIndex, IndexDoc

WORDS = ("coffee running runs Müller Straße 咖啡店 👍🏽 end-to-end don't maps.google.com the a of "
         "and hike harz brocken concert tickets dentist thursday weekend").split()


def _docs(n: int, seed: int = 7, prefix: str = "m") -> list[IndexDoc]:
    rnd = random.Random(seed)
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    docs = []
    for i in range(n):
        k = rnd.choice((0, 1, 3, 8, 20)) if i % 97 else 1500  # some empty, some long
        words = [rnd.choice(WORDS) for _ in range(k)] + [f"w{rnd.randrange(400)}"]
        if i % 13 == 0:
            words.append("https://example.org/path/to/page")
        if i == 5:  # a word in one document only, twice (its posting carries a frequency)
            words += ["solitary", "solitary"]
        docs.append(IndexDoc(
            # ids in another order than the documents (the `id` field is written sorted)
            id=f"{prefix}{i * 7919 % 100_000:05d}", text=" ".join(words), chat_id=f"s_chat{i % 3}",
            platform=("whatsapp", "signal")[i % 2], kind="text", lang=("en", "de")[i % 3 == 0],
            when=start + timedelta(hours=i), who=[f"sender {i % 5}", "", f"#p{i % 4}"],
            group=i % 2 == 0, attachment=i % 7 == 0, deleted=i % 11 == 0))
    return docs


def _built(tmp_path, name: str, docs: list[IndexDoc], *, segments: bool) -> FullTextIndex:
    ix = FullTextIndex(tmp_path / name).open()
    platforms: dict[str, int] = {}
    span: list = [None, None]
    if segments:
        ix._write_segments(docs, platforms, span, replace=False)
    else:
        ix._write_documents(docs, platforms, span)
    ix.close()
    return ix.open()


def _postings(reader, field: str, term: bytes) -> list[tuple]:
    m = reader.postings(field, term)
    out = []
    while m.is_active():
        out.append((reader.stored_fields(m.id())["id"], m.weight(), m.value()))
        m.next()
    return sorted(out)


def same_terms(ra, rb) -> None:
    """Two readers hold the same terms, postings and term statistics in every field."""
    for field in ("c", "id", "t", "who"):
        terms = list(ra.lexicon(field))
        assert terms == list(rb.lexicon(field)), field
        assert len(terms) >= 3
        for term in terms:
            assert _postings(ra, field, term) == _postings(rb, field, term), (field, term)
            ia, ib = ra.term_info(field, term), rb.term_info(field, term)
            assert (ia.doc_frequency(), ia.weight(), ia.max_weight(), ia.min_length(),
                    ia.max_length(), ia.min_id(), ia.max_id()) == \
                (ib.doc_frequency(), ib.weight(), ib.max_weight(), ib.min_length(),
                 ib.max_length(), ib.min_id(), ib.max_id()), (field, term)
    assert ra.field_length("t") == rb.field_length("t")


@pytest.mark.parametrize("write_terms, spool_bytes, run_postings, per_doc",
                         [(4096, 1 << 22, 1 << 20, 1 << 16), (7, 1000, 1 << 20, 64),
                          (4096, 1 << 22, 300, 1 << 16)],
                         ids=["one-write", "written-in-pieces", "built-in-runs"])
def test_segments_read_back_exactly_as_whoosh_writes_them(tmp_path, monkeypatch, write_terms,
                                                           spool_bytes, run_postings, per_doc):
    monkeypatch.setattr(segment_mod, "WRITE_TERMS", write_terms)
    # in pieces, the times, metas and stored lengths go to the numbers file every `per_doc`
    monkeypatch.setattr(segment_mod, "PER_DOC", per_doc)
    # in runs, the postings go to run files every few dozen documents and are merged back
    monkeypatch.setattr(segment_mod, "RUN_POSTINGS", run_postings)
    # in pieces, the stored texts go through the spool file and back in small chunks
    monkeypatch.setattr(segment_mod, "SPOOL_BYTES", spool_bytes)
    monkeypatch.setattr(segment_mod, "COPY_BYTES", spool_bytes // 3)
    docs = _docs(700)
    by_whoosh = _built(tmp_path, "whoosh", docs, segments=False)
    direct = _built(tmp_path, "direct", docs, segments=True)
    with by_whoosh.ix.searcher() as a, direct.ix.searcher() as b:
        ra, rb = a.reader(), b.reader()
        assert ra.doc_count() == rb.doc_count() == 700
        assert sorted(ra.all_stored_fields(), key=lambda f: f["id"]) == \
            sorted(rb.all_stored_fields(), key=lambda f: f["id"])
        same_terms(ra, rb)
        ids_a = [ra.stored_fields(d)["id"] for d in range(700)]
        ids_b = [rb.stored_fields(d)["id"] for d in range(700)]
        assert ids_a == ids_b  # same document numbers: the columns can be compared directly
        for name in ("ts", "meta"):
            assert list(by_whoosh.column(ra, name)) == list(direct.column(rb, name))
        assert [ra.doc_field_length(d, "t") for d in range(700)] == \
            [rb.doc_field_length(d, "t") for d in range(700)]
        # a term with more than one block of postings was compared above
        assert max(ra.doc_frequency("t", t) for t in ra.lexicon("t")) > 128
        for q in (Q.Term("t", "coffee"), Q.Term("t", "~run"),
                  Q.And([Q.Term("t", "mueller"), Q.Term("t", "咖啡")]),
                  Q.Or([Q.Term("t", "👍"), Q.Term("t", "hike"), Q.Term("t", "w17")])):
            hits_a = [(h["id"], round(h.score, 5)) for h in a.search(q, limit=None)]
            hits_b = [(h["id"], round(h.score, 5)) for h in b.search(q, limit=None)]
            assert hits_a == hits_b and hits_a, q


@pytest.mark.parametrize("run_postings", [1 << 20, 200], ids=["one-run", "in-runs"])
def test_a_big_update_replaces_documents_of_the_same_id(tmp_path, monkeypatch, run_postings):
    # in runs, the ids of each run are deleted as it is spilled
    monkeypatch.setattr(segment_mod, "RUN_POSTINGS", run_postings)
    ix = FullTextIndex(tmp_path / "ix").open()
    first = _docs(300)
    ix.write(first, 1, fresh=True)
    changed = _docs(300, prefix="m")  # the same ids ...
    for d in changed:
        d.text = "rewritten " + d.text.replace("coffee", "tea")  # ... with other text
    new = _docs(50, seed=3, prefix="n")
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 100)
    ix.write(changed + new, 2, fresh=False, expected=350)
    assert ix.seq == 2
    with ix.reading() as s:
        assert s.doc_count() == 350
        coffee = {h["id"] for h in s.search(Q.Term("t", "coffee"), limit=None)}
        assert coffee and all(i.startswith("n") for i in coffee)  # the old texts are gone
        rewritten = {h["id"] for h in s.search(Q.Term("t", "rewritten"), limit=None)}
        assert rewritten == {d.id for d in changed}


@pytest.mark.parametrize("fresh", [True, False])
def test_a_batch_cut_into_several_segments_finds_the_same(tmp_path, monkeypatch, fresh):
    docs = _docs(400, seed=11)
    whole = _built(tmp_path, "whole", docs, segments=True)
    monkeypatch.setattr(index_mod, "SEGMENT_POSTINGS", 500)
    monkeypatch.setattr(segment_mod, "RUN_POSTINGS", 150)  # each segment built in runs
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 100)
    monkeypatch.setattr(merge_mod, "plan", lambda live, budget=0: [])  # the cut segments kept
    cut = FullTextIndex(tmp_path / "cut").open()
    if not fresh:
        cut.write(docs[:5], 1, fresh=True)
    cut.write(docs, 2, fresh=fresh, expected=len(docs))
    assert len(cut.ix._segments()) > 3
    with whole.ix.searcher() as a, cut.reading() as b:
        assert b.doc_count() == 400
        for term in ("coffee", "~run", "w3", "mueller", "example.org"):
            q = Q.Term("t", term)
            assert {h["id"] for h in a.search(q, limit=None)} == \
                {h["id"] for h in b.search(q, limit=None)}, term
        if fresh:  # frequencies and lengths travel with each segment: scores agree
            q = Q.Or([Q.Term("t", "coffee"), Q.Term("t", "hike")])
            assert {h["id"]: round(h.score, 4) for h in a.search(q, limit=None)} == \
                {h["id"]: round(h.score, 4) for h in b.search(q, limit=None)}


def test_terms_counted_once_per_token_kind():
    counts = doc_terms("Running, running: ran to the coffee-shop! 咖啡店 👍🏽👍", "en")
    assert counts["running"] == 2 and counts["~run"] == 3
    assert counts["coffee-shop"] == counts["coffee"] == counts["shop"] == 1
    assert counts["咖啡"] == counts["啡店"] == 1
    assert counts["👍"] == 2


def test_a_segment_written_with_collections_paused_leaves_no_garbage_behind(tmp_path):
    """Whoosh's storage leaves a reference cycle holding the frames of a segment's write (and
    the memory they hold); the write collects it, with collections paused, so that a full
    collection afterwards finds nothing of it."""
    import gc

    ix = FullTextIndex(tmp_path / "index").open()
    writer = ix.ix.writer()
    builder = segment_mod.SegmentBuilder()
    for i in range(500):
        builder.add(f"m_{i}", doc_terms(f"ferry note {i}", "en"), "c1", ["anna"], 1_700_000_000 + i, 1,
                    f"ferry note {i}")
    try:
        with segment_mod.gc_paused():
            gc.collect()
            index_mod._write_segment(builder, writer)
            assert gc.collect() == 0
    finally:
        writer.cancel()
        ix.close()


@pytest.mark.parametrize("numbers", [1 << 16, 3], ids=["one-piece", "in-pieces"])
@pytest.mark.parametrize("sizes", [[5, 0, 17], [3, 300, 2, 70_000, 0, 9, 1]], ids=["bytes", "wider"])
@pytest.mark.parametrize("cutoff", [2**15, 2], ids=["lengths", "with-offsets"])
def test_a_stored_column_written_at_once_is_the_bytes_whoosh_writes(monkeypatch, numbers, sizes, cutoff):
    """The stored column's values with their arrays of lengths (and of offsets, for a column of
    many values) written in pieces of `COLUMN_NUMBERS`: the bytes Whoosh's column writer gives
    adding them one by one, whatever the numbers' width (a byte, two, four)."""
    from io import BytesIO

    from whoosh.columns import VarBytesColumn
    from whoosh.filedb.structfile import StructFile

    monkeypatch.setattr(segment_mod, "COLUMN_NUMBERS", numbers)
    values = [bytes([65 + i % 26]) * n for i, n in enumerate(sizes)]
    column = VarBytesColumn(write_offsets_cutoff=cutoff)
    out = []
    for one_by_one in (True, False):
        f = StructFile(BytesIO())
        w = column.writer(f)
        if one_by_one:
            for d, v in enumerate(values):
                w.add(d, v)
        else:
            segment_mod._put_var(w, [b"".join(values[:2]), b"".join(values[2:])],
                                 lambda: [segment_mod.array("I", sizes[:2]), segment_mod.array("I"),
                                          segment_mod.array("I", sizes[2:])])
        w.finish(len(values))
        out.append(f.file.getvalue())
    assert out[0] == out[1]
    reader = column.reader(StructFile(BytesIO(out[1])), 0, len(out[1]), len(values))
    assert [reader[d] for d in range(len(values))] == values
