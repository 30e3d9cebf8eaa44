"""One chat in two exports (a second device's Telegram export, the same account exported twice):
a re-import that resumes (gives the store only the blocks that changed since this export's last
import) ends exactly as reading the whole export again would, whatever the other export changed
in between; and of two edits of one message, the later one is the text shown, whichever export
is imported last (the other stays readable as an earlier version)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from resume_helpers import import_path, later, note, store_rows
from telegram_builders import LIA_CHAT, TOM, build_account_export, reacted
from test_resume_parsed_whole import telegram_filler

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.tools.neighbours import get_context

MESSAGE = 5100  # a filler message in the second block of Lia's chat
EDITS = {"north": ("filler 100 on the north ridge", 1709400000),
         "south": ("filler 100 on the south ridge", 1709500000)}


def _export(base: dict[str, Any], edit: str | None, more: int = 0) -> dict[str, Any]:
    """`base` with the message edited (`edit`; "north+" also reacted to) and `more` messages."""
    data = copy.deepcopy(base)
    lia = next(c for c in data["chats"]["list"] if c["id"] == LIA_CHAT)["messages"]
    if edit is not None:
        text, when = EDITS[edit.rstrip("+")]
        message = next(x for x in lia if x["id"] == MESSAGE)
        message.update(text=text, edited_unixtime=str(when))
        if edit.endswith("+"):
            message["reactions"] = [{"type": "emoji", "count": 1, "emoji": "🔥", "recent": [reacted(TOM, 2000)]}]
    lia += telegram_filler(700, more)
    return data


def _run(work: Path, steps: list[tuple[str, str | None, int]], whole: bool) -> tuple[dict, dict]:
    """Import each (folder, edit, more messages) in turn, the last reading everything when
    `whole`; in the same folder every time (paths are part of what is stored)."""
    shutil.rmtree(work, ignore_errors=True)
    base = json.loads(build_account_export(work / "base").read_text())
    lia = next(c for c in base["chats"]["list"] if c["id"] == LIA_CHAT)
    lia["messages"] += telegram_filler(0, 700)
    home = work / "home"
    report: dict[str, Any] = {}
    for i, (folder, edit, more) in enumerate(steps):
        path = build_account_export(work / folder)
        path.write_text(json.dumps(_export(base, edit, more), ensure_ascii=False, indent=1))
        later(path)
        report = import_path(home, path, force=whole and i == len(steps) - 1)
    return store_rows(home), report


SCENARIOS = {
    # B had the message first, A the same; B's newer export edits it; A again, grown elsewhere
    "edited by the other export in between": [("B", None, 0), ("A", None, 0), ("B", "north", 0), ("A", None, 3)],
    # both show it edited, B's edit is the later one and is imported after A's
    "a later edit from the other export": [("B", "north", 0), ("A", "north", 0), ("B", "south", 0),
                                           ("A", "north", 3)],
    # A has it first, edited; B completes it with a later edit; A's newer export reacts to it
    "a later edit, then a change from the first export": [("A", "north", 0), ("B", "south", 0),
                                                          ("A", "north+", 3)],
    # A has it first; B completes it with an edit; A again
    "completed by the other export": [("A", None, 0), ("B", "north", 0), ("A", None, 3)],
}


@pytest.mark.parametrize("steps", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_a_resumed_reimport_ends_as_a_whole_read(tmp_path, steps):
    resumed, report = _run(tmp_path / "run", steps, whole=False)
    whole, _ = _run(tmp_path / "run", steps, whole=True)
    assert report["messages"]["new"] == 3
    for table in resumed:
        assert resumed[table] == whole[table], table


@pytest.mark.parametrize("name", ["a later edit from the other export",
                                  "a later edit, then a change from the first export"])
@pytest.mark.parametrize("whole", [False, True], ids=["resumed", "whole"])
def test_the_later_edit_is_shown_whichever_export_is_read_last(tmp_path, name, whole):
    _run(tmp_path / "run", SCENARIOS[name], whole=whole)
    home = tmp_path / "run" / "home"
    with Store.open(home, load_config()) as store, store.read() as conn:
        mid = conn.exec_driver_sql("SELECT id FROM messages WHERE raw LIKE ?", (f'%"id": {MESSAGE},%',)).scalar()
        (shown,) = get_context(store, store.config.seat(None), mid, before=0, after=0)["messages"]
    assert shown["content"].endswith(EDITS["south"][0]) and shown["edited"]
    versions = [r[2] for r in store_rows(home)["message_versions"] if r[0] == mid]
    assert EDITS["north"][0] in versions


def test_the_report_says_why_a_resumed_import_read_everything(tmp_path):
    _, report = _run(tmp_path / "run", SCENARIOS["edited by the other export in between"], whole=False)
    assert "another export changed" in note(report, "read whole")


def _signal_run(work: Path, whole: bool) -> tuple[dict, dict]:
    """Signal Desktop: B's database first, A's (the same messages); B's edits one; A grown."""
    import sqlite3

    from signal_builders import build_database
    from test_signal_resume import BASE, NEW, at

    shutil.rmtree(work, ignore_errors=True)
    (work / "A").mkdir(parents=True)
    (work / "B").mkdir()
    home = work / "home"
    b = build_database(work / "B" / "db.sqlite", "new", BASE)
    a = build_database(work / "A" / "db.sqlite", "new", BASE)
    import_path(home, b)
    import_path(home, a)
    target = BASE[-400]
    conn = sqlite3.connect(b)
    data = json.loads(conn.execute("SELECT json FROM messages WHERE id = ?", (target.id,)).fetchone()[0])
    data["editHistory"] = [{"body": "fixed text", "timestamp": at(5000)},
                           {"body": target.body, "timestamp": target.sent_at}]
    conn.execute("UPDATE messages SET body = 'fixed text', json = ? WHERE id = ?", (json.dumps(data), target.id))
    conn.commit()
    conn.close()
    later(b)
    import_path(home, b)
    build_database(a, "new", [*BASE, *NEW])
    later(a)
    report = import_path(home, a, force=whole)
    return store_rows(home), report


def test_signal_desktop_a_resumed_reimport_ends_as_a_whole_read(tmp_path):
    resumed, report = _signal_run(tmp_path / "run", whole=False)
    whole, _ = _signal_run(tmp_path / "run", whole=True)
    assert report["messages"]["new"] == 5
    for table in resumed:
        assert resumed[table] == whole[table], table


def test_an_export_read_again_after_the_other_changed_the_message_adds_nothing(tmp_path):
    """B had the message as A had it; A's newer export edits it; B read whole again: nothing
    in B is new, so the message stays as A's edit left it (not listed with one more source, not
    indexed again) and the report says unchanged."""
    import sqlite3

    work = tmp_path / "run"
    _run(work, [("A", None, 0), ("B", None, 0), ("A", "north", 0)], whole=False)
    home = work / "home"

    def message_rows() -> set[tuple]:
        with sqlite3.connect(home / "chatmem.db") as db:
            return set(db.execute("SELECT id, seq, text, edited, extra FROM messages"))

    before = message_rows()
    path = work / "B" / "result.json"
    later(path)
    report = import_path(home, path, force=True)
    assert report["messages"]["updated"] == 0 and report["messages"]["new"] == 0
    assert message_rows() == before
    assert EDITS["north"][0] in {r[2] for r in before}


@pytest.mark.parametrize("store_kind", ["as made now", "from before the chat/seq index", "a chat per query"])
def test_the_other_exports_change_is_seen_after_many_messages_elsewhere(tmp_path, monkeypatch, store_kind):
    """Between the other export's edit and this export's re-import, another chat got far more
    messages than this export's chats hold (a download of many threads, a big group): the edit
    is still found, along this export's chats rather than everything written since; also in a
    store made before the index that finds it (it is made as the store opens), and when the
    export's chats are asked about a few at a time (a source of many chats)."""
    import sqlite3

    from sqlalchemy import inspect

    import chatmem.store.store as store_module

    if store_kind == "a chat per query":
        monkeypatch.setattr(store_module, "CHATS_CHUNK", 1)
    work = tmp_path / "run"
    base = json.loads(build_account_export(work / "base").read_text())
    next(c for c in base["chats"]["list"] if c["id"] == LIA_CHAT)["messages"] += telegram_filler(0, 700)
    home = work / "home"
    for folder, edit, more in [("B", None, 0), ("A", None, 0), ("B", "north", 0)]:
        path = build_account_export(work / folder)
        path.write_text(json.dumps(_export(base, edit, more), ensure_ascii=False, indent=1))
        later(path)
        import_path(home, path)
    elsewhere = work / "WhatsApp Chat with Trail Crew.txt"
    elsewhere.write_text("".join(f"{1 + i // 1440:02d}/01/2023, {i // 60 % 24:02d}:{i % 60:02d} - Ben Ortiz: "
                                 f"elsewhere {i}\n" for i in range(5000)), encoding="utf-8")
    assert import_path(home, elsewhere)["messages"]["new"] == 5000
    if store_kind == "from before the chat/seq index":
        with sqlite3.connect(home / "chatmem.db") as db:
            db.execute("DROP INDEX ix_messages_chat_seq")
            db.execute("DROP INDEX ix_calls_chat_seq")
    path = build_account_export(work / "A")
    path.write_text(json.dumps(_export(base, None, 3), ensure_ascii=False, indent=1))
    later(path)
    assert "another export changed" in note(import_path(home, path), "read whole")
    with Store.open(home, load_config()) as store, store.read() as conn:
        assert "ix_messages_chat_seq" in {ix["name"] for ix in inspect(conn).get_indexes("messages")}
