"""A Messenger / Instagram thread read in a stream (issue 17): each thread file is scanned one
message at a time and its messages are given oldest first, a file at a time, never the whole
thread at once.

- The scanner is fuzzed against `json.loads`: a mutated thread file either gives the keys and
  messages json.loads gives (every message, none dropped, whether kept decoded or decoded again
  from its bytes), or one FormatError naming the file and the line, column and byte.
- A re-import of a grown download that decodes only the new messages ends as a first import of
  that download into a fresh store: the same message ids, texts, order, reactions and calls.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from meta_builders import m, mojibake, thread
from mutation import TEXT_MUTATORS, mutate
from resume_helpers import import_path, note

from chatmem.config import load_config
from chatmem.errors import FormatError
from chatmem.importers import get_importer
from chatmem.importers.meta_resume import scan_file
from chatmem.records import Call, ImportOptions, Message, Problem
from chatmem.store import Store

# ---------------------------------------------------------------------- the scanner vs json.loads

PIECES = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b" ", b"\n", b"0", b"-1.5e3", b"null", b"true",
          b'"messages"', b'"timestamp_ms"', b'"\\u00c3\\u00a9"', b'"\\ud83d\\ude00"', "é😀".encode(), b"\xff",
          b"\xc3", b"\xef\xbb\xbf"]


def _structural(data: bytes, rng: random.Random) -> bytes:
    """JSON's own characters inserted, spans deleted, doubled or cut: mutants that often stay
    JSON, where the scanner must agree with json.loads value for value."""
    at = rng.randrange(len(data) + 1)
    op = rng.random()
    if op < 0.3:
        return data[:at] + data[at + rng.randint(1, 8):]
    if op < 0.6:
        return data[:at] + rng.choice(PIECES) + data[at:]
    if op < 0.85:
        n = rng.randint(1, 60)
        return data[:at] + data[at:at + n] + data[at:]
    return data[:at]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([None, True, 0, -7, 2.5, "", 'a "quoted" ]}, \\ \n é 😀', "x" * rng.randint(0, 50)])
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["content", "messages", "timestamp_ms", "k"]) + str(i): _random_value(rng, depth + 1)
            for i in range(rng.randint(0, 4))}


def _documents(rng: random.Random) -> list[bytes]:
    """Thread files as Meta writes them (escaped, indented), the encrypted layout's raw UTF-8,
    one-line files, random messages among real ones, messages out of time order."""
    msgs = [m(i, "Anna Berg" if i % 3 else "Sam Rivera", f"message {i} café ☕ \"quoted\" ]}}",
              **({"reactions": [{"reaction": "❤", "actor": "Sam Rivera"}]} if i % 4 == 0 else {}),
              **({"call_duration": 60} if i % 9 == 0 else {}))
            for i in range(40)]
    doc = thread("Anna Berg", ["Anna Berg", "Sam Rivera"], msgs, "inbox/annaberg_10158")
    out = [json.dumps(mojibake(doc), indent=indent, ensure_ascii=True).encode() for indent in (2, None)]
    out.append(json.dumps(doc, indent=1, ensure_ascii=False).encode())
    for _ in range(3):
        mixed = json.loads(json.dumps(doc))
        for _ in range(4):
            mixed["messages"].insert(rng.randrange(len(mixed["messages"]) + 1), _random_value(rng))
        rng.shuffle(mixed["messages"][:10])
        out.append(json.dumps(mixed, ensure_ascii=rng.random() < 0.5,
                              separators=rng.choice([(",", ":"), (", ", ": ")])).encode())
    return out


def _expected(data: bytes) -> tuple[dict[str, Any], list[Any]] | None:
    """(keys but the messages, messages) as json.loads reads the file; None: not a thread file."""
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        return None
    return {k: v for k, v in obj.items() if k != "messages"}, obj["messages"]


def _scanned(path: Path, keep: int) -> tuple[dict[str, Any], list[Any]] | None:
    scanned = scan_file(path, keep)
    if not scanned.listed:
        return None
    given = list(scanned.oldest_first())
    indexes = [i for i, _ in given]
    assert sorted(indexes) == list(range(scanned.count))  # each message once: none dropped
    return scanned.head, [v for _, v in sorted(given, key=lambda g: g[0])]


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a) == json.dumps(b)  # NaN equals NaN; key order counts


def test_the_thread_scanner_gives_what_json_loads_gives_or_names_where_the_file_breaks(tmp_path):
    rng = random.Random(1717)
    path = tmp_path / "messages" / "inbox" / "annaberg_10158" / "message_1.json"
    path.parent.mkdir(parents=True)
    checked = broken = imported = 0
    for doc in _documents(rng):
        for round_ in range(70):
            if round_ == 0:
                data, how = doc, "as written"
            elif round_ % 2:
                data, how = _structural(doc, rng), "structural"
            else:
                data, how = mutate(doc, TEXT_MUTATORS, rng)
            path.write_bytes(data)
            want = _expected(data)
            for keep in (10_000, 3, 0):  # kept decoded, partly, or every message decoded again
                try:
                    got = _scanned(path, keep)
                except FormatError as e:
                    assert str(path) in str(e) and "line " in str(e) and "byte " in str(e), str(e)
                    got = None
                if want is None:
                    assert got is None, (how, round_, keep, data[:300])
                    continue
                assert got is not None, (how, round_, keep, data[:300])
                assert _same(got[0], want[0]) and len(got[1]) == len(want[1]), (how, round_, keep)
                assert all(_same(a, b) for a, b in zip(got[1], want[1])), (how, round_, keep)
            checked += 1
            broken += want is None
            if want is not None:
                # through the importer: every message of the file is a record or a problem
                records = list(get_importer("messenger").read(path.parent, ImportOptions()))
                given = [r for r in records if isinstance(r, (Message, Call, Problem))]
                assert len(given) == len(want[1]), (how, round_)
                imported += 1
    assert checked == 6 * 70 and 60 < broken < checked - 60 and imported > 60


def test_a_file_of_more_messages_than_are_kept_decoded_reads_as_one_kept_whole(tmp_path):
    """Past 10,000 messages a file's messages are decoded again from their bytes, a batch at a
    time, in the same order and to the same records."""
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    folder.mkdir(parents=True)
    msgs = [m(i / 10, "Anna Berg" if i % 2 else "Sam Rivera", f"{i} " + "é😀" * (i % 50)) for i in range(10_050)]
    msgs[70]["timestamp_ms"] = msgs[71]["timestamp_ms"]  # a tie keeps the files' order
    path = folder / "message_1.json"
    path.write_text(json.dumps(mojibake(thread("Anna Berg", ["Anna Berg", "Sam Rivera"], msgs, "inbox/x")),
                               indent=2), encoding="utf-8")
    streamed = list(scan_file(path).oldest_first())
    held = list(scan_file(path, keep=20_000).oldest_first())
    assert [i for i, _ in streamed] == [i for i, _ in held] == list(range(10_049, -1, -1))
    assert all(_same(a, b) for (_, a), (_, b) in zip(streamed, held))
    records = [r for r in get_importer("messenger").read(folder, ImportOptions()) if isinstance(r, Message)]
    assert len(records) == 10_050 and records[0].text == "0 " and records[-1].text.startswith("10049 ")
    assert [r.sent_at for r in records] == sorted(r.sent_at for r in records)


# ---------------------------------------------------------------------- resumed equals whole

PER_FILE = 150


def _messages(start: int, n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        more: dict[str, Any] = {}
        if i % 11 == 0:
            more["reactions"] = [{"reaction": "😆", "actor": "Sam Rivera"}, {"reaction": "❤", "actor": "Anna Berg"}]
        if i % 29 == 0:
            more["call_duration"] = 0 if i % 2 else 125
            more["content"] = "Anna called you." if i % 2 else "You called Anna."
        out.append(m(i * 1.5, "Anna Berg" if i % 3 else "Sam Rivera", more.pop("content", f"message {i} – grüße"),
                     **more))
    out[-1]["content"] = out[-2].get("content")  # the same words twice in a row: a repeat is numbered
    return out


def _write(folder: Path, msgs: list[dict[str, Any]]) -> None:
    for old in folder.glob("message_*.json"):
        old.unlink()
    newest_first = sorted(msgs, key=lambda x: -x["timestamp_ms"])
    for k in range(0, len(newest_first), PER_FILE):
        path = folder / f"message_{k // PER_FILE + 1}.json"
        data = thread("Anna Berg", ["Anna Berg", "Sam Rivera"], newest_first[k:k + PER_FILE], "inbox/annaberg_10158")
        path.write_text(json.dumps(mojibake(data), indent=2) + "\n", encoding="utf-8")


def _seen(home: Path) -> dict[str, Any]:
    """What a user sees of the thread: its messages in the chat's order, reactions, calls."""
    with Store.open(home, load_config()) as store, store.read() as conn:
        q = conn.exec_driver_sql
        return {
            "messages": list(q("SELECT id, sent_at, sender, text, kind, deleted FROM messages "
                               "ORDER BY sent_at, ordinal, id")),
            "reactions": sorted(q("SELECT message_id, sender, emoji FROM reactions")),
            "calls": list(q("SELECT id, started_at, direction, duration, answered FROM calls ORDER BY started_at")),
            "chats": list(q("SELECT id, name, message_count FROM chats")),
        }


def test_a_resumed_reimport_of_a_grown_download_ends_as_a_fresh_import_of_it(tmp_path):
    folder = tmp_path / "messages" / "inbox" / "annaberg_10158"
    folder.mkdir(parents=True)
    first = _messages(0, 400)  # three files
    _write(folder, first)
    home = tmp_path / "home"
    import_path(home, folder)
    for grown, added in (([*first, *_messages(400, 37)], 37),  # moves every file's split
                         ([*first, *_messages(400, 37), *_messages(437, 180)], 180)):  # a file's worth
        _write(folder, grown)
        report = import_path(home, folder)
        assert f"{added} new message(s) decoded" in note(report, "re-import")
        fresh = tmp_path / f"fresh-{added}"
        import_path(fresh, folder)
        resumed, whole = _seen(home), _seen(fresh)
        assert len(whole["messages"]) + len(whole["calls"]) == len(grown)
        assert whole["reactions"] and whole["calls"]
        assert resumed == whole


def test_threads_whose_names_differ_in_digits_are_not_newer_downloads_of_each_other(tmp_path):
    """t_8 and t_80 (annaberg_10158 and annaberg_20771) are two threads: the second is not
    compared with the first's import, and a re-import of one that grew reads only its new
    messages, whatever the other did."""
    inbox = tmp_path / "messages" / "inbox"
    for name, start in (("t_8", 0), ("t_80", 2000)):
        (inbox / name).mkdir(parents=True)
        _write(inbox / name, _messages(start, 40))
    home = tmp_path / "home"
    reports = [import_path(home, inbox / name) for name in ("t_8", "t_80")]
    assert not any(n.startswith("a newer export") for r in reports for n in r["notes"])
    for name, start in (("t_8", 0), ("t_80", 2000)):
        _write(inbox / name, [*_messages(start, 40), *_messages(start + 40, 5)])
        report = import_path(home, inbox / name)
        assert report["messages"]["new"] == 5 and "5 new message(s) decoded" in note(report, "re-import")
