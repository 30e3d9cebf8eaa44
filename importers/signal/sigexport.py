"""signal-export (`sigexport`) output → records.

The export is a folder per chat, each with `chat.md` (for people) and `data.json` (JSON Lines,
one message per line, read here). It has no ids, no conversation ids, no edit history, and
times are naive local times of the machine that ran it:

    {"date": "2023-06-05T12:20:43.288000", "sender": "Me", "body": "Photo caption  ",
     "quote": "", "reactions": [], "attachments": [{"name": "…_00_my-photo.jpg",
     "path": "media/…_00_my-photo.jpg"}], "deleted": false, "call": false, "missed": false}
      → Message(sender="me", text="Photo caption", sent_at=12:20:43.288 in options.timezone,
                attachments=[Attachment(name="my-photo.jpg", ...)])

Ids are derived from chat + date as written + sender as written + text + occurrence, so they do
not change when the configured time zone does.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from chatmem.errors import FormatError
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
    Reaction,
    Record,
    SourceState,
    call_id,
    export_file,
    message_id_from_content,
)

from ..estimate import count_lines
from .common import PLATFORM, json_lines

DATA_FILE, CHAT_FILE = "data.json", "chat.md"
KEY_PREFIX = "sigexport:"  # chat keys: sigexport has no conversation ids, only folder names
OWNER_SENDER = "Me"  # how sigexport writes the owner
BODY_PAD = "  "  # sigexport appends two spaces to every body (a markdown line break)
SOURCE_ID = re.compile(r"s_[0-9a-f]{16}")
# Exported attachment names: "<local time with '-'>_<NN>_<original name or None>.<ext>"
EXPORTED_NAME = re.compile(r"\d{4}-\d\d-\d\dT[\d-]+(?:\.\d+)?_\d+_(.*)")
CALL_DURATION = re.compile(r"accepted, (?:(\d+)m )?(\d+)s")


def is_chat_folder(path: Path) -> bool:
    return (path / DATA_FILE).is_file() and (path / CHAT_FILE).is_file()


def chat_folders(path: Path, skipped_links: list[Path] | None = None) -> list[Path]:
    """The chat folders of an export: `path` itself, or its sub-folders that are chats.
    Symbolic links inside the export (a chat folder, or its data.json or chat.md) are not
    followed, so reading never leaves the export; they go to `skipped_links`."""
    if is_chat_folder(path):
        return [path]
    folders = []
    for p in sorted(path.iterdir()):
        if not p.is_dir() or not is_chat_folder(p):
            continue
        if p.is_symlink() or (p / DATA_FILE).is_symlink() or (p / CHAT_FILE).is_symlink():
            if skipped_links is not None:
                skipped_links.append(p)
            continue
        folders.append(p)
    return folders


class SigexportReader:
    name = "signal-export"

    def detect(self, path: Path) -> bool:
        try:
            path = Path(path)
            return path.is_dir() and bool(chat_folders(path))
        except OSError:
            return False

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        path = Path(path)
        skipped: list[Path] = []
        try:
            folders = chat_folders(path, skipped)
        except OSError as e:
            raise FormatError(f"{path}: cannot read the folder ({e})") from e
        if not folders:
            raise FormatError(f"{path}: no signal-export chat folders ({DATA_FILE} + {CHAT_FILE})")
        owners = {OWNER_SENDER, *options.owner_names}
        yield Estimate(count_lines(f / DATA_FILE for f in folders))  # a message a line
        for folder in folders:
            yield from _ChatReader(folder, options, owners, single=len(folders) == 1).records()
        notes = [f"signal-export: {len(folders)} chat(s); local times read in {options.timezone}"]
        notes += [f"skipped {p}: a symbolic link inside the export is not followed" for p in skipped]
        yield SourceState(notes=notes)


class _ChatReader:
    def __init__(self, folder: Path, options: ImportOptions, owners: set[str], single: bool):
        self.folder, self.options, self.owners = folder, options, owners
        self.data_path = folder / DATA_FILE
        # --chat merges a single chat's export into a chat named so, or with that source id
        chosen = options.chat if single else None
        merge_id = chosen if chosen and SOURCE_ID.fullmatch(chosen) else ""
        self.chat_name = folder.name if merge_id or not chosen else chosen
        self.chat_id_override = merge_id
        self.key = KEY_PREFIX + self.chat_name
        self.occurrences = Occurrences()
        self.by_text: dict[str, list[str]] = {}  # text → ids of earlier messages, for quotes

    def records(self) -> Iterator[Record]:
        lines = self._lines()  # one chat at a time: the chat record needs all its senders
        senders: list[str] = list(
            dict.fromkeys(
                str(obj.get("sender"))
                for _, _, obj in lines
                if isinstance(obj, dict)
                and obj.get("sender")
                and obj.get("sender") not in self.owners
            )
        )
        chat = Chat(
            PLATFORM,
            self.key,
            self.chat_name,
            group=len(senders) > 1,
            participants=senders or [self.chat_name],
            id=self.chat_id_override,
        )
        yield chat
        where = str(self.data_path)
        for number, text, obj in lines:
            if isinstance(obj, str):  # the reason it could not be read
                yield Problem(where, number, obj, text, chat.id)
                continue
            try:
                yield self._record(obj, text, number, chat)
            except (KeyError, TypeError, ValueError) as e:
                yield Problem(where, number, f"unexpected record ({e})", text, chat.id)

    def _lines(self) -> list[tuple[int, str, Any]]:
        """(line number, text, parsed object or the reason it is unreadable) per non-empty line."""
        out: list[tuple[int, str, Any]] = []
        try:
            with self.data_path.open(encoding="utf-8", errors="replace") as f:
                for number, text, obj, error in json_lines(f):
                    if error is not None:
                        out.append((number, text, error))
                    elif not isinstance(obj, dict) or not isinstance(obj.get("date"), str):
                        out.append((number, text, "not a signal-export message (no date)"))
                    else:
                        out.append((number, text, obj))
        except OSError as e:
            raise FormatError(f"{self.data_path}: cannot read ({e})") from e
        return out

    def _record(self, obj: dict[str, Any], raw: str, number: int, chat: Chat) -> Message | Call:
        written = obj["date"]
        when = datetime.fromisoformat(written)
        if when.tzinfo is None:
            when = when.replace(tzinfo=self.options.timezone)
        sender_written = obj.get("sender") or ""
        sender = OWNER if sender_written in self.owners else sender_written
        text = obj.get("body") or ""
        if text.endswith(BODY_PAD):
            text = text[: -len(BODY_PAD)]
        occurrence = self.occurrences.next((written, sender_written, text))
        if obj.get("call"):
            return self._call(obj, text, when, sender, written, occurrence, chat, raw, number)
        mid = message_id_from_content(PLATFORM, self.key, written, sender_written, text, occurrence)
        message = Message(
            id=mid,
            platform=PLATFORM,
            chat_id=chat.id,
            sent_at=when,
            sender=sender,
            text=text,
            deleted=bool(obj.get("deleted")),
            raw=raw,
            line=number,
        )
        self._quote(message, obj.get("quote"))
        message.reactions = [self._reaction(r) for r in obj.get("reactions") or []]
        message.attachments = [self._attachment(a) for a in obj.get("attachments") or []]
        if obj.get("sticker"):
            message.extra["sticker"] = obj["sticker"]
        if message.attachments or obj.get("sticker"):
            message.kind = "media"
        if text:
            self.by_text.setdefault(text, []).append(mid)
        return message

    def _quote(self, message: Message, quote: Any) -> None:
        """sigexport writes a quote as '\\n\\n> line\\n> line\\n\\n'; find it by its text."""
        if not isinstance(quote, str) or not quote.strip():
            return
        text = "\n".join(
            line[2:] if line.startswith("> ") else line.lstrip(">")
            for line in quote.strip("\n").split("\n")
        )
        earlier = self.by_text.get(text, [])
        if len(earlier) == 1:
            message.reply_to = earlier[0]
        else:
            message.extra["quote"] = {"text": text}

    def _reaction(self, r: Any) -> Reaction:
        # A reaction is written as [name, emoji] (a namedtuple serialised as a list).
        name, emoji = (r.get("name"), r.get("emoji")) if isinstance(r, dict) else (r[0], r[1])
        return Reaction(emoji=str(emoji or ""), sender=OWNER if name in self.owners else str(name or ""))

    def _attachment(self, a: dict[str, Any]) -> Attachment:
        exported = a.get("name") or ""
        match = EXPORTED_NAME.fullmatch(exported)
        original = match.group(1) if match else exported
        if original.startswith("None.") or original == "None":
            original = None
        path, size, present = export_file(self.folder, unquote(a["path"])) if a.get("path") else (None, None, False)
        return Attachment(
            name=original or None,
            mime_type=mimetypes.guess_type(exported)[0],
            size=size,
            path=path,
            present=present,
        )

    def _call(
        self,
        obj: dict,
        text: str,
        when: datetime,
        sender: str,
        written: str,
        occurrence: int,
        chat: Chat,
        raw: str,
        number: int,
    ) -> Call:
        """'Outgoing voice call (accepted, 1m 5s)', 'Missed video call', 'Incoming call'."""
        lower = text.lower()
        if (
            obj.get("missed")
            or lower.startswith("missed")
            or (lower.startswith("incoming") and "declined" in lower)
        ):
            direction = "missed"
        elif lower.startswith("outgoing") or (not lower.startswith("incoming") and sender == OWNER):
            direction = "outgoing"
        else:
            direction = "incoming"
        duration = CALL_DURATION.search(text)
        answered = True if "accepted" in lower else (False if direction == "missed" else None)
        return Call(
            id=call_id(PLATFORM, self.key, written, obj.get("sender") or "", occurrence),
            platform=PLATFORM,
            chat_id=chat.id,
            started_at=when,
            direction=direction,
            media="video" if "video" in lower else "voice",
            duration=int(duration.group(1) or 0) * 60 + int(duration.group(2))
            if duration
            else None,
            answered=answered,
            peer=None if chat.group else chat.name,
            raw=raw,
            line=number,
        )
