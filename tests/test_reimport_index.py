"""A small re-import into a store whose search index spans several segments: search shows what
a store that imported the newer export whole shows (the new messages found, an edited message
found by its new text only, every message once), and the messages per chat and month are the
messages the store holds."""

from __future__ import annotations

import io
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import Cli
from hypothesis import given, settings
from hypothesis import strategies as st

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store import index as index_mod
from chatmem.store.whoosh_files import ViewFile

WORDS = ("granola", "lighthouse", "ferry", "tomatoes", "invoice", "marathon", "bakery", "violin",
         "glacier", "umbrella", "passport", "cinnamon")
CHATS = ("Trail crew", "Family", "Book club")
START = datetime(2023, 1, 1, 8, tzinfo=timezone.utc)


def export(path: Path, n: int, edited: dict[int, str] | None = None) -> Path:
    """`n` messages over three chats, about a month per 23 messages; message i keeps its id and time in
    every export, `edited` gives some of them another text."""
    rng = random.Random(7)
    lines = []
    for i in range(n):
        text = f"{rng.choice(WORDS)} note{i}"
        ts = (START + timedelta(hours=31 * i + i % 7)).isoformat()
        if edited and i in edited:
            text = edited[i]
        lines.append({"platform": "signal", "chat": CHATS[i % 3], "sender": ("Anna", "Ben")[i % 2],
                      "timestamp": ts, "text": text, "guid": f"G{i}",
                      **({"edited": True} if edited and i in edited else {})})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def hits(cli: Cli, query: str) -> list[tuple[str, str]]:
    out = cli.json("search", query, "--limit", "50")
    assert out["total"] == len(out["results"]) < 50
    return sorted((r["id"], r["content"]) for r in out["results"])


def month_counts(home: Path) -> tuple[list, list]:
    with Store.open(home, load_config()) as store, store.read() as conn:
        kept = conn.exec_driver_sql("SELECT chat_id, month, n FROM message_months WHERE n > 0 "
                                    "ORDER BY chat_id, month").all()
        rows = conn.exec_driver_sql("SELECT chat_id, sent_at FROM messages").all()
        chats = conn.exec_driver_sql("SELECT id, message_count FROM chats ORDER BY id").all()
    counted: dict[tuple, int] = {}
    for chat_id, sent_at in rows:
        month = str(sent_at)[:7]
        counted[(chat_id, month)] = counted.get((chat_id, month), 0) + 1
    per_chat: dict[str, int] = {}
    for (chat_id, _), n in counted.items():
        per_chat[chat_id] = per_chat.get(chat_id, 0) + n
    assert sorted(per_chat.items()) == [tuple(c) for c in chats]
    return [(c, str(m)[:7], n) for c, m, n in kept], sorted((c, m, n) for (c, m), n in counted.items())


@pytest.mark.parametrize("segments", [1, 4])
def test_a_small_reimport_searches_like_a_whole_import(tmp_path, monkeypatch, segments):
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 10)  # the +1% path: a segment of its own
    if segments > 1:  # the first import's documents spread over several segments
        monkeypatch.setattr(index_mod, "SEGMENT_POSTINGS", 600)
    edits = {3: "the ferry leaves at dawn now", 150: "moved the violin lesson to friday",
             290: "passport renewed, no invoice"}
    first, newer = export(tmp_path / "v1.jsonl", 300), export(tmp_path / "v2.jsonl", 330, edits)
    small = Cli(tmp_path / "small")
    small("import", first)
    report = small.json("import", newer)[0]
    assert report["messages"]["new"] == 30 and report["messages"]["updated"] == 3
    whole = Cli(tmp_path / "whole")
    whole("import", newer)
    with Store.open(tmp_path / "small", load_config()) as store:
        assert store.index.doc_count() == 330  # every message once
        if segments > 1:
            assert len(store.index.ix._segments()) > 2
    for word in (*WORDS, "note305", "note3", "dawn", "friday", "renewed"):
        assert hits(small, word) == hits(whole, word), word
    assert hits(small, "note305") and hits(small, "dawn")
    assert [c for _, c in hits(small, "note150")] == []  # its old text is a version, not a hit
    kept, counted = month_counts(tmp_path / "small")
    assert kept == counted
    assert month_counts(tmp_path / "whole")[0] == kept


def test_a_second_small_reimport_keeps_every_message_once(tmp_path, monkeypatch):
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 10)
    small = Cli(tmp_path / "small")
    for n, edits in ((200, None), (220, {5: "granola granola"}), (240, {5: "cinnamon buns", 210: "glacier"})):
        small("import", export(tmp_path / "export.jsonl", n, edits))
    whole = Cli(tmp_path / "whole")
    whole("import", export(tmp_path / "last.jsonl", 240, {5: "cinnamon buns", 210: "glacier"}))
    for word in (*WORDS, "buns", "note5", "note210"):
        assert hits(small, word) == hits(whole, word), word
    with Store.open(tmp_path / "small", load_config()) as store:
        assert store.index.doc_count() == 240


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.lists(st.tuples(
    st.sampled_from(["read", "readline", "seek", "tell", "peek"]), st.integers(-5, 320), st.integers(0, 2)),
    max_size=25))
def test_the_in_place_segment_file_reads_as_a_copy_would(data, ops):
    """Whoosh's segment parts are read through a view of the mapped file, not a BytesIO copy:
    every read, line, seek and position is what the copy gives; a peek shows what comes next."""
    view, copy = ViewFile(memoryview(data)), io.BytesIO(data)
    for op, n, whence in ops:
        if op == "read":
            assert view.read(n) == copy.read(n)
        elif op == "readline":
            assert view.readline(n) == copy.readline(n)
        elif op == "seek":
            target = n if whence == 0 else (n if whence == 1 else -abs(n))
            try:
                expected = copy.seek(target, whence)
            except ValueError:
                with pytest.raises(ValueError):
                    view.seek(target, whence)
            else:
                assert view.seek(target, whence) == expected
        elif op == "peek":  # what the next read gives, without moving
            ahead = view.peek(n)
            assert view.tell() == copy.tell()
            assert copy.getvalue()[copy.tell():].startswith(ahead)
            assert ahead or copy.tell() >= len(data)
        else:
            assert view.tell() == copy.tell()


def test_the_replaced_documents_are_found_in_every_segment_as_whoosh_finds_them(tmp_path, monkeypatch):
    """A re-import deletes the old documents of the ids it writes by looking into each segment's
    terms table itself: for ids there and not there, in segments our builder wrote and one
    Whoosh's writer wrote, it finds exactly what Whoosh's own lookup finds."""
    monkeypatch.setattr(index_mod, "SEGMENT_POSTINGS", 600)
    cli = Cli(tmp_path / "home")
    cli("import", export(tmp_path / "v1.jsonl", 300))
    cli("import", export(tmp_path / "v2.jsonl", 310))  # 10 documents: through Whoosh's writer
    with Store.open(tmp_path / "home", load_config()) as store:
        reader = store.index.ix.reader()
        try:
            ids = [t.decode() for t in reader.lexicon("id")]
            asked = [(i, i.encode()) for i in ids + [i + "x" for i in ids] + ["", "m_", "é" * 40]]
            hashes: dict = {}
            leaves = list(reader.leaf_readers())
            assert len(leaves) > 2
            for leaf, _ in leaves:
                assert index_mod._present(leaf, asked, hashes) == [i for i, _ in asked if ("id", i) in leaf]
        finally:
            reader.close()
