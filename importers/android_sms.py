"""Android SMS and MMS from "SMS Backup & Restore" (SyncTech) XML, and its call log.

`sms-<date>.xml` holds `<smses>` with `<sms>` and `<mms>` elements; `calls-<date>.xml` holds
`<calls>` with `<call>` elements. Backups run to hundreds of MB (MMS parts carry their files as
base64), so the file is streamed (`iterparse`, each element cleared once read), never loaded
whole. Attribute names are the Android content providers' columns as the app writes them:

    <sms address="+1 555-010-0001" date="1709370000000" type="1" body="Hello"
         contact_name="Anna Berg" readable_date="Mar 2, 2024 10:00:00" ... />
      → Message(sender="Anna Berg", sender_handle="+1 555-010-0001", text="Hello",
                sent_at=2024-03-02 09:00 UTC)

A conversation is the set of the other people's numbers (an MMS group has several, joined by
`~` in `address`, by `,` on some phones, written with and without `+`); its key does not depend
on the backup file, so the next backup, or a backup of the same phone made by another run, lands
in the same chats. Messages have no id that survives a restore, so ids are derived from chat +
time in ms + sender + text + occurrence. Where each attribute and code was seen in public
material: importers/SOURCES.md.

The owner's own number is in the `<addr>` list of a group MMS (type 137, "from", on what they
sent). Without owner.handles in the config, the first sent MMS that names it teaches it (one
extra streamed pass over the file, stopped there), so that group chats do not count the owner
as a member.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from chatmem.errors import FormatError
from chatmem.importers.estimate import head_text
from chatmem.importers.resume_blocks import only_changed
from chatmem.records import (
    OWNER,
    Attachment,
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Occurrences,
    Problem,
    Record,
    SourceState,
    call_id,
    message_id_from_content,
)

PLATFORM = "sms"
KEY_PREFIX = "android:"  # chat keys: the other numbers of the conversation
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
HEAD_BYTES = 2048
NULL = "null"  # how the app writes a missing value

# <sms type>: Telephony.TextBasedSmsColumns.MESSAGE_TYPE_*
SMS_RECEIVED, SMS_SENT, SMS_DRAFT, SMS_OUTBOX, SMS_FAILED, SMS_QUEUED = 1, 2, 3, 4, 5, 6
# <mms msg_box>: Telephony.BaseMmsColumns.MESSAGE_BOX_*
MMS_INBOX, MMS_SENT, MMS_DRAFTS, MMS_OUTBOX = 1, 2, 3, 4
# <mms m_type>: PduHeaders MESSAGE_TYPE_*: a notification of an MMS never downloaded
MMS_NOTIFICATION_IND = 130
# <addr type>: PduHeaders FROM / TO / CC / BCC
ADDR_FROM, ADDR_TO, ADDR_CC, ADDR_BCC = 137, 151, 130, 129
NO_ADDRESS = "insert-address-token"  # what a sent MMS has as its "from" before the network fills it
SMIL = "application/smil"
# <call type>: CallLog.Calls.*_TYPE
CALL_INCOMING, CALL_OUTGOING, CALL_MISSED, CALL_VOICEMAIL, CALL_REJECTED, CALL_BLOCKED = 1, 2, 3, 4, 5, 6
CALL_ANSWERED_EXTERNALLY = 7  # answered on another device of the same number
UNANSWERED_CALLS = {CALL_MISSED, CALL_VOICEMAIL, CALL_REJECTED, CALL_BLOCKED}
# <call presentation>: CallLog.Calls.PRESENTATION_*: who called when no number is shown
HIDDEN_CALLERS = {2: "Private number", 3: "Unknown number", 4: "Payphone"}
SECONDS_BEFORE = 10**11  # an Android time below this is in seconds (MMS date_sent), else in ms


def _value(element: ET.Element, name: str) -> str:
    value = element.get(name)
    return "" if value is None or value == NULL else value


def _int(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def phone_key(number: str) -> str:
    """A number as a chat key part: its last ten digits (so "+1 555…" and "555…" are one
    person, as the phone itself matches them); short codes, names and e-mail as written,
    lower-cased.

    >>> phone_key("+1 (555) 010-0001"), phone_key("5550100001"), phone_key("GOOGLE")
    ('5550100001', '5550100001', 'google')
    """
    digits = re.sub(r"\D", "", number)
    if len(digits) >= 7 and "@" not in number:
        return digits[-10:]
    return number.strip().lower()


def from_ms(value: str) -> datetime:
    ms = _int(value)
    if ms is None:
        raise ValueError(f"not a time: {value!r}")
    return EPOCH + timedelta(milliseconds=ms)


def _sent_time(value: str) -> str | None:
    """`date_sent` as ISO text: ms for SMS, seconds for MMS; 0 (what sent messages have) is None."""
    n = _int(value)
    if not n or n < 0:
        return None
    try:
        return (EPOCH + timedelta(milliseconds=n if n >= SECONDS_BEFORE else n * 1000)).isoformat()
    except OverflowError:
        return None


def _numbers(address: str) -> list[str]:
    """The numbers of an `address` attribute: one, or a group's joined by `~` (or `,`)."""
    return [a.strip() for a in re.split(r"[~,]", address) if a.strip()]


class AndroidSmsImporter:
    platform = PLATFORM

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if not path.is_file() or path.suffix.lower() != ".xml":
            return False
        try:
            head = head_text(path, HEAD_BYTES)
        except OSError:
            return False
        return bool(re.search(r"<(smses|calls)[\s>]", head))

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        """A re-import gives the store only the blocks of messages that changed since the last
        import of the same file (see importers/resume_blocks.py); the file is parsed whole."""
        return only_changed(_Run(Path(path), options).records(), options.state, "sms")


class _Run:
    def __init__(self, path: Path, options: ImportOptions) -> None:
        self.path, self.options = path, options
        self.where = str(path)
        self.owner = {phone_key(h) for h in options.owner_handles}
        self.chats: dict[str, Chat] = {}
        self.yielded: set[str] = set()  # chat keys already given to the store
        self.occurrences = Occurrences()
        self.counts = {"sms": 0, "mms": 0, "call": 0, "draft": 0, "embedded": 0}

    def _is_owner(self, number: str) -> bool:
        return phone_key(number) in self.owner

    # ---------------------------------------------------------------- the pass

    def _learn_owner(self) -> str | None:
        """The owner's number as a sent MMS names it (its 137 "from" address), or None."""
        try:
            for _event, element in ET.iterparse(self.path, events=("end",)):
                if element.tag == "mms":
                    if _value(element, "msg_box") == str(MMS_SENT):
                        for a in element.iter("addr"):
                            number = a.get("address") or ""
                            if _int(a.get("type") or "") == ADDR_FROM and number and number != NO_ADDRESS:
                                return number
                    element.clear()
                elif element.tag in ("sms", "call"):
                    element.clear()
        except (ET.ParseError, OSError):
            return None  # the real pass reports it
        return None

    def records(self) -> Iterator[Record]:
        learned = None
        if not self.owner:
            learned = self._learn_owner()
            if learned:
                self.owner = {phone_key(learned)}
        try:
            events = ET.iterparse(self.path, events=("start", "end"))
            root_seen = False
            depth = 0
            for event, element in events:
                if event == "start":
                    depth += 1
                    if not root_seen:
                        root_seen = True
                        if element.tag not in ("smses", "calls"):
                            raise FormatError(f"{self.path}: not an SMS Backup & Restore file "
                                              f"(the root element is <{element.tag}>)")
                        count = _int(element.get("count") or "")
                        if count:
                            yield Estimate(count)
                    continue
                depth -= 1
                if depth != 1:
                    continue  # parts and addrs are read with their message
                yield from self._element(element)
                element.clear()  # what makes it stream: nothing read stays in memory
        except ET.ParseError as e:
            line, column = e.position
            raise FormatError(f"{self.path}: line {line}, column {column}: not well-formed XML "
                              f"({e.msg if hasattr(e, 'msg') else e}); was the backup cut short? "
                              "Everything before that point was read, nothing was stored") from e
        except OSError as e:
            raise FormatError(f"{self.path}: cannot read ({e})") from e
        notes = [f"SMS Backup & Restore: {self.counts['sms']} SMS, {self.counts['mms']} MMS, "
                 f"{self.counts['call']} call(s)"]
        if self.counts["draft"]:
            notes.append(f"{self.counts['draft']} draft(s) kept as messages from you, marked draft")
        if self.counts["embedded"]:
            notes.append(f"{self.counts['embedded']} MMS attachment(s) are inside the backup (base64); "
                         "read_attachment reads them from it while it is there")
        if learned:
            notes.append(f"your number taken to be {learned} (the sender of your own MMS); "
                         "set owner.handles in the config to be sure")
        elif not self.owner:
            notes.append("owner.handles is not set in the config: group MMS may list your own number")
        yield SourceState(notes=notes)

    def _element(self, element: ET.Element) -> Iterator[Record]:
        raw = _serialized(element)
        if len(raw) > 20_000:  # base64 parts: keep the record readable
            raw = re.sub(r'data="[^"]{200,}"', lambda m: f'data="[{len(m.group(0)) - 7} base64 characters]"', raw)
        try:
            if element.tag == "sms":
                yield from self._sms(element, raw)
            elif element.tag == "mms":
                yield from self._mms(element, raw)
            elif element.tag == "call":
                yield from self._call(element, raw)
            else:
                yield Problem(self.where, None, f"unknown element <{element.tag}>", raw[:2000])
        except (ValueError, OverflowError, TypeError) as e:
            yield Problem(self.where, None, f"unreadable <{element.tag}> ({e})", raw[:20_000],
                          None)

    def _chat(self, numbers: list[str], names: list[str]) -> Chat:
        others = [(n, names[i] if i < len(names) else "") for i, n in enumerate(numbers)
                  if n and not self._is_owner(n)]
        if not others:  # a message to yourself
            others = [(n, names[i] if i < len(names) else "") for i, n in enumerate(numbers) if n][:1]
        keys = sorted({phone_key(n) for n, _ in others}) or ["unknown"]
        key = KEY_PREFIX + "~".join(keys)
        chat = self.chats.get(key)
        if chat is None:
            shown = [name or number for number, name in others]
            group = len(keys) > 1
            chat = Chat(PLATFORM, key, ", ".join(shown) if group else (shown[0] if shown else "Unknown"),
                        group=group, participants=shown, handles=[n for n, _ in others])
            self.chats[key] = chat
        return chat

    def _new(self, chat: Chat) -> Iterator[Chat]:
        """The chat record, the first time a message names it."""
        if chat.key not in self.yielded:
            self.yielded.add(chat.key)
            yield chat

    def _message_id(self, chat: Chat, date: str, sender: str, text: str) -> str:
        n = self.occurrences.next((chat.key, date, sender, text))
        return message_id_from_content(PLATFORM, chat.key, date, sender, text, n)

    def _sms(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["sms"] += 1
        address, kind = _value(e, "address"), _int(_value(e, "type")) or SMS_RECEIVED
        names = [_value(e, "contact_name")] if _value(e, "contact_name") not in ("", "(Unknown)") else []
        chat = self._chat([address], names)
        yield from self._new(chat)
        mine = kind != SMS_RECEIVED
        sender = OWNER if mine else (names[0] if names else address)
        text = _value(e, "body")
        msg = Message(id=self._message_id(chat, _value(e, "date"), OWNER if mine else phone_key(address), text),
                      platform=PLATFORM, chat_id=chat.id, sent_at=from_ms(_value(e, "date")),
                      sender=sender, sender_handle=None if mine else address, text=text, raw=raw)
        if _value(e, "subject"):
            msg.extra["subject"] = _value(e, "subject")
        if _sent_time(_value(e, "date_sent")):
            msg.extra["date_sent"] = _sent_time(_value(e, "date_sent"))  # the sender's phone's time
        self._status(msg, kind, {SMS_DRAFT: "draft", SMS_OUTBOX: "outbox", SMS_FAILED: "failed",
                                 SMS_QUEUED: "queued"})
        yield msg

    def _status(self, msg: Message, kind: int, names: dict[int, str]) -> None:
        if kind in names:
            msg.extra["status"] = names[kind]
            if names[kind] == "draft":
                self.counts["draft"] += 1

    def _mms(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["mms"] += 1
        box = _int(_value(e, "msg_box")) or MMS_INBOX
        numbers = _numbers(_value(e, "address"))
        addrs = [(a.get("address") or "", _int(a.get("type") or "")) for a in e.iter("addr")]
        if not numbers:
            numbers = [a for a, t in addrs if a and a != NO_ADDRESS]
        names = [n.strip() for n in _value(e, "contact_name").split(",")] if _value(e, "contact_name") else []
        if names == ["(Unknown)"]:
            names = []
        chat = self._chat(numbers, names if len(names) == len(numbers) else [])
        yield from self._new(chat)
        sender_number = next((a for a, t in addrs if t == ADDR_FROM), "")
        mine = box != MMS_INBOX or (sender_number and self._is_owner(sender_number))
        texts, attachments = [], []
        for number, part in enumerate(e.iter("part")):
            ct = _value(part, "ct")
            if ct == SMIL:
                continue
            if ct.startswith("text/plain"):
                texts.append(_value(part, "text"))
                continue
            data = part.get("data") or ""
            size = _decoded_size(data) if data else None
            if data:
                self.counts["embedded"] += 1
            name = _value(part, "name") or _value(part, "fn") or _value(part, "cl") or None
            # the file is the part's base64 data: found again by its place in the backup
            # (store/media.py reads it, streaming the XML); a part kept without data is missing
            locator = ("mms:" + json.dumps([str(self.path.absolute()), self.counts["mms"] - 1, number,
                                            e.get("date"), name]) if data else None)
            attachments.append(Attachment(name=name, mime_type=ct or None, size=size, path=locator,
                                          present=bool(data)))
        text = "\n".join(t for t in texts if t)
        handle: str | None
        if mine:
            sender, handle, author = OWNER, None, OWNER
        else:
            sent_by = sender_number or (numbers[0] if len(numbers) == 1 else "")
            idx = numbers.index(sent_by) if sent_by in numbers else -1
            sender = names[idx] if 0 <= idx < len(names) and len(names) == len(numbers) else (sent_by or "Unknown")
            handle, author = sent_by, phone_key(sent_by)
        msg = Message(id=self._message_id(chat, _value(e, "date"), author, text),
                      platform=PLATFORM, chat_id=chat.id, sent_at=from_ms(_value(e, "date")),
                      sender=sender, sender_handle=handle or None, text=text,
                      kind="media" if attachments else "text", attachments=attachments, raw=raw)
        if _value(e, "sub"):
            msg.extra["subject"] = _value(e, "sub")
        if _sent_time(_value(e, "date_sent")):
            msg.extra["date_sent"] = _sent_time(_value(e, "date_sent"))
        if _int(_value(e, "m_type")) == MMS_NOTIFICATION_IND:
            msg.extra["status"] = "not downloaded"  # the phone was told of it, never fetched it
        self._status(msg, box, {MMS_DRAFTS: "draft", MMS_OUTBOX: "outbox"})
        yield msg

    def _call(self, e: ET.Element, raw: str) -> Iterator[Record]:
        self.counts["call"] += 1
        number = _value(e, "number")
        names = [_value(e, "contact_name")] if _value(e, "contact_name") not in ("", "(Unknown)") else []
        hidden = HIDDEN_CALLERS.get(_int(_value(e, "presentation")) or 1)
        if hidden and not re.search(r"\d", number):
            number, names = hidden, [hidden]  # no number shown ("", "-2"...): one chat per kind
        chat = self._chat([number], names)
        yield from self._new(chat)
        kind = _int(_value(e, "type")) or CALL_INCOMING
        duration = _int(_value(e, "duration"))
        direction = "outgoing" if kind == CALL_OUTGOING else ("missed" if kind in UNANSWERED_CALLS else "incoming")
        # answered on another device (7) is answered; blocked (6) and rejected (5) are missed
        yield Call(id=call_id(PLATFORM, chat.key, _value(e, "date"), kind), platform=PLATFORM, chat_id=chat.id,
                   started_at=from_ms(_value(e, "date")), direction=direction, media="voice",
                   duration=duration, answered=None if kind == CALL_OUTGOING else kind not in UNANSWERED_CALLS,
                   peer=chat.name, raw=raw)


ATTRIBUTE_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                     ("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;"))


def _serialized(element: ET.Element) -> str:
    """`ET.tostring(element, encoding="unicode")`, the same characters, written directly for an
    element of attributes only (an <sms>, a <call>: most of a backup), where ElementTree's
    general writer costs more than the rest of the parse."""
    tag, attrib = element.tag, element.attrib
    if len(element) or element.text or "{" in tag or any("{" in k for k in attrib):
        return ET.tostring(element, encoding="unicode")
    out = [f"<{tag}"]
    for key, value in attrib.items():
        for char, escaped in ATTRIBUTE_ESCAPES:
            if char in value:
                value = value.replace(char, escaped)
        out.append(f' {key}="{value}"')
    out.append(f" />{element.tail or ''}")
    return "".join(out)


def _decoded_size(data: str) -> int | None:
    """Bytes of a base64 attribute, without decoding it all."""
    stripped = data.strip()
    if len(stripped) % 4:
        try:
            return len(base64.b64decode(stripped + "=" * (-len(stripped) % 4)))
        except (binascii.Error, ValueError):
            return None
    return len(stripped) // 4 * 3 - stripped[-2:].count("=")

