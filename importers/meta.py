"""Facebook Messenger and Instagram direct messages from Meta's "Download your information".

A thread is a folder `messages/inbox/<thread>/` (also `archived_threads/`, `message_requests/`,
`filtered_threads/`, `e2ee_cutover/`; under `your_activity_across_facebook/` (2022-2024),
`your_facebook_activity/` (2025) or `your_instagram_activity/` in newer downloads) holding
`message_1.json`, `message_2.json`... newest messages first (see importers/SOURCES.md):

    {"participants": [{"name": "Anna Berg"}, {"name": "Sam Rivera"}], "title": "Anna Berg",
     "thread_path": "inbox/annaberg_10158", "messages": [
       {"sender_name": "Anna Berg", "timestamp_ms": 1709370000000, "content": "Caf\\u00c3\\u00a9?",
        "reactions": [{"reaction": "\\u00e2\\u009d\\u00a4", "actor": "Sam Rivera"}]}]}
      → Message(sender="Anna Berg", text="Café?", reactions=[❤ by me])

Meta writes the text as UTF-8 bytes each escaped as a Latin-1 code point ("Ã©" for "é");
`repair` turns it back, and leaves text that is already right alone. The end-to-end encrypted
Messenger download is another layout: one flat file per thread (`<name>_<n>.json`, no thread
folder) in camelCase (`participants` as plain names, `threadName`, `senderName`, `timestamp` in
ms, `text`, `media` with uris like `./media/<file>` beside the file, `reactions`, `isUnsent`);
both are read.

Ids: Meta gives messages no id in these files; a message is thread + time in ms + sender + text
+ occurrence, and the thread is its folder name (stable across downloads), or `e2ee/<file name>`
for a flat end-to-end encrypted thread.
"""

from __future__ import annotations

import json
import mimetypes
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.importers.estimate import head_text
from chatmem.importers.resume_blocks import only_changed
from chatmem.records import (
    OWNER,
    Attachment,
    Call,
    Chat,
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

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
MESSAGE_FILE = re.compile(r"message_\d+\.json")
THREAD_SECTIONS = ("inbox", "archived_threads", "message_requests", "filtered_threads", "e2ee_cutover")
MEDIA_FIELDS = {"photos": "image/jpeg", "videos": "video/mp4", "audio_files": "audio/mp4",
                "gifs": "image/gif", "files": None}
INSTAGRAM_MARKERS = ("your_instagram_activity", "instagram")


def repair(text: Any) -> Any:
    """Undo Meta's Latin-1 escaping of UTF-8; text that is not so escaped is left alone.

    >>> repair("Caf\\u00c3\\u00a9 \\u00f0\\u009f\\u0098\\u0080"), repair("Café 😀"), repair("naïve")
    ('Café 😀', 'Café 😀', 'naïve')
    """
    if not isinstance(text, str):
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text


def fix(obj: Any) -> Any:
    """`repair` every string in a parsed file."""
    if isinstance(obj, str):
        return repair(obj)
    if isinstance(obj, list):
        return [fix(x) for x in obj]
    if isinstance(obj, dict):
        return {repair(k): fix(v) for k, v in obj.items()}
    return obj


def from_ms(value: Any) -> datetime:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"not a time: {value!r}")
    return EPOCH + timedelta(milliseconds=int(value))


def thread_files(folder: Path) -> list[Path]:
    """message_1.json, message_2.json... of one thread, in number order."""
    return sorted((p for p in folder.iterdir() if MESSAGE_FILE.fullmatch(p.name)),
                  key=lambda p: int(p.stem.split("_")[1]))


class MetaImporter:
    """Both Messenger and Instagram; the platform of each thread comes from where it lies."""

    platform = "messenger"

    def detect(self, path: Path) -> bool:
        path = Path(path)
        try:
            if path.is_file():
                if MESSAGE_FILE.fullmatch(path.name):
                    return _looks_like_thread(path)
                return path.suffix.lower() == ".json" and _looks_like_e2ee_file(path)
            if path.is_dir():
                files = thread_files(path)
                return bool(files) and _looks_like_thread(files[0])
        except OSError:
            return False
        return False

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        """A re-import gives the store only the blocks of messages that changed since the last
        import of the same thread (see importers/resume_blocks.py); the files are parsed whole."""
        path = Path(path)
        if path.is_file() and not MESSAGE_FILE.fullmatch(path.name):
            # a flat end-to-end encrypted thread: the file is the thread, its media beside it
            thread = _Thread(path.parent, [path], options, key=f"e2ee/{path.stem}", roots=[path.parent])
        else:
            folder = path.parent if path.is_file() else path
            files = thread_files(folder)
            if not files:
                raise FormatError(f"{path}: no message_1.json here (a Messenger or Instagram thread folder)")
            thread = _Thread(folder, files, options)
        return only_changed(thread.records(), options.state, "meta")


def _looks_like_thread(path: Path) -> bool:
    head = head_text(path)
    return ('"participants"' in head or '"threadName"' in head) and '"messages"' in head or (
        '"sender_name"' in head or '"senderName"' in head)


def _looks_like_e2ee_file(path: Path) -> bool:
    head = head_text(path)
    return '"participants"' in head and ('"threadName"' in head or '"senderName"' in head)


class _Thread:
    def __init__(self, folder: Path, files: list[Path], options: ImportOptions, key: str | None = None,
                 roots: list[Path] | None = None) -> None:
        self.folder, self.files, self.options = folder, files, options
        lowered = str(folder).lower()
        self.platform = "instagram" if any(m in lowered for m in INSTAGRAM_MARKERS) else "messenger"
        self.key = f"{self.platform}:{key or folder.name}"
        self.owner_names = {n.casefold() for n in options.owner_names}
        self.occurrences = Occurrences()
        self.roots = roots or _download_roots(folder)

    def records(self) -> Iterator[Record]:
        parsed: list[tuple[Path, dict]] = []
        for f in self.files:
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except UnicodeDecodeError as e:
                raise FormatError(f"{f}: not UTF-8 text at byte {e.start}") from e
            except json.JSONDecodeError as e:
                raise FormatError(f"{f}: not complete JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
            if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
                raise FormatError(f"{f}: not a Messenger/Instagram thread (no messages list)")
            # both layouts: repair leaves text that is already right alone
            parsed.append((f, fix(data)))
        first = parsed[0][1]
        notes: list[str] = []
        listed = first.get("participants")
        names: list[str] = [n for n in (p.get("name") if isinstance(p, dict) else p
                                        for p in (listed if isinstance(listed, list) else []))
                            if isinstance(n, str) and n]
        others = [n for n in names if n.casefold() not in self.owner_names]
        title = first.get("title") or first.get("threadName")
        title = title if isinstance(title, str) else None
        if not self.owner_names and len(names) == 2 and title:
            guessed = [n for n in names if n != title]
            if len(guessed) == 1:
                self.owner_names.add(guessed[0].casefold())
                others = [n for n in names if n != guessed[0]]
                notes.append(f"the owner taken to be {guessed[0]!r} (the one who is not the thread's "
                             "title); set owner.names in the config to be sure")
        title = title or ", ".join(others) or self.folder.name
        group = len(others) > 1 or first.get("thread_type") == "RegularGroup"
        chat = Chat(self.platform, self.key, title, group=group, participants=others)
        yield chat
        count = 0
        # oldest first, whatever order the files keep (Meta's newest first, message_1 the newest)
        rows = [(f, i, m) for f, data in parsed for i, m in enumerate(data["messages"])][::-1]
        rows.sort(key=lambda row: _sort_time(row[2]))
        for f, i, m in rows:
            count += 1
            if not isinstance(m, dict):
                yield Problem(str(f), i + 1, "not a message object", json.dumps(m)[:2000], chat.id)
                continue
            try:
                yield self._message(m, chat, f, i)
            except (KeyError, TypeError, ValueError, OverflowError) as e:
                yield Problem(str(f), i + 1, f"unexpected message ({e})",
                              json.dumps(m, ensure_ascii=False), chat.id)
        yield SourceState(notes=[f"{self.platform}: thread {self.key.split(':', 1)[1]!r}, {count} message(s) "
                                 f"in {len(self.files)} file(s)", *notes])

    def _message(self, m: dict[str, Any], chat: Chat, f: Path, i: int) -> Message | Call:
        e2ee = "senderName" in m
        who = m.get("senderName") if e2ee else m.get("sender_name")
        who = who if isinstance(who, str) and who else "Facebook user"
        when_value = m.get("timestamp") if e2ee else m.get("timestamp_ms")
        sent = from_ms(when_value)
        mine = who.casefold() in self.owner_names
        text = (m.get("text") if e2ee else m.get("content")) or ""
        if not isinstance(text, str):
            raise TypeError("the text is not a string")
        raw = json.dumps(m, ensure_ascii=False)
        written = str(when_value)
        if m.get("call_duration") is not None or m.get("type") == "Call":
            duration = m.get("call_duration") if isinstance(m.get("call_duration"), int) else None
            missed = not duration
            return Call(id=call_id(self.platform, chat.key, written, who), platform=self.platform,
                        chat_id=chat.id, started_at=sent,
                        direction=("outgoing" if mine else ("missed" if missed else "incoming")),
                        duration=duration, answered=bool(duration), peer=None if chat.group else chat.name,
                        raw=raw)
        n = self.occurrences.next((written, who, text))
        msg = Message(id=message_id_from_content(self.platform, chat.key, written, who, text, n),
                      platform=self.platform, chat_id=chat.id, sent_at=sent,
                      sender=OWNER if mine else who, text=text, raw=raw, line=i + 1)
        if m.get("is_unsent") or m.get("isUnsent"):
            # "Anna Berg unsent a message.": gone for everyone; the notice is not the message
            msg.deleted, msg.text = True, ""
            if text:
                msg.extra["notice"] = text
        for field, mime in MEDIA_FIELDS.items():
            for item in m.get(field) or []:
                if isinstance(item, dict):
                    msg.attachments.append(self._attachment(item, mime))
        for item in m.get("media") or []:  # e2ee layout
            if isinstance(item, dict):
                msg.attachments.append(self._attachment(item, None))
        if isinstance(m.get("sticker"), dict):
            msg.extra["sticker"] = True
            msg.attachments.append(self._attachment(m["sticker"], "image/png"))
        share = m.get("share")
        if isinstance(share, dict):
            msg.extra["share"] = {k: share.get(k) for k in ("link", "share_text", "original_content_owner")
                                  if share.get(k)}
            if share.get("link") and share["link"] not in text:
                msg.text = f"{text}\n{share['link']}".strip()
        if m.get("type") in ("Subscribe", "Unsubscribe"):
            msg.kind, msg.extra["event"] = "system", m["type"].lower()
        if msg.attachments and msg.kind == "text":
            msg.kind = "media"
        for r in m.get("reactions") or []:
            if isinstance(r, dict) and isinstance(r.get("reaction"), str):
                actor = given if isinstance(given := r.get("actor"), str) else "Facebook user"
                msg.reactions.append(Reaction(emoji=r["reaction"],
                                              sender=OWNER if actor.casefold() in self.owner_names else actor))
        return msg

    def _attachment(self, item: dict[str, Any], mime: str | None) -> Attachment:
        uri = given if isinstance(given := item.get("uri"), str) else ""
        path, size, present = self._file(uri)
        name = uri.rsplit("/", 1)[-1] or None
        if mime is None and name:  # `files` and the e2ee `media` say no type: the name does
            mime = mimetypes.guess_type(name)[0]
        return Attachment(name=name, mime_type=mime, path=path, size=size, present=present)

    def _file(self, uri: str) -> tuple[str | None, int | None, bool]:
        """(locator, size, present): uris are relative to the download's top folder
        ('messages/inbox/x/photos/1.jpg', or 'your_activity_across_facebook/messages/...');
        look a few folders up, never outside."""
        if not uri or uri.startswith(("http:", "https:")):
            return None, None, False
        for top in self.roots:
            found = export_file(top, uri)
            if found[0] is not None:
                return found
        return None, None, False


def _download_roots(folder: Path) -> list[Path]:
    """Where uris may be relative to: the folder above `messages/` (older downloads) and the one
    above that (`your_activity_across_facebook/messages/...`); the thread folder itself when the
    thread was copied out of its download."""
    for parent in [folder, *folder.parents]:
        if parent.name == "messages":
            return [parent.parent, parent.parent.parent]
    return [folder]


def _sort_time(m: Any) -> float:
    if not isinstance(m, dict):
        return float("-inf")
    value = m.get("timestamp_ms", m.get("timestamp"))
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")
