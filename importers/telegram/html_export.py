"""Telegram Desktop's HTML export (the app's default format) → records.

Two layouts, as the exporter writes them (tdesktop `export_output_html.cpp`):

    ChatExport_2024-03-02/              one chat ("Export chat history")
      messages.html  messages2.html ... 1000 messages a page, oldest first
      photos/ files/ video_files/ voice_messages/ stickers/ round_video_messages/ ...
    DataExport_2024-03-02/              the whole account (Settings > Advanced > Export Telegram data)
      export_results.html               the owner's name, phone, the sections
      lists/chats.html                  every chat: name, type (private, bot, group, channel), link
      lists/contacts.html               the address book
      chats/chat_001/messages.html ...  one folder a chat, laid out as above

What HTML cannot give, and what is made of it instead (see importers/SOURCES.md):
- no chat id: a chat is keyed by its name (`html:<name>`), as the page header shows it; the
  same chat exported again under the same name gets the same ids, a renamed one is a new chat;
- no sender ids: senders are names; the owner is the name in export_results.html or the
  config's owner.names (else, in a chat of two, the sender who is not the chat);
- a message's id (`id="message123"`) is Telegram's own: a message is (chat key, that id);
- service messages have no time: they take the time of the message before them (of the one
  after them when a date heading lies between), and say so in `extra["time_from"]`;
- no edit marks, no sender of a reaction, no ids of files.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, time
from mimetypes import guess_type
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import (
    OWNER,
    Attachment,
    Call,
    Chat,
    Contact,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    Record,
    SourceState,
    call_id,
    export_file,
    message_id_from_guid,
)

from ..estimate import count_matches, head_text
from .html_page import (
    Block,
    Node,
    Page,
    page_number,
    parse_heading,
    parse_html,
    parse_title,
    read_page,
    title_rest,
)

PLATFORM = "telegram"
KEY_PREFIX = "html:"  # chat keys of this reader: the chat's name (the JSON reader's are "telegram:<id>")
DELETED_ACCOUNT = "Deleted Account"  # what the exporter writes for a sender it has no name for
HTML_MARKS = ('class="page_wrap"',)  # in the head of every page of the export (chat pages: "history" too)
RESULTS_PAGE = "export_results.html"
CHATS_LIST = ("lists", "chats.html")
CONTACTS_LIST = ("lists", "contacts.html")
ONE_TO_ONE = {"private", "bot"}  # lists/chats.html's type of a chat ("group", "channel" are groups)
GROUPS = {"group", "channel"}
FROM_NAME = re.compile(rb'<div class="from_name">\s*([^<]*?)\s*</div>')  # a sender, not a forward's
MESSAGE_MARK = rb'class="message (?:default|service" id="message\d)'  # a message of a page
VIA_BOT = re.compile(r"^(.*\S)\s+via @(\w+)$")
GO_TO = re.compile(r"go_to_message(\d+)")  # a link to a message: "#go_to_message12", "messages2.html#go_to_message12"
GO_TO_CALL = re.compile(r"GoToMessage\((\d+)\)")
SECONDS = re.compile(r"\((\d+) seconds?\)")
VOTES = re.compile(r"(\d+) votes?")
LAT_LON = re.compile(r"(-?\d+(?:\.\d+)?),\s*(-?\d+(?:\.\d+)?)")
CALL_NOT_TAKEN = {"missed", "declined", "cancelled"}  # a call's status words (English only)


def html_page(path: Path) -> bool:
    """Whether `path` is a page of a chat in Telegram's HTML export (by its head)."""
    try:
        head = head_text(path, 4096) if path.is_file() else ""
    except OSError:
        return False
    return all(mark in head for mark in HTML_MARKS)


def json_beside(folder: Path) -> bool:
    """An export in both formats (Format 'HTML and JSON'): the JSON one is read, it has ids."""
    up = folder.parent.parent if folder.parent.name == "chats" else folder
    return (folder / "result.json").is_file() or (up / "result.json").is_file()


def detect_html(path: Path) -> bool:
    """A chat folder (its messages.html), an account export's folder, or a chat's first page,
    unless the export holds its JSON too."""
    if path.is_file():
        return path.name.lower() == "messages.html" and not json_beside(path.parent) and html_page(path)
    if not path.is_dir() or json_beside(path):
        return False
    if html_page(path / "messages.html"):
        return True
    return (path / RESULTS_PAGE).is_file() and (path / "chats").is_dir()


@dataclass
class ChatEntry:
    folder: Path
    name: str = ""  # as lists/chats.html names it
    kind: str = ""  # lists/chats.html's type: private, bot, group, channel, unknown


@dataclass
class Layout:
    root: Path  # the export's folder: files are named relative to it
    chats: list[ChatEntry]
    account: bool
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def chat_pages(folder: Path) -> list[Path]:
    found = [(n, p) for p in folder.glob("messages*.html") if (n := page_number(p)) is not None]
    return [p for _, p in sorted(found)]


def find_layout(path: Path) -> Layout:
    """Where the export's chats are, from `path` (a page, a chat folder or the account's)."""
    folder = path.parent if path.is_file() else path
    if (folder / "messages.html").is_file() or chat_pages(folder):
        up = folder.parent.parent
        account_root = folder.parent.name == "chats" and (up / RESULTS_PAGE).is_file()
        return Layout(up if account_root else folder, [ChatEntry(folder)], account=False)
    if not (folder / RESULTS_PAGE).is_file() and not (folder / "chats").is_dir():
        raise FormatError(f"{path}: no page of Telegram Desktop's HTML export here (messages.html)")
    layout = Layout(folder, [], account=True)
    listed = folder.joinpath(*CHATS_LIST)
    if listed.is_file():
        layout.chats = _chat_list(listed, folder, layout)
    known = {c.folder.resolve() for c in layout.chats}
    chats_dir = folder / "chats"
    extra = sorted(p for p in chats_dir.iterdir() if p.is_dir() and p.resolve() not in known) \
        if chats_dir.is_dir() else []
    extra = [p for p in extra if chat_pages(p)]
    if extra and listed.is_file():
        layout.notes.append(f"{len(extra)} chat folder(s) not in lists/chats.html were read too")
    layout.chats += [ChatEntry(p) for p in extra]
    if not layout.chats:
        layout.notes.append("the export holds no chats (was 'Personal chats' ticked?)")
    return layout


def _chat_list(page: Path, root: Path, layout: Layout) -> list[ChatEntry]:
    """lists/chats.html: an entry per chat, linked to its first page when it has messages."""
    out = []
    for node in _entries(page):
        name = _text_of(node, "name", "bold")
        kind = _text_of(node, "info", "details").lower()
        href = node.attrs.get("href", "").split("#", 1)[0]
        if not href:
            continue  # a chat without messages: no page to read
        target = _inside(root, posixpath.join("lists", href))
        if target is None:
            layout.problems.append(Problem(str(page), node.line, "a chat whose link leads out of the export",
                                           json.dumps({"name": name, "href": href}, ensure_ascii=False)))
            continue
        folder = (root / target).parent
        if not chat_pages(folder):
            layout.problems.append(Problem(str(page), node.line, "a listed chat whose pages are missing",
                                           json.dumps({"name": name, "href": href}, ensure_ascii=False)))
            continue
        out.append(ChatEntry(folder, name, kind))
    return out


def _entries(page: Path) -> list[Node]:
    root = parse_html(page.read_bytes().decode("utf-8", errors="replace"))
    return root.find_all("entry")


def _text_of(node: Node | None, *classes: str) -> str:
    found = node.find(*classes) if node is not None else None
    return found.text() if found is not None else ""


def _inside(root: Path, relative: str) -> str | None:
    """`relative` (a path inside the export, '/'-separated) normalised; None when it leaves it."""
    norm = posixpath.normpath(relative.replace("\\", "/"))
    if norm.startswith(("../", "/")) or norm in ("..", "."):
        return None
    return norm


def read_html_export(path: Path, options: ImportOptions) -> Iterator[Record]:
    """The records of the export at `path`; a page that cannot be read is a FormatError when
    the reading reaches it (the store then keeps nothing of the import)."""
    yield from _Run(Path(path), options).records()


@dataclass
class _ChatState:
    record: Chat
    page: Page | None = None
    senders: list[str] = field(default_factory=list)  # everyone who wrote, as named, in order
    owners: set[str] = field(default_factory=set)  # which of them is the owner
    natives: set[int] = field(default_factory=set)  # message ids read so far
    last_time: datetime | None = None
    last_sender: str | None = None
    last_forward: str | None = None
    heading: tuple[int, int, int] | None = None  # the last date heading
    after_heading: bool = True  # a date heading since the last dated message
    waiting: list[tuple[Page, Block]] = field(default_factory=list)  # service messages waiting for a time


class _Run:
    def __init__(self, path: Path, options: ImportOptions) -> None:
        self.path, self.options = path, options
        self.layout = find_layout(path)
        self.root = self.layout.root
        self.owner_names = {n.casefold() for n in options.owner_names}
        self.owner_shown: list[str] = list(options.owner_names)
        self.notes: list[str] = list(self.layout.notes)
        self.missing_files = 0
        self.keys: dict[str, int] = {}
        self.pages = 0

    def records(self) -> Iterator[Record]:
        pages = [p for c in self.layout.chats for p in chat_pages(c.folder)]
        yield Estimate(count_matches(pages, MESSAGE_MARK))
        yield from self.layout.problems
        self._owner()
        yield from self._contacts()
        for entry in self.layout.chats:
            yield from self._chat(entry)
        if self.missing_files:
            self.notes.append(f"{self.missing_files} media file(s) not included in the export "
                              "(Telegram's export settings left them out)")
        what = "account" if self.layout.account else "chat"
        yield SourceState(notes=[f"Telegram Desktop HTML export ({what}): {len(self.layout.chats)} chat(s), "
                                 f"{self.pages} page(s)", *self.notes])

    # ------------------------------------------------------------------ the account's pages

    def _owner(self) -> None:
        """The owner's name from export_results.html (First name, Last name)."""
        page = self.root / RESULTS_PAGE
        if not page.is_file():
            return
        root = parse_html(page.read_bytes().decode("utf-8", errors="replace"))
        names = root.find("personal_info")
        rows = names.find("rows", "names") if names is not None else None
        values = [v.text() for v in rows.find_all("value")] if rows is not None else []
        name = " ".join(v for v in values if v)
        if name and name.casefold() not in self.owner_names:
            self.owner_names.add(name.casefold())
            self.owner_shown.append(name)

    def _contacts(self) -> Iterator[Record]:
        page = self.root.joinpath(*CONTACTS_LIST)
        if not page.is_file():
            return
        for node in _entries(page):
            name = _text_of(node, "name", "bold")
            phone = _text_of(node, "details_entry")
            if name and phone:
                yield Contact(name=name, phones=[phone],
                              raw=json.dumps({"name": name, "phone": phone}, ensure_ascii=False))

    # ------------------------------------------------------------------ one chat

    def _chat(self, entry: ChatEntry) -> Iterator[Record]:
        pages = chat_pages(entry.folder)
        first = read_page(pages[0])
        name = first.chat_name or entry.name or entry.folder.name
        key = KEY_PREFIX + name
        self.keys[key] = self.keys.get(key, 0) + 1
        if self.keys[key] > 1:  # two chats of one name in one export: set apart by their order
            key = f"{key} #{self.keys[key]}"
            self.notes.append(f"more than one chat is named {name!r}: the one in {entry.folder.name} is "
                              f"kept apart as {key[len(KEY_PREFIX):]!r}")
        state = _ChatState(Chat(PLATFORM, key, name))
        self._people(state, pages, entry)
        yield state.record
        for i, path in enumerate(pages):
            page = first if i == 0 else read_page(path)
            self.pages += 1
            state.page = page
            for block in page.blocks:
                yield from self._block(state, page, block)
        yield from self._flush(state, None)

    def _people(self, state: _ChatState, pages: list[Path], entry: ChatEntry) -> None:
        """Who wrote in the chat (read ahead from the pages' sender names), which of them is
        the owner, and whether it is a group."""
        chat = state.record
        seen: dict[str, None] = {}
        for path in pages:
            try:
                data = path.read_bytes()
            except OSError:
                continue  # reading the page proper says why
            for m in FROM_NAME.finditer(data):
                seen.setdefault(self._sender_name(html.unescape(m.group(1).decode("utf-8", "replace"))), None)
        state.senders = list(seen)
        state.owners = {n for n in state.senders if n.casefold() in self.owner_names}
        if (not state.owners and entry.kind not in GROUPS and len(state.senders) == 2
                and chat.name in state.senders):
            other = next(n for n in state.senders if n != chat.name)
            state.owners.add(other)
            self.notes.append(f"chat {chat.name!r}: the owner taken to be {other!r} (the other sender); "
                              "set owner.names in the config to be sure")
        others = [n for n in state.senders if n not in state.owners]
        if entry.kind in ONE_TO_ONE:
            chat.group = False
        elif entry.kind in GROUPS:
            chat.group = True
        else:  # one chat exported alone: a group unless only the chat's namesake writes besides the owner
            chat.group = not all(n == chat.name for n in others)
        saved = chat.name.casefold() in self.owner_names or entry.name == "Saved messages"  # the owner's own chat
        chat.participants = others or ([] if chat.group or saved else [chat.name])

    @staticmethod
    def _sender_name(shown: str) -> str:
        m = VIA_BOT.match(shown.strip())
        return m.group(1) if m else shown.strip()

    def _who(self, name: str, state: _ChatState) -> str:
        return OWNER if name in state.owners or name.casefold() in self.owner_names else name

    # ------------------------------------------------------------------ blocks

    def _block(self, state: _ChatState, page: Page, block: Block) -> Iterator[Record]:
        chat = state.record
        if block.native is not None and block.native < 0:  # a date heading (or the exporter's note)
            day = parse_heading(block.node.text())
            if day is not None:
                state.heading, state.after_heading = day, True
            return
        if block.native is None:
            yield Problem(str(page.path), block.line, "a message without an id", block.raw, chat.id)
            return
        if block.service:
            state.natives.add(block.native)
            if state.last_time is not None and not state.after_heading:
                yield self._service(state, page, block, state.last_time, "previous")
            else:
                state.waiting.append((page, block))
            return
        if "default" not in block.kinds:
            yield Problem(str(page.path), block.line, f"an unknown kind of message ({' '.join(sorted(block.kinds))})",
                          block.raw, chat.id)
            return
        try:
            found = self._message(state, page, block)
        except (KeyError, ValueError, TypeError, OverflowError, IndexError, AttributeError) as e:
            found = f"unexpected message ({e})"
        finally:
            state.natives.add(block.native)
        if isinstance(found, str):
            yield Problem(str(page.path), block.line, found, block.raw, chat.id)
            return
        sent = found.sent_at if isinstance(found, Message) else found.started_at
        yield from self._flush(state, sent)
        state.last_time, state.after_heading = sent, False
        yield found

    def _flush(self, state: _ChatState, sent: datetime | None) -> Iterator[Record]:
        """The service messages waiting for a time: the next message's, else (at the chat's
        end) the last one's or the last date heading's."""
        waiting, state.waiting = state.waiting, []
        for page, block in waiting:
            if sent is not None:
                yield self._service(state, page, block, sent, "next")
            elif state.last_time is not None:
                yield self._service(state, page, block, state.last_time, "previous")
            elif state.heading is not None:
                day = datetime.combine(datetime(*state.heading).date(), time(0), tzinfo=self.options.timezone)
                yield self._service(state, page, block, day, "heading")
            else:
                yield Problem(str(page.path), block.line, "a service message with no time in its chat",
                              block.raw, state.record.id)

    def _service(self, state: _ChatState, page: Page, block: Block, sent: datetime, source: str) -> Message:
        chat = state.record
        body = block.node.find("body") or block.node
        text = body.text()
        guid = f"{chat.key}/{block.native}"
        msg = Message(id=message_id_from_guid(PLATFORM, guid), platform=PLATFORM, chat_id=chat.id,
                      sent_at=sent, sender=self._actor(text, state), text=text, kind="system", guid=guid,
                      raw=block.raw, extra={"event": "service", "time_from": source})
        target = _link_target(body)
        if target is not None and target in state.natives:  # "X pinned this message"
            msg.reply_to = message_id_from_guid(PLATFORM, f"{chat.key}/{target}")
        return msg

    def _actor(self, text: str, state: _ChatState) -> str:
        """Who a service message is about: the longest known name it starts with, else the chat."""
        names = sorted({*state.senders, *self.owner_shown}, key=len, reverse=True)
        for name in names:
            if name and text.startswith(name) and text[len(name):len(name) + 1] in (" ", ""):
                return self._who(name, state)
        return state.record.name

    def _message(self, state: _ChatState, page: Page, block: Block) -> Message | Call | str:
        chat = state.record
        body = block.node.child("body")
        if body is None:
            return "a message without a body"
        stamp = body.child("date") or body.find("date", "details", skip=("forwarded",))
        title = stamp.attrs.get("title", "") if stamp is not None else ""
        sent = parse_title(title, self.options.timezone) if title else None
        if sent is None:
            return f"a message without a readable time (title {title!r})" if title else "a message without a time"
        extra: dict[str, Any] = {}
        rest = title_rest(title)
        if rest:  # not written by the versions seen: kept, and an edit mark taken as one
            extra["time_note"] = rest
        shown = body.child("from_name")
        if shown is not None:
            state.last_sender = self._sender_name(shown.text())
            state.last_forward = None
        elif not block.joined or state.last_sender is None:
            return "a message without a sender"
        name = state.last_sender or DELETED_ACCOUNT
        guid = f"{chat.key}/{block.native}"
        if shown is not None and (via := VIA_BOT.match(shown.text())):
            extra["via_bot"] = "@" + via.group(2)
        content = body
        forwarded = body.child("forwarded", "body")
        if forwarded is not None:
            source = forwarded.child("from_name")
            if source is not None:
                state.last_forward = self._sender_name(source.text(skip=("details",)))
            extra["forwarded_from"] = state.last_forward or DELETED_ACCOUNT
            content = forwarded
        media = content.child("media_wrap")
        call = media.elements()[0] if media is not None and media.elements() else None
        if call is not None and call.has("media_call"):
            return self._call(state, call, name, sent, guid, block)
        links: list[str] = []
        text_div = content.child("text")
        msg = Message(id=message_id_from_guid(PLATFORM, guid), platform=PLATFORM, chat_id=chat.id,
                      sent_at=sent, sender=self._who(name, state),
                      text=text_div.text(links) if text_div is not None else "", guid=guid,
                      raw=block.raw, extra=extra)
        if links:
            msg.extra["links"] = links
        msg.edited = "edited" in rest.lower()
        signature = content.child("signature")
        if signature is not None:
            msg.extra["author"] = signature.text()
        reply = content.find("reply_to", skip=("media_wrap", "text"))
        if reply is not None:
            target = _link_target(reply)
            if target is not None and target in state.natives:
                msg.reply_to = message_id_from_guid(PLATFORM, f"{chat.key}/{target}")
            else:
                msg.extra["reply_to_message"] = {"id": target, "chat": None if target is not None else "another chat"}
        if media is not None:
            self._media(media, msg, page)
        self._reactions(body, msg)
        return msg

    def _call(self, state: _ChatState, node: Node, name: str, sent: datetime, guid: str, block: Block) -> Call:
        status = _text_of(node, "status")
        seconds = SECONDS.search(status)
        duration = int(seconds.group(1)) if seconds else None
        word = status.split(" ", 1)[0].lower()
        mine = self._who(name, state) == OWNER
        not_taken = word in CALL_NOT_TAKEN and not duration
        direction = "outgoing" if mine else "missed" if not_taken else "incoming"
        chat = state.record
        return Call(id=call_id(PLATFORM, guid), platform=PLATFORM, chat_id=chat.id, started_at=sent,
                    direction=direction, media="voice", duration=duration,
                    answered=bool(duration) if duration is not None or not_taken else None,
                    peer=None if chat.group else chat.name, raw=block.raw)

    # ------------------------------------------------------------------ media

    def _file(self, page: Page, href: str, name: str | None = None, mime: str | None = None) -> Attachment:
        """An attachment for a file the page links to (relative to the page's folder)."""
        base = page.path.parent.relative_to(self.root).as_posix() if page.path.parent != self.root else ""
        rel = _inside(self.root, posixpath.join(base, href)) if href and not href.startswith(("http:", "https:")) else None
        name = name or (posixpath.basename(href) if href else None)
        mime = mime or (guess_type(name)[0] if name else None)
        if rel is None:
            return Attachment(name=name, mime_type=mime, present=False)
        locator, size, present = export_file(self.root, rel)
        return Attachment(name=name, mime_type=mime, size=size, path=locator, present=present)

    def _missing(self, name: str | None, mime: str | None) -> Attachment:
        self.missing_files += 1
        return Attachment(name=name, mime_type=mime, present=False)

    def _media(self, wrap: Node, msg: Message, page: Page) -> None:
        inner = wrap.elements()[0] if wrap.elements() else None
        if inner is None:
            return
        cls = inner.classes
        href = inner.attrs.get("href", "") if inner.tag == "a" else ""
        msg.kind = "media"
        if "photo_wrap" in cls:
            msg.attachments.append(self._file(page, href, mime="image/jpeg"))
        elif "sticker_wrap" in cls:
            msg.attachments.append(self._file(page, href))
            msg.extra["sticker"] = {}
        elif "animated_wrap" in cls:
            msg.attachments.append(self._file(page, href))
            msg.extra["media_type"] = "animation"
        elif "video_file_wrap" in cls:
            msg.attachments.append(self._file(page, href))
            msg.extra["media_type"] = "video_file"
            _duration(_text_of(inner, "video_duration"), msg)
        elif "media_poll" in cls:
            self._poll(inner, msg)
        elif "media" in cls:
            self._generic(inner, cls, href, msg, page)
        else:
            msg.extra["media"] = inner.text()

    def _generic(self, node: Node, cls: frozenset[str], href: str, msg: Message, page: Page) -> None:
        """A media block drawn as an icon with a title, a description and a status line."""
        title, status = _text_of(node, "title"), _text_of(node, "status")
        description = _text_of(node, "description")
        folder = href.split("/")[-2] if href.count("/") >= 1 else ""

        def attach(name: str | None = None, mime: str | None = None) -> None:
            msg.attachments.append(self._file(page, href, name, mime) if href else self._missing(name, mime))

        if "media_photo" in cls:
            if folder == "stickers" or title == "Sticker":
                msg.extra["sticker"] = {"emoji": status.split(",")[0]} if status and not href else {}
                attach()
            elif title.startswith("Self-destructing"):
                msg.extra["view_once"] = True
            else:
                attach(mime="image/jpeg")
        elif "media_video" in cls:
            kind = ("video_message" if folder == "round_video_messages" or title == "Video message"
                    else "animation" if title == "Animation" else "video_file")
            if title.startswith("Self-destructing"):
                msg.extra["view_once"] = True
            else:
                msg.extra["media_type"] = kind
                _duration(status, msg)
                attach()
        elif "media_voice_message" in cls:
            msg.extra.update(media_type="voice_message", voice_note=True)
            _duration(status, msg)
            attach()
        elif "media_audio_file" in cls:
            msg.extra["media_type"] = "audio_file"
            if title and " – " in title:
                msg.extra["performer"], msg.extra["title"] = title.split(" – ", 1)
            _duration(status, msg)
            attach()
        elif "media_file" in cls:
            attach(name=title or None)
        elif "media_contact" in cls:
            phone = status.split(" - ")[0].strip()
            msg.extra["contact"] = {"name": title.strip(), "phones": [phone] if phone else []}
            msg.text = msg.text or f"Contact: {', '.join(x for x in (title.strip(), phone) if x)}"
            if href:
                attach()
        elif cls & {"media_location", "media_live_location", "media_venue"}:
            found = LAT_LON.search(status) or LAT_LON.search(href.split("q=", 1)[-1] if href else "")
            lat, lon = (float(found.group(1)), float(found.group(2))) if found else (None, None)
            venue = "media_venue" in cls
            msg.extra["location"] = {"latitude": lat, "longitude": lon, "name": title if venue else None,
                                     "address": description if venue else None}
            words = [title if venue else None, description if venue else None,
                     f"{lat}, {lon}" if found else None]
            msg.text = msg.text or "Location: " + " — ".join(w for w in words if w)
        elif "media_game" in cls:
            msg.extra["game_title"] = title
        elif "media_invoice" in cls:
            msg.extra["invoice_information"] = {"title": title, "description": description, "amount": status}
        else:
            msg.extra["media"] = " — ".join(x for x in (title, description, status) if x)

    def _poll(self, node: Node, msg: Message) -> None:
        question = _text_of(node, "question")
        options = []
        for answer in node.find_all("answer"):
            text = answer.text(skip=("details",))
            votes = VOTES.search(_text_of(answer, "details"))
            options.append({"text": text[2:] if text.startswith("- ") else text,
                            "votes": int(votes.group(1)) if votes else 0})
        msg.extra["poll"] = {"question": question, "options": options,
                             "closed": _text_of(node, "details") == "Final results"}
        msg.text = msg.text or question

    def _reactions(self, body: Node, msg: Message) -> None:
        """Reactions as newer exporters draw them (emoji and count per reaction; who reacted is
        not written), kept as counts like the JSON reader's."""
        box = body.find("reactions")
        if box is None:
            return
        counts = []
        for r in box.find_all("reaction"):
            emoji = _text_of(r, "emoji") or r.text(skip=("count", "userpics"))
            count = re.sub(r"\D", "", _text_of(r, "count"))
            if emoji:
                counts.append({"emoji": emoji, "count": int(count) if count else 1})
        if counts:
            msg.extra["reaction_counts"] = counts


def _link_target(node: Node) -> int | None:
    """The message id a 'this message' link goes to (#go_to_message123, messages2.html#go_to...)."""
    for a in [node, *node.find_all_tags("a")]:
        m = GO_TO.search(a.attrs.get("href", "")) or GO_TO_CALL.search(a.attrs.get("onclick", ""))
        if m:
            return int(m.group(1))
    return None


def _duration(status: str, msg: Message) -> None:
    """A status line's 'MM:SS' or 'H:MM:SS' as extra['duration_seconds']."""
    m = re.search(r"\b(?:(\d+):)?(\d{1,2}):(\d{2})\b", status)
    if m:
        msg.extra["duration_seconds"] = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
