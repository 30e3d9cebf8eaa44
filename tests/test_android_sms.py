"""Android SMS/MMS and calls from SMS Backup & Restore XML, issue 21 part 3."""

from __future__ import annotations

import base64
import tracemalloc
from pathlib import Path

import pytest
from android_sms_builders import HEADER, build_full, build_small

from chatmem.errors import FormatError
from chatmem.importers import find_sources, get_importer
from chatmem.records import Call, Chat, ImportOptions, Message, Problem, SourceState

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "android"
SMALL = HERE / "small" / "sms-20240302110000.xml"
FULL_SMS = HERE / "sms-20240302120000.xml"
FULL_CALLS = HERE / "calls-20240302120000.xml"
OWNER = ImportOptions(owner_handles=["+15550100000"])


def read(path: Path, options: ImportOptions = OWNER) -> list:
    return list(get_importer("sms").read(path, options))


def by_text(records: list, start: str) -> Message:
    return next(r for r in records if isinstance(r, Message) and r.text.startswith(start))


def test_the_fixtures_are_what_the_builder_writes(tmp_path):
    assert build_small(tmp_path / "small").read_text() == SMALL.read_text()
    sms, calls = build_full(tmp_path)
    assert sms.read_text() == FULL_SMS.read_text() and calls.read_text() == FULL_CALLS.read_text()


def test_sms_and_mms_of_every_kind():
    records = read(FULL_SMS)
    assert not [r for r in records if isinstance(r, Problem)]
    chats = {r.name: r for r in records if isinstance(r, Chat)}
    assert set(chats) == {"Anna Berg", "Ben Ortiz", "GOOGLE", "+15559998888", "Anna Berg, Ben Ortiz"}
    assert chats["Anna Berg, Ben Ortiz"].group and not chats["Anna Berg"].group
    anna = chats["Anna Berg"].id
    first = by_text(records, "Are we still on")
    assert (first.sender, first.sender_handle, first.chat_id) == ("Anna Berg", "+1 555-010-0001", anna)
    assert by_text(records, "Yes! Trailhead").sender == "me"
    assert by_text(records, "Draft I never sent").extra["status"] == "draft"
    assert by_text(records, "This one failed").extra["status"] == "failed"
    assert by_text(records, "Unknown number says hi & <waves>\nsecond line").sender == "+15559998888"
    # MMS: the picture (kept as name, type and size: its bytes are inside the backup), the text
    view = by_text(records, "The view from the top")
    assert view.kind == "media" and view.chat_id == anna
    assert [(a.name, a.mime_type, a.size) for a in view.attachments] == [("IMG_0042.jpg", "image/jpeg", 1028)]
    assert by_text(records, "Route map attached").extra["subject"] == "Saturday"
    # a group MMS: one chat whatever the order of its numbers; the owner is not a member
    group = chats["Anna Berg, Ben Ortiz"].id
    assert {by_text(records, t).chat_id for t in ("Hi all", "Hello group!", "Count me in")} == {group}
    assert [by_text(records, t).sender for t in ("Hi all", "Hello group!", "Count me in")] == [
        "Anna Berg", "me", "Ben Ortiz"]
    # the same group as another phone writes it (no "+", no names): the same chat
    other = by_text(records, "Same group, other spelling")
    assert (other.chat_id, other.sender, other.sender_handle) == (group, "15550100002", "15550100002")
    # a received SMS keeps when the sender's phone sent it; a sent one has none (date_sent="0")
    assert by_text(records, "Are we still on").extra["date_sent"] == "2024-03-02T08:59:54+00:00"
    assert "date_sent" not in by_text(records, "Yes! Trailhead").extra
    card = next(m for m in records if isinstance(m, Message) and m.attachments
                and m.attachments[0].mime_type == "text/x-vCard")
    assert (card.chat_id, card.attachments[0].name, card.text) == (anna, "contact000000.vcf", "")
    never = [m for m in records if isinstance(m, Message) and m.extra.get("status") == "not downloaded"]
    assert [(m.sender, m.text) for m in never] == [("Ben Ortiz", "")]
    notes = next(r for r in records if isinstance(r, SourceState)).notes
    assert notes[0] == "SMS Backup & Restore: 7 SMS, 8 MMS, 0 call(s)"


def test_without_owner_handles_the_owner_number_is_learned_from_a_sent_mms():
    records = read(FULL_SMS, ImportOptions())
    groups = [r for r in records if isinstance(r, Chat) and r.group]
    assert [(g.name, sorted(g.handles)) for g in groups] == [
        ("Anna Berg, Ben Ortiz", ["+1 555-010-0001", "+15550100002"])]
    assert by_text(records, "Hello group!").sender == "me"
    notes = next(r for r in records if isinstance(r, SourceState)).notes
    assert any("+15550100000" in n and "owner.handles" in n for n in notes)


def test_date_sent_is_read_in_ms_on_sms_and_in_seconds_on_mms(tmp_path):
    path = tmp_path / "sms-times.xml"
    path.write_text(HEADER + '<smses count="2">\n'
                    '<sms address="+15550100001" date="1709370000000" date_sent="1709369990000" type="1" body="a" />\n'
                    '<mms date="1709370060000" date_sent="1709370055" msg_box="1" address="+15550100001">'
                    '<parts><part seq="0" ct="text/plain" text="b" /></parts>'
                    '<addrs><addr address="+15550100001" type="137" /></addrs></mms>\n</smses>\n')
    records = read(path)
    assert by_text(records, "a").extra["date_sent"] == "2024-03-02T08:59:50+00:00"
    assert by_text(records, "b").extra["date_sent"] == "2024-03-02T09:00:55+00:00"


def test_the_call_log():
    records = read(FULL_CALLS)
    calls = [(c.direction, c.duration, c.answered) for c in records if isinstance(c, Call)]
    assert calls == [("incoming", 95, True), ("outgoing", 30, None), ("missed", 0, False),
                     ("missed", 0, False), ("missed", 12, False), ("missed", 0, False),
                     ("incoming", 240, True),  # type 7: answered on another device
                     ("incoming", 15, True)]
    chats = [r.name for r in records if isinstance(r, Chat)]
    assert chats == ["Anna Berg", "Ben Ortiz", "Lia Moreau", "+15559998888", "Private number"]


def test_a_newer_backup_adds_only_what_is_new_and_calls_join_the_chats(cli, fixtures_dir):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    first = cli.json(*config, "import", SMALL)
    assert first[0]["messages"]["new"] == 3
    later = cli.json(*config, "import", HERE)
    assert sum(r["messages"]["new"] for r in later) == 15 - 3  # the small backup's three are known
    assert sum(r["calls"]["new"] for r in later) == 8
    again = cli.json(*config, "import", HERE, "--force")
    assert all(r["messages"]["new"] == r["messages"]["updated"] == 0 for r in again)
    chats = {c["chat"]: c for c in cli.json(*config, "chats", "--platform", "sms")["chats"]}
    assert chats["Anna Berg"]["messages"] == 6
    people = cli.json(*config, "people", "--query", "Anna")["people"]
    assert [p["name"] for p in people if "sms" in p["platforms"]] == ["Anna Berg"]


def test_sync_reads_a_backup_again_when_the_app_overwrites_it(cli, tmp_path):
    """The app can keep one file name and overwrite it each night: sync reads what is new."""
    path = tmp_path / "SMSBackupRestore" / "sms.xml"
    build_small(path.parent).rename(path)
    cli("import", path.parent)
    text = path.read_text().replace('count="3"', 'count="4"').replace(
        "</smses>", '  <sms protocol="0" address="+1 555-010-0001" date="1709400000000" type="1" '
                    'body="See you there" contact_name="Anna Berg" />\n</smses>')
    path.write_text(text)
    assert [r["messages"]["new"] for r in cli.json("sync")] == [1]


def test_people_join_the_same_person_on_other_platforms(cli, fixtures_dir):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    cli(*config, "import", FULL_SMS)
    cli(*config, "import", fixtures_dir / "imessage" / "chat.db")
    anna = [p for p in cli.json(*config, "people", "--query", "Anna")["people"] if p["name"] == "Anna Berg"]
    assert len(anna) == 1 and {"sms", "imessage"} <= set(anna[0]["platforms"])


def test_folder_import_finds_both_files():
    found = find_sources(HERE)
    assert sorted((p.name, i.platform) for p, i in found) == [
        ("calls-20240302120000.xml", "sms"), ("sms-20240302110000.xml", "sms"),
        ("sms-20240302120000.xml", "sms")]


def test_a_large_backup_is_streamed_not_loaded(tmp_path):
    path = tmp_path / "sms-big.xml"
    blob = base64.b64encode(bytes(range(256)) * 40).decode()  # ~14 KB of base64 per MMS
    with path.open("w") as f:
        f.write(HEADER + '<smses count="2000">\n')
        for i in range(2000):
            f.write(f'<mms date="{1709370000000 + i * 1000}" msg_box="1" address="+15550100001" '
                    f'contact_name="Anna Berg"><parts><part seq="0" ct="image/jpeg" name="p{i}.jpg" '
                    f'data="{blob}" /><part seq="0" ct="text/plain" text="picture {i}" /></parts>'
                    f'<addrs><addr address="+15550100001" type="137" /></addrs></mms>\n')
        f.write("</smses>\n")
    size = path.stat().st_size
    tracemalloc.start()
    count = 0
    for r in get_importer("sms").read(path, OWNER):
        count += isinstance(r, Message)
        del r
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 2000
    assert peak < size / 4  # a 28 MB file read in a few MB


# ------------------------------------------------------------------ hostile input


def test_a_cut_off_backup_is_one_clear_error_and_nothing_is_stored(cli, tmp_path):
    path = tmp_path / "sms-cut.xml"
    text = FULL_SMS.read_text()
    path.write_text(text[: len(text) // 2])
    out = cli("import", path, expect=None)
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert str(path) in out.output and "line" in out.output
    assert cli.json("chats")["chats"] == []


def test_odd_elements_are_reported_and_kept(tmp_path):
    path = tmp_path / "sms-odd.xml"
    path.write_text(HEADER + '<smses count="4">\n'
                    '<sms address="+15550100001" date="soon" type="1" body="when?" />\n'
                    '<sms address="+15550100001" date="1709370000000" type="1" body="fine" />\n'
                    '<rcs date="1709370000000" body="a newer kind" />\n'
                    '<mms date="99999999999999999999999" msg_box="1" address="" />\n'
                    "</smses>\n")
    records = read(path)
    problems = [r for r in records if isinstance(r, Problem)]
    assert len(problems) == 3 and all(p.text for p in problems)
    assert by_text(records, "fine").sender == "+15550100001"


@pytest.mark.parametrize("content", ["<smses><sms", "<calls count='1'><call date='1' type='1' number='1'/>",
                                     "<html></html>"])
def test_broken_files_are_one_clear_error(tmp_path, content):
    path = tmp_path / "sms-x.xml"
    path.write_text(content)
    with pytest.raises(FormatError) as e:
        read(path)
    assert str(path) in str(e.value)


def test_a_message_keeps_its_element_as_elementtree_writes_it():
    """The raw text kept of each <sms> is ElementTree's own serialisation without the blank
    after the element, character for character (it is what a re-import compares), whatever
    the attribute values hold."""
    import random
    import xml.etree.ElementTree as ET

    from chatmem.importers.android_sms import _serialized

    rng = random.Random(17)
    alphabet = ['&', '<', '>', '"', "'", "\r", "\n", "\t", " ", "a", "é", "👍", "&amp;", "\u2028"]
    for _ in range(300):
        attrs = {f"k{i}": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
                 for i in range(rng.randint(0, 4))}
        e = ET.Element(rng.choice(["sms", "call", "mms"]), attrs)
        e.tail = rng.choice([None, "", "\n  ", " x "])
        if rng.random() < 0.2:
            ET.SubElement(e, "part", {"text": "hi"})
        tail = e.tail
        written = _serialized(e)
        assert e.tail == tail  # the element is left as it was
        e.tail = None
        assert written == ET.tostring(e, encoding="unicode")
