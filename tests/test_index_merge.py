"""Merging the search index's segments (store/merge.py): many small imports leave many small
segments; commits merge them a bounded amount at a time and `chatmem reindex --merge` packs them.
A user must not be able to tell from the results: every search finds the same messages in the same
order with the same totals before and after, forgotten and replaced messages stay gone, and a
merge killed half-way leaves an index that searches as before."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import Cli
from test_index_segments import _docs, same_terms
from whoosh import index as windex

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store import index as index_mod
from chatmem.store import merge as merge_mod
from chatmem.store.index import FullTextIndex

WORDS = ("granola", "lighthouse", "ferry", "tomatoes", "invoice", "marathon", "bakery", "violin",
         "glacier", "umbrella", "passport", "cinnamon", "the", "and", "ok")
START = datetime(2023, 1, 2, 8, tzinfo=timezone.utc)
QUERIES = (["granola"], ["ferry", "--sort", "newest"], ["lighthouse violin"], ['"the ferry"'],
           ["cinn*"], ["marathon", "--sender", "Ben"], ["what did they say about glacier ferries"],
           ["pasport"], ["invoice", "--since", "2023-03-01", "--until", "2023-09-01"], ["ok"],
           ["edited"], ["week3"])


def weekly(folder: Path, week: int, n: int, edits: dict[int, str] | None = None) -> Path:
    """A week's export: `n` messages of its own chat (and a few in a shared one)."""
    rng = random.Random(week)
    lines = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6))) + f" week{week}"
        if edits and i in edits:
            text = edits[i]
        ts = (START + timedelta(days=7 * week, minutes=37 * i)).isoformat()
        lines.append({"platform": "signal", "chat": "Shared" if i % 5 == 0 else f"Week {week}",
                      "sender": ("Anna", "Ben", "Cleo")[i % 3], "timestamp": ts, "text": text,
                      "guid": f"W{week}-{i}", **({"edited": True} if edits and i in edits else {})})
    path = folder / f"week{week}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def results(cli: Cli) -> list:
    """What each query shows: the messages in order, their scores, the total."""
    out = []
    for q in QUERIES:
        r = cli.json("search", *q, "--limit", "15")
        out.append((q, r["total"], [(h["id"], round(h["score"], 4)) for h in r["results"]]))
    return out


def segment_count(home: Path) -> int:
    return len(windex.open_dir(str(home / "index"))._segments())


@pytest.fixture
def small_imports(monkeypatch):
    """Every import of 10 or more messages writes a segment of its own (the +1% path)."""
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 10)


def test_merging_keeps_every_search_result(tmp_path, monkeypatch, small_imports):
    plain, merged = Cli(tmp_path / "plain"), Cli(tmp_path / "merged")
    with monkeypatch.context() as m:
        m.setattr(merge_mod, "plan", lambda live, budget=0: [])  # no merges: a segment per import
        for week in range(14):
            plain("import", weekly(tmp_path, week, 30 + 7 * week))
    for week in range(14):
        merged("import", weekly(tmp_path, week, 30 + 7 * week))
    assert segment_count(tmp_path / "plain") == 14
    assert segment_count(tmp_path / "merged") < 7  # ten merged into one after the tenth
    before = results(plain)
    assert all(total for _, total, _ in before[:-2]) and before[-1][1] > 0
    assert results(merged) == before
    monkeypatch.setattr("chatmem.tools.doctor.MANY_SEGMENTS", 12)
    doctor = plain.json("doctor")
    assert doctor["index"]["segments"] == 14
    assert any("reindex --merge" in w for w in doctor["warnings"])
    report = plain.json("reindex", "--merge")
    assert report == {"segments_before": 14, "segments": 1}
    assert segment_count(tmp_path / "plain") == 1
    assert results(plain) == before
    assert plain.json("reindex", "--merge") == {"segments_before": 1, "segments": 1}
    assert not any("reindex --merge" in w for w in plain.json("doctor")["warnings"])


def test_a_merge_leaves_forgotten_and_replaced_messages_out(tmp_path, monkeypatch, small_imports):
    cli = Cli(tmp_path / "home")
    monkeypatch.setattr(merge_mod, "plan", lambda live, budget=0: [])
    for week in range(6):
        cli("import", weekly(tmp_path, week, 40))
    # week 2 again, its first twelve messages edited: they are replaced in their old segment
    edits = {i: f"edited lighthouse note{i}" for i in range(12)}
    cli("import", weekly(tmp_path, 2, 40, edits))
    cli("forget", _chat_id(tmp_path / "home", "Week 4"), "--yes")
    before = results(cli)
    assert dict((tuple(q), t) for q, t, _ in before)[("edited",)] == 12
    with Store.open(tmp_path / "home", load_config()) as store:
        assert any(s.deleted_count() for s in store.index.ix._segments())
    assert cli.json("reindex", "--merge")["segments"] == 1
    with Store.open(tmp_path / "home", load_config()) as store:
        segs = store.index.ix._segments()
        with store.read() as conn:
            stored = conn.exec_driver_sql("SELECT count(*) FROM messages").scalar()
        assert [s.deleted_count() for s in segs] == [0]
        assert store.index.doc_count() == stored == 6 * 40 - 32  # Week 4's own 32 forgotten
    after = results(cli)
    assert [(q, t, {i for i, _ in hits}) for q, t, hits in after] == \
        [(q, t, {i for i, _ in hits}) for q, t, hits in before]
    assert cli.json("search", "week4", "--limit", "50")["total"] == 8  # its messages in Shared
    old = cli.json("search", "note3", "--limit", "5")["results"]
    assert [h["id"] for h in old] and all("edited" in h["content"] for h in old)


def _chat_id(home: Path, name: str) -> str:
    with Store.open(home, load_config()) as store, store.read() as conn:
        return conn.exec_driver_sql("SELECT id FROM chats WHERE name = ?", (name,)).scalar()


def _killed_merge(home: str) -> None:
    """In a child: a merge that dies (as on a kill) once the merged segment is written."""
    real = merge_mod.SegmentBuilder.write

    def write_then_die(self, *args, **kwargs):
        real(self, *args, **kwargs)
        os._exit(9)

    merge_mod.SegmentBuilder.write = write_then_die  # type: ignore[method-assign]
    with Store.open(Path(home), load_config()) as store:
        store.merge_index()


def test_a_merge_killed_half_way_leaves_a_readable_index(tmp_path, monkeypatch, small_imports):
    home = tmp_path / "home"
    cli = Cli(home)
    monkeypatch.setattr(merge_mod, "plan", lambda live, budget=0: [])
    for week in range(5):
        cli("import", weekly(tmp_path, week, 25))
    before = results(cli)
    files = sorted(os.listdir(home / "index"))
    child = multiprocessing.get_context("fork").Process(target=_killed_merge, args=(str(home),))
    child.start()
    child.join(60)
    assert child.exitcode == 9
    assert set(os.listdir(home / "index")) > set(files)  # the merged segment's files, unused
    assert segment_count(home) == 5
    assert results(cli) == before
    assert cli.json("reindex", "--merge") == {"segments_before": 5, "segments": 1}
    assert results(cli) == before
    left = {f for f in os.listdir(home / "index") if f.startswith("MAIN")} - {"MAIN_WRITELOCK"}
    assert len(left) == 1 and left.pop().endswith(".seg")  # the killed merge's files cleared too


def test_a_merged_segment_is_what_writing_its_documents_at_once_gives(tmp_path):
    """Segments written both ways (Whoosh's writer for a few documents, ours for many), some of
    their documents deleted, merged into one: the same bytes-level content as the live documents
    written as one segment in the same order."""
    docs = _docs(900, seed=5)
    ix = FullTextIndex(tmp_path / "parts").open()
    platforms: dict[str, int] = {}
    span: list = [None, None]
    for k, (a, b) in enumerate(((0, 250), (250, 300), (300, 620), (620, 660), (660, 900))):
        if k % 2:
            ix._write_documents(docs[a:b], platforms, span)
        else:
            ix._write_segments(docs[a:b], platforms, span, replace=False)
    gone = {d.id for d in docs if hash(d.id) % 9 == 0 or d.id.endswith("7")}
    ix.delete(sorted(gone))
    assert len(ix.ix._segments()) == 5
    assert ix.merge() == (5, 1)
    live = [d for d in docs if d.id not in gone]
    direct = FullTextIndex(tmp_path / "direct").open()
    direct._write_segments(live, dict(platforms), [None, None], replace=False)
    n = len(live)
    with ix.ix.searcher() as a, direct.ix.searcher() as b:
        ra, rb = a.reader(), b.reader()
        assert ra.doc_count_all() == rb.doc_count_all() == n
        assert [ra.stored_fields(d) for d in range(n)] == [rb.stored_fields(d) for d in range(n)]
        same_terms(ra, rb)
        for name in ("ts", "meta"):
            assert list(ix.column(ra, name)) == list(direct.column(rb, name))
        assert [ra.doc_field_length(d, "t") for d in range(n)] == \
            [rb.doc_field_length(d, "t") for d in range(n)]


def _weekly_sizes(weeks: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(2_000, 10_001) for _ in range(weeks)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_year_of_weekly_imports_keeps_few_segments_and_bounded_merges(seed):
    full = [322_000, 323_000, 322_500]  # a million messages imported at once
    segments = list(full)
    for new in _weekly_sizes(52, seed):
        segments.append(new)
        runs = merge_mod.plan(segments)
        assert sum(sum(segments[a:b]) for a, b in runs) <= merge_mod.COMMIT_MERGE_DOCS
        assert all(b - a >= 2 for a, b in runs)
        assert all(b1 <= a2 for (_, b1), (a2, _) in zip(runs, runs[1:]))  # adjacent, apart
        for a, b in reversed(runs):
            segments[a:b] = [sum(segments[a:b])]
        assert segments[:3] == full  # the full segments are never rewritten by a commit
    assert len(segments) <= 14  # 55 without merging
    packed = merge_mod.plan_all(segments, [0] * len(segments))
    assert all(sum(segments[a:b]) <= merge_mod.FULL_DOCS for a, b in packed)
    assert packed and packed[0][0] == 3  # the full ones left as they are


def test_a_segment_mostly_deleted_is_rewritten_alone():
    assert merge_mod.plan_all([300_000, 310_000], [0, 100_000]) == [(1, 2)]
    assert merge_mod.plan_all([300_000, 310_000], [0, 1_000]) == []
