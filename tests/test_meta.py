"""Facebook Messenger and Instagram from Meta's "Download your information", issue 21 part 4."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from meta_builders import (
    build_instagram,
    build_messenger_2025,
    build_messenger_e2ee,
    build_messenger_full,
    build_messenger_small,
    mojibake,
)

from chatmem.errors import FormatError
from chatmem.importers import find_sources, get_importer
from chatmem.importers.meta import repair
from chatmem.records import Call, Chat, ImportOptions, Message, Problem

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "meta"
SMALL = HERE / "facebook-samrivera-2024-03-02-older" / "messages" / "inbox" / "annaberg_10158"
FULL = HERE / "facebook-samrivera-2024-03-02"
LIA = FULL / "your_activity_across_facebook" / "messages" / "inbox" / "liamoreau_20771"
CREW = FULL / "your_activity_across_facebook" / "messages" / "inbox" / "climbingcrew_99812"
INSTAGRAM = HERE / "instagram-samrivera-2024-03-02" / "your_instagram_activity" / "messages" / "inbox" / "tombecker_17843"
NEW = HERE / "facebook-samrivera-2025-01-30" / "your_facebook_activity" / "messages"
CHLOE = NEW / "inbox" / "chloedubois_31337"
E2EE = HERE / "messenger-e2ee-2025-01-30" / "your_facebook_activity" / "messages" / "annaberg_1.json"
OWNER = ImportOptions(owner_names=["Sam Rivera"])


def read(path: Path, options: ImportOptions = OWNER) -> list:
    return list(get_importer("messenger").read(path, options))


def texts(records: list) -> list[str]:
    return [r.text for r in records if isinstance(r, Message)]


def by_text(records: list, start: str) -> Message:
    return next(r for r in records if isinstance(r, Message) and r.text.startswith(start))


def test_the_fixtures_are_what_the_builder_writes(tmp_path):
    build_messenger_small(tmp_path / "a")
    build_messenger_full(tmp_path / "b")
    build_instagram(tmp_path / "c")
    build_messenger_e2ee(tmp_path / "d")
    build_messenger_2025(tmp_path / "e")
    for ours, theirs in ((tmp_path / "a", SMALL.parents[2]), (tmp_path / "b", FULL),
                         (tmp_path / "c", INSTAGRAM.parents[3]), (tmp_path / "d", E2EE.parents[2]),
                         (tmp_path / "e", NEW.parents[1])):
        mine = sorted(p.relative_to(ours) for p in ours.rglob("*.json"))
        assert mine == sorted(p.relative_to(theirs) for p in theirs.rglob("*.json"))
        assert all((ours / p).read_text() == (theirs / p).read_text() for p in mine)


def test_mojibake_is_repaired_and_right_text_left_alone():
    assert repair(mojibake("Große Klasse, à bientôt! 🧗‍♀️")) == "Große Klasse, à bientôt! 🧗‍♀️"
    assert repair("naïve café") == "naïve café"  # already right: unchanged
    records = read(SMALL)
    assert texts(records) == ["Café at 9? ☕", "Sí, perfecto! 👍", "Schön 😀"]  # oldest first
    assert by_text(records, "Schön").reactions[0].emoji == "❤"
    assert by_text(records, "Schön").reactions[0].sender == "me"


def test_the_current_layout_over_two_files_with_every_kind():
    records = read(LIA)
    assert not [r for r in records if isinstance(r, Problem)]
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.name, chat.platform, chat.group, chat.participants) == ("Lia Moreau", "messenger", False, ["Lia Moreau"])
    messages = [r for r in records if isinstance(r, Message)]
    assert [m.text for m in messages[:3]] == ["Climbing tonight?", "Yes, 7pm", "Yes, 7pm"]  # message_2 first
    assert [m.sender for m in messages[:3]] == ["Lia Moreau", "me", "Lia Moreau"]
    assert len({m.id for m in messages}) == len(messages)
    wall = by_text(records, "Here's the wall")
    assert wall.kind == "media" and wall.attachments[0].present
    share = next(m for m in messages if m.extra.get("share"))
    assert share.extra["share"]["link"] == "https://example.org/topo" and "example.org/topo" in share.text
    calls = sorted((c.direction, c.duration) for c in records if isinstance(c, Call))
    assert calls == [("incoming", 95), ("outgoing", 0)]
    unsent = next(m for m in messages if m.deleted)
    assert unsent.text == "" and unsent.extra["notice"] == "Lia Moreau unsent a message."
    assert next(m for m in messages if m.extra.get("sticker")).kind == "media"
    last = by_text(records, "Große Klasse")
    assert [(r.emoji, r.sender) for r in last.reactions] == [("😆", "me"), ("❤", "Tom Becker")]


def test_a_group_thread_with_people_joining_and_leaving():
    records = read(CREW)
    chat = next(r for r in records if isinstance(r, Chat))
    assert chat.group and sorted(chat.participants) == ["Lia Moreau", "Tom Becker"]
    events = {m.text: m.extra.get("event") for m in records if isinstance(m, Message) and m.kind == "system"}
    assert events == {"Tom Becker joined the group.": "subscribe", "Lia Moreau left the group.": "unsubscribe"}


def test_instagram_threads_are_the_instagram_platform():
    records = read(INSTAGRAM)
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.platform, chat.name) == ("instagram", "Tom Becker")
    assert by_text(records, "Saw your post").text.endswith("🔥")
    assert any(m.extra.get("share", {}).get("original_content_owner") == "crag.daily"
               for m in records if isinstance(m, Message))


def test_the_end_to_end_encrypted_layout_one_flat_file_a_thread():
    assert get_importer("messenger").detect(E2EE)
    records = read(E2EE)
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.key, chat.name, chat.group) == ("messenger:e2ee/annaberg_1", "Anna Berg", False)
    assert texts(records) == ["Encrypted chats export too — café ☕", "", ""]
    photo = [m for m in records if isinstance(m, Message)][1]
    assert photo.kind == "media" and photo.sender == "me" and photo.reactions[0].sender == "Anna Berg"
    # media uris are relative to the file: ./media/<name>
    assert photo.attachments[0].mime_type == "image/jpeg" and photo.attachments[0].present
    assert [m.deleted for m in records if isinstance(m, Message)] == [False, False, True]


def test_the_2025_layout_media_of_every_kind_archived_and_e2ee_cutover_threads():
    records = read(CHLOE)
    assert not [r for r in records if isinstance(r, Problem)]
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.name, chat.participants) == ("Chloé Dubois", ["Chloé Dubois"])
    media = [(m.sender, [(a.name, a.mime_type, a.path is not None) for a in m.attachments])
             for m in records if isinstance(m, Message) and m.attachments]
    assert media == [
        ("Chloé Dubois", [("2291_n.mp4", "video/mp4", True)]),  # the thumbnail is not a second file
        ("me", [("audioclip1709370000.mp4", "audio/mp4", True)]),
        ("Chloé Dubois", [("dance.gif", "image/gif", True)]),
        ("me", [("topo-north-face.pdf", "application/pdf", True)])]
    calls = sorted((c.direction, c.duration, c.answered) for c in records if isinstance(c, Call))
    assert calls == [("incoming", 312, True), ("missed", 0, False)]
    assert by_text(records, "Merci").reactions[0].sender == "Chloé Dubois"
    for thread, first in (("archived_threads/bennyortiz_4242", "Old plans, archived"),
                          ("e2ee_cutover/annaberg_10158", "Before the switch to encryption")):
        found = read(NEW / thread)
        assert texts(found)[0] == first
        assert next(r for r in found if isinstance(r, Chat)).key == f"messenger:{thread.split('/')[1]}"


def test_folder_import_finds_every_thread_and_a_reimport_adds_nothing(cli, fixtures_dir):
    found = find_sources(HERE)
    assert sorted(p.name for p, _ in found) == [
        "annaberg_1.json", "annaberg_10158", "annaberg_10158", "bennyortiz_4242", "chloedubois_31337",
        "climbingcrew_99812", "liamoreau_20771", "tombecker_17843"]
    config = ("--config", str(fixtures_dir / "config.yaml"))
    first = cli.json(*config, "import", HERE)
    assert sum(r["messages"]["new"] for r in first) > 0
    again = cli.json(*config, "import", HERE, "--force")
    assert all(r["messages"]["new"] == r["messages"]["updated"] == 0 for r in again)
    platforms = {c["platform"] for c in cli.json(*config, "chats")["chats"]}
    assert {"messenger", "instagram"} <= platforms


def test_people_join_the_same_person_on_other_platforms(cli, fixtures_dir):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    cli(*config, "import", LIA)
    cli(*config, "import", fixtures_dir / "whatsapp" / "WhatsApp Chat with Lia Moreau.txt")
    lia = [p for p in cli.json(*config, "people", "--query", "Lia")["people"] if p["name"] == "Lia Moreau"]
    assert len(lia) == 1 and {"messenger", "whatsapp"} <= set(lia[0]["platforms"])


def test_sync_reads_a_thread_again_when_a_newer_download_replaces_it(cli, tmp_path):
    download = tmp_path / "facebook-samrivera-2025-01-30"
    shutil.copytree(NEW.parents[1], download)
    cli("import", tmp_path)
    thread = download / "your_facebook_activity" / "messages" / "archived_threads" / "bennyortiz_4242"
    data = json.loads((thread / "message_1.json").read_text())
    data["messages"].insert(0, {"sender_name": "Ben Ortiz", "timestamp_ms": 1709400000000,
                                "content": "Spring it is", "is_geoblocked_for_viewer": False})
    (thread / "message_1.json").write_text(json.dumps(data))
    reports = [r for r in cli.json("sync") if r["status"] != "unchanged"]
    assert [(Path(r["path"]).name, r["messages"]["new"]) for r in reports] == [("bennyortiz_4242", 1)]


def test_instagram_and_the_encrypted_download_join_people_elsewhere(cli, fixtures_dir):
    """Instagram's Tom Becker is WhatsApp's Tom Becker; the flat encrypted download's Anna Berg
    is the Anna Berg of Signal's phone export (by name: Meta gives no phone numbers)."""
    config = ("--config", str(fixtures_dir / "config.yaml"))
    cli(*config, "import", INSTAGRAM)
    cli(*config, "import", fixtures_dir / "whatsapp" / "WhatsApp Chat with Tom Becker.txt")
    cli(*config, "import", E2EE)
    cli(*config, "import", fixtures_dir / "signal" / "phone-export-small")
    tom = [p for p in cli.json(*config, "people", "--query", "Tom")["people"] if p["name"] == "Tom Becker"]
    assert len(tom) == 1 and {"instagram", "whatsapp"} <= set(tom[0]["platforms"])
    anna = [p for p in cli.json(*config, "people", "--query", "Anna")["people"] if p["name"] == "Anna Berg"]
    assert len(anna) == 1 and {"messenger", "signal"} <= set(anna[0]["platforms"])


# ------------------------------------------------------------------ hostile input


def test_odd_messages_are_reported_and_kept(tmp_path):
    folder = tmp_path / "messages" / "inbox" / "odd_1"
    folder.mkdir(parents=True)
    (folder / "message_1.json").write_text(json.dumps({"participants": [{"name": "A"}], "messages": [
        {"sender_name": "A", "timestamp_ms": "soon", "content": "when?"},
        "not a message",
        {"sender_name": "A", "timestamp_ms": 1709370000000, "content": 5},
        {"sender_name": None, "timestamp_ms": 1709370000000, "content": "ok",
         "photos": [{"uri": "../../../../etc/passwd"}], "reactions": [{"reaction": 1}]},
    ]}))
    records = read(folder)
    assert len([r for r in records if isinstance(r, Problem)]) == 3
    ok = by_text(records, "ok")
    assert ok.sender == "Facebook user" and ok.attachments[0].path is None


def test_an_odd_encrypted_download_file_is_reported_and_kept(tmp_path):
    path = tmp_path / "odd_1.json"
    path.write_text(json.dumps({"participants": ["A", 5, None], "threadName": ["not", "a", "name"], "messages": [
        {"senderName": "A", "text": "fine", "timestamp": 1709370000000, "media": [{"uri": "../../../etc/passwd"}]},
        {"senderName": "A", "text": "when?", "timestamp": "soon"},
        {"senderName": 7, "text": {"a": 1}, "timestamp": 1709370000000},
        ["not", "a", "message"],
        {"senderName": "A", "text": "gone", "timestamp": 1709370001000, "isUnsent": True, "reactions": ["x", {}]},
    ]}))
    assert get_importer("messenger").detect(path)
    records = read(path)
    assert len([r for r in records if isinstance(r, Problem)]) == 3
    fine = by_text(records, "fine")
    assert fine.attachments[0].path is None  # nothing outside the download is read
    assert next(r for r in records if isinstance(r, Chat)).name == "A"  # no title: the people
    assert [m.deleted for m in records if isinstance(m, Message)] == [False, True]


@pytest.mark.parametrize("content", ["", "{", '{"participants": []}', "[]"])
def test_a_broken_thread_file_is_one_clear_error(tmp_path, content):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "message_1.json").write_text(content)
    with pytest.raises(FormatError) as e:
        read(folder)
    assert "message_1.json" in str(e.value)


def test_odd_values_anywhere_are_problems_or_records_never_a_crash(tmp_path):
    import copy
    import random

    files = [json.loads((LIA / f"message_{i}.json").read_text()) for i in (1, 2)]
    odd = [None, 0, -1, "", "x", [], {}, 1e308, True, {"a": [1]}, "9" * 30, "\u00c3", -10**30]
    folder = tmp_path / "messages" / "inbox" / "t"
    folder.mkdir(parents=True)
    rng = random.Random(21)

    def mutate(obj, depth=0):
        if isinstance(obj, dict) and obj:
            key = rng.choice(list(obj))
            if depth > 3 or rng.random() < 0.4:
                obj[key] = copy.deepcopy(rng.choice(odd))
            else:
                mutate(obj[key], depth + 1)
        elif isinstance(obj, list) and obj:
            mutate(obj[rng.randrange(len(obj))], depth + 1)

    for _ in range(150):
        data = copy.deepcopy(files)
        for _ in range(5):
            mutate(rng.choice(data))
        for i, d in enumerate(data, 1):
            (folder / f"message_{i}.json").write_text(json.dumps(d))
        try:
            records = read(folder)
        except FormatError:
            continue  # a file that is no thread at all: one clear error
        kept = sum(1 for r in records if isinstance(r, (Message, Call, Problem)))
        assert kept == sum(len(d["messages"]) for d in data)
