"""Exports in every app language, digit system, calendar and header order import rightly.

The exports are ours (tests/build_whatsapp_languages.py writes fixtures/whatsapp-languages/);
for each, a user must get the right numbers of messages, media, deleted messages, calls and
system events, the right senders, and the right first and last local times.
"""

from __future__ import annotations

import pytest
from build_whatsapp_languages import FIXTURES, FOLDER, build
from whatsapp_helpers import local, messages, read, read_text, state_of

from chatmem.errors import FormatError
from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.importers.whatsapp_words import LANGUAGES, TABLES
from chatmem.records import Call, Message

NAMES = sorted(FIXTURES)


def summary(records: list) -> dict:
    recs = messages(records)
    msgs = [r for r in recs if isinstance(r, Message)]
    users = [m for m in msgs if m.kind != "system"]
    return {
        "messages": len(users),
        "media": sum(m.kind == "media" for m in users),
        "deleted": sum(m.deleted for m in users),
        "calls": sum(isinstance(r, Call) for r in recs),
        "system": sum(m.kind == "system" for m in msgs),
        "senders": {m.sender for m in users},
        "polls": sum("poll" in m.extra for m in users),
        "locations": sum("location" in m.extra for m in users),
        "first": local(recs[0]),
        "last": local(recs[-1]),
    }


@pytest.mark.parametrize("name", NAMES)
def test_language_fixture_imports_rightly(name: str) -> None:
    path = FOLDER / name
    assert WhatsAppImporter().detect(path), "detected as a WhatsApp export"
    expected = dict(FIXTURES[name][1])
    owner = expected.pop("owner")
    assert summary(read(path, owner_names=[owner])) == expected


@pytest.mark.parametrize("name", NAMES)
def test_language_fixture_files_match_the_builder(name: str) -> None:
    assert (FOLDER / name).read_bytes() == build()[name]


def test_every_fixture_is_in_the_builder() -> None:
    assert sorted(p.name for p in FOLDER.iterdir()) == NAMES


def test_at_least_thirty_languages_have_tables_and_fixtures() -> None:
    assert len(LANGUAGES) >= 30 and all(TABLES[code]["language"] for code in LANGUAGES)
    # Each table's "deleted" words show up in some fixture (ours or the first round's).
    texts = "\n".join(text for text, _ in FIXTURES.values())
    from build_whatsapp_fixtures import TEXT_FILES, ZIP_FILES
    texts += "\n".join(b.decode() for b in TEXT_FILES.values())
    texts += "\n".join(chat for chat, _ in ZIP_FILES.values())
    without = [code for code in LANGUAGES
               if not any(w in texts for w in TABLES[code].get("deleted", ()))]
    assert without == [], "languages without a fixture"


def test_a_contacts_unknown_placeholder_keeps_its_sender(tmp_path) -> None:
    # Issue 16: a contact's deleted message in an unknown language became a system event.
    text = ("[18/03/2022, 14:02:11] Kofi: hi\n"
            "[18/03/2022, 14:06:00] Ama: \u200eWɔayi nkra yi\n")
    recs = messages(read_text(tmp_path, text, name="chat.txt"))
    assert [(r.kind, r.sender) for r in recs] == [("text", "Kofi"), ("text", "Ama")]


def test_guessed_media_are_listed_in_the_report(tmp_path) -> None:
    text = ("18/03/2022, 14:02 - Kofi: <Nsɛm a wɔayi afi mu>\n"
            "18/03/2022, 14:03 - Kofi: Ticket.pdf (fael a wɔde aka ho)\n")
    records = read_text(tmp_path, text)
    assert [m.kind for m in messages(records)] == ["media", "media"]
    (note,) = [n for n in state_of(records).notes if "by their shape" in n]
    assert "2 bodies" in note and "line 1: '<Nsɛm a wɔayi afi mu>'" in note and "line 2" in note


def test_learned_twelve_hour_markers_need_a_flip_around_noon(tmp_path) -> None:
    # One constant word beside the time is glue, not a clock: hours stay as written.
    text = "18/3/22, 9:15 saa - A: a\n18/3/22, 21:15 saa - A: b\n"
    assert [local(r) for r in messages(read_text(tmp_path, text))] == [
        "2022-03-18T09:15:00", "2022-03-18T21:15:00"]


def test_no_header_error_shows_the_lines_tried_and_names_date_format(tmp_path) -> None:
    with pytest.raises(FormatError) as err:
        read_text(tmp_path, "Log of 2022\nAnna said hi\n", name="notes.txt")
    message = str(err.value)
    assert "line 1: 'Log of 2022'" in message and "line 2: 'Anna said hi'" in message
    assert "--date-format" in message


def test_date_format_can_spell_out_a_whole_header(tmp_path) -> None:
    text = "18|03|2022 @ 14h02 -- Anna: hi\n19|03|2022 @ 08h00 -- Ben: yo\n"
    records = read_text(tmp_path, text, date_format="dd|mm|yyyy @ HHhMM -- ")
    assert [(local(r), r.sender, r.text) for r in messages(records)] == [
        ("2022-03-18T14:02:00", "Anna", "hi"), ("2022-03-19T08:00:00", "Ben", "yo")]


def test_the_readme_date_format_example_reads_the_learned_layout() -> None:
    path = FOLDER / "WhatsApp Chat with Goran.txt"
    learned = summary(read(path))
    spelled = summary(read(path, date_format="dd. m. yyyy. HH:MM:ss "))
    assert spelled == learned and spelled["first"] == "2022-03-18T14:02:11"


def test_cli_names_date_format_for_an_export_it_cannot_read(cli, tmp_path) -> None:
    path = tmp_path / "WhatsApp Chat with Goran.txt"
    path.write_text("Log of 2022\nAnna said hi\n")
    result = cli("import", path, expect=None)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "line 1: 'Log of 2022'" in result.output and "--date-format" in result.output


def test_cli_imports_every_language_fixture(cli) -> None:
    reports = cli.json("import", FOLDER)
    assert len(reports) == len(NAMES) and {r["platform"] for r in reports} == {"whatsapp"}
    assert sum(r["messages"]["new"] for r in reports) == sum(
        e["messages"] + e["system"] for _, e in FIXTURES.values())
    assert all(r["unparsed"] == 0 for r in reports)


def test_learned_markers_are_not_resumed_from(tmp_path) -> None:
    # A checkpoint is written every 1,000 messages; with markers only this file defines, the
    # next import reads it whole (its new part could change what the markers mean).
    lines = [f"18/3/22, {1 + i % 11}:{i % 60:02d} {'xx' if i % 2 else 'yy'} - A: m{i}"
             for i in range(1200)]
    plain = [line.replace(" xx", " AM").replace(" yy", " PM") for line in lines]
    learned = state_of(read_text(tmp_path, "\n".join(lines) + "\n", name="a.txt"))
    known = state_of(read_text(tmp_path, "\n".join(plain) + "\n", name="b.txt"))
    assert known.state["resume"] and not learned.state["resume"]


def test_system_event_patterns_are_tried_in_one_order_however_far_earlier_lines_got() -> None:
    """The patterns are compiled the first time a line gets that far; a line classified while
    another search is half-way, or after one that stopped early, is tried against the same
    patterns in the same order as if all had been compiled up front."""
    from chatmem.importers import whatsapp_events
    from chatmem.importers.whatsapp_words import LazyPatterns

    sources = whatsapp_events._COMPILED.sources
    eager = [(event, make(), me) for event, make, me in sources]
    lazy = LazyPatterns(sources)
    first = iter(lazy)
    started = [next(first) for _ in range(3)]
    assert lazy[-1] == eager[-1]  # one looked up by position, out of order
    assert list(lazy) == eager
    assert started + list(first) == eager
    assert lazy[5:8] == eager[5:8] and len(lazy) == len(eager) > 400


def test_system_lines_of_several_languages_in_one_fresh_process(tmp_path) -> None:
    """A fresh process that meets an English line first (only the first patterns compiled),
    then lines only the later patterns know, classifies each as an up-front compile would."""
    import subprocess
    import sys

    script = (
        "from chatmem.importers.whatsapp_events import classify_event as c\n"
        "for t in ['Anna added Ben', 'Du hast Ben Ortiz hinzugefügt', 'Anna Berg changed the "
        "subject from \"Hike\" to \"Hike 2024\"', 'no event here at all', 'Anna added Ben']:\n"
        "    e = c(t); print(e and (e.event, e.actor, e.actor_is_you, e.obj, e.old, e.new))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "('added', 'Anna', False, 'Ben', '', '')",
        "('added', 'Du', True, 'Ben Ortiz', '', '')",
        "('subject', 'Anna Berg', False, '', 'Hike', 'Hike 2024')",
        "None",
        "('added', 'Anna', False, 'Ben', '', '')",
    ]
