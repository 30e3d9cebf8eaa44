"""Re-importing a newer Telegram export or SMS backup: the file is parsed (Telegram: whole; SMS: the
blocks of raw elements that changed, see test_android_sms_resume.py), and the store
is given only the messages of blocks that changed (new messages, an edit, a reaction, a changed
attachment) and ends as a first import of the newer file leaves it — messages the newer export
no longer has stay in the store, as they always did. A cut-off newer file changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from android_sms_builders import ANNA, BEN, COMMENT, full_messages, picture_part, sms, text_part
from android_sms_builders import _write as write_sms
from android_sms_builders import mms as make_mms
from meta_builders import m as meta_message
from meta_builders import thread as meta_thread
from meta_builders import write as write_meta
from resume_helpers import forget_chat, fresh, import_path, later, note, read_whole, store_rows
from telegram_builders import LIA, LIA_CHAT, SAM, TOM, build_account_export, msg, reacted

from chatmem.errors import FormatError
from chatmem.importers.resume_blocks import BLOCK_SIZE
from chatmem.records import message_id_from_guid

FILLER = 700  # three blocks of 256 in the busiest chat


def same_but_gone(tmp_path: Path, home: Path, path: Path, gone: set[str],
                  matched: frozenset[str] = frozenset()) -> None:
    """The store equals a first import of `path`, but for the messages in `gone` (the newer
    file no longer has them: the store keeps them) and those in `matched` (a first import's ids
    of messages the store knew under the ids in `gone`)."""
    after, reference = store_rows(home), fresh(tmp_path, path)
    assert {r[0] for r in after["messages"]} - {r[0] for r in reference["messages"]} == gone
    for table, rows in after.items():
        if table == "chats":  # a chat's count includes the messages kept
            continue
        by_message = 1 if table == "attachments" else 0
        # an edited message keeps the text the earlier import had, as a version of its own
        kept = {r for r in rows if r[by_message] not in gone and r[-1] != "earlier-import"}
        assert kept == {r for r in reference[table] if r[by_message] not in matched}, table


# ---------------------------------------------------------------------- Telegram


def telegram_filler(start: int, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        who = LIA if i % 2 else SAM
        more: dict[str, Any] = {"reply_to_message_id": 5000 + i - 1} if i % 9 == 0 and i else {}
        out.append(msg(5000 + i, 1000 + i, who, f"filler {i} on the ridge", **more))
    return out


@pytest.fixture
def telegram(tmp_path) -> tuple[Path, Path, dict[str, Any]]:
    path = build_account_export(tmp_path / "export")
    data = json.loads(path.read_text())
    lia = next(c for c in data["chats"]["list"] if c["id"] == LIA_CHAT)
    lia["messages"] += telegram_filler(0, FILLER)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1))
    home = tmp_path / "home"
    assert import_path(home, path)["messages"]["new"] > FILLER
    return home, path, data


def test_telegram_new_edited_reacted_and_deleted_messages(tmp_path, telegram):
    home, path, data = telegram
    chats = {c["id"]: c for c in data["chats"]["list"]}
    lia = chats[LIA_CHAT]["messages"]
    edited = next(m for m in lia if m["id"] == 5000 + 100)
    edited.update(text="filler 100 on the north ridge", edited_unixtime=str(1709400000))
    liked = next(m for m in lia if m["id"] == 5000 + 400)
    liked["reactions"] = [{"type": "emoji", "count": 1, "emoji": "🔥", "recent": [reacted(TOM, 2000)]}]
    gone = next(m for m in lia if m["id"] == 5000 + 30)
    lia.remove(gone)  # Telegram's export leaves out what was deleted
    lia += telegram_filler(FILLER, 5)
    forum = next(c for c in data["chats"]["list"] if c["type"] == "private_supergroup")
    forum["messages"].append(msg(9001, 3000, TOM, "new in the forum"))
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1))
    later(path)
    report = import_path(home, path)
    assert report["messages"]["new"] == 6 and report["messages"]["updated"] == 2
    earlier = [r[2] for r in store_rows(home)["message_versions"] if r[-1] == "earlier-import"]
    assert earlier == ["filler 100 on the ridge"]
    # the deletion moves every later message of Lia's chat to another place in its blocks, so
    # they are given again; of the other chats only the forum's new message is. The chats whose
    # bytes did not change are not decoded; the forum (its topics follow from every message)
    # and Lia's chat (changed inside) are decoded whole
    given = note(report, "re-import")
    assert given.endswith("of 4 chat(s), 2 unchanged were not decoded, 0 that only grew had their "
                          "new messages decoded, 2 were decoded whole")
    assert int(given.split()[1].replace(",", "")) == len(lia) + 1
    same_but_gone(tmp_path, home, path, {message_id_from_guid("telegram", f"telegram:{LIA_CHAT}/5030")})


def test_telegram_appended_only_gives_the_new_messages(tmp_path, telegram):
    home, path, data = telegram
    lia = next(c for c in data["chats"]["list"] if c["id"] == LIA_CHAT)
    lia["messages"] += telegram_filler(FILLER, 20)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1))
    later(path)
    report = import_path(home, path)
    assert report["messages"] == {"new": 20, "unchanged": 0, "updated": 0}
    assert note(report, "re-import").startswith("re-import: 20 of ")
    same_but_gone(tmp_path, home, path, set())


def test_a_cut_off_newer_telegram_export_changes_nothing(tmp_path, telegram):
    home, path, _ = telegram
    before = store_rows(home)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    later(path)
    with pytest.raises(FormatError) as e:
        import_path(home, path)
    assert str(path) in str(e.value)
    assert store_rows(home) == before
    path.write_text(text)  # the whole file again: still resumes from the last good import
    later(path)
    assert import_path(home, path)["status"] == "unchanged"


# ---------------------------------------------------------------------- SMS


def sms_filler(start: int, n: int) -> list[str]:
    out = []
    for i in range(start, start + n):
        who, name = (ANNA, "Anna Berg") if i % 3 else (BEN, "Ben Ortiz")
        out.append(sms(1000 + i, who, 1 if i % 2 else 2, f"filler {i} on the ridge", name))
        if i % 100 == 0:
            out.append(make_mms(1000 + i + 0.5, 1, who, name,
                                [picture_part(f"IMG_{i}.jpg"), text_part(f"photo {i}")],
                                [(who, 137)]))
    return out


@pytest.fixture
def backup(tmp_path) -> tuple[Path, Path, list[str]]:
    items = [*full_messages(), *sms_filler(0, FILLER)]
    path = write_sms(tmp_path / "sms" / "sms-20240302120000.xml", "smses", items, COMMENT)
    home = tmp_path / "home"
    assert import_path(home, path)["messages"]["new"] > FILLER
    return home, path, items


def test_sms_new_changed_and_deleted_messages(tmp_path, backup):
    home, path, items = backup
    items = list(items)
    changed = next(i for i, x in enumerate(items) if "filler 200 " in x)
    items[changed] = items[changed].replace('locked="0"', 'locked="1"')  # the app's lock, say
    gone_at = next(i for i, x in enumerate(items) if "filler 500 " in x)
    gone_text = items.pop(gone_at)
    items += sms_filler(FILLER, 4)
    first = path.read_text()
    write_sms(path, "smses", items, COMMENT)
    later(path)
    report = import_path(home, path)
    # the counts of a re-import that reads everything: 4 SMS and an MMS new; the locked one and
    # the MMS whose place in the file moved (their attachments are found by it) updated
    other, newer = tmp_path / "other-home", path.read_text()
    path.write_text(first)
    import_path(other, path)
    path.write_text(newer)
    updated = report["messages"]["updated"]
    assert import_path(other, path, force=True)["messages"] == {
        "new": 5, "updated": updated, "unchanged": len(items) - 5 - updated}
    assert report["messages"]["new"] == 5 and report["messages"]["updated"] >= 1
    assert note(report, "re-import").startswith("re-import: parsed ")
    after = store_rows(home)
    (gone,) = [r[0] for r in after["messages"] if r[5] == "filler 500 on the ridge"]
    assert "filler 500" in gone_text
    same_but_gone(tmp_path, home, path, {gone})


def test_a_cut_off_newer_backup_changes_nothing(tmp_path, backup):
    home, path, items = backup
    before = store_rows(home)
    write_sms(path, "smses", [*items, *sms_filler(FILLER, 3)], COMMENT)
    text = path.read_text()
    path.write_text(text[: len(text) - 200])
    later(path)
    with pytest.raises(FormatError) as e:
        import_path(home, path)
    assert str(path) in str(e.value) and "nothing was stored" in str(e.value)
    assert store_rows(home) == before


# ---------------------------------------------------------------------- Messenger (Meta)


def meta_filler(start: int, n: int) -> list[dict[str, Any]]:
    return [meta_message(1000 + i, "Anna Berg" if i % 2 else "Sam Rivera", f"filler {i} café",
                         type="Generic") for i in range(start, start + n)]


def write_thread(folder: Path, messages: list[dict[str, Any]], per_file: int = 500) -> None:
    """Meta's files: newest first, split into message_1.json (the newest), message_2.json..."""
    for old in folder.glob("message_*.json"):
        old.unlink()
    newest_first = sorted(messages, key=lambda x: -x["timestamp_ms"])
    for k in range(0, len(newest_first), per_file):
        write_meta(folder / f"message_{k // per_file + 1}.json", meta_thread(
            "Anna Berg", ["Anna Berg", "Sam Rivera"], newest_first[k:k + per_file],
            "inbox/annaberg_10158", thread_type="Regular"))


def test_messenger_new_reacted_and_unsent_messages(tmp_path):
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    messages = meta_filler(0, FILLER)
    write_thread(folder, messages)
    home = tmp_path / "home"
    assert import_path(home, folder)["messages"]["new"] == FILLER
    messages[300]["reactions"] = [{"reaction": "❤", "actor": "Sam Rivera"}]
    messages[650] = {**messages[650], "is_unsent": True, "content": "Anna Berg unsent a message."}
    newer = [*messages, *meta_filler(FILLER, 30)]  # the split into files moves
    write_thread(folder, newer)
    report = import_path(home, folder)
    # the counts of a re-import that reads everything (the unsent one is matched to the
    # message it was, its text kept)
    other = tmp_path / "other-home"
    write_thread(folder, meta_filler(0, FILLER))
    import_path(other, folder)
    write_thread(folder, newer)
    assert import_path(other, folder, force=True)["messages"] == {
        **report["messages"], "unchanged": FILLER - report["messages"]["updated"]}
    assert report["messages"]["new"] == 30 and report["messages"]["updated"] == 2
    # the blocks holding a change (records 256-511 and 512-699) and the new ones; not the first
    assert int(note(report, "re-import").split()[1]) == FILLER + 30 - 256
    after, reference = store_rows(home), fresh(tmp_path, folder)
    gone = {r[0] for r in after["messages"]} - {r[0] for r in reference["messages"]}
    matched = {r[0] for r in reference["messages"]} - {r[0] for r in after["messages"]}
    # the unsent message: kept under the id it had, marked deleted, its text kept
    assert [(r[5], r[7]) for r in after["messages"] if r[0] in gone] == [("filler 650 café", True)]
    assert len(matched) == 1
    same_but_gone(tmp_path, home, folder, gone, frozenset(matched))


# ---------------------------------------------------------------------- a new name


def test_a_newer_backup_under_a_new_name_is_compared_with_the_last_one(tmp_path, backup):
    home, path, items = backup
    newer = write_sms(path.parent / "sms-20240401120000.xml", "smses", [*items, *sms_filler(FILLER, 4)],
                      COMMENT)
    report = import_path(home, newer)
    assert f"a newer export of {path}: compared with its last import" in report["notes"]
    assert report["messages"]["new"] == 5
    # the MMS pictures are now read from the newer file: every block holding one is given again
    # (here all of them); the store ends as a re-import that reads everything leaves it
    assert note(report, "re-import").startswith("re-import: parsed ")
    assert store_rows(home) == read_whole(tmp_path, path, newer)


def test_a_telegram_export_in_a_new_folder_same_bytes_or_more(tmp_path, telegram):
    home, path, data = telegram
    copy = tmp_path / "DataExport_2024-04-01" / "result.json"
    copy.parent.mkdir()
    for f in path.parent.rglob("*"):  # the files the export holds, and the same result.json
        if f.is_file():
            target = copy.parent / f.relative_to(path.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
    report = import_path(home, copy)
    assert report["messages"]["new"] == 0
    assert any(n.startswith(f"a newer export of {path}") for n in report["notes"])
    # only the block of Lia's chat whose messages have files (now in the new folder) is given
    given = int(note(report, "re-import").split()[1].replace(",", ""))
    assert given == BLOCK_SIZE
    assert store_rows(home) == read_whole(tmp_path, path, copy)


def test_a_chat_forgotten_since_comes_back_whole_from_a_newer_backup(tmp_path, backup):
    home, path, items = backup
    ben = forget_chat(home, "Ben Ortiz")
    newer = write_sms(path.parent / "sms-20240401120000.xml", "smses", items, COMMENT)
    report = import_path(home, newer)
    assert not any(n.startswith("a newer export of") for n in report["notes"])
    assert report["messages"]["new"] > FILLER // 3  # Ben's messages, given again
    assert {r for r in store_rows(home)["messages"] if r[1] == ben} == {
        r for r in fresh(tmp_path, newer)["messages"] if r[1] == ben}
