"""Signal's own export from the phone → records.

Signal's apps export chats in plain form: a folder with `main.jsonl` (one backup frame per line,
in the JSON mapping of Signal's `Backup.proto`: account data, recipients, chats, chat items,
sticker packs...), `metadata.json` and `files/` (attachments and long texts). Referenced frames
come before the frames that name them (recipients before chats, chats before their items).

    {"chatItem": {"chatId": "2", "authorId": "4", "dateSent": "1709370000000",
                  "incoming": {"dateReceived": "1709370001000"},
                  "standardMessage": {"text": {"body": "Are we still on for Saturday?"}}}}
      → Message(sender="Anna Berg", sent_at=2024-03-02 09:00 UTC, text="Are we still on ...")

Ids: a Signal message is known everywhere by its author and its sent time in milliseconds (quotes
name their target so), and the backup's own chat and recipient numbers change between exports;
so a message id is derived from (author ACI — or "self" for the owner — and `dateSent`), a chat's
from the contact's ACI or the group's master key. The same conversation already imported from
Signal Desktop is recognised by the store (`store/reconcile.py`): one chat, each message once.

Attachment files are looked up in `files/` by the media name Signal's local backups use,
hex(SHA-256(plaintextHash + localKey)), in a two-letter sub-folder or not, with or without an
extension, and else by the attachment's file name.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import (
    OWNER,
    RESUME_STATE,
    Attachment,
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    Reaction,
    Record,
    SourceState,
    Version,
    call_id,
    export_file,
    message_id_from_guid,
)

from ..id_set import IdSet
from .backup_events import call_facts, update_text
from .backup_people import People, as_bytes, as_dict, as_int, service_id
from .backup_resume import (
    Plan,
    Segment,
    digest_of,
    files_digest,
    has_file_lookup,
    legacy_digests,
    read_lines,
    scan,
)
from .common import PLATFORM, SYSTEM_SENDER, from_ms, splice_mentions

MAIN_FILE, METADATA_FILE, FILES_DIR = "main.jsonl", "metadata.json", "files"
FRAME_KINDS = ("account", "recipient", "chat", "chatItem", "stickerPack", "adHocCall",
               "notificationProfile", "chatFolder")
BACKUP_INFO_KEYS = ("version", "backupTimeMs")  # the header line (BackupInfo), not a Frame
VOICE_MESSAGE = "VOICE_MESSAGE"  # MessageAttachment.Flag
LONG_TEXT_LIMIT = 4_000_000  # bytes read from a long-text file at most


def export_folder(path: Path) -> Path | None:
    """The export folder for a path: the folder holding main.jsonl, or main.jsonl's folder."""
    if path.is_dir() and (path / MAIN_FILE).is_file():
        return path
    if path.is_file() and path.name == MAIN_FILE:
        return path.parent
    return None


def is_frame(obj: Any) -> bool:
    """Is this one line of a Signal export: the header (BackupInfo: a `version` and a
    `backupTimeMs`) or a Frame (one of the frame kinds, alone or holding an object)?

    >>> is_frame({"account": {"givenName": "Sam"}}), is_frame({"version": "1", "backupTimeMs": "1"})
    (True, True)
    >>> is_frame({"type": "message", "chat": "Anna Berg", "text": "hi"}), is_frame({"account": 5})
    (False, True)
    """
    if not isinstance(obj, dict):
        return False
    if all(k in obj for k in BACKUP_INFO_KEYS):
        return True
    kinds = [k for k in FRAME_KINDS if k in obj]
    # a frame is one key (a damaged value is the reader's to report, line by line)
    return len(kinds) == 1 and (len(obj) == 1 or isinstance(obj[kinds[0]], dict))


def first_line_problem(main: Path) -> str | None:
    """Why `main` is not a Signal export's main.jsonl, judged by its first line with content
    ("line N: ..."), or None when that line is the header or a frame."""
    with main.open("rb") as f:
        for number in range(1, 21):
            line = f.readline(1 << 20)
            if not line:
                return "empty: no backup frame" if number == 1 else "no backup frame in its first lines"
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                return f"line {number} is not JSON"
            if is_frame(obj):
                return None
            keys = ", ".join(list(obj)[:4]) if isinstance(obj, dict) else type(obj).__name__
            return (f"line {number} is not a Signal backup frame (it has {keys}; a frame is one "
                    f"of {', '.join(FRAME_KINDS[:4])}..., or the header with backupTimeMs)")
    return "no backup frame in its first lines"


class BackupReader:
    name = "signal-app-export"

    def detect(self, path: Path) -> bool:
        try:
            folder = export_folder(Path(path))
            if folder is None:
                return False
            return first_line_problem(folder / MAIN_FILE) is None
        except OSError:
            return False

    def unrecognised(self, path: Path) -> str | None:
        """What is wrong with a path whose name says Signal export (main.jsonl, or a folder
        holding one) but whose content does not: one line naming the file, else None."""
        try:
            folder = export_folder(Path(path))
            if folder is None:
                return None
            problem = first_line_problem(folder / MAIN_FILE)
        except OSError as e:
            return f"{Path(path)}: cannot read it: {e.strerror}"
        if problem is None:
            return None
        return f"{folder / MAIN_FILE}: not a Signal export from the phone: {problem}"

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        folder = export_folder(Path(path))
        if folder is None:
            raise FormatError(f"{path}: not a Signal export (no {MAIN_FILE})")
        return _Run(folder, options).records()


class _Run:
    def __init__(self, folder: Path, options: ImportOptions) -> None:
        self.folder, self.options = folder, options
        self.main = folder / MAIN_FILE
        self.where = str(self.main)
        self.people = People()
        self.chats: dict[int, Chat] = {}
        self.seen = IdSet()  # message ids yielded, for quotes of earlier messages
        self.skipped: Counter[str] = Counter()
        self.counts: Counter[str] = Counter()
        self.files = self._index_files()
        self.plan: Plan | None = None
        self.block: int | None = None  # the block being read
        self.dry = False  # parsing a block not read: nothing is yielded
        self.trace: list[Any] = []  # the current block's file lookups
        self.low: int | None = None  # the current block's earliest and latest item time
        self.high: int | None = None

    # ---------------------------------------------------------------- files

    def _index_files(self) -> dict[str, str]:
        """Every file under files/, by name and by name without its extension: its path
        inside the export."""
        out: dict[str, str] = {}
        root = self.folder / FILES_DIR
        if not root.is_dir():
            return out
        for p in root.rglob("*"):
            if p.is_file():
                relative = p.relative_to(self.folder).as_posix()
                out.setdefault(p.name, relative)
                out.setdefault(p.name.split(".", 1)[0], relative)
        return out

    def _file(self, pointer: dict[str, Any]) -> str | None:
        locator = as_dict(pointer.get("locatorInfo"))
        plain, key = as_bytes(locator.get("plaintextHash")), as_bytes(locator.get("localKey"))
        names = []
        if plain:
            if key:
                names.append(hashlib.sha256(plain + key).hexdigest())
            names.append(plain.hex())
        if isinstance(pointer.get("fileName"), str):
            names.append(pointer["fileName"])
        found = next((self.files[n] for n in names if n in self.files), None)
        self.trace.append(found)
        return found

    # ---------------------------------------------------------------- the pass

    def records(self) -> Iterator[Record]:
        notes = self._metadata_notes()
        found = scan(self.main, legacy=legacy_digests(self.options.state))
        plan = self.plan = Plan(found, files_digest(self.files, self.folder), self.options.state)
        yield Estimate(plan.estimate())
        learned: dict[int, dict[str, Any]] = {}
        for seg in found.segments:
            self.block = seg.block
            if seg.block is not None and seg.block not in plan.read:
                if not (plan.files_changed and self._files_differ(seg)):
                    continue
                plan.read.add(seg.block)
                plan.rechecked += 1
            before = self.counts["missing_file"]
            self.trace, self.low, self.high = [], None, None
            yield from self._lines(seg)
            if seg.block is not None:
                learned[seg.block] = {"lo": self.low, "hi": self.high, "f": self._lookups(),
                                      "m": self.counts["missing_file"] - before}
        state = plan.state(learned)
        missing = sum(b.get("m") or 0 for b in state["blocks"].values())
        notes.append(f"Signal export: {found.items} chat item(s) in {len(self.chats)} chat(s)")
        if self.skipped:
            notes.append("not chat history, skipped: " + ", ".join(
                f"{n} {kind}" for kind, n in sorted(self.skipped.items())))
        if missing:
            notes.append(f"{missing} attachment file(s) not in {FILES_DIR}/")
        if plan.resumed or plan.reason != "first import":
            notes.append(plan.note())
        yield SourceState(state={RESUME_STATE: state}, notes=notes)

    def _lines(self, seg: Segment) -> Iterator[Record]:
        for number, line in read_lines(self.main, seg):
            text = line.decode("utf-8", errors="replace").rstrip("\r\n")
            if not text.strip():
                continue
            try:
                frame = json.loads(text)
            except ValueError as e:
                yield Problem(self.where, number, f"not JSON ({e})", text)
                continue
            if not isinstance(frame, dict):
                yield Problem(self.where, number, "not a backup frame", text)
                continue
            try:
                yield from self._frame(frame, text, number)
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
                yield Problem(self.where, number, f"unexpected frame ({e})", text,
                              self._chat_of(frame))

    def _dry(self, seg: Segment, only_files: bool = False, keep_trace: bool = False,
             naming: bytes | None = None) -> None:
        """Parse a block not read this time for what it tells without yielding it: its message
        ids (added to `seen`), and with `keep_trace` its file lookups (left in `trace`). With
        `naming`, only the lines holding those bytes, or a JSON escape that could spell them,
        are parsed."""
        saved = (self.counts.copy(), self.trace, self.low, self.high, self.dry)
        self.trace, self.dry = [], True
        try:
            for number, line in read_lines(self.main, seg):
                if only_files and not has_file_lookup(line):
                    continue
                if naming is not None and naming not in line and b"\\u" not in line:
                    continue
                try:
                    frame = json.loads(line)
                    item = frame.get("chatItem") if isinstance(frame, dict) else None
                    if isinstance(item, dict):
                        for _ in self._item(item, "", number):
                            pass
                except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
                    continue  # a line that is a problem: it stays what the last import made it
        finally:
            trace = self.trace
            self.counts, self.trace, self.low, self.high, self.dry = saved
            if keep_trace:
                self.trace = trace

    def _files_differ(self, seg: Segment) -> bool:
        """Whether an unchanged block's items now find other files than last time."""
        assert seg.block is not None and self.plan is not None
        was = (self.plan.prev_blocks.get(str(seg.block)) or {}).get("f") or ""
        if not was:
            return False
        self._dry(seg, only_files=True, keep_trace=True)
        return self._lookups() != was

    def _lookups(self) -> str:
        """The current block's file lookups and, when one found a file, the folder it is in
        (its attachment names it), as a digest; "" for a block that looked no file up."""
        found = any(self.trace)
        return digest_of([str(self.folder.absolute()), *self.trace] if found else self.trace)

    def _earlier(self, target: str, sent: int) -> bool:
        """Whether the message `target` (sent at `sent`) is in a block before this one that was
        not read this time: in the blocks whose times cover `sent`, the lines that hold `sent`'s
        digits are parsed to see. (A message id is its author's and its time's: an item with
        that id has that `dateSent`, written as a number or a string of digits, so its line holds
        them unless JSON escapes spell them, and a line with an escape is parsed too.)"""
        plan = self.plan
        if self.dry or plan is None or not plan.resumed or self.block is None:
            return False
        digits = str(sent).encode()
        for b, facts in plan.prev_blocks.items():
            block = int(b)
            if target in self.seen:
                break
            if (block < self.block and block not in plan.read
                    and isinstance(facts.get("lo"), int) and facts["lo"] <= sent <= facts["hi"]):
                self._dry(plan.scan.blocks[block], naming=digits)
        return target in self.seen

    def _metadata_notes(self) -> list[str]:
        meta = self.folder / METADATA_FILE
        if not meta.is_file():
            return [f"no {METADATA_FILE} beside {MAIN_FILE}"]
        try:
            data = json.loads(meta.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError) as e:
            return [f"{meta}: unreadable ({e})"]
        version = data.get("version") if isinstance(data, dict) else None
        return [f"Signal export format version {version}"] if version is not None else []

    def _chat_of(self, frame: dict[str, Any]) -> str | None:
        item = frame.get("chatItem")
        chat = self.chats.get(as_int(item.get("chatId")) or -1) if isinstance(item, dict) else None
        return chat.id if chat is not None else None

    def _frame(self, frame: dict[str, Any], text: str, number: int) -> Iterator[Record]:
        kind = next((k for k in FRAME_KINDS if k in frame), None)
        if kind is None:
            if any(k in frame for k in BACKUP_INFO_KEYS):
                return  # the header line
            yield Problem(self.where, number, "unknown frame kind", text)
            return
        self.counts[kind] += 1
        body = frame[kind]
        if not isinstance(body, dict):
            yield Problem(self.where, number, f"{kind} frame is not an object", text)
        elif kind == "recipient":
            self.people.add(body)
        elif kind == "chat":
            chat = self.people.chat(body.get("recipientId"))
            cid = as_int(body.get("id"))
            if chat is None or cid is None:
                yield Problem(self.where, number, "chat of an unknown recipient", text)
                return
            self.chats[cid] = chat
            yield chat
        elif kind == "chatItem":
            yield from self._item(body, text, number)
        elif kind != "account":
            self.skipped[kind] += 1

    # ---------------------------------------------------------------- chat items

    def _author_key(self, rid: Any) -> str:
        if self.people.is_owner(rid):
            return "self"
        person = self.people.by_id.get(as_int(rid) or -1)
        if person is None:
            return f"recipient:{rid}"
        return person.aci or person.e164 or f"recipient:{rid}"

    def _message_id(self, author: Any, sent: int) -> str:
        return message_id_from_guid(PLATFORM, f"{self._author_key(author)}/{sent}")

    def _item(self, item: dict[str, Any], raw: str, number: int) -> Iterator[Record]:
        chat = self.chats.get(as_int(item.get("chatId")) or -1)
        sent = as_int(item.get("dateSent"))
        if chat is None or sent is None:
            yield Problem(self.where, number, "chat item without a known chat or a time", raw,
                          chat.id if chat else None)
            return
        self.low = sent if self.low is None else min(self.low, sent)
        self.high = sent if self.high is None else max(self.high, sent)
        author = item.get("authorId")
        owner = self.people.is_owner(author) or "outgoing" in item
        update = item.get("updateMessage")
        if isinstance(update, dict):
            facts = call_facts(update, self.people.is_owner)
            if facts is not None:
                yield self._call(facts, item, chat, sent, raw, number)
                return
        guid = f"{self._author_key(author)}/{sent}"
        msg = Message(
            id=message_id_from_guid(PLATFORM, guid), platform=PLATFORM, chat_id=chat.id,
            sent_at=from_ms(sent), sender=OWNER if owner else self.people.name(author),
            sender_handle=None if owner else self.people.handle(author), guid=guid, raw=raw,
            line=number,
        )
        if isinstance(update, dict):
            kind, msg.text, actor = update_text(update, msg.sender, self.people.name_of_aci)
            msg.kind, msg.extra["event"] = "system", kind
            if actor:
                msg.sender = self.people.name_of_aci(actor)
                msg.sender_handle = service_id(actor) if msg.sender != OWNER else None
            elif "simpleUpdate" in update and "directionless" in item:
                msg.sender, msg.sender_handle = SYSTEM_SENDER, None  # safety numbers, sessions
        elif not self._content(msg, item):
            yield Problem(self.where, number, "chat item of an unknown kind", raw, chat.id)
            return
        if expires_ms := as_int(item.get("expiresInMs")):
            msg.extra["expires_in_seconds"] = expires_ms // 1000
        if item.get("sms"):
            msg.extra["sms"] = True
        revisions = [r for r in item.get("revisions") or [] if isinstance(r, dict)]
        if revisions:  # earlier versions, oldest first
            msg.edited = True
            msg.versions = [Version(self._text(r.get("standardMessage") or {}, {}),
                                    from_ms(as_int(r.get("dateSent")) or sent)) for r in revisions]
        self.seen.add(msg.id)
        yield msg

    def _content(self, msg: Message, item: dict[str, Any]) -> bool:
        """Fill a message from its item kind; False for a kind this reader does not know."""
        if isinstance(item.get("standardMessage"), dict):
            std = item["standardMessage"]
            msg.text = self._text(std, msg.extra)
            msg.attachments = [self._attachment(a, msg) for a in std.get("attachments") or []
                               if isinstance(a, dict)]
            self._quote(msg, std.get("quote"))
            previews = [p for p in std.get("linkPreview") or [] if isinstance(p, dict)]
            if previews:
                msg.extra["links"] = [{"url": p.get("url"), "title": p.get("title")} for p in previews]
            reactions = std.get("reactions")
        elif isinstance(item.get("contactMessage"), dict):
            card = item["contactMessage"].get("contact") or {}
            name = card.get("name") or {}
            who = " ".join(x for x in (name.get("givenName"), name.get("familyName")) if x)
            phones = [p.get("value") for p in card.get("number") or [] if isinstance(p, dict)]
            msg.text = "Contact: " + ", ".join(x for x in (who, *phones) if x)
            msg.kind, msg.extra["contact"] = "media", {"name": who, "phones": phones}
            reactions = item["contactMessage"].get("reactions")
        elif isinstance(item.get("stickerMessage"), dict):
            sticker = item["stickerMessage"].get("sticker") or {}
            msg.text, msg.kind = sticker.get("emoji") or "", "media"
            msg.extra["sticker"] = {"packId": as_bytes(sticker.get("packId")).hex(),
                                    "stickerId": sticker.get("stickerId"), "emoji": sticker.get("emoji")}
            if isinstance(sticker.get("data"), dict):
                msg.attachments = [self._pointer(sticker["data"], msg)]
            reactions = item["stickerMessage"].get("reactions")
        elif "remoteDeletedMessage" in item:
            msg.deleted, reactions = True, None
        elif isinstance(item.get("adminDeletedMessage"), dict):
            msg.deleted, reactions = True, None
            msg.extra["deleted_by"] = self.people.name(item["adminDeletedMessage"].get("adminId"))
        elif isinstance(item.get("paymentNotification"), dict):
            pay = item["paymentNotification"]
            msg.text = " — ".join(x for x in (f"Payment: {pay.get('amountMob') or '?'} MOB",
                                              pay.get("note")) if x)
            msg.extra["payment"] = {k: pay.get(k) for k in ("amountMob", "feeMob", "note")}
            reactions = None
        elif isinstance(item.get("giftBadge"), dict):
            msg.text = "Gift badge"
            msg.extra["gift_badge"] = item["giftBadge"].get("state") or "UNOPENED"
            reactions = None
        elif isinstance(item.get("viewOnceMessage"), dict):
            once = item["viewOnceMessage"]
            msg.kind, msg.extra["view_once"] = "media", True
            if isinstance(once.get("attachment"), dict):
                msg.attachments = [self._attachment(once["attachment"], msg)]
            reactions = once.get("reactions")
        elif isinstance(item.get("directStoryReplyMessage"), dict):
            reply = item["directStoryReplyMessage"]
            text_reply = reply.get("textReply") or {}
            msg.text = self._text(text_reply, msg.extra) if text_reply else reply.get("emoji") or ""
            msg.extra["story_reply"] = True
            reactions = reply.get("reactions")
        elif isinstance(item.get("poll"), dict):
            poll = item["poll"]
            options = [(o.get("option") or "", sum(as_int(v.get("voteCount")) or 1
                                                    for v in o.get("votes") or [] if isinstance(v, dict)))
                       for o in poll.get("options") or [] if isinstance(o, dict)]
            msg.text = "\n".join([f"POLL: {poll.get('question') or ''}",
                                  *(f"- {o} ({n} vote{'s' if n != 1 else ''})" for o, n in options)])
            msg.extra["poll"] = {"question": poll.get("question") or "",
                                 "options": [{"text": o, "votes": n} for o, n in options],
                                 "multiple": bool(poll.get("allowMultiple")),
                                 "ended": bool(poll.get("hasEnded"))}
            reactions = poll.get("reactions")
        else:
            return False
        msg.reactions = [self._reaction(r) for r in reactions or [] if isinstance(r, dict) and r.get("emoji")]
        if msg.attachments and msg.kind == "text":
            msg.kind = "media"
        return True

    def _text(self, holder: dict[str, Any], extra: dict[str, Any]) -> str:
        """The text of a StandardMessage or TextReply: the long text's file when it is there."""
        text_obj = as_dict(holder.get("text"))
        body = text_obj.get("body") or ""
        long_text = holder.get("longText")
        if isinstance(long_text, dict):
            relative = self._file(long_text)
            found = self.folder / relative if relative else None
            if found is not None and found.resolve().is_relative_to(self.folder.resolve()):
                with found.open("rb") as f:
                    body = f.read(LONG_TEXT_LIMIT).decode("utf-8", errors="replace")
                extra["long_text"] = True
            else:
                self.counts["missing_file"] += 1
        ranges = [r for r in text_obj.get("bodyRanges") or [] if isinstance(r, dict)]
        mentions = [(as_int(r.get("start")) or 0, as_int(r.get("length")) or 0,
                     self.people.name_of_aci(r["mentionAci"])) for r in ranges if r.get("mentionAci")]
        return splice_mentions(body, mentions, extra) if mentions else body

    def _quote(self, msg: Message, quote: Any) -> None:
        if not isinstance(quote, dict):
            return
        target_sent = as_int(quote.get("targetSentTimestamp"))
        if target_sent is not None:
            target = self._message_id(quote.get("authorId"), target_sent)
            if target in self.seen or self._earlier(target, target_sent):
                msg.reply_to = target
                return
        text = as_dict(quote.get("text"))
        msg.extra["quote"] = {
            "text": text.get("body") or "",
            "author": self.people.name(quote.get("authorId")),
            "sent_at": from_ms(target_sent).isoformat() if target_sent is not None else None,
        }

    def _attachment(self, att: dict[str, Any], msg: Message) -> Attachment:
        if att.get("flag") == VOICE_MESSAGE or att.get("flag") == 1:
            msg.extra["voice_note"] = True
        pointer = as_dict(att.get("pointer"))
        found = self._pointer(pointer, msg)
        found.guid = service_id(att.get("clientUuid"))
        return found

    def _pointer(self, pointer: dict[str, Any], msg: Message) -> Attachment:
        locator = as_dict(pointer.get("locatorInfo"))
        relative = self._file(pointer)
        path, _size, present = export_file(self.folder, relative) if relative else (None, None, False)
        if not present:
            self.counts["missing_file"] += 1
        self.trace.append(present)
        caption = pointer.get("caption") if isinstance(pointer.get("caption"), str) else None
        return Attachment(name=pointer.get("fileName") or None, mime_type=pointer.get("contentType"),
                          size=as_int(locator.get("size")), path=path,
                          present=present, text=caption or None)

    def _reaction(self, r: dict[str, Any]) -> Reaction:
        who = r.get("authorId")
        owner = self.people.is_owner(who)
        sent = as_int(r.get("sentTimestamp"))
        return Reaction(emoji=r["emoji"], sender=OWNER if owner else self.people.name(who),
                        timestamp=from_ms(sent) if sent else None,
                        sender_handle=None if owner else self.people.handle(who))

    def _call(self, facts: dict[str, Any], item: dict[str, Any], chat: Chat, sent: int,
              raw: str, number: int) -> Call:
        natural = facts["id"] if as_int(facts["id"]) else f"{chat.key}/{sent}"
        return Call(
            id=call_id(PLATFORM, "export", natural), platform=PLATFORM, chat_id=chat.id,
            started_at=from_ms(facts["started"] or sent), direction=facts["direction"],
            media=facts["media"], duration=facts["duration"], answered=facts["answered"],
            peer=None if chat.group else chat.name, raw=raw, line=number,
        )
