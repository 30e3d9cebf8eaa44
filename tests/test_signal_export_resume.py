"""Re-importing a newer Signal export from the phone (main.jsonl) parses only the blocks of chat
items that are new or changed; the store ends as a first import of the newer export leaves it:
appended messages, an old one edited, one deleted for everyone, a reaction, a quote of an old
message, an attachment file that arrived later. Changed names read the whole file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from resume_helpers import forget_chat, fresh, import_path, later, note, read_whole, store_rows
from signal_export_builders import CHAT, R_ANNA, R_BEN, R_GROUP, SELF, Files, at, frames

FILLER = 2300  # three blocks of 1,024 chat items with the scenario's


def filler(start: int, n: int, files: Files | None = None) -> list[dict[str, Any]]:
    """Chat items in Anna's chat and the group; every 7th quotes the one before in its chat,
    every 50th carries a photo whose file the export holds only when `files` is given."""
    out: list[dict[str, Any]] = []
    last: dict[int, tuple[int, int]] = {}
    for i in range(start, start + n):
        chat = CHAT[R_ANNA] if i % 3 else CHAT[R_GROUP]
        author = SELF if i % 2 else (R_ANNA if chat == CHAT[R_ANNA] else R_BEN)
        sent = at(2000 + i)
        item: dict[str, Any] = {"chatId": str(chat), "authorId": str(author), "dateSent": str(sent)}
        item["outgoing" if author == SELF else "incoming"] = {}
        std: dict[str, Any] = {"text": {"body": f"filler message {i} about the trail"}}
        if i % 7 == 0 and chat in last:
            std["quote"] = {"targetSentTimestamp": str(last[chat][1]), "authorId": str(last[chat][0]),
                            "text": {"body": "quoted"}}
        if i % 50 == 0:
            pointer = (files.pointer(f"IMG_{i}.jpg", "image/jpeg", b"photo %d" % i) if files else
                       {"contentType": "image/jpeg", "fileName": f"IMG_{i}.jpg",
                        "locatorInfo": {"size": 8}})
            std["attachments"] = [{"pointer": pointer}]
        item["standardMessage"] = std
        last[chat] = (author, sent)
        out.append({"chatItem": item})
    return out


def write(folder: Path, lines: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "main.jsonl").open("w", encoding="utf-8", newline="\n") as f:
        for frame in lines:
            f.write(json.dumps(frame, ensure_ascii=False) + "\n")
    (folder / "metadata.json").write_text('{"version": "1"}\n')
    return folder


def base(folder: Path) -> list[dict[str, Any]]:
    return [*frames(Files(folder)), *filler(0, FILLER)]


def item_at(lines: list[dict[str, Any]], i: int) -> dict[str, Any]:
    """The chat item of filler message `i`."""
    return next(f["chatItem"] for f in lines if "chatItem" in f
                and f["chatItem"].get("standardMessage", {}).get("text", {}).get("body", "").startswith(
                    f"filler message {i} "))


@pytest.fixture
def imported(tmp_path) -> tuple[Path, Path, list[dict[str, Any]]]:
    folder = tmp_path / "signal-export-2024-03-02"
    lines = base(folder)
    write(folder, lines)
    home = tmp_path / "home"
    assert import_path(home, folder)["messages"]["new"] > FILLER
    return home, folder, lines


def reimport(tmp_path: Path, home: Path, folder: Path, lines: list[dict[str, Any]]) -> dict[str, Any]:
    write(folder, lines)
    later(folder / "main.jsonl")
    report = import_path(home, folder)
    assert store_rows(home) == fresh(tmp_path, folder)
    return report


def test_appended_items_are_parsed_alone_and_quotes_of_old_ones_link(tmp_path, imported):
    home, folder, lines = imported
    new = filler(FILLER, 10)
    first = item_at(lines, 3)  # a quote of a message three blocks back
    new[0]["chatItem"]["standardMessage"]["quote"] = {
        "targetSentTimestamp": first["dateSent"], "authorId": first["authorId"]}
    report = reimport(tmp_path, home, folder, [*lines, *new])
    # the new items and the rest of the last block (it grew), nothing before it
    assert report["messages"]["new"] == 10 and report["messages"]["updated"] == 0
    assert report["messages"]["unchanged"] < 1024
    assert "parsed 1 of 3 block(s)" in note(report, "re-import")
    rows = store_rows(home)["messages"]
    linked = [r for r in rows if r[10] == json.dumps(new[0], ensure_ascii=False)]
    assert linked and linked[0][9] is not None  # the quote became a reply link


def test_quotes_of_old_messages_link_however_their_time_is_written(tmp_path):
    """The blocks not read are searched for a quoted message's time: found when the old item
    writes it as a number, or as a string spelled with JSON escapes; a message of the same time
    by someone else is not the one quoted. The store ends as a whole read of the export."""
    folder = tmp_path / "signal-export-2024-03-02"
    lines = base(folder)
    as_number, escaped = item_at(lines, 5), item_at(lines, 1100)
    as_number["dateSent"] = int(as_number["dateSent"])
    other = item_at(lines, 12)  # same time as message 14's, written by the other side
    mine = item_at(lines, 14)
    other["dateSent"], other["authorId"] = mine["dateSent"], str(R_BEN)
    text = "".join(json.dumps(f, ensure_ascii=False) + "\n" for f in lines)
    spelled = escaped["dateSent"]
    written = "".join(f"\\u{ord(c):04x}" for c in spelled)
    text = text.replace(f'"dateSent": "{spelled}"', f'"dateSent": "{written}"', 1)
    assert written in text
    write(folder, [])
    (folder / "main.jsonl").write_text(text, encoding="utf-8")
    home = tmp_path / "home"
    assert import_path(home, folder)["messages"]["new"] > FILLER

    new = filler(FILLER, 4)
    for frame, target in zip(new, (as_number, escaped, mine), strict=False):
        frame["chatItem"]["standardMessage"]["quote"] = {
            "targetSentTimestamp": str(target["dateSent"]), "authorId": target["authorId"],
            "text": {"body": "quoted"}}
    appended = "".join(json.dumps(f, ensure_ascii=False) + "\n" for f in new)
    (folder / "main.jsonl").write_text(text + appended, encoding="utf-8")
    later(folder / "main.jsonl")
    report = import_path(home, folder)
    assert report["messages"]["new"] == 4
    assert "parsed 1 of 3 block(s)" in note(report, "re-import")
    rows = store_rows(home)
    assert rows == fresh(tmp_path, folder)
    replies = {r[10]: r[9] for r in rows["messages"]}
    quoting = [replies[json.dumps(f, ensure_ascii=False)] for f in new[:3]]
    assert all(quoting), quoting  # each quote became a reply link, as in the whole read
    assert len(set(quoting)) == 3


def test_an_edit_a_deletion_and_a_reaction_in_old_blocks_are_picked_up(tmp_path, imported):
    home, folder, lines = imported
    edited, gone, liked = item_at(lines, 40), item_at(lines, 1500), item_at(lines, 41)
    edited["revisions"] = [{"dateSent": edited["dateSent"],
                            "standardMessage": edited["standardMessage"]}]
    edited["standardMessage"] = {"text": {"body": "filler message 40 fixed"}}
    gone.pop("standardMessage")
    gone["remoteDeletedMessage"] = {}
    liked["standardMessage"]["reactions"] = [{"emoji": "👍", "authorId": str(R_BEN),
                                              "sentTimestamp": str(at(9000))}]
    write(folder, [*lines, *filler(FILLER, 3)])
    later(folder / "main.jsonl")
    report = import_path(home, folder)
    assert report["messages"]["new"] == 3 and report["messages"]["updated"] == 3
    assert "parsed 3 of 3 block(s)" in note(report, "re-import")
    after, reference = store_rows(home), fresh(tmp_path, folder)
    # the deleted message keeps the text the first import had (the fresh import never saw it)
    deleted = [r for r in after["messages"] if r[7]]
    assert [r[5] for r in deleted if "1500" in r[5]] == ["filler message 1500 about the trail"]
    keep = {r[0] for r in deleted}
    for table in ("messages", "reactions", "attachments", "calls", "chats"):
        at_ = 1 if table == "attachments" else 0  # the column naming the message
        assert {r for r in after[table] if r[at_] not in keep} == {
            r for r in reference[table] if r[at_] not in keep}, table


def test_a_renamed_contact_reads_the_whole_file(tmp_path, imported):
    home, folder, lines = imported
    anna = next(f["recipient"] for f in lines if f.get("recipient", {}).get("id") == str(R_ANNA))
    anna["contact"]["profileGivenName"] = "Annie"
    write(folder, lines)
    later(folder / "main.jsonl")
    report = import_path(home, folder)
    assert any("read whole and compared" in n for n in report["notes"])
    assert report["messages"]["updated"] > FILLER // 4
    # (the store keeps what an earlier import had beside the new: compare what shows)
    shown = {r[:6] for r in store_rows(home)["messages"]}
    assert shown == {r[:6] for r in fresh(tmp_path, folder)["messages"]}
    assert sum(r[3] == "Annie Berg" for r in shown) > FILLER // 4


def test_an_attachment_file_that_arrived_later_is_found(tmp_path):
    folder = tmp_path / "signal-export"
    lines = [*frames(Files(folder)), *filler(0, FILLER)]
    write(folder, lines)
    home = tmp_path / "home"
    import_path(home, folder)
    # the next export holds the photo of message 1000 (its pointer names the file it has now)
    target = item_at(lines, 1000)
    target["standardMessage"]["attachments"] = [
        {"pointer": Files(folder).pointer("IMG_1000.jpg", "image/jpeg", b"photo 1000")}]
    report = reimport(tmp_path, home, folder, lines)
    assert report["messages"]["updated"] == 1
    present = [r for r in store_rows(home)["attachments"] if r[3] == "IMG_1000.jpg"]
    assert [r[7] for r in present] == [True]
    # a file appearing for an unchanged line: looked at again, that block alone is read
    (folder / "files" / "IMG_950.jpg").write_bytes(b"photo 950")
    report = reimport(tmp_path, home, folder, lines)
    assert "1 of them because the files under files/ changed" in note(report, "re-import")
    assert report["messages"]["updated"] == 1


def test_an_unchanged_export_and_a_truncated_one(tmp_path, imported):
    home, folder, lines = imported
    later(folder / "main.jsonl")
    assert import_path(home, folder)["status"] == "unchanged"
    before = store_rows(home)
    text = (folder / "main.jsonl").read_text()
    (folder / "main.jsonl").write_text(text[: len(text) - 40])  # cut in the last line
    report = import_path(home, folder)
    assert report["problems"] and report["problems"][0]["line"] == len(text.splitlines())
    assert str(folder / "main.jsonl") in report["problems"][0]["where"]
    after = store_rows(home)
    assert after["messages"] >= before["messages"] and len(after["messages"]) == len(before["messages"])


def test_a_forgotten_chat_comes_back_with_the_next_import_on_purpose(tmp_path, imported):
    home, folder, lines = imported
    chat_id = forget_chat(home, "Anna Berg")
    assert chat_id not in {r[0] for r in store_rows(home)["chats"]}
    report = reimport(tmp_path, home, folder, [*lines, *filler(FILLER, 2)])
    assert report["messages"]["new"] > FILLER // 2  # Anna's messages, read whole again


def test_a_newer_export_in_another_folder_reads_only_what_names_the_folder(tmp_path, imported):
    home, folder, lines = imported
    newer = tmp_path / "signal-export-2024-04-01"
    write(newer, [*base(newer), *filler(FILLER, 5)])  # the scenario's files, in the new folder
    report = import_path(home, newer)
    assert f"a newer export of {folder}: compared with its last import" in report["notes"]
    assert report["messages"]["new"] == 5
    # the blocks whose items look files up (the scenario's, in the first block) and the last
    assert "parsed 2 of 3 block(s)" in note(report, "re-import")
    # (the store completes what it had from another export, it does not replace it: the same
    # as a re-import that reads everything)
    assert store_rows(home) == read_whole(tmp_path, folder, newer)


def test_a_store_imported_by_the_version_before_skips_what_it_read_and_finds_an_old_change(tmp_path, imported):
    """A store whose last import wrote BLAKE2b block digests (the version before XXH3): the
    re-import skips the blocks it read and still reads the one changed since."""
    from resume_helpers import rewrite_resume_state

    from chatmem.importers.signal.backup_resume import scan

    home, folder, lines = imported
    found = scan(folder / "main.jsonl", legacy=True)
    old = {seg.digest: seg.legacy for seg in found.segments if seg.block is not None}

    def as_the_version_before_wrote_it(state: dict[str, Any]) -> dict[str, Any]:
        state.pop("digest")
        for facts in state["blocks"].values():
            facts["d"] = old[facts["d"]]
        return state

    rewrite_resume_state(home, as_the_version_before_wrote_it)
    liked = item_at(lines, 1500)  # in the middle block
    liked["standardMessage"]["reactions"] = [{"emoji": "👍", "authorId": str(R_BEN),
                                              "sentTimestamp": str(at(9000))}]
    report = reimport(tmp_path, home, folder, [*lines, *filler(FILLER, 10)])
    assert report["messages"]["new"] == 10 and report["messages"]["updated"] == 1
    assert "parsed 2 of 3 block(s)" in note(report, "re-import")
    # the state is written the new way now: the next export resumes from it
    report = reimport(tmp_path, home, folder, [*lines, *filler(FILLER, 11)])
    assert report["messages"]["new"] == 1 and "parsed 1 of 3 block(s)" in note(report, "re-import")


@pytest.mark.parametrize("seed", range(40))
def test_the_scan_splits_the_file_as_a_line_by_line_reading_does(tmp_path, monkeypatch, seed):
    """Random files of item lines, items written with blanks, blank and white lines, context
    lines between items, CRLF, no newline at the end, read a few bytes at a time with blocks of
    three items: the segments, digests and counts are those of the plain rule, line by line."""
    import hashlib
    import random

    from chatmem.importers import byte_digest
    from chatmem.importers.signal import backup_resume

    monkeypatch.setattr(backup_resume, "BLOCK_ITEMS", 3)
    monkeypatch.setattr(backup_resume, "CHUNK", 7 + seed)
    rng = random.Random(seed)
    kinds = ['{"chatItem":{"chatId":"%d"}}', '  { "chatItem" : {"n":%d}}', "", "   ", '{"recipient":{"id":"%d"}}',
             '{"chat":{"id":"%d"}}', '{"chatItem":{"body":"%d x"}}\r']
    text = "\n".join((lambda k: k % i if "%d" in k else k)(rng.choice(kinds)) for i in range(rng.randrange(0, 40)))
    if rng.random() < 0.5:
        text += "\n"
    path = tmp_path / "main.jsonl"
    path.write_bytes(text.encode())
    data = path.read_bytes()
    lines = [x + b"\n" for x in data.split(b"\n")]  # as `for line in file` gives them
    last = lines.pop()
    if last != b"\n":
        lines.append(last[:-1])

    # the rule, one line at a time
    segments: list[tuple] = []
    ctx = hashlib.blake2b(digest_size=16)
    run: list[bytes] = []
    kind_of_run, start, first, items, blocks, pos, items_total = None, 0, 0, 0, 0, 0, 0

    def close() -> None:
        nonlocal blocks
        data = b"".join(run)
        if kind_of_run is None:
            ctx.update(b"%d\x00%d\x00" % (blocks, len(data)) + data)
            segments.append((None, start, pos, first, "", len(run)))
        else:
            segments.append((blocks, start, pos, first, hashlib.blake2b(data, digest_size=8).hexdigest(), items))
            blocks += 1

    for number, line in enumerate(lines, start=1):
        if line.startswith(b'{"chatItem":') or backup_resume.ITEM_LINE.match(line):
            kind = 0
        elif not line.strip():
            kind = kind_of_run if run else None
        else:
            kind = None
        if run and (kind != kind_of_run or (kind == 0 and items >= 3)):
            close()
            run, items = [], 0
        if not run:
            kind_of_run, start, first = kind, pos, number
        run.append(line)
        if kind == 0 and line.strip():
            items += 1
            items_total += 1
        pos += len(line)
    if run:
        close()

    found = backup_resume.scan(path, legacy=True)
    assert [(s.block, s.start, s.end, s.first_line, s.legacy, s.items) for s in found.segments] == segments
    assert (found.context, found.items) == (ctx.hexdigest(), items_total)
    for s in found.segments:  # each block's own digest is what a block's read checks
        if s.block is not None:
            assert s.digest == byte_digest.digest(path.read_bytes()[s.start:s.end])
