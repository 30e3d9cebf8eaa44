"""signal-export output: the generated corpus sample, our fixture, odd lines, ids."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from chatmem.errors import FormatError
from chatmem.importers import detect
from chatmem.importers.signal import SignalImporter
from chatmem.records import OWNER, Call, Chat, ImportOptions, Message, Problem
from chatmem.store.media import read_bytes

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "fixtures" / "signal" / "sigexport"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "signal" / "sigexport_generated"
BERLIN = ZoneInfo("Europe/Berlin")


def read(path: Path, **options) -> list:
    return list(SignalImporter().read(path, ImportOptions(**options)))


def of(records: list, kind: type) -> list:
    return [r for r in records if isinstance(r, kind)]


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


def test_generated_corpus_sample(corpus):
    assert isinstance(detect(corpus), SignalImporter)
    records = read(corpus)  # generated with TZ=UTC
    (chat,) = of(records, Chat)
    assert (chat.key, chat.name, chat.group) == ("sigexport:Eeeee", "Eeeee", False)
    messages, calls = of(records, Message), of(records, Call)
    assert len(messages) == 4 and len(calls) == 1 and not of(records, Problem)
    assert [(m.sender, m.text) for m in messages] == [
        (OWNER, "Photo caption"),
        ("Eeeee", ""),
        ("Eeeee", ""),
        (OWNER, "Edited message, final version"),
    ]
    assert messages[0].sent_at == datetime(2023, 6, 5, 12, 20, 43, 288000, tzinfo=timezone.utc)
    assert [a.name for a in messages[0].attachments] == ["my-photo.jpg"]
    assert [a.mime_type for a in messages[2].attachments] == ["video/mp4", "video/mp4"]
    assert all(m.kind == "media" for m in messages[:3])
    (call,) = calls
    assert (call.direction, call.media, call.answered, call.peer) == (
        "outgoing", "voice", True, "Eeeee"
    )
    assert messages[0].raw.startswith('{"date": "2023-06-05T12:20:43.288000"')


def test_times_are_read_in_the_configured_zone_and_ids_do_not_depend_on_it(corpus):
    utc_run = of(read(corpus), Message)
    berlin_run = of(read(corpus, timezone=BERLIN), Message)
    assert [m.id for m in utc_run] == [m.id for m in berlin_run]
    assert berlin_run[0].sent_at.utcoffset().total_seconds() == 7200  # CEST in June
    assert utc_run[0].sent_at - berlin_run[0].sent_at == berlin_run[0].sent_at.utcoffset()


def test_our_fixture(tmp_path):
    records = read(FIXTURE, timezone=BERLIN, owner_names=["Sam Rivera"])
    chats = {c.name: c for c in of(records, Chat)}
    assert set(chats) == {"Anna Berg", "Hiking Club"}
    assert not chats["Anna Berg"].group and chats["Hiking Club"].group
    assert chats["Hiking Club"].participants == ["Anna Berg", "Ben Ortiz"]

    messages = of(records, Message)
    by_id = {m.id: m for m in messages}
    assert [(by_id[m.reply_to].text, m.text) for m in messages if m.reply_to] == [
        ("Yes! Trailhead at 9.", "Perfect, I'll bring coffee ☕"),
        ("Hi all 👋", "Hello!"),
    ]
    assert [m.extra["quote"] for m in messages if "quote" in m.extra] == [
        {"text": "an older message"}
    ]
    reactions = [(m.text, r.sender, r.emoji) for m in messages for r in m.reactions]
    assert reactions == [
        ("Yes! Trailhead at 9.", "Anna Berg", "👍"),
        ("The view from the top", OWNER, "😍"),  # the owner appears by name: config maps it
        ("Hi all 👋", "Ben Ortiz", "😂"),
        ("Hi all 👋", OWNER, "👍"),
    ]
    (deleted,) = [m for m in messages if m.deleted]
    assert deleted.sender == "Anna Berg" and deleted.text == ""

    photo = next(m for m in messages if m.text == "The view from the top")
    (jpg,) = photo.attachments
    assert (jpg.name, jpg.mime_type) == ("trail.jpg", "image/jpeg")
    assert jpg.present and read_bytes(jpg.path) == (
        FIXTURE / "Anna Berg" / "media" / "2024-03-02T10-30-00.000_00_trail.jpg").read_bytes()
    route = next(m for m in messages if m.text == "Route map attached")
    assert [(a.name, a.path) for a in route.attachments] == [("route.pdf", None)]  # not exported
    assert photo.sent_at == datetime(2024, 3, 2, 9, 30, tzinfo=timezone.utc)  # 10:30 in Berlin

    calls = of(records, Call)
    assert [(c.direction, c.media, c.duration, c.answered) for c in calls] == [
        ("incoming", "voice", 95, True),
        ("missed", "video", None, False),
    ]
    # the same (time, sender, text) twice gets two ids, in file order
    hellos = [m for m in messages if m.text == "Hello!"]
    assert len(hellos) == 2 and hellos[0].id != hellos[1].id


def test_rereading_gives_identical_ids():
    first, second = read(FIXTURE), read(FIXTURE)
    assert [getattr(r, "id", None) for r in first] == [getattr(r, "id", None) for r in second]


def test_one_chat_folder_alone_is_an_export_too():
    chat = FIXTURE / "Hiking Club"
    assert SignalImporter().detect(chat)
    whole = {m.id for m in of(read(FIXTURE), Message)}
    assert {m.id for m in of(read(chat), Message)} <= whole


def test_a_bad_line_is_reported_and_the_rest_imported(tmp_path):
    chat = tmp_path / "Anna Berg"
    shutil.copytree(FIXTURE / "Anna Berg", chat)
    lines = (chat / "data.json").read_text(encoding="utf-8").splitlines()
    lines.insert(2, '{"date": "2024-03-02T10:02:00", "sender": "Anna Berg", "body": "cut off')
    lines.insert(4, '["not", "a", "message"]')
    (chat / "data.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = read(chat)
    problems = of(records, Problem)
    data = str(chat / "data.json")
    assert [(p.line, p.where) for p in problems] == [(3, data), (5, data)]
    assert problems[0].text.endswith('"cut off') and problems[0].chat_id == of(records, Chat)[0].id
    assert len(of(records, Message)) + len(of(records, Call)) == 7


def test_merging_into_a_named_chat(tmp_path):
    records = read(FIXTURE / "Anna Berg", chat="Anna B.")
    (chat,) = of(records, Chat)
    assert (chat.name, chat.key) == ("Anna B.", "sigexport:Anna B.")


def test_a_folder_without_chats_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    assert not SignalImporter().detect(tmp_path / "empty")
    with pytest.raises(FormatError, match="not a Signal export"):
        read(tmp_path / "empty")
