"""Re-importing a newer Telegram export decodes only the chats whose bytes changed (a chat that
only grew: its new messages), and the store ends exactly as a re-import that reads everything
leaves it. The byte reader that finds the chats is fuzzed against `json.loads`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from resume_helpers import forget_chat, fresh, import_path, later, note, read_whole, store_rows
from telegram_builders import (
    LIA,
    LIA_CHAT,
    SAM,
    TOM,
    build_account_export,
    msg,
    service,
    write_file,
)

from chatmem.errors import FormatError
from chatmem.importers.telegram.scan import (
    CHAT_LISTS,
    Block,
    ChatEnd,
    ChatHead,
    ChatMessage,
    NotAChat,
    parts,
)
from chatmem.records import message_id_from_guid

FILLER = 600
CHATS = 4  # in build_account_export


def filler(start: int, n: int, who: tuple[str, str] = (LIA, SAM)) -> list[dict[str, Any]]:
    return [msg(5000 + i, 1000 + i, who[i % 2], f"filler {i} on the ridge") for i in range(start, start + n)]


def rewrite(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    later(path)


def chat(data: dict[str, Any], chat_id: int) -> dict[str, Any]:
    return next(c for c in data["chats"]["list"] if c["id"] == chat_id)


@pytest.fixture
def export(tmp_path) -> tuple[Path, Path, Path, dict[str, Any]]:
    """An account export whose chat with Lia holds 600 more messages, imported once; a copy of
    the first file (`first`) to compare against."""
    path = build_account_export(tmp_path / "export")
    data = json.loads(path.read_text())
    chat(data, LIA_CHAT)["messages"] += filler(0, FILLER)
    rewrite(path, data)
    first = tmp_path / "first" / "result.json"
    first.parent.mkdir()
    first.write_bytes(path.read_bytes())
    home = tmp_path / "home"
    assert import_path(home, path)["messages"]["new"] > FILLER
    return home, path, first, data


def whole(tmp_path: Path, first: Path, path: Path) -> dict[str, set]:
    """The store a first import of `first` then a re-import of `path` reading everything gives
    (the files the export names stay beside `path`)."""
    newer = path.read_bytes()
    path.write_bytes(first.read_bytes())
    try:
        home = tmp_path / "whole-home"
        import_path(home, path)
        path.write_bytes(newer)
        import_path(home, path, force=True)
        return store_rows(home)
    finally:
        path.write_bytes(newer)


def test_new_messages_at_the_end_of_a_chat_are_all_that_is_decoded(tmp_path, export):
    home, path, first, data = export
    lia = chat(data, LIA_CHAT)["messages"]
    # new messages: a reply to an old message, a pin of an old one, a new sender's message
    lia += [*filler(FILLER, 10),
            msg(7000, 3000, LIA, "about your very first question", reply_to_message_id=1),
            service(7001, 3001, SAM, "pin_message", message_id=5000 + 17),
            msg(7002, 3002, TOM, "Tom here, on Lia's phone")]
    rewrite(path, data)
    report = import_path(home, path)
    assert report["messages"]["new"] == 13 and report["messages"]["updated"] == 0
    given = note(report, "re-import")
    assert given.startswith("re-import: 13 of 13 message(s)")
    assert given.endswith(f"of {CHATS} chat(s), {CHATS - 1} unchanged were not decoded, 1 that only grew "
                          "had their new messages decoded, 0 were decoded whole")
    after = store_rows(home)
    assert after == whole(tmp_path, first, path)
    links = {r[0]: r[9] for r in after["messages"]}
    lia_id = f"telegram:{LIA_CHAT}"
    assert links[message_id_from_guid("telegram", f"{lia_id}/7000")] == message_id_from_guid("telegram", f"{lia_id}/1")
    assert links[message_id_from_guid("telegram", f"{lia_id}/7001")] == message_id_from_guid(
        "telegram", f"{lia_id}/5017")


def test_an_edited_old_message_and_a_renamed_chat_are_read_again(tmp_path, export):
    home, path, first, data = export
    forum = next(c for c in data["chats"]["list"] if c["type"] == "private_supergroup")
    forum["name"] = "Climbing Forum (Berlin)"
    edited = next(m for m in chat(data, LIA_CHAT)["messages"] if m["id"] == 5000 + 300)
    edited.update(text="filler 300 on the south ridge", edited_unixtime="1709400000")
    edited["text_entities"] = [{"type": "plain", "text": edited["text"]}]
    rewrite(path, data)
    report = import_path(home, path)
    assert report["messages"] == {"new": 0, "updated": 1, "unchanged": report["messages"]["unchanged"]}
    assert note(report, "re-import").endswith("2 unchanged were not decoded, 0 that only grew had their "
                                              "new messages decoded, 2 were decoded whole")
    after = store_rows(home)
    assert after == whole(tmp_path, first, path)
    assert ("filler 300 on the south ridge",) in {(r[5],) for r in after["messages"]}
    assert any(r[1] == "Climbing Forum (Berlin)" for r in after["chats"])


def test_a_file_the_export_now_holds_is_found_by_a_reimport(tmp_path, export):
    home, path, first, data = export
    chat(data, LIA_CHAT)["messages"].append(
        msg(8000, 4000, LIA, "the topo", photo="photos/topo.jpg", photo_file_size=4))
    rewrite(path, data)
    import_path(home, path)
    assert {r[7] for r in store_rows(home)["attachments"] if r[3] == "topo.jpg"} == {False}
    # the file arrives in the export folder; Lia's chat is the same, another chat has news
    write_file(path.parent, "photos/topo.jpg", b"\xff\xd8to")
    data["chats"]["list"][2]["messages"].append(msg(202, 5000, SAM, "new note to self"))
    rewrite(path, data)
    report = import_path(home, path)
    assert {r[7] for r in store_rows(home)["attachments"] if r[3] == "topo.jpg"} == {True}
    # the chats that name files are decoded again (the folder's files changed); the others not
    assert note(report, "re-import").endswith("2 unchanged were not decoded, 1 that only grew had their "
                                              "new messages decoded, 1 were decoded whole")


def test_a_changed_owner_reads_every_chat_again(tmp_path, export):
    home, path, first, data = export
    data["contacts"]["list"][1]["phone_number"] = "+1 555 010 0099"  # Tom's number changed
    rewrite(path, data)
    report = import_path(home, path)
    assert note(report, "re-import").endswith(f"0 unchanged were not decoded, 0 that only grew had their "
                                              f"new messages decoded, {CHATS} were decoded whole")
    assert store_rows(home) == whole(tmp_path, first, path)


def test_a_forgotten_chat_comes_back_from_a_grown_export(tmp_path, export):
    home, path, _, data = export
    lia = forget_chat(home, "Lia Moreau")
    chat(data, LIA_CHAT)["messages"] += filler(FILLER, 5)
    rewrite(path, data)
    import_path(home, path)
    assert {r for r in store_rows(home)["messages"] if r[1] == lia} == {
        r for r in fresh(tmp_path, path)["messages"] if r[1] == lia}


def test_a_newer_export_cut_off_or_damaged_changes_nothing(tmp_path, export):
    home, path, _, data = export
    before = store_rows(home)
    chat(data, LIA_CHAT)["messages"] += filler(FILLER, 5)
    rewrite(path, data)
    good = path.read_bytes()
    # cut inside the last chat: the chats before it are stepped over, its break is met
    path.write_bytes(good[: len(good) - 40])
    later(path)
    with pytest.raises(FormatError) as e:
        import_path(home, path)
    assert str(path) in str(e.value) and "line " in str(e.value) and "byte " in str(e.value)
    assert store_rows(home) == before
    # a byte changed inside a chat the store has: that chat no longer matches and is decoded
    at = good.index(b"filler 17 on")
    path.write_bytes(good[:at] + b'"' + good[at + 1:])
    later(path)
    with pytest.raises(FormatError) as e:
        import_path(home, path)
    line = good[:at].count(b"\n") + 1
    assert f"line {line:,}," in str(e.value)
    assert store_rows(home) == before


def test_a_newer_export_in_a_new_folder_reads_only_the_chats_with_files(tmp_path, export):
    home, path, first, data = export
    chat(data, LIA_CHAT)["messages"] += filler(FILLER, 3)
    newer = tmp_path / "DataExport_2024-04-01" / "result.json"
    for f in path.parent.rglob("*"):
        if f.is_file() and f != path:
            target = newer.parent / f.relative_to(path.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
    newer.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    report = import_path(home, newer)
    assert report["messages"]["new"] == 3
    # Lia's chat names files (now found in the new folder): decoded whole; the other three not
    assert note(report, "re-import").endswith("3 unchanged were not decoded, 0 that only grew had their "
                                              "new messages decoded, 1 were decoded whole")
    assert store_rows(home) == read_whole(tmp_path, path, newer)


# ---------------------------------------------------------------------- the byte reader


def _dup_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _Duplicate
    return dict(pairs)


class _Duplicate(Exception):
    pass


def expected_parts(obj: Any) -> list[tuple] | None:
    """What `parts` gives for a document json.loads read as `obj` (None: no Telegram export)."""
    if not isinstance(obj, dict):
        return None
    out: list[tuple] = []
    head: dict[str, Any] = {}
    found = False
    items = list(obj.items())
    for n, (key, value) in enumerate(items):
        if key == "messages" and isinstance(value, list):
            out.append(("head", "", dict(head)))
            out += [("msg", i + 1, m) for i, m in enumerate(value)]
            out.append(("end", "", {**head, **dict(items[n + 1:])}))
            return out
        if key in CHAT_LISTS and isinstance(value, dict):
            found = True
            for i, one in enumerate(value["list"] if isinstance(value.get("list"), list) else []):
                label = f"{key}[{i}]"
                if not isinstance(one, dict):
                    out.append(("not", label, one))
                    continue
                keys = list(one.items())
                at = next((j for j, (k, v) in enumerate(keys) if k == "messages" and isinstance(v, list)), None)
                before = dict(keys[:at] if at is not None else keys)
                out.append(("head", label, dict(before)))
                if at is not None:
                    out += [("msg", r + 1, m) for r, m in enumerate(keys[at][1])]
                    before.update(keys[at + 1:])
                out.append(("end", label, before))
            continue
        head[key] = value
        out.append(("block", key, value))
    return out if found else None


def read_parts(path: Path) -> list[tuple]:
    out: list[tuple] = []
    for p in parts(path):
        if isinstance(p, Block):
            out.append(("block", p.key, p.value))
        elif isinstance(p, ChatHead):
            out.append(("head", p.label, p.head))
        elif isinstance(p, ChatMessage):
            out.append(("msg", p.row, p.value))
        elif isinstance(p, ChatEnd):
            out.append(("end", p.label, p.head))
        elif isinstance(p, NotAChat):
            out.append(("not", p.label, p.value))
    return out


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=False, default=str) == json.dumps(b, sort_keys=False, default=str)


PIECES = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b" ", b"\n", b"0", b"-1.5e3", b"null", b"true",
          b'"messages"', b'"list"', b'"\\u00e9"', b'"\\ud83d\\ude00"', "é😀".encode(), b"\xff", b"\xc3"]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        op = rng.random()
        if op < 0.3:
            data = data[:at] + data[at + rng.randint(1, 8):]
        elif op < 0.6:
            data = data[:at] + rng.choice(PIECES) + data[at:]
        elif op < 0.8:
            n = rng.randint(1, 40)
            data = data[:at] + data[at:at + n] + data[at:]  # a span doubled
        elif op < 0.9:
            data = data[:at]  # cut off
        else:
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    return data


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([None, True, 0, -7, 2.5, "", "a \"quoted\" ]}, \\ \n é 😀", "x" * rng.randint(0, 50)])
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["id", "text", "messages", "list", "type", "k"]) + str(i): _random_value(rng, depth + 1)
            for i in range(rng.randint(0, 4))}


def _documents(rng: random.Random, real: Path) -> list[bytes]:
    base = json.loads(real.read_text(encoding="utf-8"))
    out = []
    for indent in (None, 1, 2):
        out.append(json.dumps(base, ensure_ascii=False, indent=indent).encode())
    for _ in range(4):
        doc = json.loads(json.dumps(base))
        chats = doc["chats"]["list"]
        chats.append({"name": "Random", "type": "private_group", "id": rng.randint(1, 10**6),
                      "messages": [_random_value(rng) for _ in range(rng.randint(0, 6))]})
        chats.append(_random_value(rng))
        out.append(json.dumps(doc, ensure_ascii=rng.random() < 0.5,
                              separators=rng.choice([(",", ":"), (", ", ": ")])).encode())
    out.append(json.dumps(chats[0], indent=1).encode())  # "Export chat history": one chat
    return out


def test_the_byte_reader_gives_what_json_loads_gives_or_a_clear_error(tmp_path):
    rng = random.Random(17)
    real = Path(__file__).resolve().parents[1] / "fixtures" / "telegram" / "DataExport_2024-03-02" / "result.json"
    path = tmp_path / "result.json"
    checked = errors = 0
    for doc in _documents(rng, real):
        for round_ in range(60):
            data = doc if round_ == 0 else _mutate(rng, doc)
            path.write_bytes(data)
            try:
                want: Any = expected_parts(json.loads(data.decode("utf-8"), object_pairs_hook=_dup_keys))
            except _Duplicate:
                want = "skip"  # json.loads keeps the last of a repeated key; the reader reads both
            except (ValueError, RecursionError):
                want = None
            try:
                got: Any = read_parts(path)
            except FormatError as e:
                assert str(path) in str(e)
                got = None
            if want == "skip":
                continue
            checked += 1
            errors += got is None
            assert (got is None) == (want is None), (round_, data[:300])
            if got is not None:
                assert len(got) == len(want) and all(_same(a, b) for a, b in zip(got, want)), round_
    assert checked > 300 and 50 < errors < checked  # both sides of the comparison were exercised


def test_a_message_longer_than_the_window_and_text_across_window_edges(tmp_path):
    """Values that cross the reader's window (256 KiB), non-ASCII text split at its edge."""
    path = tmp_path / "result.json"
    messages = [msg(i, i, LIA if i % 2 else SAM, ("é😀 " * (i * 7919 % 40000)) + str(i)) for i in range(1, 40)]
    messages.append(msg(40, 40, LIA, "x" * 700_000))
    data = {"name": "Lia Moreau", "type": "personal_chat", "id": LIA_CHAT, "messages": messages}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert read_parts(path) == expected_parts(json.loads(path.read_text(encoding="utf-8")))


def test_an_export_imported_by_the_version_that_kept_sha256_digests_still_resumes(tmp_path, monkeypatch):
    """Its chats' digests were SHA-256 (64 hex digits): the next import compares them as such,
    decodes only the new messages, and keeps XXH3 digests (32) for the chats it read."""
    import hashlib
    from types import SimpleNamespace

    from chatmem.importers import json_scan
    from chatmem.store import Store

    path = build_account_export(tmp_path / "export")
    data = json.loads(path.read_text())
    chat(data, LIA_CHAT)["messages"] += filler(0, 50)
    rewrite(path, data)
    first = tmp_path / "first" / "result.json"
    first.parent.mkdir()
    first.write_bytes(path.read_bytes())
    home = tmp_path / "home"
    with monkeypatch.context() as old:
        old.setattr(json_scan, "xxhash", SimpleNamespace(xxh3_128=hashlib.sha256))
        import_path(home, path)

    def kept() -> dict[str, Any]:
        with Store.open(home) as store, store.read() as conn:
            state = conn.exec_driver_sql("SELECT state FROM sources").scalar()
        return (json.loads(state) if isinstance(state, str) else state)["resume"]["chats"]

    assert {len(c["d"]) for c in kept().values()} == {64}
    chat(data, LIA_CHAT)["messages"] += filler(50, 7)
    rewrite(path, data)
    report = import_path(home, path)
    assert report["messages"]["new"] == 7
    assert note(report, "re-import").endswith(f"{CHATS - 1} unchanged were not decoded, 1 that only grew "
                                              "had their new messages decoded, 0 were decoded whole")
    assert store_rows(home) == whole(tmp_path, first, path)
    lengths = {key: len(c["d"]) for key, c in kept().items()}
    assert sorted(lengths.values()) == [32] + [64] * (CHATS - 1)
    chat(data, LIA_CHAT)["messages"] += filler(57, 3)
    rewrite(path, data)
    assert import_path(home, path)["messages"]["new"] == 3
