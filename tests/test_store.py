"""The store and the ingest pipeline, through the CLI a user runs (issue 2)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from chatmem.store import Store
from chatmem.store.models import Message, MessageVersion, Reaction, Unparsed

pytestmark = pytest.mark.usefixtures("any_backend")

JSONL = Path(__file__).resolve().parents[1] / "fixtures" / "jsonl" / "notes-from-telegram.jsonl"


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def msg(text: str, ts: str, sender: str = "Anna Berg", chat: str = "Anna Berg", **kw) -> dict:
    return {"platform": "whatsapp", "chat": chat, "sender": sender, "timestamp": ts, "text": text, **kw}


def wipe(home: Path) -> None:
    """Delete the whole store: the home folder and, on PostgreSQL, every table."""
    url = os.environ.get("CHATMEM_DATABASE_URL")
    if url:
        from sqlalchemy import create_engine

        from chatmem.store.models import Base

        engine = create_engine(url)
        Base.metadata.drop_all(engine)
        engine.dispose()
    shutil.rmtree(home)


def exported(cli) -> list[dict]:
    return [json.loads(line) for line in cli("export").stdout.splitlines()]


def test_second_import_adds_nothing_and_says_so(cli):
    first = cli.json("import", JSONL)[0]
    assert first["messages"] == {"new": 6, "unchanged": 0, "updated": 0}
    assert first["calls"]["new"] == 1
    again = cli.json("import", JSONL)[0]
    assert again["status"] == "unchanged"
    assert "unchanged since" in again["notes"][0]
    forced = cli.json("import", "--force", JSONL)[0]
    assert forced["messages"] == {"new": 0, "unchanged": 6, "updated": 0}
    assert forced["calls"] == {"new": 0, "unchanged": 1, "updated": 0}
    assert cli.json("stats")["messages"] == 6


def test_report_counts_per_chat(cli):
    report = cli.json("import", JSONL)[0]
    per_chat = {c["chat"]: c for c in report["chats"]}
    assert per_chat["Hiking club"]["new"] == 5
    assert per_chat["Dentist reminders"]["new"] == 1
    text = cli("import", "--force", JSONL).stdout
    assert "0 new, 0 updated, 6 unchanged messages" in text


def test_rebuilt_store_has_the_same_ids(cli, tmp_path):
    cli("import", JSONL)
    before = {r["id"] for r in exported(cli) if r["type"] in ("message", "call")}
    wipe(cli.home)
    cli("import", JSONL)
    after = {r["id"] for r in exported(cli) if r["type"] in ("message", "call")}
    assert before == after and len(before) == 7


def test_export_then_import_into_empty_store_round_trips(cli, tmp_path):
    cli("import", JSONL)
    dump = tmp_path / "all.jsonl"
    cli("export", "--out", dump)
    original = exported(cli)
    wipe(cli.home)
    other = type(cli)(tmp_path / "other-home")
    report = other.json("import", dump)[0]
    assert report["messages"]["new"] == 6 and report["unparsed"] == 0
    assert exported(other) == original


def test_reindex_after_deleting_the_index_restores_search(cli):
    cli("import", JSONL)
    assert cli.json("search", "thermos")["total"] == 1
    shutil.rmtree(cli.home / "index")
    cli("reindex")
    assert cli.json("search", "thermos")["total"] == 1


def test_store_notices_an_index_behind_the_database_and_catches_up(cli, home, config):
    cli("import", JSONL)
    shutil.rmtree(home / "index")  # e.g. killed before the index write
    with Store.open(home, config) as store:
        assert store.index.doc_count() == 7
    assert cli.json("search", "Garmisch")["total"] == 1


def test_bad_lines_are_reported_counted_and_kept(cli, tmp_path):
    src = tmp_path / "mixed.jsonl"
    src.write_text(
        json.dumps(msg("first", "2024-01-01T10:00:00+00:00")) + "\n"
        + "{not json\n"
        + json.dumps(msg("typed", "2024-01-01T10:01:00+00:00", deleted="yes")) + "\n"
        + json.dumps(msg("last", "2024-01-01T10:02:00+00:00")) + "\n",
        encoding="utf-8",
    )
    report = cli.json("import", src)[0]
    assert report["messages"]["new"] == 2
    assert report["unparsed"] == 2
    problems = report["problems"] + [p for c in report["chats"] for p in c["first_problems"]]
    assert sorted(p["line"] for p in problems) == [2, 3]
    assert any("'deleted' must be bool" in p["reason"] for p in problems)
    with Store.open(cli.home) as store, store.read() as conn:
        kept = conn.execute(select(Unparsed.text).order_by(Unparsed.line)).scalars().all()
    assert kept[0] == "{not json"


def test_a_file_that_is_not_jsonl_is_one_clear_error(cli, tmp_path):
    src = tmp_path / "notes.jsonl"
    src.write_text("hello there\n{}\n", encoding="utf-8")
    result = cli("import", "--platform", "jsonl", src, expect=1)
    assert "notes.jsonl line 1: not JSON Lines" in result.output
    assert "Traceback" not in result.output
    assert cli.json("stats")["messages"] == 0


def test_missing_path_and_unrecognised_folder(cli, tmp_path):
    assert "no such file" in cli("import", tmp_path / "nope.txt", expect=1).output
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.md").write_text("hi")
    assert "no recognised chat export" in cli("import", tmp_path / "empty", expect=1).output


def test_deleted_message_keeps_the_text_an_earlier_import_had(cli, tmp_path):
    v1 = write_jsonl(tmp_path / "v1.jsonl", [msg("the door code is at the back", "2024-02-01T09:00:00+00:00", guid="G1")])
    v2 = write_jsonl(tmp_path / "v2.jsonl", [msg("", "2024-02-01T09:00:00+00:00", guid="G1", deleted=True)])
    cli("import", v1)
    report = cli.json("import", v2)[0]
    assert report["messages"] == {"new": 0, "unchanged": 0, "updated": 1}
    [record] = [r for r in exported(cli) if r["type"] == "message"]
    assert record["deleted"] is True
    assert record["text"] == "the door code is at the back"


def test_edit_keeps_the_earlier_text_as_a_version(cli, tmp_path, home):
    cli("import", write_jsonl(tmp_path / "v1.jsonl", [msg("meet at 5", "2024-02-01T09:00:00+00:00", guid="G2")]))
    cli("import", write_jsonl(tmp_path / "v2.jsonl",
                              [msg("meet at 6", "2024-02-01T09:00:00+00:00", guid="G2", edited=True)]))
    [record] = [r for r in exported(cli) if r["type"] == "message"]
    assert record["text"] == "meet at 6" and record["edited"] is True
    assert [v["text"] for v in record["versions"]] == ["meet at 5"]


def test_content_keyed_tombstone_is_reconciled_onto_the_original(cli, tmp_path):
    """A WhatsApp-style message without a GUID that a newer export shows as deleted:
    the deletion lands on the message we had, and no second message appears."""
    older = [msg("see you at the station", "2024-03-01T18:00:00+01:00"),
             msg("ok", "2024-03-01T18:01:00+01:00", sender="me")]
    newer = [msg("This message was deleted", "2024-03-01T18:00:00+01:00", deleted=True),
             msg("ok", "2024-03-01T18:01:00+01:00", sender="me"),
             msg("new one", "2024-03-02T08:00:00+01:00")]
    cli("import", write_jsonl(tmp_path / "old.jsonl", older))
    report = cli.json("import", write_jsonl(tmp_path / "new.jsonl", newer))[0]
    assert report["messages"] == {"new": 1, "unchanged": 1, "updated": 1}
    messages = [r for r in exported(cli) if r["type"] == "message"]
    assert len(messages) == 3
    station = [m for m in messages if m["deleted"]]
    assert len(station) == 1 and station[0]["text"] == "see you at the station"
    again = cli.json("import", "--force", tmp_path / "new.jsonl")[0]
    assert again["messages"]["new"] == 0


def test_two_identical_messages_in_the_same_minute_both_survive(cli, tmp_path):
    same = [msg("haha", "2024-03-01T18:00:00+01:00"), msg("haha", "2024-03-01T18:00:00+01:00")]
    report = cli.json("import", write_jsonl(tmp_path / "dup.jsonl", same))[0]
    assert report["messages"]["new"] == 2


def test_reactions_are_attached_to_their_message_not_messages(cli, home):
    cli("import", JSONL)
    with Store.open(home) as store, store.read() as conn:
        reactions = conn.execute(select(Reaction.emoji, Reaction.sender)).all()
        count = conn.execute(select(func.count()).select_from(Message)).scalar_one()
        versions = conn.execute(select(MessageVersion.text)).scalars().all()
    assert reactions == [("👍", "Anna Berg")]
    assert count == 6
    assert versions == ["Count me in"]



def test_a_reimport_keeps_each_reaction_once_and_takes_its_removal(cli, home, tmp_path):
    """Reactions are told apart by message, sender and emoji together: the same emoji by the same
    sender on another message, another sender's on the same message, and a removal of one of
    them are each what the newer export says, and nothing is counted or stored twice."""
    thumbs, heart, laugh = "\U0001f44d", "\u2764", "\U0001f602"
    first = [msg("one", "2024-03-01T18:00:00+01:00",
                 reactions=[{"emoji": thumbs, "sender": "Anna Berg"}, {"emoji": heart, "sender": "Ben Ortiz"}]),
             msg("two", "2024-03-01T18:01:00+01:00", reactions=[{"emoji": heart, "sender": "Anna Berg"}])]
    path = write_jsonl(tmp_path / "chat.jsonl", first)
    assert cli.json("import", path)[0]["reactions"] == 3
    later = [msg("one", "2024-03-01T18:00:00+01:00",
                 reactions=[{"emoji": thumbs, "sender": "Anna Berg", "removed": True},
                            {"emoji": heart, "sender": "Ben Ortiz"}, {"emoji": laugh, "sender": "Anna Berg"}]),
             msg("two", "2024-03-01T18:01:00+01:00",
                 reactions=[{"emoji": heart, "sender": "Anna Berg"}, {"emoji": thumbs, "sender": "Anna Berg"}]),
             msg("three", "2024-03-01T18:02:00+01:00", reactions=[{"emoji": heart, "sender": "Ben Ortiz"}])]
    write_jsonl(path, later)
    assert cli.json("import", path)[0]["reactions"] == 3  # laugh on one, thumbs on two, heart on three
    with Store.open(home) as store, store.read() as conn:
        rows = conn.execute(select(Message.text, Reaction.sender, Reaction.emoji, Reaction.removed)
                            .join(Message, Message.id == Reaction.message_id)).all()
    assert sorted(rows) == sorted([
        ("one", "Anna Berg", thumbs, True), ("one", "Ben Ortiz", heart, False), ("one", "Anna Berg", laugh, False),
        ("two", "Anna Berg", heart, False), ("two", "Anna Berg", thumbs, False), ("three", "Ben Ortiz", heart, False)])

def test_sync_reimports_only_sources_that_changed(cli, tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [msg("one", "2024-01-01T10:00:00+00:00")])
    b = write_jsonl(tmp_path / "b.jsonl", [msg("two", "2024-01-01T11:00:00+00:00", chat="Ben Ortiz", sender="Ben Ortiz")])
    cli("import", a, b)
    write_jsonl(b, [msg("two", "2024-01-01T11:00:00+00:00", chat="Ben Ortiz", sender="Ben Ortiz"),
                    msg("three", "2024-01-02T11:00:00+00:00", chat="Ben Ortiz", sender="Ben Ortiz")])
    reports = {Path(r["path"]).name: r for r in cli.json("sync")}
    assert reports["a.jsonl"]["status"] == "unchanged"
    assert reports["b.jsonl"]["messages"] == {"new": 1, "unchanged": 1, "updated": 0}
    a.unlink()
    reports = {Path(r["path"]).name: r for r in cli.json("sync")}
    assert reports["a.jsonl"]["status"] == "missing"
    assert cli.json("stats")["messages"] == 3


def test_a_second_import_is_refused_while_one_runs(cli, home, config):
    store = Store.open(home, config)
    try:
        with store.import_lock():
            result = cli("import", "--no-wait", JSONL, expect=3)  # busy: its own exit status
    finally:
        store.close()
    assert "another chatmem import is running" in result.output
    cli("import", JSONL)


def test_config_errors_are_one_line(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("owner:\n  names: [Sam\n", encoding="utf-8")
    result = cli("--config", bad, "stats", expect=1)
    assert "bad.yaml line" in result.output and "not valid YAML" in result.output
    result = cli("--config", tmp_path / "missing.yaml", "stats", expect=1)
    assert "does not exist" in result.output
    tz = tmp_path / "tz.yaml"
    tz.write_text("timezone: Mars/Olympus\n", encoding="utf-8")
    assert "unknown time zone" in cli("--config", tz, "stats", expect=1).output


def test_timezone_flag_reads_naive_times_in_that_zone(cli, tmp_path):
    src = write_jsonl(tmp_path / "naive.jsonl", [msg("hi", "2024-07-01T12:00:00")])
    cli("import", "--timezone", "America/New_York", src)
    [record] = [r for r in exported(cli) if r["type"] == "message"]
    assert record["timestamp"] == "2024-07-01T16:00:00+00:00"


@pytest.mark.parametrize("bad_platform", ["WhatsApp!", ""])
def test_jsonl_platform_names_are_checked(cli, tmp_path, bad_platform):
    src = write_jsonl(tmp_path / "p.jsonl", [msg("x", "2024-01-01T00:00:00+00:00"),
                                            {**msg("y", "2024-01-01T00:01:00+00:00"), "platform": bad_platform or 5}])
    report = cli.json("import", src)[0]
    assert report["messages"]["new"] == 1 and report["unparsed"] == 1


def test_a_renamed_group_keeps_its_chat_across_exports(cli, tmp_path):
    """The first export shows the group's creation and its rename; a later export (named after
    the new name) starts after the rename. Both land in one chat."""
    first = tmp_path / "WhatsApp Chat with Book Club.txt"
    first.write_text(
        '12/01/2024, 10:00 - Anna Berg created group "Book Club"\n'
        "12/01/2024, 10:01 - Anna Berg: Welcome everyone\n"
        '15/01/2024, 09:00 - Anna Berg changed the subject from "Book Club" to "Readers Circle"\n'
        "15/01/2024, 09:05 - Ben Ortiz: Nice new name\n", encoding="utf-8")
    later = tmp_path / "WhatsApp Chat with Readers Circle.txt"
    later.write_text(
        "20/02/2024, 18:00 - Ben Ortiz: Next book: Dune\n"
        "20/02/2024, 18:02 - Sam Rivera: Great choice\n", encoding="utf-8")
    one = cli.json("import", first)[0]["chats"]
    two = cli.json("import", later)[0]["chats"]
    assert [c["source"] for c in one] == [c["source"] for c in two]
    chats = cli.json("chats")["chats"]
    assert len(chats) == 1 and chats[0]["messages"] == 6
