"""What the search index shows after imports, re-imports and forgetting, through the CLI: the
index is built from the database rows (store/index.py `documents`) either through Whoosh's own
writer (a few documents) or as whole segments (a first import, or a big re-import), and every
way must show the same messages, each once, with its current text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatmem.store import index as index_mod

pytestmark = pytest.mark.usefixtures("any_backend")

TELEGRAM = Path(__file__).resolve().parents[1] / "fixtures" / "telegram" / "DataExport_2024-03-02" / "result.json"


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def msg(text: str, ts: str, guid: str, **kw) -> dict:
    return {"platform": "signal", "chat": "Trail crew", "sender": "Anna Berg", "timestamp": ts,
            "text": text, "guid": guid, **kw}


def found(cli, *query: str) -> list[tuple[str, str]]:
    result = cli.json("search", *query)
    assert result["total"] == len(result["results"])
    return [(r["id"], r["content"]) for r in result["results"]]


def test_a_polls_options_are_searchable(cli):
    cli("import", TELEGRAM)
    [(_, content)] = found(cli, "Tuesday")  # an option, not in the message's own text
    assert content.endswith("Which day next week?")


@pytest.mark.parametrize("bulk", [False, True], ids=["few-documents", "whole-segments"])
def test_a_reimported_edit_replaces_the_message_in_search(cli, tmp_path, monkeypatch, bulk):
    if bulk:  # the re-import writes new segments and deletes the documents they replace
        monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 1)
    base = [msg(f"checkpoint {i} reached", f"2024-02-01T09:{i:02d}:00+00:00", f"G{i}") for i in range(6)]
    cli("import", write_jsonl(tmp_path / "v1.jsonl", base + [
        msg("meet at the old bridge", "2024-02-01T10:00:00+00:00", "E1")]))
    [(edited_id, _)] = found(cli, "bridge")
    report = cli.json("import", write_jsonl(tmp_path / "v2.jsonl", base + [
        msg("meet at the lighthouse instead", "2024-02-01T10:00:00+00:00", "E1", edited=True)]))[0]
    assert report["messages"]["updated"] == 1
    assert found(cli, "lighthouse") == [(edited_id, "Anna Berg: meet at the lighthouse instead")]
    assert found(cli, "bridge") == []  # the earlier text is a version, not a second hit
    assert len(found(cli, "checkpoint")) == 6  # the unchanged messages, each once


@pytest.mark.parametrize("bulk", [False, True], ids=["few-documents", "whole-segments"])
def test_a_message_deleted_in_a_newer_export_stays_findable_and_marked(cli, tmp_path, monkeypatch, bulk):
    if bulk:
        monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 1)
    cli("import", write_jsonl(tmp_path / "v1.jsonl", [
        msg("the door code is 4711", "2024-02-01T09:00:00+00:00", "D1")]))
    cli("import", write_jsonl(tmp_path / "v2.jsonl", [
        msg("", "2024-02-01T09:00:00+00:00", "D1", deleted=True)]))
    [hit] = cli.json("search", "door")["results"]
    assert hit["deleted"] is True
    assert [r["id"] for r in cli.json("search", "door", "is:deleted")["results"]] == [hit["id"]]


def test_a_forgotten_chat_disappears_from_search(cli, tmp_path):
    cli("import", write_jsonl(tmp_path / "a.jsonl", [
        msg("granola for the hike", "2024-02-01T09:00:00+00:00", "F1"),
        {**msg("granola at the shop", "2024-02-02T09:00:00+00:00", "F2"), "chat": "Shopping"}]))
    hits = cli.json("search", "granola")["results"]
    assert sorted(h["chat"] for h in hits) == ["Shopping", "Trail crew"]
    source = next(h["source"] for h in hits if h["chat"] == "Trail crew")
    cli("forget", source, "--yes")
    assert [h["chat"] for h in cli.json("search", "granola")["results"]] == ["Shopping"]


def test_times_and_senders_filter_as_imported(cli, tmp_path):
    cli("import", write_jsonl(tmp_path / "t.jsonl", [
        msg("tea before midnight", "2024-02-01T23:59:59.999+01:00", "T1"),  # 22:59:59 UTC
        {**msg("tea after midnight", "2024-02-02T00:00:01+00:00", "T2"), "sender": "Ben Ode"}]))
    assert [c for _, c in found(cli, "tea", "--since", "2024-02-02")] == ["Ben Ode: tea after midnight"]
    assert [c for _, c in found(cli, "tea", "--until", "2024-02-01")] == ["Anna Berg: tea before midnight"]
    assert [c for _, c in found(cli, "tea", "from:ben")] == ["Ben Ode: tea after midnight"]


def test_attachments_are_found_whatever_batch_their_message_is_read_in(cli, tmp_path, monkeypatch):
    """The index reads the attachments of the messages it indexes a batch of messages at a time
    (and a few ids per query): each message gets its own attachments' words and types, in
    every batch, and no other message's."""
    monkeypatch.setattr(index_mod, "INDEX_BATCH", 4)
    monkeypatch.setattr(index_mod, "IN_IDS", 3)
    records = []
    for i in range(23):
        files = [{"name": f"scan{i}.pdf", "mime_type": "application/pdf"}] if i % 5 == 2 else []
        if i == 11:
            files = [{"name": "lighthouse.jpg", "mime_type": "image/jpeg"},
                     {"name": "notes.pdf", "mime_type": "application/pdf"}]
        records.append(msg(f"entry {i}", f"2024-03-01T09:{i:02d}:00+00:00", f"A{i}", attachments=files))
    cli("import", write_jsonl(tmp_path / "files.jsonl", records))
    [(lighthouse, content)] = found(cli, "lighthouse")
    assert content == "Anna Berg: entry 11 [lighthouse.jpg, image/jpeg, notes.pdf, application/pdf]"
    assert found(cli, "notes.pdf") == [(lighthouse, content)]
    assert found(cli, "has:image") == [(lighthouse, content)]
    scans = sorted(c.split(" [")[0] for _, c in found(cli, "has:document"))
    assert scans == sorted(f"Anna Berg: entry {i}" for i in (*range(2, 23, 5), 11))
    assert cli.json("search", "entry")["total"] == 23
