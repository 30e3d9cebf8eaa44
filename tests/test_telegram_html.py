"""Telegram Desktop's HTML export, the app's default format (messages.html, messages2.html ... in
a ChatExport_<date> folder, or chats/chat_NNN/ of an account export): import, then search and
read what a user wrote; ids stable across exports; bad pages refused with one line."""

from __future__ import annotations

import filecmp
import shutil
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from telegram_html_builders import (
    LIA,
    SAM,
    Msg,
    build_html_account_export,
    build_html_chat_export,
    page,
    reply,
    text,
)

from chatmem.errors import FormatError
from chatmem.importers import find_sources, get_importer
from chatmem.importers.telegram.html_page import parse_title
from chatmem.records import Call, Chat, Contact, ImportOptions, Message, Problem, SourceState

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "telegram-html"
CHAT = HERE / "ChatExport_2024-07-02"
ACCOUNT = HERE / "DataExport_2024-07-02"
BERLIN = ZoneInfo("Europe/Berlin")


def read(path: Path, **options) -> list:
    options.setdefault("timezone", BERLIN)
    return list(get_importer("telegram").read(path, ImportOptions(**options)))


def by_text(records: list, start: str) -> Message:
    return next(r for r in records if isinstance(r, Message) and r.text.startswith(start))


def notes(records: list) -> list[str]:
    return next(r for r in records if isinstance(r, SourceState)).notes


def test_the_fixtures_are_what_the_builder_writes(tmp_path):
    for build, fixture in ((build_html_chat_export, CHAT), (build_html_account_export, ACCOUNT)):
        built = build(tmp_path / fixture.name)
        mine = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
        assert mine == sorted(p.relative_to(fixture) for p in fixture.rglob("*") if p.is_file())
        assert all(filecmp.cmp(built / p, fixture / p, shallow=False) for p in mine)


def test_a_chat_over_two_pages_with_every_kind_of_message():
    records = read(CHAT)
    assert not [r for r in records if isinstance(r, Problem)]
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.name, chat.group, chat.participants) == (LIA, False, [LIA])
    # the owner is the sender who is not the chat (no owner names given), and the note says so
    assert by_text(records, "Yes! 7pm works").sender == "me"
    assert any("owner taken to be 'Sam Rivera'" in n for n in notes(records))
    # a joined message has no sender of its own: the previous one continues, across pages too
    assert by_text(records, "Bring the big rope").sender == LIA
    assert by_text(records, "That one was too big").sender == LIA
    # formatting dropped, line breaks kept, entities decoded, links kept
    assert by_text(records, "Yes! 7pm works").text == "Yes! 7pm works\nI'll book the wall"
    links = by_text(records, "Route info")
    assert links.text == "Route info: https://example.org/topo and the gym"
    assert links.extra["links"] == ["https://example.org/topo", "https://example.org/gym"]
    # replies: on the same page, and to a message on the page before
    first = by_text(records, "Climbing on Saturday")
    assert by_text(records, "Yes! 7pm works").reply_to == first.id
    assert by_text(records, "Booked for 7pm").reply_to == by_text(records, "Yes! 7pm works").id
    # a service message: its text, the actor, the pinned message, the time of the one before it
    pinned = by_text(records, "Lia Moreau pinned")
    assert (pinned.kind, pinned.sender, pinned.reply_to) == ("system", LIA, links.id)
    assert pinned.sent_at == links.sent_at
    # forwarded, via a bot
    assert by_text(records, "Forwarding this").extra["forwarded_from"] == "Tom Becker"
    assert by_text(records, "party parrot").extra["via_bot"] == "@gif"


def test_media_files_polls_places_contacts_and_calls():
    records = read(CHAT)
    media = [r for r in records if isinstance(r, Message) and r.kind == "media"]
    present = {a.name: a for r in media for a in r.attachments if a.present}
    assert set(present) == {"photo_1@02-03-2024_10-30-00.jpg", "route.pdf", "audio_1@02-03-2024_10-42-00.ogg",
                            "sticker.webp", "file_1@02-03-2024_11-00-00.mp4"}
    assert present["route.pdf"].size == (CHAT / "files" / "route.pdf").stat().st_size
    assert by_text(records, "The crag from").attachments[0].mime_type == "image/jpeg"
    voice = next(r for r in media if r.extra.get("voice_note"))
    assert voice.extra["duration_seconds"] == 7
    assert next(r for r in media if r.extra.get("media_type") == "video_message").extra["duration_seconds"] == 5
    left_out = next(r for r in media if r.extra.get("media_type") == "video_file")
    assert left_out.attachments[0].present is False and left_out.attachments[0].path is None
    assert any("1 media file(s) not included" in n for n in notes(records))
    poll = by_text(records, "Which crag next?").extra["poll"]
    assert poll["options"] == [{"text": "Frankenjura", "votes": 2}, {"text": "Elbsandstein", "votes": 1}]
    place = by_text(records, "Location:").extra["location"]
    assert (place["latitude"], place["longitude"]) == (49.6512, 11.3891)
    assert by_text(records, "Contact: Tom Becker").extra["contact"]["phones"] == ["+49 151 2345678"]
    calls = sorted((c for c in records if isinstance(c, Call)), key=lambda c: c.started_at)
    assert [(c.direction, c.duration, c.answered) for c in calls] == [("incoming", 34, True), ("outgoing", None, False)]


def test_date_titles_of_every_app_version():
    # the newest titles carry the zone's standard offset, summer or not: in the configured zone
    # a July "14:03:22 UTC+01:00" in Berlin is 12:03:22 UTC
    summer = by_text(read(CHAT), "Summer session")
    assert summer.sent_at.astimezone(timezone.utc) == datetime(2024, 7, 2, 12, 3, 22, tzinfo=timezone.utc)
    # another zone than the configured one: the written offset is taken as it is
    assert parse_title("02.07.2024 14:03:22 UTC+03:00", BERLIN).astimezone(timezone.utc).hour == 11
    assert parse_title("02.07.2024 14:03:22 UTC-06:00", BERLIN).astimezone(timezone.utc).hour == 20
    # titles without a zone (2018-2023) and the first exporter's year-first ones: configured zone
    account = read(ACCOUNT)
    hallo = by_text(account, "Hallo zusammen")
    assert hallo.sent_at.astimezone(timezone.utc) == datetime(2023, 10, 28, 16, 1, tzinfo=timezone.utc)
    privet = by_text(account, "Привет, Сэм")
    assert privet.sent_at.astimezone(timezone.utc) == datetime(2018, 9, 14, 17, 30, tzinfo=timezone.utc)
    assert parse_title("Saturday", BERLIN) is None and parse_title("31.02.2024 10:00:00", BERLIN) is None


def test_an_account_export_with_its_lists_and_foreign_languages():
    records = read(ACCOUNT)
    assert not [r for r in records if isinstance(r, Problem)]
    chats = {r.name: r for r in records if isinstance(r, Chat)}
    assert set(chats) == {LIA, "Wanderfreunde", "Дмитрий Волков"}  # the channel has no messages
    assert chats["Wanderfreunde"].group and not chats["Дмитрий Волков"].group
    assert chats["Wanderfreunde"].participants == ["Anna Berg", "Jonas Keller", "Lena Vogt"]
    assert [(c.name, c.phones) for c in records if isinstance(c, Contact)] == [
        (LIA, ["+49 151 1111111"]), ("Tom Becker", ["+49 151 2345678"])]
    # the owner from export_results.html: no guess needed
    assert by_text(records, "Ich auch").sender == "me" and by_text(records, "Погода была").sender == "me"
    assert not any("owner taken to be" in n for n in notes(records))
    # a service message under a date heading takes the time of the message after it
    invited = by_text(records, "Jonas Keller invited Lena Vogt")
    assert invited.sender == "Jonas Keller" and invited.extra["time_from"] == "next"
    assert invited.sent_at == by_text(records, "Danke für die Einladung").sent_at
    assert by_text(records, f"{SAM} created group").sender == "me"


def test_ids_are_the_same_in_a_chat_export_and_an_account_export():
    alone = {r.guid: r.id for r in read(CHAT) if isinstance(r, Message)}
    account = {r.guid: r.id for r in read(ACCOUNT) if isinstance(r, Message)}
    assert alone and all(account[g] == i for g, i in alone.items())
    files = {a.name for r in read(ACCOUNT) if isinstance(r, Message) for a in r.attachments if a.present}
    assert "route.pdf" in files  # "../../chats/chat_003/files/route.pdf" from the chat's page


def test_import_then_search_and_read_back(cli, fixtures_dir, tmp_path):
    config = ("--config", str(fixtures_dir / "config.yaml"))
    export = tmp_path / "Telegram Desktop" / "ChatExport_2024-07-02"
    shutil.copytree(CHAT, export)
    report = cli.json(*config, "import", export)
    assert report[0]["status"] == "ok" and report[0]["messages"]["new"] == 20
    found = cli.json(*config, "search", "rope")["results"]
    assert [(r["chat"], r["sender"], r["platform"]) for r in found] == [(LIA, LIA, "telegram")]
    context = cli.json(*config, "context", found[0]["id"], "--before", "1", "--after", "1")["messages"]
    assert [m["content"] for m in context] == [
        "Lia Moreau: Climbing on Saturday? The new gym opens 🧗",
        "Lia Moreau: Bring the big rope, the routes are long",
        "me: Yes! 7pm works\nI'll book the wall"]
    raw = cli.json(*config, "raw", found[0]["id"])
    assert 'class="message default clearfix joined"' in raw["content"]
    # an unchanged export is skipped; the same chat in an account export adds nothing new to it
    again = cli.json(*config, "import", export)
    assert again[0]["status"] == "unchanged"
    account = cli.json(*config, "import", ACCOUNT)
    assert account[0]["messages"]["new"] == 10  # the German and Russian chats only
    assert cli.json(*config, "search", "Käsebrötchen")["results"][0]["chat"] == "Wanderfreunde"
    assert cli.json(*config, "search", "поход")["results"][0]["chat"] == "Дмитрий Волков"


@pytest.mark.parametrize("where", ["folder", "page", "parent", "platform"])
def test_the_export_is_found_however_it_is_named(cli, tmp_path, where):
    export = tmp_path / "Telegram Desktop" / "ChatExport_2024-07-02"
    shutil.copytree(CHAT, export)
    path = {"folder": export, "page": export / "messages.html", "parent": export.parent,
            "platform": export.parent}[where]
    sources = find_sources(path, "telegram" if where == "platform" else None)
    # (--platform over a folder finds the chat's folder, as a search without it does)
    named = "messages.html" if where == "page" else export.name
    assert [(p.name, i.platform) for p, i in sources] == [(named, "telegram")]
    cli("import", path, *(["--platform", "telegram"] if where == "platform" else []))
    assert "rope" in cli("search", "rope").output


def test_a_later_page_that_changed_is_read_when_the_platform_is_named_over_a_parent(cli, tmp_path):
    # the source is the chat's folder, so the unchanged check covers every page, not the first
    export = tmp_path / "Telegram Desktop" / "ChatExport_2024-07-02"
    shutil.copytree(CHAT, export)
    first = cli.json("import", export.parent, "--platform", "telegram")
    assert first[0]["messages"]["new"] == 20
    page2 = export / "messages2.html"
    page2.write_text(page2.read_text(encoding="utf-8").replace("Booked for 7pm, see above",
                                                               "Booked for 8pm now, see above"), encoding="utf-8")
    again = cli.json("import", export.parent, "--platform", "telegram")
    assert again[0]["status"] != "unchanged" and again[0]["messages"]["updated"] == 1
    assert "8pm now" in cli("search", "8pm").output


def test_an_export_in_both_formats_is_read_from_its_json(cli, tmp_path):
    export = tmp_path / "ChatExport_2024-03-02"
    shutil.copytree(CHAT, export)
    (export / "result.json").write_text(
        '{"name": "Wanderfreunde", "type": "private_group", "id": 42, "messages": [{"id": 7, '
        '"type": "message", "date": "2024-03-02T10:00:00", "date_unixtime": "1709370000", '
        '"from": "Anna Berg", "from_id": "user1001", "text": "Hallo zusammen!"}]}', encoding="utf-8")
    assert [p.name for p, _ in find_sources(export)] == ["result.json"]
    cli("import", export)
    assert "Hallo zusammen" in cli("search", "zusammen").output
    assert "rope" not in cli("search", "rope").output


def write_chat(folder: Path, *pages: str) -> Path:
    folder.mkdir(parents=True)
    for n, html in enumerate(pages, 1):
        (folder / ("messages.html" if n == 1 else f"messages{n}.html")).write_text(html, encoding="utf-8")
    return folder


T = datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc)


def test_an_odd_message_is_reported_and_kept_raw(cli, tmp_path):
    good = Msg(1, T, LIA, text("Fine message"))
    odd = Msg(2, T, LIA, text("A message whose time is unreadable"))
    html = page(LIA, [good, odd]).replace('title="02.03.2024 10:00:00 UTC+01:00">\n10:00\n       </div>\n'
                                          '\n       <div class="from_name">\nLia Moreau\n       </div>\n'
                                          '\n       <div class="text">\nA message',
                                          'title="sometime">\n10:00\n       </div>\n'
                                          '\n       <div class="from_name">\nLia Moreau\n       </div>\n'
                                          '\n       <div class="text">\nA message')
    folder = write_chat(tmp_path / "ChatExport", html)
    records = read(folder)
    problem = next(r for r in records if isinstance(r, Problem))
    assert problem.where.endswith("messages.html") and problem.line and "readable time" in problem.reason
    assert "A message whose time is unreadable" in problem.text
    result = cli.json("import", folder)
    assert result[0]["unparsed"] == 1 and result[0]["messages"]["new"] == 1
    shown = result[0]["chats"][0]["first_problems"]
    assert [(p["line"], p["where"]) for p in shown] == [(problem.line, str(folder / "messages.html"))]
    assert "readable time" in shown[0]["reason"] and 'id="message2"' in shown[0]["text"]


def test_a_reply_to_a_message_the_export_does_not_hold_keeps_its_id(tmp_path):
    folder = write_chat(tmp_path / "ChatExport", page(LIA, [Msg(5, T, SAM, reply(3) + text("As I said"))]))
    said = by_text(read(folder, owner_names=[SAM]), "As I said")
    assert said.reply_to is None and said.extra["reply_to_message"] == {"id": 3, "chat": None}


@pytest.mark.parametrize("damage, says", [
    (lambda b: b[: len(b) // 2], "stops before its end"),
    (lambda b: b.replace(b"Climbing", b"Cl\xffmbing"), "not UTF-8"),
    (lambda b: b.replace(b'class="history"', b'class="story"'), "no message history"),
])
def test_a_damaged_page_is_one_clear_error_and_nothing_is_stored(cli, tmp_path, damage, says):
    export = tmp_path / "ChatExport"
    shutil.copytree(CHAT, export)
    first = export / "messages2.html" if says == "stops before its end" else export / "messages.html"
    data = damage(first.read_bytes())
    first.write_bytes(data)
    with pytest.raises(FormatError) as e:
        read(export)
    assert str(e.value).startswith(str(first)) and says in str(e.value)
    if b"\xff" in data:  # the line of the bad byte
        line = data[: data.index(b"\xff")].count(b"\n") + 1
        assert f", line {line}:" in str(e.value)
    result = cli("import", export, expect=None)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert str(first) in result.output and len(result.output.strip().splitlines()) == 1
    assert '"messages": 0' in cli("stats", "--json").stdout


def test_the_source_is_never_written(tmp_path, cli):
    export = tmp_path / "ChatExport"
    shutil.copytree(CHAT, export)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in export.rglob("*") if p.is_file()}
    cli("import", export)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in export.rglob("*") if p.is_file()}
    assert after == before


def test_the_owners_own_chat_has_no_one_else_in_it(tmp_path):
    folder = write_chat(tmp_path / "ChatExport", page(SAM, [Msg(1, T, SAM, text("Note to self: chalk"))]))
    records = read(folder, owner_names=[SAM])
    chat = next(r for r in records if isinstance(r, Chat))
    assert (chat.group, chat.participants) == (False, []) and by_text(records, "Note to self").sender == "me"


def test_the_page_readers_examples_hold():
    import doctest

    from chatmem.importers.telegram import html_page

    result = doctest.testmod(html_page)
    assert result.attempted and not result.failed


def test_a_time_title_with_more_after_the_time_keeps_the_time(tmp_path):
    # no exporter seen writes more than the time; should a newer one add an edit mark, the
    # message keeps its time, is marked edited and keeps what was said
    html = page(LIA, [Msg(1, T, LIA, text("Changed my mind"))]).replace(
        'UTC+01:00">', 'UTC+01:00&#10;Edited: 02.03.2024 10:05:00 UTC+01:00">')
    said = by_text(read(write_chat(tmp_path / "ChatExport", html)), "Changed my mind")
    assert said.sent_at.astimezone(timezone.utc) == T and said.edited
    assert said.extra["time_note"] == "Edited: 02.03.2024 10:05:00 UTC+01:00"
