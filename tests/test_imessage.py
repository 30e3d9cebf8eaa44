"""The iMessage importer over chat.db files we build in three schema generations, an iOS backup
folder, CallHistory.storedata, the real corpus chat.db, and incremental re-imports."""

from __future__ import annotations

import json
import plistlib
import sqlite3
from pathlib import Path

import pytest
from imessage_builders import (
    ANNA,
    BEN,
    CARLA,
    GEN_2017,
    GEN_2023,
    GENERATIONS,
    ChatDbBuilder,
    apple_ns,
    attributed_body,
    build_backup,
    build_call_history,
    build_chat_db,
    build_fixture,
    plain_records,
    summary_info,
    t,
)

from chatmem.errors import FormatError
from chatmem.importers import detect
from chatmem.importers.imessage import IMessageImporter
from chatmem.records import (
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    Reaction,
    SourceState,
    chat_id,
    message_id_from_guid,
)

CORPUS_DB = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "imessage" / "chatdb" / "test.db"
FIXTURE_DB = Path(__file__).resolve().parents[1] / "fixtures" / "imessage" / "chat.db"


def read(path: Path, state: dict | None = None) -> list:
    records = IMessageImporter().read(path, ImportOptions(state=dict(state or {})))
    return [r for r in records if not isinstance(r, Estimate)]  # progress hints only


def of(records: list, cls: type) -> list:
    return [r for r in records if isinstance(r, cls)]


def messages(records: list) -> dict[str, Message]:
    return {m.guid: m for m in of(records, Message)}


def mid(guid: str) -> str:
    return message_id_from_guid("imessage", guid)


def check_chats_come_first(records: list) -> None:
    seen = set()
    for r in records:
        if isinstance(r, Chat):
            seen.add(r.id)
        elif isinstance(r, (Message, Call)):
            assert r.chat_id in seen, f"{r} before its chat"


# ------------------------------------------------------------------ every generation


@pytest.mark.parametrize("generation", GENERATIONS)
def test_every_generation_imports_the_standard_conversation(tmp_path: Path, generation: str) -> None:
    sc = build_chat_db(tmp_path / "chat.db", generation)
    records = read(sc.path)
    check_chats_come_first(records)
    g = sc.guids
    msgs = messages(records)
    chats = {c.key: c for c in of(records, Chat)}

    one = chats[sc.anna_chat]
    assert (one.name, one.group, one.handles) == (ANNA, False, [ANNA])
    group = chats[sc.group_chat]
    assert group.group and group.handles == [ANNA, BEN]
    assert group.name == (sc.group_name or f"{ANNA}, {BEN}")  # display_name, else the members

    hello = msgs[g["hello"]]
    assert hello.id == mid(g["hello"])
    assert (hello.text, hello.sender, hello.sender_handle) == (
        "Hi Sam, are we still on for Saturday?", ANNA, ANNA)
    assert hello.sent_at == t(0)  # in seconds in the oldest generation, nanoseconds later
    body_only = msgs[g["body_only"]]
    assert (body_only.text, body_only.sender, body_only.sent_at) == ("Yes! See you at 10", "me", t(1))

    # Tapbacks are reactions on their target, never messages.
    for name in ("love", "like", "unlike", "party", "sticker"):
        assert g.get(name) not in msgs
    reactions = [(r.target_id, r.emoji, r.sender, r.removed) for r in of(records, Reaction)]
    assert (body_only.id, "❤️", ANNA, False) in reactions
    assert (hello.id, "👍", "me", False) in reactions
    assert (hello.id, "👍", "me", True) in reactions

    reply = msgs[g["reply"]]
    assert reply.reply_to == (None if generation == GEN_2017 else body_only.id)

    photo = msgs[g["photo"]]
    assert photo.kind == "media" and photo.text == ""
    [att] = photo.attachments
    assert (att.name, att.mime_type, att.size) == ("IMG_0001.jpeg", "image/jpeg", 12345)
    doc = msgs[g["doc"]]
    assert doc.text == "the plan" and doc.attachments[0].mime_type == "application/pdf"

    events = {m.extra.get("event"): m for m in msgs.values() if m.kind == "system"}
    assert set(events) == {"added", "removed", "left", "renamed", "icon_changed", "icon_removed"}
    assert events["added"].text == f"me added {BEN}"
    assert events["added"].extra["target"] == BEN
    assert events["removed"].text == f"{ANNA} removed {BEN}"
    assert events["renamed"].text == f"{ANNA} renamed the group to Weekend trip"
    assert events["left"].text == f"{ANNA} left the group"
    assert all(e.chat_id == group.id for e in events.values())

    orphan = msgs[g["orphan"]]
    assert orphan.chat_id == chats["orphan:" + CARLA].id
    assert (chats["orphan:" + CARLA].name, orphan.sender, orphan.text) == (CARLA, CARLA, "Your table is ready")

    broken = msgs[g["broken"]]  # kept, with what `text` had
    assert broken.text == ""
    [problem] = of(records, Problem)
    assert problem.line == broken.line and "attributedBody" in problem.reason

    state = records[-1]
    assert isinstance(state, SourceState)
    assert state.state["max_rowid"] == max(m.line for m in msgs.values())
    assert any("could not be decoded" in n for n in state.notes)


def test_newest_generation_edits_unsends_recently_deleted_and_more(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    records = read(sc.path)
    g = sc.guids
    msgs = messages(records)

    edited = msgs[g["edited"]]
    assert (edited.text, edited.edited, edited.deleted) == ("See you at 11", True, False)
    assert [(v.text, v.timestamp) for v in edited.versions] == [("See you at 10", t(30))]

    unsent = msgs[g["unsent"]]
    assert (unsent.deleted, unsent.edited, unsent.text) == (True, False, "")
    partly = msgs[g["partly_unsent"]]
    assert (partly.deleted, partly.text, partly.extra["unsent_parts"]) == (False, "first part", [1])

    gone = msgs[g["recently_deleted"]]  # in Recently Deleted: imported, marked deleted
    assert gone.deleted and gone.text == "oops wrong chat"
    assert gone.chat_id == chat_id("imessage", sc.anna_chat)

    reactions = {(r.target_id, r.emoji, r.sender) for r in of(records, Reaction)}
    assert (mid(g["group_hi"]), "🎉", ANNA) in reactions
    assert (mid(g["group_hi"]), "sticker", "me") in reactions

    voice = msgs[g["voice"]]
    assert voice.kind == "media" and voice.text == "Running late, sorry"
    assert voice.extra["transcription"] == "Running late, sorry"
    assert voice.attachments[0].name == "Audio Message.caf"

    mention = msgs[g["mention"]]
    assert mention.text == "Thanks Anna!"
    assert mention.extra["mentions"] == [{"handle": ANNA, "text": "Anna"}]


def test_raw_record_has_the_row_the_decoded_text_and_earlier_versions(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    msgs = messages(read(sc.path))
    raw = json.loads(msgs[sc.guids["edited"]].raw)
    assert raw["guid"] == sc.guids["edited"]
    # a blob that only repeats the `text` column is not copied as hex (it was most of the store)
    blob = attributed_body("See you at 11")
    assert raw["attributedBody"] == {"$bytes": len(blob), "decoded": False}
    assert raw["_earlier_versions"][0]["text"] == "See you at 10"
    raw = json.loads(msgs[sc.guids["body_only"]].raw)
    assert raw["text"] is None and raw["_decoded_text"] == "Yes! See you at 10"
    assert raw["attributedBody"]["decoded"] is True
    # one we could not decode is kept whole, for a later, better reader
    raw = json.loads(msgs[sc.guids["broken"]].raw)
    assert "$hex" in raw["attributedBody"]


# ------------------------------------------------------------------ incremental


def test_reimport_with_the_state_adds_nothing(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    state = read(sc.path)[-1].state
    again = read(sc.path, state)
    assert [type(r) for r in again] == [SourceState]
    assert again[-1].state == state


def test_reimport_of_a_grown_database_reads_new_rows_and_late_changes(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    g = sc.guids
    state = read(sc.path)[-1].state

    conn = sqlite3.connect(sc.path)
    # An old message edited, another unsent, after the first import.
    conn.execute(
        "UPDATE message SET text = ?, attributedBody = ?, date_edited = ?, message_summary_info = ? WHERE guid = ?",
        ("Great, I'll bring tea", attributed_body("Great, I'll bring tea"), apple_ns(t(50)),
         summary_info({0: [("Great, I'll bring coffee", t(5)), ("Great, I'll bring tea", t(50))]}),
         g["reply"]),
    )  # fmt: skip
    conn.execute(
        "UPDATE message SET date_retracted = ?, message_summary_info = ? WHERE guid = ?",
        (apple_ns(t(51)), summary_info(unsent=[0]), g["hello"]),
    )
    conn.commit()
    conn.close()
    db = ChatDbBuilder.__new__(ChatDbBuilder)  # append rows with the builder's helpers
    db.generation, db.conn, db.seconds_dates = GEN_2023, sqlite3.connect(sc.path), False
    db.message_columns = {r[1] for r in db.conn.execute("PRAGMA table_info(message)")}
    group = db.conn.execute("SELECT ROWID FROM chat WHERE guid = ?", (sc.group_chat,)).fetchone()[0]
    ben = db.conn.execute("SELECT ROWID FROM handle WHERE id = ?", (BEN,)).fetchone()[0]
    db.message("NEW-1", t(52), group, ben, text="Sunday works too")
    anna_chat = db.conn.execute("SELECT ROWID FROM chat WHERE guid = ?", (sc.anna_chat,)).fetchone()[0]
    doc = db.conn.execute("SELECT ROWID FROM message WHERE guid = ?", (g["doc"],)).fetchone()[0]
    db.recently_deleted(doc, anna_chat, t(54), "the plan")
    db.message("NEW-TAPBACK", t(53), group, from_me=True, text="Laughed at “Hello everyone”",
               associated_message_guid="p:0/" + g["group_hi"], associated_message_type=2003)  # fmt: skip
    db.close()

    again = read(sc.path, state)
    check_chats_come_first(again)
    msgs = messages(again)
    assert set(msgs) == {g["reply"], g["hello"], g["doc"], "NEW-1"}
    assert msgs[g["doc"]].deleted and msgs[g["doc"]].chat_id == chat_id("imessage", sc.anna_chat)
    assert msgs[g["reply"]].edited and msgs[g["reply"]].text == "Great, I'll bring tea"
    assert [v.text for v in msgs[g["reply"]].versions] == ["Great, I'll bring coffee"]
    assert msgs[g["hello"]].deleted
    assert msgs["NEW-1"].chat_id == chat_id("imessage", sc.group_chat)
    [laugh] = of(again, Reaction)
    assert (laugh.target_id, laugh.emoji, laugh.sender) == (mid(g["group_hi"]), "😂", "me")
    assert {c.key for c in of(again, Chat)} == {sc.anna_chat, sc.group_chat}

    assert [type(r) for r in read(sc.path, again[-1].state)] == [SourceState]


def _grown_in_place(path: Path) -> dict[str, int]:
    """A chat.db of 400 messages, every 50th long (its last columns in overflow pages), already
    edited once: guid -> rowid."""
    db = ChatDbBuilder(path, GEN_2023, page_size=1024)
    anna = db.handle(ANNA)
    chat = db.chat("iMessage;-;" + ANNA, [anna], ANNA, group=False)
    rowids = {}
    for i in range(400):
        long = {"payload_data": bytes(3000), "date_edited": apple_ns(t(i % 50 + 1))} if i % 50 == 7 else {}
        rowids[f"M{i}"] = db.message(f"M{i}", t(i % 60), chat, anna, text=f"message {i}", **long)
    db.close()
    return rowids


def test_a_reimport_reads_the_rows_edited_in_place_and_no_other(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    rowids = _grown_in_place(path)
    state = read(path)[-1].state
    conn = sqlite3.connect(path)  # Messages writes its file in place
    conn.execute("UPDATE message SET date_edited = ?, text = 'message 120, edited' WHERE ROWID = ?",
                 (apple_ns(t(58)), rowids["M120"]))
    conn.commit()
    again = read(path, state)
    assert set(messages(again)) == {"M120"}
    assert [type(r) for r in read(path, again[-1].state)] == [SourceState]
    # A long row edited again: the new date has the width of the old one, so SQLite rewrites
    # only the overflow page that holds it (the leaf page stays byte for byte as it was).
    leaf = conn.execute("SELECT pageno FROM dbstat WHERE name = 'message' AND pagetype = 'leaf'"
                        " ORDER BY path").fetchall()
    before = path.read_bytes()
    conn.execute("UPDATE message SET date_edited = ? WHERE ROWID = ?",
                 (apple_ns(t(59)), rowids["M157"]))
    conn.commit()
    conn.close()
    size = 1024
    changed = [n for n in range(len(before) // size)
               if before[n * size:(n + 1) * size] != path.read_bytes()[n * size:(n + 1) * size]]
    assert not {n + 1 for n in changed} & {p for p, in leaf}  # no leaf page changed
    assert set(messages(read(path, again[-1].state))) == {"M157"}


def test_a_state_without_the_pages_still_finds_old_rows_edited(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    rowids = _grown_in_place(path)
    state = read(path)[-1].state
    del state["pages"]  # what an earlier version kept
    conn = sqlite3.connect(path)
    conn.execute("UPDATE message SET date_edited = ? WHERE ROWID = ?", (apple_ns(t(58)), rowids["M7"]))
    conn.commit()
    conn.close()
    again = read(path, state)
    assert set(messages(again)) == {"M7"}
    assert again[-1].state["pages"]  # kept for the next import


def test_a_different_database_under_the_same_state_is_read_whole(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    state = {**read(sc.path)[-1].state, "guid_at_max": "SOMETHING-ELSE"}
    assert len(of(read(sc.path, state), Message)) == len(of(read(sc.path), Message))


# ------------------------------------------------------------------ backups and calls


def test_ios_backup_folder(tmp_path: Path) -> None:
    folder = tmp_path / "backup"
    sc = build_backup(folder)
    assert IMessageImporter().detect(folder)
    assert detect(folder).platform == "imessage"
    records = read(folder)
    check_chats_come_first(records)
    msgs = messages(records)
    photo = msgs[sc.guids["photo"]].attachments[0]
    assert photo.path and Path(photo.path).read_bytes() == b"\xff\xd8jpeg"
    assert msgs[sc.guids["doc"]].attachments[0].path is None  # not in the backup

    calls = of(records, Call)
    anna = chat_id("imessage", sc.anna_chat)
    assert [(c.chat_id, c.direction, c.media, c.duration, c.answered) for c in calls] == [
        (anna, "outgoing", "voice", 125, True),
        (anna, "missed", "voice", 0, False),  # "(555) 010-0001" is Anna too
        (chat_id("imessage", "orphan:" + BEN), "incoming", "video", 61, True),
    ]
    assert calls[0].started_at == t(50)
    assert records[-1].state["calls_max_pk"] == 3
    assert [type(r) for r in read(folder, records[-1].state)] == [SourceState]


def test_encrypted_backup_is_refused(tmp_path: Path) -> None:
    build_backup(tmp_path / "backup", encrypted=True)
    with pytest.raises(FormatError, match="encrypted.*unencrypted"):
        read(tmp_path / "backup")


def test_call_history_alone_and_beside_a_chat_db(tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    build_call_history(alone / "CallHistory.storedata")
    assert IMessageImporter().detect(alone / "CallHistory.storedata")
    records = read(alone / "CallHistory.storedata")
    check_chats_come_first(records)
    keys = {c.key for c in of(records, Chat)}
    assert keys == {"orphan:" + ANNA, "orphan:(555) 010-0001", "orphan:" + BEN}

    beside = tmp_path / "beside"
    beside.mkdir()
    sc = build_chat_db(beside / "chat.db", GEN_2023)
    build_call_history(beside / "CallHistory.storedata")
    from_calls = of(read(beside / "CallHistory.storedata"), Call)
    from_db = of(read(sc.path), Call)
    assert [c.id for c in from_calls] == [c.id for c in from_db]
    assert [c.chat_id for c in from_calls] == [c.chat_id for c in from_db]
    assert from_db[0].chat_id == chat_id("imessage", sc.anna_chat)


def test_attachments_found_beside_a_copied_messages_folder(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    stored = tmp_path / "Attachments" / "ab" / "01" / "ATT1" / "IMG_0001.jpeg"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"jpeg")
    photo = messages(read(sc.path))[sc.guids["photo"]].attachments[0]
    assert photo.path == str(stored)


# ------------------------------------------------------------------ real corpus file


def test_corpus_chat_db_imports() -> None:
    if not CORPUS_DB.is_file():
        pytest.skip("corpus absent")
    assert IMessageImporter().detect(CORPUS_DB)
    records = read(CORPUS_DB)
    check_chats_come_first(records)
    msgs = messages(records)
    # text is '' there: the text comes from attributedBody; no chat joins them (kept anyway).
    assert msgs["0355C6E1-D0C8-4212-AA87-DD8AE4FD1203"].text == (
        "I\u2019m going to try to eat as quick as possible and then come over")
    assert msgs["FAKEGUID-D0C8-4212-AA87-DD8AE4FD1203"].text == (
        "https://www.ghacks.net/2020/01/23/lastpass-no-longer-listed-on-the-chrome-web-store/")
    assert msgs["0355C6E1-D0C8-4212-AA87-DD8AE4FD1203"].sent_at.isoformat() == "2025-02-06T21:25:24.490443+00:00"
    [sticker] = msgs["0355C6E1-D0C8-4212-AA87-DD8AE4FD1203"].attachments
    assert (sticker.mime_type, sticker.size) == ("image/heic", 24560)
    assert not of(records, Problem)
    assert [type(r) for r in read(CORPUS_DB, records[-1].state)] == [SourceState]


# ------------------------------------------------------------------ errors and detection


def test_files_that_are_not_messages_databases(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.executescript("CREATE TABLE message (ROWID INTEGER PRIMARY KEY, guid TEXT, text TEXT);"
                       "CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT);"
                       "CREATE TABLE chat (ROWID INTEGER PRIMARY KEY, guid TEXT);"
                       "CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);")  # fmt: skip
    conn.close()
    imp = IMessageImporter()
    for path in (text, other, tmp_path / "missing.db", tmp_path):
        assert not imp.detect(path)
    with pytest.raises(FormatError, match="not a SQLite file"):
        read(text)
    with pytest.raises(FormatError, match=r"other\.db.*missing table\(s\) message, handle, chat"):
        read(other)
    with pytest.raises(FormatError, match=r"old\.db.*lacks column\(s\) handle_id, is_from_me, date"):
        read(old)
    with pytest.raises(FormatError, match="not an iOS backup"):
        read(tmp_path)


def test_unreadable_database_mentions_full_disk_access(tmp_path: Path, monkeypatch) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)

    def refuse(*_args, **_kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr("chatmem.importers.imessage.sqlite.sqlite3.connect", refuse)
    with pytest.raises(FormatError, match="Full Disk Access"):
        read(sc.path)


def test_chat_db_without_permission_is_claimed_and_explained(tmp_path: Path, monkeypatch) -> None:
    """macOS without Full Disk Access: opening ~/Library/Messages/chat.db is refused."""
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    real_open = open

    def guarded_open(file, *args, **kwargs):
        if Path(file) == sc.path:
            raise PermissionError(1, "Operation not permitted", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded_open)
    assert IMessageImporter().detect(sc.path)
    with pytest.raises(FormatError, match=r"chat\.db: permission denied.*Full Disk Access"):
        read(sc.path)


def test_database_is_opened_read_only(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    before = sorted(p.name for p in tmp_path.iterdir())
    data = sc.path.read_bytes()
    read(sc.path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sc.path.read_bytes() == data


def test_summary_info_plist_unreadable_keeps_the_message(tmp_path: Path) -> None:
    db = ChatDbBuilder(tmp_path / "chat.db", GEN_2023)
    anna = db.handle(ANNA)
    chat = db.chat("iMessage;-;" + ANNA, [anna], ANNA, group=False)
    db.message("G1", t(1), chat, anna, text="still here", date_edited=apple_ns(t(2)),
               message_summary_info=b"bplist00garbage")  # fmt: skip
    db.close()
    [msg] = of(read(tmp_path / "chat.db"), Message)
    assert msg.text == "still here" and msg.edited
    assert "problems" in msg.extra


# ------------------------------------------------------------------ the committed fixture


def test_fixture_reads_to_its_golden_records() -> None:
    expected = json.loads((FIXTURE_DB.parent / "expected.json").read_text(encoding="utf-8"))
    assert plain_records(read(FIXTURE_DB)) == expected


def test_fixture_is_what_the_builder_writes(tmp_path: Path) -> None:
    """fixtures/imessage/build_fixture.py regenerates the committed files."""
    db, _calls = build_fixture(tmp_path)
    assert plain_records(read(db)) == plain_records(read(FIXTURE_DB))


# ------------------------------------------------------------------ end to end


def test_fixture_imports_through_the_cli_and_again_adds_nothing(cli) -> None:
    if not FIXTURE_DB.is_file():
        pytest.skip("fixture not built")
    first = [r for r in cli.json("import", FIXTURE_DB.parent) if r["status"] != "skipped"]
    assert {r["platform"] for r in first} == {"imessage"}
    assert sum(r["messages"]["new"] for r in first) > 0
    again = cli.json("import", "--force", FIXTURE_DB.parent)
    assert sum(r["messages"]["new"] + r["messages"]["updated"] for r in again) == 0
    assert sum(r["calls"]["new"] for r in again) == 0
    # --force reads it all again (the ROWID watermark did not let it read anything)
    assert (sum(r["messages"]["unchanged"] for r in again if r["status"] != "skipped")
            == sum(r["messages"]["new"] for r in first))


def test_manifest_plist_damaged_falls_back_to_manifest_db(tmp_path: Path) -> None:
    folder = tmp_path / "backup"
    build_backup(folder)
    (folder / "Manifest.plist").write_bytes(b"not a plist")
    assert of(read(folder), Message)
    (folder / "Manifest.plist").write_bytes(plistlib.dumps({"IsEncrypted": False}))
    assert of(read(folder), Message)


# ------------------------------------------------------------------ live (WAL) databases


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_wal_database_is_read_without_creating_files_beside_it(tmp_path: Path) -> None:
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    conn = sqlite3.connect(sc.path)
    conn.execute("PRAGMA journal_mode = wal")
    conn.close()  # a clean close merges and removes -wal / -shm
    before = _files(tmp_path)
    assert IMessageImporter().detect(sc.path)
    assert of(read(sc.path), Message)
    assert _files(tmp_path) == before


def test_live_database_shows_writes_still_in_its_log(tmp_path: Path) -> None:
    """Messages running: the newest rows are only in chat.db-wal, -shm beside it."""
    sc = build_chat_db(tmp_path / "chat.db", GEN_2023)
    app = sqlite3.connect(sc.path)
    app.execute("PRAGMA journal_mode = wal")
    app.execute("PRAGMA wal_autocheckpoint = 0")
    app.execute("INSERT INTO message (guid, text, handle_id, is_from_me, date) VALUES ('LIVE-1', 'just now', 0, 1, ?)",
                (apple_ns(t(59)),))  # fmt: skip
    app.commit()
    assert (tmp_path / "chat.db-wal").stat().st_size > 0
    before = _files(tmp_path)
    try:
        assert messages(read(sc.path))["LIVE-1"].text == "just now"
        assert _files(tmp_path) == before
        # A copied folder with the log but without its -shm: read from a private copy.
        copy = tmp_path / "copy"
        copy.mkdir()
        for name in ("chat.db", "chat.db-wal"):
            (copy / name).write_bytes((tmp_path / name).read_bytes())
        assert messages(read(copy / "chat.db"))["LIVE-1"].text == "just now"
        assert _files(copy) == ["chat.db", "chat.db-wal"]
    finally:
        app.close()


@pytest.mark.parametrize("module", ["typedstream", "body", "summary_info", "chatdb", "events",
                                    "dates", "backup"])  # fmt: skip
def test_docstring_examples_hold(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"chatmem.importers.imessage.{module}"))
    assert result.failed == 0 and result.attempted > 0
