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
