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
import os
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.importers.estimate import head_text
from chatmem.importers.json_scan import new_digest
from chatmem.importers.meta_resume import (
    KEEP,
    MAX_STRETCHES,
    STATE_KEY,
    Layout,
    Run,
    ThreadFile,
    decode_new,
    kept_state,
    only_new,
    scan_file,
    sort_time,
)
from chatmem.importers.resume_blocks import OnlyChanged
from chatmem.records import (
    OWNER,
    RESUME_STATE,
    Attachment,
    Call,
    Chat,
    HashedOccurrences,
    ImportOptions,
    Message,
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
    # a thread folder's name is the thread's (annaberg_10158, t_8): one whose name differs only in
    # its digits is another thread, not a newer download of this one
    same_name_only = True

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
        """A re-import of a thread that only has new messages decodes only those (see
        importers/meta_resume.py); otherwise the files are read whole and the store is given only
        the blocks of messages that changed (importers/resume_blocks.py)."""
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
        only = OnlyChanged(options.state, "meta")
        return only.feed(thread.records(only))


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
        # absolute: the download's folders above a thread named from the working folder
        # ("inbox/t_8") are found, and name the same thread as its full path does
        folder = Path(os.path.abspath(folder))
        self.folder, self.files, self.options = folder, files, options
        lowered = str(folder).lower()
        self.platform = "instagram" if any(m in lowered for m in INSTAGRAM_MARKERS) else "messenger"
        self.key = f"{self.platform}:{key or folder.name}"
        self.owner_names = {n.casefold() for n in options.owner_names}
        self.occurrences = HashedOccurrences()  # a thread's keys as digests: memory does not grow with its texts
        self.roots = [Path(os.path.abspath(r)) for r in roots] if roots else _download_roots(folder)

    def records(self, only: OnlyChanged | None = None) -> Iterator[Record]:
        resume = self.options.state.get(RESUME_STATE)
        kept = resume.get(STATE_KEY) if only is not None and only.resumed and isinstance(resume, dict) else None
        if isinstance(kept, dict) and only is not None:
            grown = self._grown(kept, only)
            if grown is not None:
                yield from grown
                return
        # The first file's keys (participants, title) make the chat; its messages are the newest
        # and come last. Files are read from the last (the oldest), each file's list from its end:
        # oldest first, one file's messages at a time, whatever the thread's length.
        first = self._scan(self.files[0], keep=KEEP if len(self.files) == 1 else 0)
        chat, notes = self._chat(fix(first.head))
        yield chat
        layouts: list[Layout] = [first.layout] * len(self.files)
        count, newest = 0, float("-inf")
        for k in range(len(self.files) - 1, -1, -1):
            scanned = first if k == 0 else self._scan(self.files[k])
            layouts[k] = scanned.layout
            for i, m in scanned.oldest_first():
                m = fix(m)
                count += 1
                newest = max(newest, sort_time(m))
                yield self._row(scanned.path, i, m, chat)
            del scanned
        state = kept_state(self.files, layouts, newest if newest != float("-inf") else None, self.context())
        if state is not None:
            state["count"] = count
        yield SourceState(state={RESUME_STATE: {STATE_KEY: state}},
                          notes=[f"{self.platform}: thread {self.key.split(':', 1)[1]!r}, {count} message(s) "
                                 f"in {len(self.files)} file(s)", *notes])

    @staticmethod
    def _scan(path: Path, keep: int = KEEP) -> ThreadFile:
        scanned = scan_file(path, keep)
        if not scanned.listed:
            raise FormatError(f"{path}: not a Messenger/Instagram thread (no messages list)")
        return scanned

    def context(self, like: Any = None) -> str:
        """What the records depend on besides the files' bytes: the owner, where the thread is,
        and what the folders its messages' files would be found in hold. `like`: a kept
        context, made the same way (see json_scan.new_digest)."""
        said = json.dumps([self.key, [str(r) for r in self.roots],
                           sorted(self.options.owner_names), _listing(self.folder)], ensure_ascii=False)
        return new_digest(said.encode("utf-8", "surrogatepass"),
                          like if isinstance(like, str) else None).hexdigest()

    def _grown(self, kept: dict[str, Any], only: OnlyChanged) -> Iterator[Record] | None:
        """The records of a thread whose files hold the last import's messages and new ones
        before them: the new ones only (None: read it whole)."""
        new = only_new(self.files, kept, self.context(kept.get("context")))
        decoded = decode_new(new) if new is not None else None
        if new is None or decoded is None:
            return None
        rows = [(self.files[k], i, fix(m)) for k, messages in decoded for i, m in enumerate(messages)]
        if not rows or not all(isinstance(m, dict) and sort_time(m) > kept["newest"] for _, _, m in rows):
            return None  # not all newer than what was read: numbering repeats needs the whole thread
        with self.files[0].open("rb") as f:
            head = f.read(kept["before"])
            f.seek(-kept["after"], 2)
            tail = f.read()
        try:
            first = fix(json.loads(head + tail))
        except (ValueError, RecursionError):
            return None
        return self._grown_records(kept, only, new, rows, first)

    def _grown_records(self, kept: dict[str, Any], only: OnlyChanged, new: Any, rows: list,
                       first: dict[str, Any]) -> Iterator[Record]:
        chat, notes = self._chat(first)
        yield chat
        only.resume(chat.id, only.carry(chat.id))
        only.how = (f"{len(rows):,} new message(s) decoded; the {kept.get('count', 0):,} read before are the "
                    "same bytes in the newer files")
        for f, i, m in reversed(rows):
            yield self._row(f, i, m, chat)
        state = dict(kept, newest=max(kept["newest"], *(sort_time(m) for _, _, m in rows)),
                     count=kept.get("count", 0) + len(rows))
        if len(kept["stretches"]) < MAX_STRETCHES:
            state["stretches"] = [*kept["stretches"], list(new.added)]
        else:
            run = Run(self.files, new.layouts, kept["sep"].encode("utf-8"))
            state["stretches"] = [[run.length, run.digest(0, run.length)]]
        yield SourceState(state={RESUME_STATE: {STATE_KEY: state}},
                          notes=[f"{self.platform}: thread {self.key.split(':', 1)[1]!r}, {state['count']} "
                                 f"message(s) in {len(self.files)} file(s)", *notes])

    def _chat(self, first: dict[str, Any]) -> tuple[Chat, list[str]]:
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
        return Chat(self.platform, self.key, title, group=group, participants=others), notes

    def _row(self, f: Path, i: int, m: Any, chat: Chat) -> Record:
        """One message (`i`: its index in file `f`'s list). The files' messages come the last
        file's last first (Meta's order reversed), not sorted by time: the store orders by time,
        and a repeat is numbered among messages of the same time, whose order a sort would keep."""
        if not isinstance(m, dict):
            return Problem(str(f), i + 1, "not a message object", json.dumps(m)[:2000], chat.id)
        try:
            return self._message(m, chat, f, i)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            return Problem(str(f), i + 1, f"unexpected message ({e})", json.dumps(m, ensure_ascii=False), chat.id)

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


def _listing(folder: Path) -> list[Any]:
    """The thread folder's files but its message files (names, sizes, links): what its messages'
    photos and files are found among."""
    out = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(names + [d for d in dirs if os.path.islink(os.path.join(top, d))]):
            full = os.path.join(top, name)
            if top == str(folder) and MESSAGE_FILE.fullmatch(name):
                continue
            try:
                st = os.lstat(full)
            except OSError:
                continue
            out.append([os.path.relpath(full, folder), st.st_size, os.readlink(full) if os.path.islink(full) else ""])
    return out


def _download_roots(folder: Path) -> list[Path]:
    """Where uris may be relative to: the folder above `messages/` (older downloads) and the one
    above that (`your_activity_across_facebook/messages/...`); the thread folder itself when the
    thread was copied out of its download."""
    for parent in [folder, *folder.parents]:
        if parent.name == "messages":
            return [parent.parent, parent.parent.parent]
    return [folder]
