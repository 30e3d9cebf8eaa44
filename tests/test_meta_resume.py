"""Re-importing a newer Messenger / Instagram download of a thread: its new messages land at the
start of message_1.json and move every later message down a file; a re-import decodes only the
new ones when the rest are the bytes it read, and the store ends as a re-import that reads
everything leaves it. Anything else reads the thread whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from meta_builders import m, thread, write
from resume_helpers import import_path, note, store_rows

from chatmem.errors import FormatError

PER_FILE = 200  # Meta's files hold 10,000 messages; fewer here, the same split


def messages(start: int, n: int, minutes: float = 0) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        more: dict[str, Any] = {}
        if i % 17 == 0:
            more["photos"] = [{"uri": f"messages/inbox/annaberg_10158/photos/{i}.jpg", "creation_timestamp": 1}]
        if i % 23 == 0:
            more["reactions"] = [{"reaction": "❤", "actor": "Sam Rivera"}]
        out.append(m(minutes + i, "Anna Berg" if i % 3 else "Sam Rivera", f"message {i} café ☕", **more))
    return out


def write_thread(folder: Path, msgs: list[dict[str, Any]], people: tuple[str, ...] = ("Anna Berg", "Sam Rivera"),
                 per_file: int = PER_FILE) -> None:
    for old in folder.glob("message_*.json"):
        old.unlink()
    newest_first = sorted(msgs, key=lambda x: -x["timestamp_ms"])
    for k in range(0, max(1, len(newest_first)), per_file):
        write(folder / f"message_{k // per_file + 1}.json",
              thread("Anna Berg", list(people), newest_first[k:k + per_file], "inbox/annaberg_10158"))


def reference(tmp_path: Path, folder: Path, first: list[dict], newer: list[dict], **kw: Any) -> dict[str, set]:
    """The store an import of `first` and then a re-import of `newer` reading everything gives."""
    home = tmp_path / "whole-home"
    write_thread(folder, first, **kw)
    import_path(home, folder)
    write_thread(folder, newer, **kw)
    import_path(home, folder, force=True)
    return store_rows(home)


@pytest.fixture
def thread_folder(tmp_path) -> tuple[Path, Path, list[dict]]:
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    first = messages(0, 530)  # three files: 200, 200, 130
    write_thread(folder, first)
    home = tmp_path / "home"
    assert import_path(home, folder)["messages"]["new"] == 530
    return home, folder, first


def test_new_messages_that_move_the_split_are_all_that_is_decoded(tmp_path, thread_folder):
    home, folder, first = thread_folder
    newer = [*first, *messages(530, 35)]  # every file's first and last messages move
    write_thread(folder, newer)
    report = import_path(home, folder)
    assert report["messages"] == {"new": 35, "updated": 0, "unchanged": 0}
    assert note(report, "re-import").endswith("35 new message(s) decoded; the 530 read before are the same "
                                              "bytes in the newer files")
    assert store_rows(home) == reference(tmp_path, folder, first, newer)
    # and again: the stretch just read is kept too
    newest = [*newer, *messages(565, 250)]  # more than a file's worth: message_1 and message_2 are new
    write_thread(folder, newest)
    report = import_path(home, folder)
    assert report["messages"]["new"] == 250
    assert "250 new message(s) decoded" in note(report, "re-import")
    assert store_rows(home) == reference(tmp_path, folder, first, newest)


def test_a_changed_old_message_reads_the_thread_whole(tmp_path, thread_folder):
    home, folder, first = thread_folder
    newer = [dict(x) for x in first] + messages(530, 5)
    newer[100]["reactions"] = [{"reaction": "😮", "actor": "Anna Berg"}]  # in message_2.json
    write_thread(folder, newer)
    report = import_path(home, folder)
    assert report["messages"]["new"] == 5 and report["messages"]["updated"] == 1
    assert note(report, "re-import").endswith("the file was parsed whole")
    assert store_rows(home) == reference(tmp_path, folder, first, newer)


def test_a_new_participant_or_a_message_as_old_as_the_newest_reads_it_whole(tmp_path, thread_folder):
    home, folder, first = thread_folder
    newer = [*first, *messages(530, 3)]
    people = ("Anna Berg", "Sam Rivera", "Tom Becker")
    write_thread(folder, newer, people)
    report = import_path(home, folder)
    assert note(report, "re-import").endswith("the file was parsed whole")
    assert report["messages"]["new"] == 3
    # a new message at the same millisecond as the newest one read: repeats are numbered in
    # time order, so the thread is read whole
    same_time = [*newer, m(529, "Sam Rivera", "message 529 café ☕")]
    write_thread(folder, same_time, people)
    report = import_path(home, folder)
    assert note(report, "re-import").endswith("the file was parsed whole")
    assert report["messages"]["new"] == 1
    assert store_rows(home) == reference(tmp_path, folder, first, same_time, people=people)


def test_a_thread_of_one_message_that_grows(tmp_path):
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    first = messages(0, 1)
    write_thread(folder, first)
    home = tmp_path / "home"
    import_path(home, folder)
    newer = [*first, *messages(1, 2)]
    write_thread(folder, newer)
    report = import_path(home, folder)
    assert report["messages"]["new"] == 2
    assert "2 new message(s) decoded" in note(report, "re-import")
    assert store_rows(home) == reference(tmp_path, folder, first, newer)


@pytest.mark.parametrize("damage", ["cut", "byte"])
def test_a_damaged_file_of_a_newer_download_changes_nothing(tmp_path, thread_folder, damage):
    home, folder, first = thread_folder
    before = store_rows(home)
    write_thread(folder, [*first, *messages(530, 35)])
    target = folder / "message_2.json"
    data = target.read_bytes()
    at = data.index(b"message 300 caf")
    target.write_bytes(data[:at] if damage == "cut" else data[:at - 1] + b"\\" + data[at:])
    with pytest.raises(FormatError) as e:
        import_path(home, folder)
    line = data[:at].count(b"\n") + 1
    assert str(target) in str(e.value) and f"line {line}," in str(e.value)
    assert store_rows(home) == before


def test_a_photo_that_arrives_in_the_thread_folder_is_found(tmp_path, thread_folder):
    home, folder, first = thread_folder
    photo = folder / "photos" / "17.jpg"
    photo.parent.mkdir()
    photo.write_bytes(b"\xff\xd8x")
    newer = [*first, *messages(530, 2)]
    write_thread(folder, newer)
    report = import_path(home, folder)
    assert note(report, "re-import").endswith("the file was parsed whole")
    assert store_rows(home) == reference(tmp_path, folder, first, newer)
    assert any(r[3] == "17.jpg" and r[7] for r in store_rows(home)["attachments"])


def test_a_file_longer_than_the_readers_window_still_resumes(tmp_path):
    """A separator that straddles the reader's window (256 KiB) is the same separator."""
    from chatmem.importers.json_scan import WINDOW

    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    first = messages(0, 3000)  # about 600 KB in one file
    write_thread(folder, first, per_file=10_000)
    data = (folder / "message_1.json").read_bytes()
    cut = data.index(b"},\n    {", WINDOW - 200)  # pad the newest message so the edge falls inside
    newest = max(first, key=lambda x: x["timestamp_ms"])
    newest["content"] += "x" * (WINDOW - cut - 3)
    write_thread(folder, first, per_file=10_000)
    data = (folder / "message_1.json").read_bytes()
    assert b"},\n" in data[WINDOW - 8:WINDOW + 8]  # the window's edge is inside a separator
    home = tmp_path / "home"
    import_path(home, folder)
    newer = [*first, *messages(3000, 4)]
    write_thread(folder, newer, per_file=10_000)
    report = import_path(home, folder)
    assert report["messages"]["new"] == 4
    assert "4 new message(s) decoded" in note(report, "re-import")


def test_a_thread_named_relative_then_absolute_still_decodes_only_the_new(tmp_path, monkeypatch):
    """The same folder named from the working folder, then by its full path (another shell, a
    script): the same thread, and only its new messages are decoded."""
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    first = messages(0, 230)
    write_thread(folder, first)
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    assert import_path(home, Path("messages/inbox/annaberg_10158"))["messages"]["new"] == 230
    write_thread(folder, [*first, *messages(230, 5)])
    monkeypatch.chdir("/")
    report = import_path(home, folder)
    assert report["messages"]["new"] == 5
    assert "5 new message(s) decoded" in note(report, "re-import")


def test_a_thread_imported_by_the_version_that_kept_sha256_digests_still_resumes(tmp_path, monkeypatch):
    """Its stretches' digests were SHA-256 (64 hex digits): the next import compares them as
    such and decodes only the new messages; the stretch it adds is kept as XXH3 (32)."""
    import hashlib
    from types import SimpleNamespace

    from chatmem.importers import json_scan
    from chatmem.store import Store

    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    first = messages(0, 450)
    write_thread(folder, first)
    home = tmp_path / "home"
    with monkeypatch.context() as old:
        old.setattr(json_scan, "xxhash", SimpleNamespace(xxh3_128=hashlib.sha256))
        import_path(home, folder)

    def stretches() -> list[int]:
        with Store.open(home) as store, store.read() as conn:
            state = conn.exec_driver_sql("SELECT state FROM sources").scalar()
        kept = (json.loads(state) if isinstance(state, str) else state)["resume"]["meta"]
        return [len(d) for _, d in kept["stretches"]]

    assert stretches() == [64]
    for grown in (20, 40):
        newer = [*first, *messages(450, grown)]
        write_thread(folder, newer)
        report = import_path(home, folder)
        assert report["messages"]["new"] == grown - (20 if grown == 40 else 0)
        assert f"new message(s) decoded; the {450 + (20 if grown == 40 else 0)} read before" in note(report, "re-import")
        assert store_rows(home) == reference(tmp_path / str(grown), folder, first, newer)
    assert stretches() == [64, 32, 32]
