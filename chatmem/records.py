"""The contract between importers and the store.

An importer reads one export (a file or a folder) and yields records — `Chat`, `Message`,
`Call`, `Reaction`, `Problem`, `Contact`, and at most one `SourceState` — in any order except
that a chat is yielded before the first record that names it. An importer that knows early how
much is coming may yield an `Estimate` first, for the progress display. It knows nothing about storage:
the store's ingest pipeline decides what is new, changed or unchanged.

Ids are derived here, deterministically, from each record's natural key in its source, so the
same message imported twice, from two overlapping exports, or into a store rebuilt from scratch
gets the same id:

    >>> message_id_from_guid("imessage", "6A1B")          # a platform GUID
    'm_b366baa2c5e0aa42'
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any, Protocol

OWNER = "me"  # the owner of the archive, on every platform

PLATFORMS = ("imessage", "whatsapp", "signal", "telegram", "sms", "messenger", "instagram", "agent")
KINDS = ("text", "media", "system", "call")
CALL_DIRECTIONS = ("incoming", "outgoing", "missed")

_SEP = "\x1f"  # unit separator: cannot appear in a natural key part by accident


def stable_id(prefix: str, *parts: object) -> str:
    """A short, deterministic id: prefix + 16 hex digits of BLAKE2b over the parts.

    >>> stable_id("s", "whatsapp", "Anna")
    's_e3206b883793908a'
    """
    key = _SEP.join("" if p is None else str(p) for p in parts)
    return f"{prefix}_{hashlib.blake2b(key.encode('utf-8'), digest_size=8).hexdigest()}"


def chat_id(platform: str, chat_key: str) -> str:
    """The chat's public `source` id (`s_...`) from its natural key in the platform."""
    return stable_id("s", platform, chat_key)


def message_id_from_guid(platform: str, guid: str) -> str:
    """Id of a message that has a platform GUID (iMessage guid, Signal message id)."""
    return stable_id("m", platform, "guid", guid)


def message_id_from_content(
    platform: str, chat_key: str, when: str, sender: str, text: str, occurrence: int
) -> str:
    """Id of a message without a GUID: chat + time as written + sender + text + occurrence.

    `when` should be the time as the source wrote it (e.g. local wall-clock ISO without zone
    for WhatsApp), so that changing the configured time zone does not change ids.
    `occurrence` numbers identical (chat, when, sender, text) messages in file order, from 0.
    """
    return stable_id("m", platform, "content", chat_key, when, sender, text, occurrence)


def call_id(platform: str, *natural_key: object) -> str:
    return stable_id("c", platform, *natural_key)


def attachment_id(message_id: str, index: int, name: str | None) -> str:
    return stable_id("a", message_id, index, name)


class Occurrences:
    """Numbers repeated natural keys in order: the first is 0, the next identical one 1, ...

    >>> occ = Occurrences(); occ.next(("a", 1)), occ.next(("a", 1)), occ.next(("b",))
    (0, 1, 0)
    """

    def __init__(self) -> None:
        self._seen: Counter[tuple] = Counter()

    def next(self, key: tuple) -> int:
        n = self._seen[key]
        self._seen[key] = n + 1
        return n


class HashedOccurrences:
    """`Occurrences` for keys of strings, in memory that barely grows: each key is kept as a
    64-bit digest in an open-addressing table (16 bytes a key at most), not as its strings (a
    million message texts held to the end of an import). Two different keys with the same
    digest (about one chance in 10^7 in a million keys) would be numbered as one; the same
    keys always get the same numbers.

    >>> occ = HashedOccurrences(); occ.next(("a", "1")), occ.next(("a", "1")), occ.next(("b",))
    (0, 1, 0)
    """

    def __init__(self) -> None:
        self._table = array("Q", bytes(8 * 1024))
        self._mask = 1023
        self._used = 0
        self._repeats: dict[int, int] = {}

    def next(self, key: tuple[str, ...]) -> int:
        h = int.from_bytes(hashlib.blake2b("\x1f".join(key).encode("utf-8", "surrogatepass"),
                                           digest_size=8).digest(), "little") or 1
        table, mask = self._table, self._mask
        slot = h & mask
        while True:
            there = table[slot]
            if there == h:
                n = self._repeats.get(h, 1)
                self._repeats[h] = n + 1
                return n
            if not there:
                break
            slot = (slot + 1) & mask
        table[slot] = h
        self._used += 1
        if self._used * 2 > mask:
            self._grow()
        return 0

    def _grow(self) -> None:
        old = self._table
        self._table = table = array("Q", bytes(8 * 2 * len(old)))
        self._mask = mask = len(table) - 1
        for h in old:
            if h:
                slot = h & mask
                while table[slot]:
                    slot = (slot + 1) & mask
                table[slot] = h


def utc(dt: datetime) -> datetime:
    """An aware datetime in UTC (naive input is taken to be UTC already)."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def raw_json(row: dict[str, Any]) -> str:
    """A database row as the raw text read_raw_data shows: JSON, blobs as hex, keys sorted."""

    def default(o: Any) -> Any:
        if isinstance(o, (bytes, bytearray, memoryview)):
            return {"$hex": bytes(o).hex()}
        if isinstance(o, datetime):
            return o.isoformat()
        return str(o)

    return json.dumps(row, ensure_ascii=False, sort_keys=True, default=default)


# --------------------------------------------------------------------------- records


@dataclass
class Chat:
    """One conversation. `key` is the platform's natural key (chat guid, conversation id...)."""

    platform: str
    key: str
    name: str
    group: bool = False
    participants: list[str] = field(default_factory=list)  # display names or handles, not "me"
    handles: list[str] = field(default_factory=list)  # phone numbers / e-mails / service ids
    id: str = ""  # derived from (platform, key) when empty
    created_at: datetime | None = None  # agent sessions: when the session started
    memory_paused: bool | None = None  # None: leave as it is

    def __post_init__(self) -> None:
        if not self.id:
            self.id = chat_id(self.platform, self.key)


@dataclass
class Attachment:
    name: str | None = None  # file name as the sender named it
    mime_type: str | None = None
    size: int | None = None  # bytes
    # how to reach the bytes (a locator, see `chatmem.store.media`): an absolute path on disk,
    # or "zip:<absolute path of the zip>!<member>" for a file inside a zip
    # (`export_file` makes the locator of a file inside an export folder)
    path: str | None = None
    guid: str | None = None  # platform id of the attachment, when there is one
    present: bool | None = None  # the file was found at import time (None: not looked for)
    key: str | None = None  # how to decrypt the file, when the source encrypts it (base64)
    text: str | None = None  # what the source says about it: caption, transcript, title, preview


def export_file(root: Path, relative: str | Path) -> tuple[str | None, int | None, bool]:
    """A file an export names by its path inside the export folder `root`, as an attachment's
    (locator, size, present). The locator is `file:["<root>", "<path inside>"]`; reading it
    (chatmem.store.media) checks again that it stays inside the folder. A name that climbs out
    of the folder ('../x', '/etc/x') is no file of the export: (None, None, False). A symbolic
    link leading outside the folder keeps its locator (reading it says why it is refused) but is
    not present."""
    rel = str(relative).replace("\\", "/")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or rel.startswith("/") or ".." in parts:
        return None, None, False
    target = root.joinpath(*parts)
    try:
        if not target.is_file():
            return None, None, False
        size = target.stat().st_size
        inside = target.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # unreadable, or a loop of links
        return None, None, False
    locator = "file:" + json.dumps([str(root.absolute()), "/".join(parts)], ensure_ascii=False)
    return locator, size if inside else None, inside


@dataclass
class Version:
    """An earlier version of an edited message (oldest first in `Message.versions`)."""

    text: str
    timestamp: datetime | None = None


@dataclass
class Reaction:
    """A tapback / emoji reaction. Yielded inside `Message.reactions`, or on its own with
    `target_id` set when the target may have come from an earlier import (iMessage)."""

    emoji: str
    sender: str  # "me" or the reacting person's name/handle
    timestamp: datetime | None = None
    removed: bool = False  # a later removal of the same reaction (iMessage 3000-3007)
    target_id: str = ""  # set when yielded on its own
    sender_handle: str | None = None


@dataclass
class Message:
    """One message in the normalized shape (see SPEC "The normalized record")."""

    id: str  # from message_id_from_guid / message_id_from_content
    platform: str
    chat_id: str  # Chat.id of a chat yielded earlier
    sent_at: datetime  # aware; stored in UTC
    sender: str  # "me" for the owner, else the name (or handle) the source shows
    text: str = ""  # without the "sender: " prefix; "" when there is none
    kind: str = "text"  # text | media | system | call
    sender_handle: str | None = None  # phone / e-mail / service id when the source has one
    guid: str | None = None  # the platform's own id, when there is one
    deleted: bool = False  # deleted for everyone
    edited: bool = False
    versions: list[Version] = field(default_factory=list)  # earlier versions, oldest first
    reply_to: str | None = None  # id of the message this one answers
    reactions: list[Reaction] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    raw: str = ""  # the record as it came from the source: exported lines, or the row as JSON
    extra: dict[str, Any] = field(default_factory=dict)  # poll, location, mentions, role, refs...
    line: int | None = None  # first line / row in the source, for reports

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}")


@dataclass
class Call:
    """A voice/video call, a record of its own attached to its chat."""

    id: str  # from call_id(platform, natural key...)
    platform: str
    chat_id: str
    started_at: datetime
    direction: str  # incoming | outgoing | missed
    media: str = "voice"  # voice | video
    duration: int | None = None  # seconds
    answered: bool | None = None
    peer: str | None = None  # the other party's name or handle
    summary: str | None = None
    transcript: str | None = None
    raw: str = ""
    line: int | None = None

    def __post_init__(self) -> None:
        if self.direction not in CALL_DIRECTIONS:
            raise ValueError(f"unknown call direction {self.direction!r}")


@dataclass
class Contact:
    """A person from an address book: a name and the handles that reach them."""

    name: str
    phones: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    raw: str = ""


@dataclass
class Person:
    """A person as a store exports it (JSON Lines round trip): their id, name and handles,
    and whether a user fixed them by hand (merge, split, rename)."""

    id: str
    name: str
    handles: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, value, source)
    manual: bool = False
    from_contact: bool = False


@dataclass
class SavedMemory:
    """One saved version of a conversation's memory, as a store exports it."""

    id: str
    chat_id: str
    version: int
    text: str
    created_at: datetime
    cites: list[str] = field(default_factory=list)
    newest_cited_at: datetime | None = None
    seat: str | None = None


@dataclass
class Problem:
    """Something in the source that could not be parsed. It is counted, reported with its
    line/row number, and its text is kept in the store — never silently dropped."""

    where: str  # file (and member) name
    line: int | None  # 1-based line or row number
    reason: str
    text: str = ""  # the raw text that could not be parsed
    chat_id: str | None = None  # the chat it belongs to, when known


RESUME_STATE = "resume"  # SourceState.state key of where a re-import may resume; --force drops it
# a resume state with "portable": true stays right for a newer export under another name (it
# compares what the records say, not where they came from): the store hands it to the first
# import of a path it does not know, taken from the last import of an export of the same name
# (digits aside: sms-20240302.xml, sms-20240401.xml) and platform
PORTABLE = "portable"


@dataclass
class SourceState:
    """Importer state to remember for the next import of the same source (e.g. a ROWID
    watermark) plus notes for the report (e.g. 'date order guessed as D/M/Y')."""

    state: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class Estimate:
    """How many records the importer expects to yield; optional, yielded early, so that the
    progress display can say how long is left."""

    records: int


Record = (Chat | Message | Call | Reaction | Contact | Person | SavedMemory | Problem | SourceState
          | Estimate)


@dataclass
class ImportOptions:
    """What the user (CLI flags) and the config tell an importer."""

    timezone: tzinfo = timezone.utc  # for sources whose times have no zone (WhatsApp)
    owner_names: list[str] = field(default_factory=list)  # names the owner appears under
    owner_handles: list[str] = field(default_factory=list)  # the owner's phones / e-mails
    date_format: str | None = None  # WhatsApp override, e.g. "DMY", "MDY", "YMD"
    chat: str | None = None  # merge this export into the chat with this name / source id
    state: dict[str, Any] = field(default_factory=dict)  # SourceState.state from last import
    default_region: str | None = None  # phone number region, e.g. "DE"


class Importer(Protocol):
    """One per platform; registered in `chatmem.importers.REGISTRY`."""

    platform: str

    def detect(self, path: Path) -> bool:
        """True when `path` (file or folder) is an export this importer reads."""
        ...

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        """Yield the records of the export. Raise FormatError for a file it cannot read at all."""
        ...
