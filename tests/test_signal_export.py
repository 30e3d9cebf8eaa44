"""Signal's own export from the phone (main.jsonl + metadata.json + files/), issue 21 part 1.

The fixtures are written by tests/signal_export_builders.py from the same scenario as the
Signal Desktop fixture; the frames follow Backup.proto's JSON mapping.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from signal_export_builders import build_export

from chatmem.errors import FormatError
from chatmem.importers import find_sources, get_importer
from chatmem.records import Call, Chat, ImportOptions, Message, Problem, SourceState

FULL = Path(__file__).resolve().parents[1] / "fixtures" / "signal" / "phone-export"
SMALL = FULL.parent / "phone-export-small"


def read(path: Path) -> list:
    return list(get_importer("signal").read(path, ImportOptions()))


def by_text(records: list, start: str) -> Message:
    return next(r for r in records if isinstance(r, Message) and r.text.startswith(start))


def test_the_fixtures_are_what_the_builder_writes(tmp_path):
    for name, size in (("phone-export", "full"), ("phone-export-small", "small")):
        built = build_export(tmp_path / name, size)
        assert (built / "main.jsonl").read_text() == (FULL.parent / name / "main.jsonl").read_text()


def test_every_chat_item_kind_that_carries_content():
    records = read(FULL)
    assert not [r for r in records if isinstance(r, Problem)]
    chats = {r.name: r for r in records if isinstance(r, Chat)}
    assert set(chats) == {"Anna Berg", "Ben Ortiz", "Hiking Club"}
    assert chats["Hiking Club"].group and chats["Hiking Club"].participants == ["Anna Berg", "Ben Ortiz"]
    assert "+15550100001" in chats["Anna Berg"].handles

    # standard messages: quotes, edits, reactions, attachments, mentions, link previews
    yes = by_text(records, "Yes! Trailhead")
    assert yes.sender == "me" and [(r.sender, r.emoji) for r in yes.reactions] == [("Anna Berg", "👍")]
    assert by_text(records, "Perfect, I'll bring coffee").reply_to == yes.id
    edited = by_text(records, "See you at 9:30 then")
    assert edited.edited and [v.text for v in edited.versions] == ["See you at 9 then"]
    photo = by_text(records, "The view from the top")
    assert photo.kind == "media" and photo.attachments[0].name == "trail.jpg"
    assert photo.attachments[0].size == 48211 and photo.attachments[0].present
    assert by_text(records, "@Ben Ortiz can you bring").extra["mentions"] == ["Ben Ortiz"]
    older = by_text(records, "Yes, that one")
    assert older.reply_to is None and older.extra["quote"]["text"] == "an older message"
    assert by_text(records, "Trail info").extra["links"][0]["title"] == "Harz trails"
    assert by_text(records, "Trail info").extra["expires_in_seconds"] == 7 * 86400
    voice = next(r for r in records if isinstance(r, Message) and r.extra.get("voice_note"))
    assert voice.sender == "Ben Ortiz" and voice.attachments[0].mime_type == "audio/aac"
    # long text: the whole text from files/, not the 2000 characters in the frame
    long_text = by_text(records, "A long note about the trail.")
    assert len(long_text.text) > 5000 and long_text.extra["long_text"]
    # deleted for everyone, by the sender and by an admin
    deleted = [r for r in records if isinstance(r, Message) and r.deleted]
    assert len(deleted) == 3 and any(r.extra.get("deleted_by") == "Anna Berg" for r in deleted)
    # view-once, sticker, contact card, payment, gift badge, story reply, poll, SMS
    once = next(r for r in records if isinstance(r, Message) and r.extra.get("view_once"))
    assert once.kind == "media" and once.attachments[0].name == "summit.jpg"
    sticker = next(r for r in records if isinstance(r, Message) and r.extra.get("sticker"))
    assert sticker.text == "🥾" and sticker.extra["sticker"]["stickerId"] == 3
    assert by_text(records, "Contact: Lia Moreau").extra["contact"]["phones"] == ["+15550100007"]
    assert by_text(records, "Payment: 1.5 MOB").extra["payment"]["note"] == "coffee money"
    assert by_text(records, "Gift badge").extra["gift_badge"] == "OPENED"
    assert by_text(records, "Great photo from the ridge").extra["story_reply"]
    poll = by_text(records, "POLL: Start time?")
    assert poll.extra["poll"]["options"] == [{"text": "8:00", "votes": 1}, {"text": "9:00", "votes": 2}]
    assert [(r.sender, r.emoji) for r in poll.reactions] == [("Anna Berg", "👍")]
    assert by_text(records, "Sent as SMS").extra["sms"]
    # group updates, timers, safety numbers, profile and number changes: system events
    system = {r.text: r.sender for r in records if isinstance(r, Message) and r.kind == "system"}
    assert system["You created the group"] == "me"
    assert system["You added Anna Berg; You added Ben Ortiz"] == "me"
    assert system["Anna Berg changed the group name to “Hiking Club”"] == "Anna Berg"
    assert system["Anna Berg set the disappearing message timer to 1 week"] == "Anna Berg"
    assert system["You turned off disappearing messages"] == "me"
    assert system["Your safety number with Ben Ortiz has changed"] == "Signal"
    assert system["Benny changed their profile name to Benny O"] == "Ben Ortiz"
    assert system["Ben Ortiz changed their phone number"] == "Signal"
    # calls: one-to-one (answered, missed) and a group call with its length
    calls = sorted((c.direction, c.media, c.answered, c.duration) for c in records if isinstance(c, Call))
    assert calls == [("incoming", "video", True, 300), ("incoming", "voice", True, None),
                     ("missed", "video", False, None)]
    notes = next(r for r in records if isinstance(r, SourceState)).notes
    assert any("1 stickerPack" in n for n in notes)


def test_ids_are_stable_across_exports_and_name_the_sender_and_time():
    full = {r.id for r in read(FULL) if isinstance(r, Message)}
    small = {r.id for r in read(SMALL) if isinstance(r, Message)}
    assert small and small < full  # a later, larger export gives the same messages the same ids


@pytest.mark.parametrize("order", [("desktop", "phone"), ("phone", "desktop")])
def test_the_same_conversations_from_signal_desktop_are_the_same_messages(cli, fixtures_dir, order):
    paths = {"desktop": fixtures_dir / "signal" / "signal-desktop.sqlite", "phone": FULL}
    config = ("--config", str(fixtures_dir / "config.yaml"))
    reports = [cli.json(*config, "import", paths[name])[0] for name in order]
    assert reports[0]["messages"]["new"] == (21 if order[0] == "desktop" else 34)
    assert reports[1]["messages"]["new"] == (13 if order[1] == "phone" else 0)
    chats = cli.json(*config, "chats", "--platform", "signal")["chats"]
    assert sorted((c["chat"], c["messages"]) for c in chats) == [
        ("Anna Berg", 13), ("Ben Ortiz", 7), ("Hiking Club", 14)]
    found = cli.json(*config, "search", "Trailhead", "--platform", "signal")["results"]
    assert len(found) == 1
    for name in order:
        again = cli.json(*config, "import", paths[name], "--force")[0]
        assert again["messages"]["new"] == again["messages"]["updated"] == 0
        assert again["calls"]["new"] == again["calls"]["updated"] == 0


def test_a_folder_import_finds_the_export_and_sync_reimports_it(cli, tmp_path):
    folder = tmp_path / "exports"
    shutil.copytree(SMALL, folder / "signal-export-2024-03-02")
    found = find_sources(folder)
    assert [(p.name, i.platform) for p, i in found] == [("signal-export-2024-03-02", "signal")]
    assert find_sources(folder / "signal-export-2024-03-02" / "main.jsonl")[0][1].platform == "signal"
    cli("import", folder)
    main = folder / "signal-export-2024-03-02" / "main.jsonl"
    extra = {"chatItem": {"chatId": "1", "authorId": "4", "dateSent": "1709400000000",
                          "incoming": {}, "standardMessage": {"text": {"body": "one more thing"}}}}
    main.write_text(main.read_text() + json.dumps(extra) + "\n")
    synced = cli.json("sync")
    assert [r["messages"]["new"] for r in synced] == [1]


def test_people_from_the_phone_export_join_the_same_person_elsewhere(cli, fixtures_dir):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    cli(*config, "import", SMALL)
    cli(*config, "import", fixtures_dir / "imessage" / "chat.db")
    people = cli.json(*config, "people", "--query", "Anna")["people"]
    anna = [p for p in people if p["name"] == "Anna Berg"]
    assert len(anna) == 1 and {"signal", "imessage"} <= set(anna[0]["platforms"])


# ------------------------------------------------------------------ hostile input


def _export(tmp_path: Path, lines: list[str]) -> Path:
    folder = tmp_path / "export"
    shutil.copytree(SMALL, folder)
    main = folder / "main.jsonl"
    main.write_text(main.read_text() + "".join(line + "\n" for line in lines), encoding="utf-8")
    return folder


def test_odd_lines_are_reported_with_their_line_and_kept(tmp_path):
    folder = _export(tmp_path, [
        '{"chatItem": {"chatId": "1", "authorId": "4", "dateSent": "17093',  # cut off
        "[1, 2, 3]",
        '{"somethingNew": {}}',
        '{"chatItem": {"chatId": "99", "authorId": "4", "dateSent": "1709400000000", "incoming": {}}}',
        '{"chatItem": {"chatId": "1", "authorId": "4", "dateSent": "1709400000000", "futureKind": {}}}',
        '{"chatItem": {"chatId": "1", "authorId": "4", "dateSent": "soon", "standardMessage": {}}}',
        '{"recipient": {"id": "77", "contact": {"aci": "not base64!", "e164": "abc"}}}',
        '{"chatItem": {"chatId": "1", "authorId": "77", "dateSent": "1709400001000", "incoming": {},'
        ' "standardMessage": {"text": {"body": 5, "bodyRanges": [{"start": -3, "mentionAci": "??"}]},'
        ' "attachments": [{"pointer": {"locatorInfo": {"plaintextHash": "%%%"}}}], "reactions": [{}]}}}',
    ])
    total = sum(1 for line in (folder / "main.jsonl").read_text().splitlines() if line.strip())
    records = read(folder)
    problems = [r for r in records if isinstance(r, Problem)]
    assert [p.line for p in problems] == [total - 7, total - 6, total - 5, total - 4, total - 3,
                                          total - 2, total]
    assert all(p.text and p.where.endswith("main.jsonl") for p in problems)
    assert "not JSON" in problems[0].reason and "unknown frame" in problems[2].reason


def test_quotes_link_to_earlier_messages_among_many(tmp_path):
    # 12,000 items: the importer's set of ids it gave holds several in each of its buckets
    n, start = 12_000, 1709400000000
    rng = random.Random(3)
    wanted: dict[int, int | None] = {}  # item -> the item its quote names, when that one came before
    lines = []
    for i in range(n):
        author = "4" if i % 2 else "1"
        std: dict = {"text": {"body": f"item {i}"}}
        if i:
            kind = i % 3  # an earlier item, a later one, a time nobody sent at
            target = rng.randrange(i) if kind == 0 else rng.randrange(i + 1, n + 1) if kind == 1 else -i
            std["quote"] = {"targetSentTimestamp": str(start + 1000 * target),
                            "authorId": "4" if target % 2 else "1", "text": {"body": "quoted"}}
            wanted[i] = target if kind == 0 else None
        lines.append(json.dumps({"chatItem": {"chatId": "1", "authorId": author, "dateSent": str(start + 1000 * i),
                                              "outgoing" if author == "1" else "incoming": {},
                                              "standardMessage": std}}))
    messages = {int(r.text.split()[1]): r for r in read(_export(tmp_path, lines))
                if isinstance(r, Message) and r.text.startswith("item ")}
    assert len(messages) == n
    for i, target in wanted.items():
        msg = messages[i]
        assert msg.reply_to == (messages[target].id if target is not None else None), i
        assert ("quote" in msg.extra) == (target is None), i


def test_nothing_readable_is_one_clear_error(cli, tmp_path):
    folder = tmp_path / "empty-export"
    folder.mkdir()
    (folder / "main.jsonl").write_text("")
    out = cli("import", folder, "--platform", "signal", expect=None)
    assert out.exit_code != 0 and "Traceback" not in out.output and str(folder) in out.output


def test_a_mangled_export_never_crashes_the_reader(tmp_path):
    lines = (SMALL / "main.jsonl").read_text().splitlines()
    rng = random.Random(21)
    for round_ in range(30):
        mangled = []
        for line in lines:
            chars = list(line)
            for _ in range(rng.randint(0, 3)):
                if chars:
                    chars[rng.randrange(len(chars))] = rng.choice('{}[]",:0a\\\x00é')
            mangled.append("".join(chars))
        folder = tmp_path / f"m{round_}"
        folder.mkdir()
        (folder / "main.jsonl").write_text("\n".join(mangled), encoding="utf-8")
        try:
            records = read(folder)
        except FormatError:
            continue
        kept = sum(1 for r in records if isinstance(r, (Message, Call, Problem)))
        # every chat item line is a record or a reported problem, never silently gone
        assert kept >= sum(1 for line in mangled if '"chatItem"' in line)


def test_odd_values_in_any_field_are_problems_or_records_never_a_crash(tmp_path):
    frames = [json.loads(line) for line in (FULL / "main.jsonl").read_text().splitlines()]
    odd = [None, 0, -1, "", "x", [], {}, 1e308, True, {"a": [1]}, "9" * 30, "-5", "!!!"]
    folder = tmp_path / "export"
    folder.mkdir()
    rng = random.Random(16)

    def mutate(obj, depth=0):
        if isinstance(obj, dict) and obj:
            key = rng.choice(list(obj))
            if depth > 3 or rng.random() < 0.4:
                obj[key] = json.loads(json.dumps(rng.choice(odd)))
            else:
                mutate(obj[key], depth + 1)
        elif isinstance(obj, list) and obj:
            mutate(obj[rng.randrange(len(obj))], depth + 1)

    for _ in range(150):
        data = json.loads(json.dumps(frames))
        for _ in range(6):
            mutate(rng.choice(data))
        (folder / "main.jsonl").write_text("\n".join(json.dumps(d) for d in data))
        records = read(folder)
        kept = sum(1 for r in records if isinstance(r, (Message, Call, Problem)))
        assert kept >= sum(1 for d in data if isinstance(d, dict) and "chatItem" in d)
