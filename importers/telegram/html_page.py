"""One page of Telegram Desktop's HTML export (messages.html, messages2.html...) read into blocks.

The exporter (tdesktop `export_output_html.cpp`) writes a page as

    <div class="page_wrap">
     <div class="page_header"> ... <div class="text bold">Chat name</div> ...
     <div class="page_body chat_page"><div class="history">
      <a class="pagination block_link" href="messages.html">Previous messages</a>
      <div class="message service" id="message-1"><div class="body details">2 March 2024</div></div>
      <div class="message default clearfix" id="message7">
       <div class="pull_left userpic_wrap">...</div>
       <div class="body">
        <div class="pull_right date details" title="02.03.2024 10:00:00 UTC+01:00">10:00</div>
        <div class="from_name">Anna Berg</div>
        <div class="text">Hello<br>there</div> ...
      <div class="message default clearfix joined" id="message8"> ... (no from_name: same sender)

`read_page` gives the chat's name and, in page order, one `Block` per message div with its
parsed tree, its first line and its HTML as written. Parsing is by class names, never by the
English words the exporter writes, so a fork that translates them reads the same.

A page that is not UTF-8, holds no message history, or stops before its closing `</html>` (a
cut-off copy) is a FormatError naming the page and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo
from html.parser import HTMLParser
from pathlib import Path

from chatmem.errors import FormatError

VOID_TAGS = {"br", "img", "meta", "link", "hr", "input", "wbr", "source"}
BLOCK_TAGS = {"div", "blockquote", "pre", "p"}  # their text is set apart by line breaks
MESSAGE_ID = re.compile(r"^message(-?\d+)$")
PAGE_NUMBER = re.compile(r"^messages(\d*)\.html$")


class Node:
    """An element of a page: its tag, attributes, classes, first line and children."""

    __slots__ = ("tag", "attrs", "line", "children", "classes")

    def __init__(self, tag: str, attrs: dict[str, str], line: int) -> None:
        self.tag, self.attrs, self.line = tag, attrs, line
        self.children: list[Node | str] = []
        self.classes = frozenset(attrs.get("class", "").split())

    def has(self, *names: str) -> bool:
        return all(n in self.classes for n in names)

    def elements(self) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node)]

    def child(self, *names: str) -> Node | None:
        """The first child element with all these classes."""
        return next((c for c in self.elements() if c.has(*names)), None)

    def find(self, *names: str, skip: tuple[str, ...] = ()) -> Node | None:
        """The first element below this one (depth first) with all these classes, not looking
        inside elements with a class in `skip`."""
        for c in self.elements():
            if c.has(*names):
                return c
            if skip and c.classes & set(skip):
                continue
            found = c.find(*names, skip=skip)
            if found is not None:
                return found
        return None

    def find_all(self, *names: str) -> list[Node]:
        out: list[Node] = []
        for c in self.elements():
            if c.has(*names):
                out.append(c)
            out.extend(c.find_all(*names))
        return out

    def find_all_tags(self, tag: str) -> list[Node]:
        out: list[Node] = []
        for c in self.elements():
            if c.tag == tag:
                out.append(c)
            out.extend(c.find_all_tags(tag))
        return out

    def text(self, links: list[str] | None = None, skip: tuple[str, ...] = ()) -> str:
        """The text as the page shows it: <br> as a new line, tags dropped, the layout's own
        line breaks and indentation around block elements left out; hrefs of web links
        collected in `links`.

        >>> page = parse_html('<div class="text">Hi <strong>you</strong><br>see <a href="https://x.org">x</a></div>')
        >>> found = []; page.elements()[0].text(found), found
        ('Hi you\\nsee x', ['https://x.org'])
        """
        out: list[str] = []
        self._text(out, links, skip)
        return "".join(out).strip()

    def _text(self, out: list[str], links: list[str] | None, skip: tuple[str, ...]) -> None:
        for c in self.children:
            if isinstance(c, str):
                # the exporter's layout puts "\n" + indentation around block tags; a line
                # break the sender typed is always written as <br>
                out.append(c.replace("\n", "") if "\n" in c and not c.strip(" \n") else c.replace("\n", " "))
            elif c.tag == "br":
                out.append("\n")
            elif skip and c.classes & set(skip):
                continue
            else:
                href = c.attrs.get("href", "")
                if links is not None and c.tag == "a" and href.startswith(("http://", "https://")):
                    links.append(href)
                c._text(out, links, skip)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, 1)
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.getpos()[0])
        self.stack[-1].children.append(node)
        if tag not in VOID_TAGS:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}, self.getpos()[0]))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):  # close up to the matching open tag
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return  # an end tag nothing opened is ignored, as browsers do

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


@dataclass
class Block:
    """One `<div class="message ...">` of a page."""

    native: int | None  # the number in id="message123" (negative: a date heading)
    kinds: frozenset[str]  # its classes: "service", or "default" (and "joined")
    node: Node
    line: int
    raw: str  # the block's HTML as written

    @property
    def service(self) -> bool:
        return "service" in self.kinds

    @property
    def joined(self) -> bool:
        return "joined" in self.kinds


@dataclass
class Page:
    path: Path
    chat_name: str
    blocks: list[Block]
    number: int  # 1 for messages.html, 2 for messages2.html...


def page_number(path: Path) -> int | None:
    """messages.html is page 1, messages2.html page 2; None for another name."""
    m = PAGE_NUMBER.match(path.name)
    return None if m is None else int(m.group(1) or 1)


def decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FormatError(f"{path}, line {line}: not UTF-8 text (byte {e.start})") from None


def read_page(path: Path) -> Page:
    """The page at `path`; FormatError naming the page (and line) when it cannot be one."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(f"{path}: cannot be read ({e.strerror or e})") from None
    text = decode(path, data)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise FormatError(f"{path}, line {line}: a NUL byte in the page (not an exported page?)")
    root = parse_html(text)
    wrap = root.find("page_wrap")
    history = wrap.find("history") if wrap is not None else None
    if wrap is None or history is None:
        raise FormatError(f"{path}: not a page of Telegram Desktop's HTML export (no message history in it)")
    if not text.rstrip().lower().endswith("</html>"):
        last = text.rstrip().count("\n") + 1
        raise FormatError(f"{path}, line {last}: the page stops before its end (a cut-off copy?); "
                          "export the chat again")
    header = wrap.find("page_header")
    title = header.find("text", "bold") if header is not None else None
    name = title.text() if title is not None else ""
    starts = _line_starts(text)
    elements = [c for c in history.elements() if c.has("message")]
    blocks: list[Block] = []
    for i, node in enumerate(elements):
        m = MESSAGE_ID.match(node.attrs.get("id", ""))
        begin = starts[node.line - 1] if node.line - 1 < len(starts) else len(text)
        end_line = elements[i + 1].line - 1 if i + 1 < len(elements) else None
        end = starts[end_line] if end_line is not None and end_line < len(starts) else len(text)
        raw = text[begin:end]
        if i + 1 == len(elements):  # the last block: up to the end of its div, not the page's
            raw = raw[: _block_end(raw)]
        blocks.append(Block(int(m.group(1)) if m else None, node.classes - {"message", "clearfix"},
                            node, node.line, raw.strip()))
    return Page(path, name, blocks, page_number(path) or 1)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


def _block_end(raw: str) -> int:
    """Where the first div of `raw` closes (or the whole of it)."""
    depth = 0
    for m in re.finditer(r"<(/?)div\b[^>]*>", raw):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.end()
    return len(raw)


# ---------------------------------------------------------------------------------- dates

# The title of a message's time, by app version (tdesktop export_data_types.cpp FormatDateTime):
#   2018 (first exporter):   "2018.06.15 14:03:22"            year first, the machine's local time
#   2018 - 2023:             "15.06.2018 14:03:22"            day first, the machine's local time
#   since 2023:              "15.06.2018 14:03:22 UTC+03:00"  and the machine's zone
# The zone is Qt's name of the zone's *standard* offset (QTimeZone::StandardTime): a summer time
# is written with the winter offset ("14:03:22 UTC+01:00" for 14:03 CEST, which is 12:03 UTC).
TITLE = re.compile(r"^\s*(\d{1,4})\.(\d{1,2})\.(\d{1,4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?"
                   r"(?:\s*(?:UTC|GMT)(?:\s*([+-])(\d{1,2})(?::?(\d{2}))?)?)?(?=\s|$)")


def title_rest(title: str) -> str:
    """What a time title says after its time (none in the versions seen; kept when a newer
    app adds, say, when the message was edited).

    >>> title_rest("02.03.2024 10:00:00 UTC+01:00"), title_rest("02.03.2024 10:00:00 UTC+01:00\\nEdited: 02.03.2024 10:05:00")
    ('', 'Edited: 02.03.2024 10:05:00')
    """
    m = TITLE.match(title)
    return title[m.end():].strip() if m else ""


def parse_title(title: str, zone: tzinfo) -> datetime | None:
    """The instant a time title names; None when it is no time title.

    >>> from zoneinfo import ZoneInfo
    >>> berlin = ZoneInfo("Europe/Berlin")
    >>> parse_title("02.07.2024 14:03:22 UTC+01:00", berlin).isoformat()   # summer, standard offset
    '2024-07-02T14:03:22+02:00'
    >>> parse_title("02.07.2024 14:03:22 UTC+03:00", berlin).isoformat()   # another zone than ours
    '2024-07-02T14:03:22+03:00'
    >>> parse_title("2018.06.15 14:03:22", timezone.utc).isoformat()
    '2018-06-15T14:03:22+00:00'
    """
    m = TITLE.match(title)
    if m is None:
        return None
    a, b, c, hh, mm, ss, sign, oh, om = m.groups()
    if len(a) != 4 and len(c) != 4:
        return None
    day, month, year = (int(c), int(b), int(a)) if len(a) == 4 else (int(a), int(b), int(c))
    try:
        local = datetime(year, month, day, int(hh), int(mm), int(ss or 0))
    except ValueError:
        return None
    if sign is None and "UTC" not in title and "GMT" not in title:
        return local.replace(tzinfo=zone)
    offset = timedelta(hours=int(oh or 0), minutes=int(om or 0))
    if sign == "-":
        offset = -offset
    if offset > timedelta(hours=14) or offset < -timedelta(hours=14):
        return None
    if _standard_offset(local, zone) == offset:
        return local.replace(tzinfo=zone)  # the configured zone, whose summer time Qt did not say
    return local.replace(tzinfo=timezone(offset))


def _standard_offset(local: datetime, zone: tzinfo) -> timedelta | None:
    aware = local.replace(tzinfo=zone)
    offset, dst = aware.utcoffset(), aware.dst()
    if offset is None:
        return None
    return offset - (dst or timedelta(0))


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
HEADING = re.compile(r"^\s*(\d{1,2})\s+([A-Za-z]+)\s+(\d{4})\s*$")


def parse_heading(text: str) -> tuple[int, int, int] | None:
    """A date heading ("2 March 2024", always English) as (year, month, day).

    >>> parse_heading("2 March 2024")
    (2024, 3, 2)
    """
    m = HEADING.match(text)
    if m is None or m.group(2).lower() not in MONTHS:
        return None
    return int(m.group(3)), MONTHS.index(m.group(2).lower()) + 1, int(m.group(1))
