"""Re-importing a Signal Desktop database reads only what changed since the last import: the
rows added since, and older rows that were edited, reacted to, deleted or whose attachment was
downloaded; the store ends up exactly as a full import of the newer database leaves it. A
database whose names changed is read whole; an unchanged one is skipped."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from signal_builders import ANNA, BEN, GROUP_CONV, SAM, SCENARIO, Msg, at, build_database
from sqlalchemy import select

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.records import message_id_from_guid
from chatmem.store import Store
from chatmem.store.models import Call as CallRow
from chatmem.store.models import Message as MessageRow

FILLER = 1100  # two blocks of 1,024 rowids with the scenario


def filler(start: int, n: int) -> list[Msg]:
    """Plain messages in Anna's chat and the group, every 7th with a quote of the one before."""
    out = []
    for i in range(start, start + n):
        conv, who = (ANNA.conv, ANNA) if i % 3 else (GROUP_CONV, BEN)
        m = Msg(f"10000000-5160-4000-8000-{i:012d}", conv, "incoming" if i % 2 else "outgoing",
                at(1000 + i), f"filler message {i} about the trail", who if i % 2 else None)
        if i % 7 == 0 and out and out[-1].conv == conv:
            m.quote_missing = (out[-1].sent_at, out[-1].author or SAM, out[-1].body or "")
        out.append(m)
    return out


BASE = [*SCENARIO, *filler(0, FILLER)]
NEW = filler(FILLER, 5)


def rows(home: Path) -> dict[str, tuple]:
    with Store.open(home, load_config()) as store, store.read() as conn:
        mt = MessageRow.__table__
        got = {r.id: tuple(r) for r in conn.execute(select(
            mt.c.id, mt.c.chat_id, mt.c.sent_at, mt.c.sender, mt.c.text, mt.c.kind, mt.c.deleted,
            mt.c.edited, mt.c.reply_to, mt.c.raw, mt.c.digest, mt.c.extra))}
        ct = CallRow.__table__
        got.update({r.id: tuple(r) for r in conn.execute(select(ct.c.id, ct.c.raw))})
        return got


def import_db(home: Path, path: Path, **kw) -> dict:
    with Store.open(home, load_config()) as store:
        (report,) = store.import_sources(find_sources(path), **kw)
        return report.as_dict()


def later(path: Path) -> None:
    """A newer copy of the file: the modification time moves on."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def full(tmp_path: Path, db: Path) -> dict[str, tuple]:
    """The store a first import of `db` gives."""
    home = tmp_path / "full-home"
    import_db(home, db)
    return rows(home)


@pytest.fixture
def imported(tmp_path) -> tuple[Path, Path]:
    """A store that imported BASE, and the database's path."""
    (tmp_path / "src").mkdir()
    db = build_database(tmp_path / "src" / "db.sqlite", "new", BASE)
    home = tmp_path / "home"
    assert import_db(home, db)["messages"]["new"] > FILLER
    return home, db


def read_note(report: dict) -> str:
    return next(n for n in report["notes"] if n.startswith("re-import"))


def test_appended_messages_are_read_alone_and_added_exactly(tmp_path, imported):
    home, db = imported
    build_database(db, "new", [*BASE, *NEW])
    later(db)
    report = import_db(home, db)
    assert report["messages"] == {"new": 5, "unchanged": 0, "updated": 0}
    assert "read 5 row(s)" in read_note(report)
    assert rows(home) == full(tmp_path, db)


def test_new_messages_quoting_old_ones_far_back_are_linked_as_a_whole_import_links_them(
        tmp_path, imported):
    home, db = imported
    quoted = [m for m in BASE[len(SCENARIO):] if m.author is not None]
    replies = []
    for i, target in enumerate([quoted[3], quoted[len(quoted) // 2], quoted[-1]]):
        reply = Msg(f"20000000-5160-4000-8000-{i:012d}", target.conv, "outgoing", at(5000 + i),
                    f"re: {target.body}")
        reply.quote_missing = (target.sent_at, target.author, target.body or "")
        replies.append((reply, target))
    build_database(db, "new", [*BASE, *NEW, *(r for r, _ in replies)])
    later(db)
    report = import_db(home, db)
    assert report["messages"]["new"] == 8
    got = rows(home)
    assert got == full(tmp_path, db)
    for reply, target in replies:  # reply_to: the ninth column of `rows`
        assert got[message_id_from_guid("signal", reply.id)][8] == message_id_from_guid("signal", target.id)


def test_an_edited_old_message_is_picked_up(tmp_path, imported):
    home, db = imported
    target = BASE[len(SCENARIO) + 600]  # in the middle of the filler
    conn = sqlite3.connect(db)
    data = json.loads(conn.execute("SELECT json FROM messages WHERE id = ?",
                                   (target.id,)).fetchone()[0])
    data["editHistory"] = [{"body": "fixed text", "timestamp": at(5000)},
                           {"body": target.body, "timestamp": target.sent_at}]
    data["reactions"] = [{"emoji": "👍", "fromId": BEN.conv, "timestamp": at(5001)}]
    conn.execute("UPDATE messages SET body = 'fixed text', json = ? WHERE id = ?",
                 (json.dumps(data), target.id))
    conn.commit()
    conn.close()
    later(db)
    report = import_db(home, db)
    assert report["messages"]["new"] == 0 and report["messages"]["updated"] == 1
    assert "1 block(s)" in read_note(report)
    with Store.open(home, load_config()) as store, store.read() as conn:
        mt = MessageRow.__table__
        text, edited = conn.execute(select(mt.c.text, mt.c.edited).where(
            mt.c.id == message_id_from_guid("signal", target.id))).one()
    assert (text, edited) == ("fixed text", True)
    assert rows(home) == full(tmp_path, db)


def test_a_deleted_message_and_a_downloaded_attachment_are_picked_up(tmp_path, imported):
    home, db = imported
    with_file = next(m for m in SCENARIO if m.attachments)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE message_attachments SET fileName = 'renamed.jpg' WHERE messageId = ?",
                 (with_file.id,))
    gone = BASE[len(SCENARIO) + 10]
    conn.execute("UPDATE messages SET isErased = 1, body = NULL WHERE id = ?", (gone.id,))
    conn.commit()
    conn.close()
    later(db)
    report = import_db(home, db)
    assert report["messages"]["updated"] == 2
    after = rows(home)
    deleted = after[message_id_from_guid("signal", gone.id)]
    assert deleted[6] is True and deleted[4] == gone.body  # marked deleted, the text kept
    assert "renamed.jpg" in after[message_id_from_guid("signal", with_file.id)][9]
    reference = full(tmp_path, db)
    assert {k: v for k, v in after.items() if k != deleted[0]} == {
        k: v for k, v in reference.items() if k != deleted[0]}


def test_an_unchanged_database_is_skipped_and_a_rewritten_one_reads_nothing(imported):
    home, db = imported
    before = rows(home)
    assert import_db(home, db)["status"] == "unchanged"
    conn = sqlite3.connect(db)  # Signal wrote its own bookkeeping, no message changed
    conn.execute("UPDATE items SET json = json WHERE id = 'uuid_id'")
    conn.execute("CREATE TABLE sessions (id TEXT)")
    conn.commit()
    conn.close()
    later(db)
    report = import_db(home, db)
    assert report["messages"] == {"new": 0, "unchanged": 0, "updated": 0}
    assert "read 0 row(s)" in read_note(report)
    assert rows(home) == before


def test_a_renamed_contact_reads_the_whole_database(tmp_path, imported):
    home, db = imported
    conn = sqlite3.connect(db)
    conn.execute("UPDATE conversations SET name = 'Anna B.', profileFullName = 'Anna B.' "
                 "WHERE id = ?", (ANNA.conv,))
    conn.commit()
    conn.close()
    later(db)
    report = import_db(home, db)
    assert any("read whole" in n for n in report["notes"])
    assert report["messages"]["updated"] > FILLER // 3  # Anna's messages carry her new name
    # (the store keeps the text an earlier import had beside the new one: compare what shows)
    shown = {k: v[:6] for k, v in rows(home).items()}
    assert shown == {k: v[:6] for k, v in full(tmp_path, db).items()}
    assert sum(len(v) > 3 and v[3] == "Anna B." for v in shown.values()) > FILLER // 3


def test_force_reads_everything_again(imported):
    home, db = imported
    later(db)
    report = import_db(home, db, force=True)
    assert report["messages"]["unchanged"] > FILLER


def test_a_copy_with_only_a_new_time_is_unchanged_without_being_read(imported):
    home, db = imported
    later(db)
    report = import_db(home, db)
    assert report["status"] == "unchanged"
    assert any("only its time changed" in n for n in report["notes"])
    assert import_db(home, db)["status"] == "unchanged"  # the new time is remembered


def _read(db: Path, state: dict) -> tuple[set[str], dict]:
    """The Signal ids of the messages an import of `db` with `state` reads, and its new state."""
    from chatmem.importers.signal.desktop import DesktopReader
    from chatmem.records import ImportOptions, Message, SourceState

    got, after = set(), {}
    for r in DesktopReader().read(db, ImportOptions(state=state)):
        if isinstance(r, Message):
            got.add(r.guid)
        elif isinstance(r, SourceState):
            after = r.state
    return got, after


CHANGES = {  # Signal's changes in place, each to one older row (rowid 1100: the second block, 1024-1124)
    "edited": "UPDATE messages SET body = 'fixed text', json = json_set(json, '$.editHistory', "
              "json('[{\"body\": \"fixed text\"}]')) WHERE rowid = 1100",
    "reaction swapped (json, same length)": "UPDATE messages SET json = replace(json, '👍', '😂') WHERE rowid = 1100",
    "erased (columns only)": "UPDATE messages SET isErased = 1, body = NULL WHERE rowid = 1100",
    "body NULL to '' (column only)": "UPDATE messages SET body = '' WHERE rowid = 1101",
    "moved to another chat (column only, same length)":
        f"UPDATE messages SET conversationId = '{GROUP_CONV}' WHERE rowid = 1100",
    "time corrected (column only, same length)": "UPDATE messages SET sent_at = sent_at + 1 WHERE rowid = 1100",
    "expired (row deleted)": "DELETE FROM messages WHERE rowid = 1100",
}


@pytest.mark.parametrize("change", CHANGES)
def test_each_kind_of_change_in_place_rereads_its_block_and_nothing_else(tmp_path, change):
    db = build_database(tmp_path / "db.sqlite", "new", BASE)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE messages SET json = json_set(json, '$.reactions', json('[{\"emoji\": \"👍\"}]')) "
                 "WHERE rowid = 1100")
    conn.execute("UPDATE messages SET body = NULL WHERE rowid = 1101")
    conn.commit()
    _, state = _read(db, {})
    assert _read(db, state)[0] == set()  # nothing changed: nothing read
    conn.execute(CHANGES[change])
    conn.commit()
    conn.close()
    got, _ = _read(db, state)
    block = {m.id for rowid, m in enumerate(BASE, 1) if 1024 <= rowid < 2048 and rowid != 1100 or
             (rowid == 1100 and "deleted" not in change)}
    assert got == block  # the changed row's block of 1,024 rowids, and nothing else


def _note(db: Path, state: dict) -> str:
    from chatmem.importers.signal.desktop import DesktopReader
    from chatmem.records import ImportOptions, SourceState

    (after,) = [r for r in DesktopReader().read(db, ImportOptions(state=state))
                if isinstance(r, SourceState)]
    return next(n for n in after.notes if n.startswith("re-import"))


def test_blocks_whose_pages_are_as_they_were_are_not_read_again_and_a_copy_laid_out_anew_still_resumes(
        tmp_path):
    db = build_database(tmp_path / "db.sqlite", "new", BASE)
    every, state = _read(db, {})
    block = [{m.id for rowid, m in enumerate(BASE, 1) if rowid >> 10 == b} & every for b in (0, 1)]
    new = {m.id for m in NEW}
    conn = sqlite3.connect(db)  # Signal adds to its file in place
    for rowid, m in enumerate(NEW, len(BASE) + 1):
        conn.execute("INSERT INTO messages (rowid, id, json, conversationId, type, body, sent_at) "
                     "VALUES (?, ?, '{}', ?, 'outgoing', ?, ?)", (rowid, m.id, m.conv, m.body, m.sent_at))
    conn.commit()
    # block 1 got the new rows in its last pages: its older rows are digested, found unchanged
    assert "0 block(s) of older rows that changed" in _note(db, state)
    assert "1 of 2 older block(s) not read again" in _note(db, state)
    got, state = _read(db, state)
    assert got == new
    conn.execute("UPDATE messages SET body = body || ' (edited at length)' WHERE rowid = 1100")
    conn.commit()
    assert "1 of 2 older block(s) not read again" in _note(db, state)
    got, state = _read(db, state)
    assert got == block[1] | new
    copy = tmp_path / "copy.sqlite"  # what sigtop makes: the same rows, laid out anew
    conn.execute("UPDATE messages SET body = body || ' (edited at length)' WHERE rowid = ?",
                 (len(SCENARIO) + 10,))
    conn.commit()
    conn.execute("VACUUM INTO ?", (str(copy),))
    conn.close()
    assert _read(copy, state)[0] == block[0]  # the edited row's block alone


def test_a_long_row_changed_only_in_its_overflow_pages_is_read_again(tmp_path):
    db = build_database(tmp_path / "db.sqlite", "new", BASE)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE messages SET json = json_set(json, '$.padding', ?) WHERE rowid = 1100",
                 ("x" * 3000,))  # 3 KB: the row goes on in overflow pages of 1 KB
    conn.execute("UPDATE messages SET json = json_set(json, '$.reactions', "
                 "json('[{\"emoji\": \"👍\"}]')) WHERE rowid = 1100")  # after the padding
    conn.commit()
    assert conn.execute("SELECT count(*) FROM dbstat WHERE name = 'messages' "
                        "AND pagetype = 'overflow'").fetchone()[0] >= 2
    _, state = _read(db, {})
    leaf = conn.execute("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'overflow'"
                        " ORDER BY path").fetchall()
    conn.execute("UPDATE messages SET json = replace(json, '👍', '😂') WHERE rowid = 1100")
    conn.commit()
    assert conn.execute("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'overflow'"
                        " ORDER BY path").fetchall() == leaf  # rewritten where it was
    conn.close()
    got, _ = _read(db, state)
    assert got == {m.id for m in BASE[1023:2047]}  # the reaction's block


def test_a_store_imported_before_page_proofs_resumes_with_only_the_new_rows(tmp_path):
    db = build_database(tmp_path / "db.sqlite", "new", BASE)
    _, state = _read(db, {})
    del state["resume"]["pages"]  # what the earlier version kept: the rows' digests alone
    del state["resume"]["file_pages"]
    build_database(db, "new", [*BASE, *NEW])
    assert "0 of 2 older block(s) not read again" in _note(db, state)
    got, after = _read(db, state)
    assert got == {m.id for m in NEW}
    assert "2 of 2 older block(s) not read again" in _note(db, after)


def test_a_changed_attachment_is_read_once_and_then_remembered(tmp_path):
    db = build_database(tmp_path / "db.sqlite", "new", [*BASE[:len(SCENARIO)], *filler(0, 2100)])
    _, state = _read(db, {})
    with_file = next(m for m in SCENARIO if m.attachments)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE message_attachments SET fileName = 'renamed.jpg' WHERE messageId = ?",
                 (with_file.id,))
    new = Msg("10000000-5160-4000-8000-999999999999", ANNA.conv, "outgoing", at(9000), "new one")
    conn.execute("INSERT INTO messages (id, json, conversationId, type, body, sent_at) "
                 "VALUES (?, '{}', ?, 'outgoing', ?, ?)", (new.id, new.conv, new.body, new.sent_at))
    conn.execute("INSERT INTO message_attachments (messageId, editHistoryIndex, attachmentType, "
                 "orderInMessage, conversationId, sentAt, size, contentType) "
                 "VALUES (?, -1, 'attachment', 0, ?, ?, 5, 'text/plain')", (new.id, new.conv, new.sent_at))
    conn.commit()
    conn.close()
    got, state = _read(db, state)
    attached = {m.id for m in SCENARIO if m.attachments}  # one block of message_attachments
    assert {with_file.id, new.id} <= got <= attached | {new.id}
    assert _read(db, state)[0] == set()  # the attachments' digests now are the ones kept
