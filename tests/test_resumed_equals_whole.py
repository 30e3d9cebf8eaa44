"""A re-import of a grown export that resumes (reads only what is new, plus what changed where the
format lets it tell) ends exactly as reading the grown export whole would: every message,
version, reaction, attachment, call, chat, person and handle. And, but for what the newer export
no longer holds (the store keeps it) and the text an earlier import had before an edit (kept as a
version), as a fresh store that imported the grown export alone.

For each resuming format we did not test this way before: WhatsApp (text and zip), chat.db,
Signal's export from the phone and SMS Backup & Restore; each grows by new messages at the end
and changes something old where the format can say so (an edit, a deletion, a reaction)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from android_sms_builders import ANNA, BEN, COMMENT, calls, full_messages, sms
from android_sms_builders import _write as write_sms
from imessage_builders import (
    BEN as IM_BEN,
)
from imessage_builders import (
    GEN_2023,
    ChatDbBuilder,
    apple_ns,
    attributed_body,
    build_chat_db,
    summary_info,
    t,
)
from resume_helpers import later, store_rows
from signal_builders import GROUP_CONV as DESKTOP_GROUP
from signal_builders import SCENARIO as DESKTOP_SCENARIO
from signal_builders import at as desktop_at
from signal_builders import build_database as build_desktop_database
from signal_export_builders import R_BEN, Files, at, frames
from test_resume import chat_lines
from test_signal_export_resume import filler as signal_filler
from test_signal_export_resume import item_at
from test_signal_export_resume import write as write_signal
from test_signal_resume import filler as desktop_filler

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store

Stage = Callable[[Path], Path]  # writes one version of the export under a folder; its path


def people_rows(home: Path) -> set[tuple[Any, ...]]:
    """Who the store knows: each handle with the name of the person it belongs to."""
    with Store.open(home, load_config()) as store, store.read() as conn:
        return {tuple(r) for r in conn.exec_driver_sql(
            "SELECT h.kind, h.value, h.display, h.source, p.name, p.manual, p.from_contact "
            "FROM handles h JOIN people p ON p.id = h.person_id")}


def sources_of_messages(home: Path) -> dict[str, list[str]]:
    with Store.open(home, load_config()) as store, store.read() as conn:
        return {r[0]: json.loads(r[1]).get("sources", []) for r in conn.exec_driver_sql(
            "SELECT id, extra FROM messages")}


def import_all(home: Path, path: Path, force: bool = False) -> list[dict[str, Any]]:
    with Store.open(home, load_config()) as store:
        return [r.as_dict() for r in store.import_sources(find_sources(path), force=force)]


def run(work: Path, stages: list[Stage], whole: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Import each stage in turn into one store, in the same folder every time (paths are part
    of what is stored); the last reads everything when `whole`."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    home = work / "home"
    reports: list[dict[str, Any]] = []
    for i, stage in enumerate(stages):
        path = stage(work)
        if i:
            for f in (path.rglob("*") if path.is_dir() else [path]):
                if f.is_file():
                    later(f)
        reports = import_all(home, path, force=whole and i == len(stages) - 1)
    rows = store_rows(home)
    rows["people"] = people_rows(home)
    return rows, reports


def fresh_rows(work: Path, stage: Stage) -> dict[str, Any]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    import_all(work / "home", stage(work))
    rows = store_rows(work / "home")
    rows["people"] = people_rows(work / "home")
    return rows


def assert_resumed_is_whole(tmp_path: Path, stages: list[Stage]) -> dict[str, Any]:
    resumed, reports = run(tmp_path / "run", stages, whole=False)
    assert not any("read whole" in n for r in reports for n in r["notes"]), reports
    whole, _ = run(tmp_path / "run", stages, whole=True)
    for table in resumed:
        assert resumed[table] == whole[table], table
    # and a store that imported the grown export alone: the same, but for messages the newer
    # export no longer has (kept) and text an earlier import had before an edit (a version)
    reference = fresh_rows(tmp_path / "run", stages[-1])
    gone = {r[0] for r in resumed["messages"]} - {r[0] for r in reference["messages"]}
    # deleted for everyone since: the store keeps what it said (a first import never saw it)
    gone |= {r[0] for r in reference["messages"] if r[7]} - {r[0] for r in resumed["messages"] if not r[5]}
    for table, rows in resumed.items():
        if table == "chats":
            assert {r[:2] for r in rows} == {r[:2] for r in reference[table]}
            continue
        by_message = 1 if table == "attachments" else 0
        kept = {r for r in rows if r[by_message] not in gone and r[-1] != "earlier-import"}
        assert kept == {r for r in reference[table] if r[by_message] not in gone}, table
    return {"resumed": resumed, "reports": reports, "gone": gone}


# ---------------------------------------------------------------------- WhatsApp

WA_NAME = "WhatsApp Chat with Hiking Club.txt"


def wa_grown() -> list[str]:
    lines = chat_lines(2600)
    # an old message deleted for everyone, another edited, then 600 new ones
    lines[301] = lines[301].split(": ", 1)[0] + ": This message was deleted"
    lines[502] = lines[502].split(": ", 1)[0] + ": message 502 about the ridge <This message was edited>"
    return lines


def wa_text(lines: list[str]) -> Stage:
    def stage(work: Path) -> Path:
        path = work / "export" / WA_NAME
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    return stage


def wa_zip(lines: list[str]) -> Stage:
    def stage(work: Path) -> Path:
        path = work / "export" / "WhatsApp Chat with Hiking Club.zip"
        path.parent.mkdir(exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(WA_NAME, "\n".join(lines) + "\n")
            zf.writestr("IMG-20220501-WA0001.jpg", b"\xff\xd8\xff\xe0 a photo")
        return path
    return stage


@pytest.mark.parametrize("form", [wa_text, wa_zip], ids=["text", "zip"])
def test_whatsapp_appended_only(tmp_path, form):
    out = assert_resumed_is_whole(tmp_path, [form(chat_lines(2600)[:2000]), form(chat_lines(2600))])
    assert out["reports"][0]["messages"]["new"] == 600


@pytest.mark.parametrize("form", [wa_text, wa_zip], ids=["text", "zip"])
def test_whatsapp_an_old_message_deleted_and_another_edited(tmp_path, form):
    resumed, reports = run(tmp_path / "run", [form(chat_lines(2600)[:2000]), form(wa_grown())], whole=False)
    whole, _ = run(tmp_path / "run", [form(chat_lines(2600)[:2000]), form(wa_grown())], whole=True)
    for table in resumed:
        assert resumed[table] == whole[table], table
    (report,) = reports
    assert report["messages"]["new"] == 600 and report["messages"]["updated"] == 2
    texts = {r[5]: r for r in resumed["messages"]}
    # the deleted one keeps what it said, marked deleted; the edited one shows the new text
    assert texts["message 301 about the trail"][7]
    assert texts["message 502 about the ridge"][8]


# ---------------------------------------------------------------------- chat.db


def chatdb_first(work: Path) -> Path:
    (work / "Messages").mkdir(exist_ok=True)
    return build_chat_db(work / "Messages" / "chat.db", GEN_2023).path


def chatdb_grown(edit_at_minute: int) -> Stage:
    """The first database, then: an old message edited (its `date_edited` at
    `edit_at_minute`), another unsent, a tapback on an old one, and new rows."""
    def stage(work: Path) -> Path:
        path = chatdb_first(work)
        sc = build_chat_db(path, GEN_2023)
        g = sc.guids
        conn = sqlite3.connect(path)
        conn.execute(
            "UPDATE message SET text = ?, attributedBody = ?, date_edited = ?, message_summary_info = ? "
            "WHERE guid = ?",
            ("Great, I'll bring tea", attributed_body("Great, I'll bring tea"), apple_ns(t(edit_at_minute)),
             summary_info({0: [("Great, I'll bring coffee", t(5)), ("Great, I'll bring tea", t(edit_at_minute))]}),
             g["reply"]))
        conn.execute("UPDATE message SET date_retracted = ?, date_edited = ?, message_summary_info = ? "
                     "WHERE guid = ?", (apple_ns(t(51)), apple_ns(t(51)), summary_info(unsent=[0]), g["hello"]))
        conn.commit()
        conn.close()
        db = ChatDbBuilder.__new__(ChatDbBuilder)
        db.generation, db.conn, db.seconds_dates = GEN_2023, sqlite3.connect(path), False
        db.message_columns = {r[1] for r in db.conn.execute("PRAGMA table_info(message)")}
        group = db.conn.execute("SELECT ROWID FROM chat WHERE guid = ?", (sc.group_chat,)).fetchone()[0]
        ben = db.conn.execute("SELECT ROWID FROM handle WHERE id = ?", (IM_BEN,)).fetchone()[0]
        for i in range(40):
            db.message(f"NEW-{i}", t(52), group, ben if i % 2 else 0, from_me=not i % 2,
                       text=f"new message {i} about Sunday")
        db.message("NEW-TAPBACK", t(53), group, from_me=True, text="Laughed at “Hello everyone”",
                   associated_message_guid="p:0/" + g["group_hi"], associated_message_type=2003)
        db.close()
        return path
    return stage


def test_chat_db_grown_with_an_edit_an_unsend_and_a_tapback(tmp_path):
    out = assert_resumed_is_whole(tmp_path, [chatdb_first, chatdb_grown(50)])
    (report,) = out["reports"]
    assert report["messages"]["new"] == 40


def test_chat_db_an_edit_dated_before_the_last_import_still_comes_through(tmp_path):
    """Messages on another device edited before this Mac's last import, the edit synced after
    it: the row's `date_edited` is older than the newest edit the last import saw (the database
    already held an edit at minute 32 and an unsend at 34)."""
    out = assert_resumed_is_whole(tmp_path, [chatdb_first, chatdb_grown(31)])
    shown = {r[5] for r in out["resumed"]["messages"]}
    assert "Great, I'll bring tea" in shown and "Great, I'll bring coffee" not in shown


# ---------------------------------------------------------------------- Signal's export from the phone

SIGNAL_FILLER = 2300


def signal_stage(grow: bool) -> Stage:
    def stage(work: Path) -> Path:
        folder = work / "signal-export"
        lines = [*frames(Files(folder)), *signal_filler(0, SIGNAL_FILLER)]
        if grow:
            edited, gone, liked = item_at(lines, 40), item_at(lines, 1500), item_at(lines, 41)
            edited["revisions"] = [{"dateSent": edited["dateSent"], "standardMessage": edited["standardMessage"]}]
            edited["standardMessage"] = {"text": {"body": "filler message 40 fixed"}}
            gone.pop("standardMessage")
            gone["remoteDeletedMessage"] = {}
            liked["standardMessage"]["reactions"] = [{"emoji": "👍", "authorId": str(R_BEN),
                                                      "sentTimestamp": str(at(9000))}]
            lines += signal_filler(SIGNAL_FILLER, 30)
        return write_signal(folder, lines)
    return stage


def test_signal_export_grown_with_an_edit_a_deletion_and_a_reaction(tmp_path):
    out = assert_resumed_is_whole(tmp_path, [signal_stage(False), signal_stage(True)])
    (report,) = out["reports"]
    assert report["messages"]["new"] == 30 and report["messages"]["updated"] == 3


# ---------------------------------------------------------------------- SMS Backup & Restore


def sms_items(n: int) -> list[str]:
    return [sms(1000 + i, ANNA if i % 3 else BEN, 1 if i % 2 else 2, f"filler {i} on the ridge",
                "Anna Berg" if i % 3 else "Ben Ortiz") for i in range(n)]


def sms_stage(grow: bool) -> Stage:
    def stage(work: Path) -> Path:
        folder = work / "backup"
        items = [*full_messages(), *sms_items(900 if grow else 870)]
        if grow:
            items[100] = items[100].replace('read="1"', 'read="0"')
        write_sms(folder / "sms-20240302120000.xml", "smses", items, COMMENT)
        write_sms(folder / "calls-20240302120000.xml", "calls", calls()[: 8 if grow else 5], COMMENT)
        return folder
    return stage


def test_sms_and_calls_grown(tmp_path):
    out = assert_resumed_is_whole(tmp_path, [sms_stage(False), sms_stage(True)])
    by_kind = {("calls" if r["calls"]["new"] or r["calls"]["unchanged"] else "sms"): r for r in out["reports"]}
    assert by_kind["sms"]["messages"]["new"] == 30
    assert by_kind["calls"]["calls"]["new"] == 3


# ---------------------------------------------------------------------- Signal Desktop's database


DESKTOP_FILLER = 2100  # three blocks of 1,024 rowids


def desktop_stage(grow: bool) -> Stage:
    """Signal Desktop's database; grown: 40 new messages, and every kind of change Signal makes
    in place to an older row (schema 1270+ keeps body, type, conversation... in columns only):
    two edits (json and body; one keeps the text's length), a message read since (json only, the
    same length), an erased message (columns only), a body from NULL to '' (column
    only), a message moved to another conversation (column only, the same length), an expired
    message (its row gone) and the newest row replaced by another message at the same rowid."""
    def stage(work: Path) -> Path:
        (work / "signal").mkdir(exist_ok=True)
        messages = [*DESKTOP_SCENARIO, *desktop_filler(0, DESKTOP_FILLER)]
        if grow:
            messages[-1] = desktop_filler(DESKTOP_FILLER + 500, 1)[0]
            messages += desktop_filler(DESKTOP_FILLER, 40)
        db = build_desktop_database(work / "signal" / "db.sqlite", "new", messages)
        old = len(DESKTOP_SCENARIO)
        conn = sqlite3.connect(db)

        def set_json(rowid: int, **fields: Any) -> None:
            data = json.loads(conn.execute("SELECT json FROM messages WHERE rowid = ?", (rowid,)).fetchone()[0])
            conn.execute("UPDATE messages SET json = ? WHERE rowid = ?", (json.dumps({**data, **fields}), rowid))

        set_json(old + 1500, readStatus=0 if grow else 1)  # read since: json only, the same length
        conn.execute("UPDATE messages SET body = NULL WHERE rowid = ?", (old + 40,))
        if grow:
            for rowid, text in ((old + 600, "fixed text"), (old + 1100, None)):
                was = messages[rowid - 1].body or ""
                now = text or was.replace("trail", "trial")  # an edit of the same length
                set_json(rowid, editHistory=[{"body": now, "timestamp": desktop_at(5000)},
                                             {"body": was, "timestamp": messages[rowid - 1].sent_at}],
                         editMessageTimestamp=desktop_at(5000))
                conn.execute("UPDATE messages SET body = ? WHERE rowid = ?", (now, rowid))
            conn.execute("UPDATE messages SET isErased = 1, body = NULL WHERE rowid = ?", (old + 10,))
            conn.execute("UPDATE messages SET body = '' WHERE rowid = ?", (old + 40,))
            conn.execute("UPDATE messages SET conversationId = ? WHERE rowid = ?", (DESKTOP_GROUP, old + 2000))
            conn.execute("DELETE FROM messages WHERE rowid = ?", (old + 700,))
        conn.commit()
        conn.close()
        return db
    return stage


def test_signal_desktop_grown_with_every_kind_of_change_in_place(tmp_path):
    out = assert_resumed_is_whole(tmp_path, [desktop_stage(False), desktop_stage(True)])
    (report,) = out["reports"]
    # 40 new messages and the one at the reused rowid; 6 older ones changed (the expired one
    # stays in the store as it was)
    assert report["messages"]["new"] == 41
    assert report["messages"]["updated"] >= 5
    texts = {r[5] for r in out["resumed"]["messages"]}
    assert "fixed text" in texts and any("about the trial" in (t or "") for t in texts)
