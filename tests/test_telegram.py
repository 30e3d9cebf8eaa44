"""Telegram Desktop's JSON export (result.json), issue 21 part 2."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from telegram_builders import build_account_export, build_chat_export

from chatmem.errors import FormatError
from chatmem.importers import find_sources, get_importer
from chatmem.records import Call, Chat, Contact, ImportOptions, Message, Problem, SourceState

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "telegram"
SMALL = HERE / "ChatExport_2024-03-02" / "result.json"
FULL = HERE / "DataExport_2024-03-02" / "result.json"


def read(path: Path, **options) -> list:
    return list(get_importer("telegram").read(path, ImportOptions(**options)))


def by_text(records: list, start: str) -> Message:
    return next(r for r in records if isinstance(r, Message) and r.text.startswith(start))


def test_the_fixtures_are_what_the_builder_writes(tmp_path):
    assert build_chat_export(tmp_path / "a").read_text() == SMALL.read_text()
    assert build_account_export(tmp_path / "b").read_text() == FULL.read_text()


def test_a_whole_account_export_with_every_kind_of_message():
    records = read(FULL)
    assert not [r for r in records if isinstance(r, Problem)]
    chats = {r.name: r for r in records if isinstance(r, Chat)}
    assert set(chats) == {"Lia Moreau", "Climbing Forum", "Saved Messages", "Trail Conditions"}
    assert not chats["Lia Moreau"].group and chats["Climbing Forum"].group
    assert [c.name for c in records if isinstance(c, Contact)] == ["Lia Moreau", "Tom Becker"]

    # text as a string or as entities; the owner is "me" from personal_information
    yes = by_text(records, "Yes! 7pm works")
    assert yes.sender == "me" and [(r.sender, r.emoji) for r in yes.reactions] == [("Lia Moreau", "👍")]
    assert by_text(records, "Great, see you there").reply_to == yes.id
    assert by_text(records, "Bringing the new rope").edited
    links = by_text(records, "Route info: topo and")
    assert links.extra["links"] == ["https://example.org/topo", "https://example.org/gym"]
    assert by_text(records, "Forwarding this").extra["forwarded_from"] == "Tom Becker"
    thanks = by_text(records, "Nice, thanks")
    assert thanks.extra["reaction_counts"][0] == {"emoji": "❤️", "count": 2}
    # media and files: present, or left out by the export settings (counted in the notes)
    media = [r for r in records if isinstance(r, Message) and r.kind == "media"]
    present = {a.name for r in media for a in r.attachments if a.present}
    assert present == {"photo_1@02-03-2024_10-30-00.jpg", "route.pdf", "audio_1@02-03-2024_10-42-00.ogg"}
    video = next(r for r in media if r.extra.get("media_type") == "video_file")
    assert video.attachments[0].name == "big-video.mp4" and video.attachments[0].path is None
    assert next(r for r in media if r.extra.get("voice_note")).extra["duration_seconds"] == 7
    assert next(r for r in media if r.extra.get("sticker")).extra["sticker"]["emoji"] == "🧗"
    assert by_text(records, "Location: Boulderhalle").extra["location"]["latitude"] == 52.52
    assert by_text(records, "Contact: Tom Becker").extra["contact"]["phones"] == ["+1 555 010 0008"]
    assert by_text(records, "Which day next week?").extra["poll"]["options"][0] == {"text": "Tuesday", "votes": 1}
    assert any(r.extra.get("view_once") for r in media)
    notes = next(r for r in records if isinstance(r, SourceState)).notes
    assert any("4 media file(s) not included" in n for n in notes)
    # a video shown blurred, its thumbnail no second attachment; a pin points at what it pins
    summit = by_text(records, "Spoiler: we made it")
    assert summit.extra["spoiler"] and [a.name for a in summit.attachments] == ["summit.mp4"]
    assert by_text(records, "You pinned a message").reply_to == summit.id
    # a reply to a message of another chat is a reference, not a link to a message of this one
    closure = by_text(records, "Did you see this closure?")
    assert closure.reply_to is None
    assert closure.extra["reply_to_message"] == {"id": 301, "chat": "channel1899003344"}
    weather = by_text(records, "Weather for Saturday")
    assert weather.extra["via_bot"] == "@weatherbot" and weather.extra["buttons"] == ["Forecast"]
    # reactions' `recent` entries carry a local `date` only: read in the configured zone
    assert yes.reactions[0].timestamp is not None

    # service messages, calls, topics in a forum group
    system = {r.text: r for r in records if isinstance(r, Message) and r.kind == "system"}
    assert "You created the group “Climbing Forum”" in system
    assert system["Chloé Dubois added Tom Becker, a deleted account"].sender == "Chloé Dubois"
    assert "You set messages to disappear after 1 week" in system
    calls = sorted((c.direction, c.media, c.duration) for c in records if isinstance(c, Call))
    assert calls == [("incoming", "video", 600), ("incoming", "voice", 95), ("outgoing", "voice", None)]
    assert by_text(records, "Anyone selling a harness?").extra["topic"] == "Gear"
    spare = by_text(records, "I have a spare one")
    assert spare.extra["topic"] == "Gear" and spare.reply_to == by_text(records, "Anyone selling").id
    assert by_text(records, "Font trip in May?").extra["topic"] == "Trips"
    assert by_text(records, "Font trip in May?").reply_to is None  # the topic is not a reply
    assert by_text(records, "Welcome everyone!").extra["topic"] == "General"
    gone = by_text(records, "Count me in for Font")  # from an account deleted since
    assert (gone.sender, gone.extra["topic"]) == ("Deleted Account", "Trips")
    assert "Chloé Dubois added Tom Becker, a deleted account" in system
    # a channel left since, signed by its author
    assert by_text(records, "North face route closed").extra["author"] == "Ranger Jo"


def test_a_single_chat_export_without_personal_information_finds_the_owner():
    records = read(SMALL)
    assert by_text(records, "Yes! 7pm works").sender == "me"
    notes = next(r for r in records if isinstance(r, SourceState)).notes
    assert any("owner taken to be 'Sam Rivera'" in n for n in notes)
    assert read(SMALL, owner_names=["Sam Rivera"])[-1].notes[1:] == []  # no guess needed


def test_ids_are_the_same_in_both_exports_and_a_reimport_adds_nothing(cli, fixtures_dir):
    small = {r.id for r in read(SMALL) if isinstance(r, Message)}
    full = {r.id for r in read(FULL) if isinstance(r, Message)}
    assert small < full
    config = ("--config", str(fixtures_dir / "config.yaml"))
    first = imported(cli.json(*config, "import", HERE))
    assert [r["messages"]["new"] for r in first] == [len(small), len(full) - len(small)]
    again = imported(cli.json(*config, "import", HERE, "--force"))
    assert all(r["messages"]["new"] == r["messages"]["updated"] == 0 for r in again)
    assert all(r["calls"]["new"] == r["calls"]["updated"] == 0 for r in again)
    chats = cli.json(*config, "chats", "--platform", "telegram")["chats"]
    assert sorted(c["chat"] for c in chats) == ["Climbing Forum", "Lia Moreau", "Saved Messages",
                                                "Trail Conditions"]


def test_folder_import_and_sync_find_result_json(cli, tmp_path):
    export = tmp_path / "Downloads" / "Telegram Desktop" / "ChatExport_2024-03-02"
    shutil.copytree(SMALL.parent, export)
    assert [(p.name, i.platform) for p, i in find_sources(tmp_path / "Downloads")] == [("result.json", "telegram")]
    cli("import", tmp_path / "Downloads")
    data = json.loads((export / "result.json").read_text())
    data["messages"].append({"id": 50, "type": "message", "date": "2024-03-03T10:00:00",
                             "date_unixtime": "1709456400", "from": "Lia Moreau", "from_id": "user1007",
                             "text": "One more", "text_entities": []})
    (export / "result.json").write_text(json.dumps(data, ensure_ascii=False, indent=1))
    assert [r["messages"]["new"] for r in cli.json("sync")] == [1]


def test_people_join_the_same_person_on_other_platforms(cli, fixtures_dir):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    cli(*config, "import", FULL)
    cli(*config, "import", fixtures_dir / "whatsapp" / "WhatsApp Chat with Lia Moreau.txt")
    people = cli.json(*config, "people", "--query", "Lia")["people"]
    lia = [p for p in people if p["name"] == "Lia Moreau"]
    assert len(lia) == 1 and {"telegram", "whatsapp"} <= set(lia[0]["platforms"])
    assert any(h["value"] == "+15550100007" for h in lia[0]["handles"])


def test_local_dates_without_unixtime_are_read_in_the_configured_zone(tmp_path):
    from zoneinfo import ZoneInfo

    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Lia Moreau", "type": "personal_chat", "id": 5, "messages": [
        {"id": 1, "type": "message", "date": "2024-03-02T10:00:00", "from": "Lia Moreau",
         "from_id": "user5", "text": "old export"}]}))
    msg = next(r for r in read(path, timezone=ZoneInfo("Europe/Berlin")) if isinstance(r, Message))
    assert msg.sent_at.astimezone(ZoneInfo("UTC")).hour == 9


def _big_export(path: Path, chats: int, per_chat: int) -> int:
    words = "climbing route grade overhang crimp sloper " * 25  # ~1 KB of text a message
    with path.open("w", encoding="utf-8") as f:
        f.write('{"about": "x", "personal_information": {"user_id": 1, "first_name": "Sam"},\n"chats": {"list": [')
        for c in range(chats):
            f.write(("," if c else "") + f'{{"name": "Group {c}", "type": "private_group", "id": {c + 10}, "messages": [')
            f.write(",".join(json.dumps({"id": i, "type": "message", "date_unixtime": str(1709370000 + i),
                                         "from": f"P{i % 7}", "from_id": f"user{100 + i % 7}",
                                         "text": [words, {"type": "bold", "text": str(i)}],
                                         "reply_to_message_id": i - 1 if i % 3 else None})
                             for i in range(1, per_chat + 1)))
            f.write("]}")
        f.write("]}}\n")
    return path.stat().st_size


def _peak(path: Path) -> tuple[int, int]:
    import tracemalloc

    tracemalloc.start()
    count = 0
    for r in get_importer("telegram").read(path, ImportOptions()):
        count += isinstance(r, Message)
        del r
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return count, peak


def test_a_large_export_is_streamed_not_loaded(tmp_path):
    """A whole-account result.json runs to GB: memory stays flat as the file grows."""
    _peak(FULL)  # whatever is imported or cached on first use is not the file's
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    _big_export(small, 1, 1500)
    size = _big_export(large, 4, 1500)
    (n_small, peak_small), (n_large, peak_large) = _peak(small), _peak(large)
    assert (n_small, n_large) == (1500, 6000)
    assert peak_large < size / 4  # a 7 MB file read in a small part of it
    assert peak_large < peak_small * 1.5  # four times the file, about the same memory


# ------------------------------------------------------------------ hostile input


def test_odd_messages_are_reported_and_kept(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"name": "Lia Moreau", "type": "personal_chat", "id": 5, "messages": [
        {"id": 1, "type": "unsupported", "date": "2024-03-02T10:00:00"},
        "not a message",
        {"id": 3, "type": "message", "date": "yesterday", "from": "Lia", "from_id": "user5", "text": "x"},
        {"type": "message", "date": "2024-03-02T10:00:00", "text": "no id"},
        {"id": 5, "type": "message", "date": "2024-03-02T10:00:00", "from": None, "from_id": "user9",
         "text": [1, None, {"type": "bold"}], "photo": "../../../etc/passwd", "reactions": ["x", {}]},
        {"id": 6, "type": "somethingNew", "date": "2024-03-02T10:00:00"},
    ]}))
    records = read(path)
    problems = [r for r in records if isinstance(r, Problem)]
    assert [p.line for p in problems] == [1, 2, 3, 4, 6]
    assert all(p.text for p in problems)
    odd = next(r for r in records if isinstance(r, Message))
    assert odd.sender == "Deleted Account" and odd.attachments[0].path is None


@pytest.mark.parametrize("content", ["", "{", '{"name": "x", "messages": [', "[1, 2]", "\xff\xfe"])
def test_a_broken_file_is_one_clear_error(cli, tmp_path, content):
    path = tmp_path / "result.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(FormatError) as e:
        read(path)
    assert str(path) in str(e.value)
    out = cli("import", path, "--platform", "telegram", expect=None)
    assert out.exit_code != 0 and "Traceback" not in out.output


def test_a_cut_off_export_is_one_clear_error_and_nothing_is_stored(cli, tmp_path):
    """Streamed: the break is met after many messages were read; the import keeps none."""
    path = tmp_path / "result.json"
    text = FULL.read_text(encoding="utf-8")
    path.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    out = cli("import", path, "--platform", "telegram", expect=None)
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert str(path) in out.output
    line = int(re.search(r"line ([\d,]+), column [\d,]+ \(byte [\d,]+\)", out.output)[1].replace(",", ""))
    assert line == text[: len(text) * 2 // 3].count("\n") + 1  # where the file breaks off
    assert cli.json("chats")["chats"] == []


def test_nesting_without_end_is_one_clear_error(tmp_path):
    path = tmp_path / "result.json"
    path.write_text('{"name": "x", "type": "personal_chat", "id": 1, "messages": [{"text": '
                    + "[" * 100_000 + "]" * 100_000 + "}]}")
    with pytest.raises(FormatError) as e:
        read(path)
    assert str(path) in str(e.value)


def test_a_mangled_export_never_crashes_the_reader(tmp_path):
    base = json.loads(FULL.read_text())
    rng = random.Random(21)
    values = [None, 0, -1, "", "x", [], {}, 1e308, "../x", True]
    for round_ in range(40):
        data = json.loads(json.dumps(base))
        for _ in range(8):
            chat = rng.choice(data["chats"]["list"])
            if chat["messages"]:
                m = rng.choice(chat["messages"])
                m[rng.choice(list(m) + ["reactions", "poll", "photo"])] = rng.choice(values)
        path = tmp_path / f"r{round_}.json"
        path.write_text(json.dumps(data))
        records = read(path)
        kept = sum(1 for r in records if isinstance(r, (Message, Call, Problem)))
        assert kept == sum(len(c["messages"]) for c in data["chats"]["list"] + data["left_chats"]["list"])


def imported(reports: list[dict]) -> list[dict]:
    """The sources' reports, without the folder's files that are not exports (status skipped)."""
    return [r for r in reports if r["status"] != "skipped"]
