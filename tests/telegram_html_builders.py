"""Telegram Desktop HTML exports for tests and fixtures, laid out and indented the way the app
writes them (tdesktop `export_output_html.cpp`; fictional people, the owner is Sam Rivera).

- `build_html_chat_export(folder)`: "Export chat history" of one personal chat over two pages
  (the newest app's date titles, with the zone), every kind of message.
- `build_html_account_export(folder)`: "Export Telegram data": export_results.html, the chat
  and contact lists, a German group (date titles without a zone), a Russian personal chat (the
  first exporter's year-first titles) and the same personal chat as the one-chat export.
- `page(name, blocks, previous, following)` and `Msg` for tests that write their own pages.

Pages hold a few messages here; the app puts 1000 on a page. Dates are written as the app
does: the local time of the exporting machine (Europe/Berlin) and, in the newest form, the
zone's *standard* offset, whatever the season.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

BERLIN = ZoneInfo("Europe/Berlin")
UTC = timezone.utc
SAM, LIA = "Sam Rivera", "Lia Moreau"
NOT_INCLUDED = "Not included, change data exporting settings to download."


def esc(text: str) -> str:
    return html.escape(text, quote=True).replace("\n", "<br>")


@dataclass
class Msg:
    """One message block. `body` is the HTML inside <div class="body"> after the sender
    (reply, media, text...), already written; `service` makes it a service message."""

    id: int
    at: datetime | None = None  # UTC (of a service message: only where the date headings go)
    sender: str | None = None  # None: joined to the previous sender
    body: str = ""
    service: str | None = None  # the service text (HTML)
    title_form: str = "zone"  # zone | local | year_first

    def title(self) -> str:
        assert self.at is not None
        local = self.at.astimezone(BERLIN)
        if self.title_form == "year_first":
            return local.strftime("%Y.%m.%d %H:%M:%S")
        if self.title_form == "local":
            return local.strftime("%d.%m.%Y %H:%M:%S")
        return local.strftime("%d.%m.%Y %H:%M:%S") + " UTC+01:00"  # Qt's standard offset, summer too


def heading(n: int, when: datetime) -> str:
    local = when.astimezone(BERLIN)
    return (f'\n     <div class="message service" id="message-{n}">\n\n      <div class="body details">\n'
            f'{local.day} {local:%B %Y}\n      </div>\n\n     </div>\n')


def block(m: Msg) -> str:
    if m.service is not None:
        return (f'\n     <div class="message service" id="message{m.id}">\n\n      <div class="body details">\n'
                f'{m.service}\n      </div>\n\n     </div>\n')
    joined = m.sender is None
    out = f'\n     <div class="message default clearfix{" joined" if joined else ""}" id="message{m.id}">\n'
    if not joined:
        initials = "".join(w[:1] for w in m.sender.split()[:2])  # type: ignore[union-attr]
        out += ('\n      <div class="pull_left userpic_wrap">\n\n       <div class="userpic userpic2" '
                'style="width: 42px; height: 42px">\n\n        <div class="initials" style="line-height: 42px">\n'
                f'{esc(initials)}\n        </div>\n\n       </div>\n\n      </div>\n')
    out += '\n      <div class="body">\n'
    out += f'\n       <div class="pull_right date details" title="{m.title()}">\n{m.at.astimezone(BERLIN):%H:%M}\n       </div>\n'  # type: ignore[union-attr]
    if not joined:
        out += f'\n       <div class="from_name">\n{esc(m.sender)}\n       </div>\n'  # type: ignore[arg-type]
    out += m.body
    out += '\n      </div>\n\n     </div>\n'
    return out


def text(value: str) -> str:
    """A text div; `value` is HTML already (formatting, links, <br>)."""
    return f'\n       <div class="text">\n{value}\n       </div>\n'


def reply(target: int, page: str = "") -> str:
    href = f"{page}#go_to_message{target}"
    click = "" if page else f' onclick="return GoToMessage({target})"'
    return f'\n       <div class="reply_to details">\nIn reply to <a href="{href}"{click}>this message</a>\n       </div>\n'


def media(classes: str, title: str, status: str = "", href: str = "", description: str = "") -> str:
    tag = "a" if href else "div"
    link = f' href="{esc(href)}"' if href else ""
    out = (f'\n       <div class="media_wrap clearfix">\n\n        <{tag} class="media clearfix pull_left'
           f'{" block_link" if href else ""} {classes}"{link}>\n\n         <div class="fill pull_left">\n'
           '         </div>\n\n         <div class="body">\n')
    out += f'\n          <div class="title bold">\n{esc(title)}\n          </div>\n'
    if description:
        out += f'\n          <div class="description">\n{esc(description)}\n          </div>\n'
    if status:
        out += f'\n          <div class="status details">\n{esc(status)}\n          </div>\n'
    return out + f'\n         </div>\n\n        </{tag}>\n\n       </div>\n'


def photo(href: str) -> str:
    return (f'\n       <div class="media_wrap clearfix">\n\n        <a class="photo_wrap clearfix pull_left" href="{href}">\n'
            f'\n         <img class="photo" src="{href[:-4]}_thumb.jpg" style="width: 260px; height: 195px"/>\n'
            '\n        </a>\n\n       </div>\n')


def sticker(href: str) -> str:
    return (f'\n       <div class="media_wrap clearfix">\n\n        <a class="sticker_wrap clearfix pull_left" href="{href}">\n'
            f'\n         <img class="sticker" src="{href}_thumb.png" style="width: 128px; height: 128px"/>\n'
            '\n        </a>\n\n       </div>\n')


def poll(question: str, answers: list[tuple[str, int, bool]], total: int) -> str:
    out = ('\n       <div class="media_wrap clearfix">\n\n        <div class="media_poll">\n'
           f'\n         <div class="question bold">\n{esc(question)}\n         </div>\n'
           '\n         <div class="details">\nAnonymous poll\n         </div>\n')
    for answer, votes, mine in answers:
        details = "" if not votes else f' <span class="details">{votes} vote{"s" if votes > 1 else ""}{", chosen vote" if mine else ""}</span>'
        out += f'\n         <div class="answer">\n- {esc(answer)}{details}\n         </div>\n'
    return out + f'\n         <div class="total details\t">\n{total} votes\n         </div>\n\n        </div>\n\n       </div>\n'


def forwarded(name: str, when: datetime, inner: str) -> str:
    local = when.astimezone(BERLIN)
    return ('\n       <div class="pull_left forwarded userpic_wrap">\n\n        <div class="userpic userpic4" '
            'style="width: 42px; height: 42px">\n\n         <div class="initials" style="line-height: 42px">\n'
            f'{esc(name[:1])}\n         </div>\n\n        </div>\n\n       </div>\n'
            '\n       <div class="forwarded body">\n'
            f'\n        <div class="from_name">\n{esc(name)}<span class="date details" title="{local:%d.%m.%Y %H:%M:%S} UTC+01:00"> '
            f'{local:%d.%m.%Y %H:%M:%S}</span>\n        </div>\n' + inner + '\n       </div>\n')


def page(chat_name: str, messages: list[Msg], previous: str = "", following: str = "", base: str = "",
         back: str = "", first_heading: int = 1) -> str:
    """A whole page: header, history (date headings where the day changes), pagination."""
    header = (f'<a class="content block_link" href="{back}" onclick="return GoBack(this)">' if back
              else '<div class="content">')
    out = ('<!DOCTYPE html>\n<html>\n\n <head>\n\n  <meta charset="utf-8"/>\n<title>Exported Data</title>\n'
           '  <meta name="viewport" content="width=device-width, initial-scale=1.0"/>\n'
           f'  <link href="{base}css/style.css" rel="stylesheet"/>\n'
           f'  <script src="{base}js/script.js" type="text/javascript">\n\n  </script>\n\n </head>\n'
           '\n <body onload="CheckLocation();">\n\n  <div class="page_wrap">\n\n   <div class="page_header">\n\n'
           f'    {header}\n\n     <div class="text bold">\n{esc(chat_name)}\n     </div>\n\n'
           f'    {"</a>" if back else "</div>"}\n\n   </div>\n\n   <div class="page_body chat_page">\n\n    <div class="history">\n')
    if previous:
        out += f'\n     <a class="pagination block_link" href="{previous}">\nPrevious messages\n     </a>\n'
    n, day = first_heading, None
    for m in messages:
        if m.at is not None and m.at.astimezone(BERLIN).date() != day:
            out += heading(n, m.at)
            n, day = n + 1, m.at.astimezone(BERLIN).date()
        out += block(m)
    if following:
        out += f'\n     <a class="pagination block_link" href="{following}">\nNext messages\n     </a>\n'
    return out + '\n    </div>\n\n   </div>\n\n  </div>\n\n </body>\n\n</html>\n'


# --------------------------------------------------------------------------- the fixtures

T0 = datetime(2024, 3, 2, 9, 0, tzinfo=UTC)


def at(minutes: float, start: datetime = T0) -> datetime:
    return start + timedelta(minutes=minutes)


MEDIA_FILES = {
    "photos/photo_1@02-03-2024_10-30-00.jpg": b"\xff\xd8\xff\xe0 a photo of the crag \xff\xd9",
    "files/route.pdf": b"%PDF-1.4 the route topo\n%%EOF\n",
    "voice_messages/audio_1@02-03-2024_10-42-00.ogg": b"OggS a voice note",
    "stickers/sticker.webp": b"RIFF....WEBPVP8 a sticker",
    "round_video_messages/file_1@02-03-2024_11-00-00.mp4": b"\x00\x00\x00\x18ftypmp42 a round video",
}


def lia_pages(base: str = "") -> tuple[list[Msg], list[Msg]]:
    """The personal chat with Lia Moreau, on two pages; `base` is how a page names the export's
    folder ("" in a one-chat export, "../../" + the chat's folder in an account export)."""
    summer = datetime(2024, 7, 2, 12, 3, 22, tzinfo=UTC)  # 14:03:22 in Berlin, written "UTC+01:00"
    one = [
        Msg(1, at(0), LIA, text("Climbing on Saturday? The new gym opens 🧗")),
        Msg(2, at(1), None, text("Bring the <strong>big</strong> rope, the routes are <em>long</em>")),
        Msg(3, at(3), SAM, reply(1) + text("Yes! 7pm works<br>I&apos;ll book the wall")),
        Msg(4, at(5), LIA, text('Route info: <a href="https://example.org/topo">https://example.org/topo</a> and '
                                '<a href="https://example.org/gym">the gym</a>')),
        Msg(5, at(6), None, service=f"{LIA} pinned <a href=\"#go_to_message4\" onclick=\"return GoToMessage(4)\">this message</a>"),
        Msg(6, at(30), SAM, photo(f"{base}photos/photo_1@02-03-2024_10-30-00.jpg") + text("The crag from the car park")),
        Msg(7, at(31), None, media("media_file", "route.pdf", "31 B", f"{base}files/route.pdf")),
        Msg(8, at(42), LIA, media("media_voice_message", "Voice message", "00:07",
                                  f"{base}voice_messages/audio_1@02-03-2024_10-42-00.ogg")),
        Msg(9, at(44), None, media("media_video", "Video file", "00:12, 48.2 MB", description=NOT_INCLUDED)),
    ]
    two = [
        Msg(10, at(45), None, text("That one was too big for the export, sorry")),  # joined across the page break
        Msg(11, at(60), SAM, reply(3, "messages.html") + text("Booked for 7pm, see above")),
        Msg(12, at(61), LIA, sticker(f"{base}stickers/sticker.webp")),
        Msg(13, at(62), None, media("media_video", "Video message", "00:05",
                                    f"{base}round_video_messages/file_1@02-03-2024_11-00-00.mp4")),
        Msg(14, at(70), SAM, poll("Which crag next?", [("Frankenjura", 2, True), ("Elbsandstein", 1, False)], 3)),
        Msg(15, at(75), LIA, media("media_location", "Location", "49.6512, 11.3891",
                                   "https://maps.google.com/maps?q=49.6512,11.3891&ll=49.6512,11.3891&z=16")),
        Msg(16, at(76), None, media("media_contact", "Tom Becker", "+49 151 2345678")),
        Msg(17, at(80), SAM, forwarded("Tom Becker", at(-600), text("Forwarding this: the gym has a discount on Tuesdays"))),
        Msg(18, at(90), LIA, media("media_call", "Sam Rivera", "Incoming (34 seconds)")),
        Msg(19, at(95), SAM, media("media_call", "Lia Moreau", "Cancelled")),
        Msg(20, at(96), LIA + " via @gif", text("party parrot")),
        Msg(21, summer, LIA, text("Summer session at the lake crag, 4pm?")),
        Msg(22, summer + timedelta(minutes=2), SAM, text("Sure <span class=\"spoiler hidden\" onclick=\"ShowSpoiler(this)\">"
                                                        "<span aria-hidden=\"true\">bring snacks</span></span>")),
    ]
    return one, two


def write_media(folder: Path) -> None:
    for rel, data in MEDIA_FILES.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def write_assets(root: Path) -> None:
    (root / "css").mkdir(parents=True, exist_ok=True)
    (root / "css" / "style.css").write_text(".page_wrap { background: #fff; }\n")
    (root / "js").mkdir(parents=True, exist_ok=True)
    (root / "js" / "script.js").write_text("function CheckLocation() { return true; }\n")


def build_html_chat_export(folder: Path) -> Path:
    """One personal chat, two pages. Returns the chat's folder."""
    folder.mkdir(parents=True, exist_ok=True)
    write_assets(folder)
    write_media(folder)
    one, two = lia_pages()
    (folder / "messages.html").write_text(page(LIA, one, following="messages2.html"), encoding="utf-8")
    (folder / "messages2.html").write_text(page(LIA, two, previous="messages.html", first_heading=3),
                                           encoding="utf-8")
    return folder


def _entry(name: str, details: str, info: str, href: str = "", tag_class: str = "entry") -> str:
    initials = "".join(w[:1] for w in name.split()[:2])
    head = (f'\n    <a class="{tag_class} block_link clearfix" href="{href}#allow_back">\n' if href
            else f'\n    <div class="{tag_class} clearfix">\n')
    return (head + '\n     <div class="pull_left userpic_wrap">\n\n      <div class="userpic userpic3" '
            'style="width: 48px; height: 48px">\n\n       <div class="initials" style="line-height: 48px">\n'
            f'{esc(initials)}\n       </div>\n\n      </div>\n\n     </div>\n\n     <div class="body">\n'
            f'\n      <div class="pull_right info details">\n{esc(info)}\n      </div>\n'
            f'\n      <div class="name bold">\n{esc(name)}\n      </div>\n'
            f'\n      <div class="details_entry details">\n{esc(details)}\n      </div>\n'
            f'\n     </div>\n\n    {"</a>" if href else "</div>"}\n')


def list_page(title: str, entries: str) -> str:
    return ('<!DOCTYPE html>\n<html>\n\n <head>\n\n  <meta charset="utf-8"/>\n<title>Exported Data</title>\n'
            '  <link href="../css/style.css" rel="stylesheet"/>\n </head>\n\n <body onload="CheckLocation();">\n'
            '\n  <div class="page_wrap">\n\n   <div class="page_header">\n\n    <a class="content block_link" '
            'href="../export_results.html" onclick="return GoBack(this)">\n\n     <div class="text bold">\n'
            f'{esc(title)}\n     </div>\n\n    </a>\n\n   </div>\n\n   <div class="page_body list_page">\n'
            '\n   <div class="page_about details">\nThe list of your chats.\n   </div>\n'
            f'\n   <div class="entry_list">\n{entries}\n   </div>\n\n   </div>\n\n  </div>\n\n </body>\n\n</html>\n')


def results_page() -> str:
    rows = "".join(f'\n     <div class="row">\n\n      <div class="label details">\n{label}\n      </div>\n'
                   f'\n      <div class="value bold">\n{esc(value)}\n      </div>\n\n     </div>\n'
                   for label, value in (("First name", "Sam"), ("Last name", "Rivera")))
    return ('<!DOCTYPE html>\n<html>\n\n <head>\n\n  <meta charset="utf-8"/>\n<title>Exported Data</title>\n'
            ' </head>\n\n <body onload="CheckLocation();">\n\n  <div class="page_wrap">\n\n   <div class="page_header">\n'
            '\n    <div class="content">\n\n     <div class="text bold">\nExported Data\n     </div>\n\n    </div>\n\n   </div>\n'
            '\n   <div class="page_body">\n\n    <div class="personal_info clearfix">\n'
            f'\n     <div class="rows names">\n{rows}\n     </div>\n'
            '\n     <div class="rows info">\n\n      <div class="row">\n\n       <div class="label details">\nPhone number\n'
            '       </div>\n\n       <div class="value bold">\n+1 555 010 0000\n       </div>\n\n      </div>\n\n     </div>\n'
            '\n    </div>\n\n    <div class="sections with_divider">\n\n     <a class="section block_link chats" '
            'href="lists/chats.html#allow_back">\n\n      <div class="counter details">\n3\n      </div>\n'
            '\n      <div class="label bold">\nChats\n      </div>\n\n     </a>\n\n    </div>\n\n   </div>\n\n  </div>\n'
            '\n </body>\n\n</html>\n')


WANDER = "Wanderfreunde"
DIMA = "Дмитрий Волков"


def build_html_account_export(root: Path) -> Path:
    """The whole account. Returns the export's folder."""
    root.mkdir(parents=True, exist_ok=True)
    write_assets(root)
    (root / "export_results.html").write_text(results_page(), encoding="utf-8")
    back = "../../lists/chats.html"
    # chat_001: a German group, the app version whose titles have no zone
    group = root / "chats" / "chat_001"
    group.mkdir(parents=True)
    g0 = datetime(2023, 10, 28, 16, 0, tzinfo=UTC)
    g = [
        Msg(101, g0, None, service=f"{SAM} created group &laquo;{WANDER}&raquo; with members Anna Berg and Jonas Keller"),
        Msg(102, at(1, g0), "Anna Berg", text("Hallo zusammen! Wer kommt am Sonntag mit auf den Brocken?"), title_form="local"),
        Msg(103, at(2, g0), None, text("Treffpunkt um 8 Uhr am Bahnhof, Rucksack nicht vergessen"), title_form="local"),
        Msg(104, at(5, g0), "Jonas Keller", reply(102) + text("Ich bin dabei! Bringe Käsebrötchen mit 🧀"), title_form="local"),
        Msg(105, at(7, g0), SAM, text("Ich auch. Wettervorhersage: <em>sonnig</em>, 14 °C"), title_form="local"),
        # the next day: a service message under a date heading takes the next message's time
        Msg(106, at(24 * 60 + 2, g0), None, service="Jonas Keller invited Lena Vogt"),
        Msg(107, at(24 * 60 + 3, g0), "Lena Vogt", text("Danke für die Einladung! Gibt es noch Platz im Auto?"), title_form="local"),
    ]
    pages_g = page(WANDER, g, base="../../", back=back)
    (group / "messages.html").write_text(pages_g, encoding="utf-8")
    # chat_002: a Russian personal chat, the first exporter's year-first titles
    dima = root / "chats" / "chat_002"
    dima.mkdir(parents=True)
    d0 = datetime(2018, 9, 14, 17, 30, tzinfo=UTC)
    d = [
        Msg(201, d0, DIMA, text("Привет, Сэм! Как прошёл поход?"), title_form="year_first"),
        Msg(202, at(4, d0), SAM, text("Отлично, спасибо! Фотографии пришлю вечером"), title_form="year_first"),
        Msg(203, at(5, d0), None, text("Погода была прекрасная ☀️"), title_form="year_first"),
    ]
    (dima / "messages.html").write_text(page(DIMA, d, base="../../", back=back), encoding="utf-8")
    # chat_003: the personal chat of the one-chat export, as an account export writes it
    lia = root / "chats" / "chat_003"
    lia.mkdir(parents=True)
    write_media(lia)
    one, two = lia_pages("../../chats/chat_003/")
    (lia / "messages.html").write_text(page(LIA, one, following="messages2.html", base="../../", back=back),
                                       encoding="utf-8")
    (lia / "messages2.html").write_text(page(LIA, two, previous="messages.html", base="../../", back=back,
                                             first_heading=3), encoding="utf-8")
    lists = root / "lists"
    lists.mkdir()
    entries = (_entry(LIA, "22 messages", "private", "../chats/chat_003/messages.html")
               + _entry(WANDER, "7 messages", "group", "../chats/chat_001/messages.html")
               + _entry(DIMA, "3 messages", "private", "../chats/chat_002/messages.html")
               + _entry("Bergwetter", "No messages", "channel"))
    (lists / "chats.html").write_text(list_page("Chats", entries), encoding="utf-8")
    contacts = (_entry(LIA, "+49 151 1111111", "02.03.2024 09:00:00")
                + _entry("Tom Becker", "+49 151 2345678", "01.03.2024 18:00:00"))
    (lists / "contacts.html").write_text(list_page("Contacts", contacts), encoding="utf-8")
    return root
