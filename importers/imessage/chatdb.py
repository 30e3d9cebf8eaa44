"""Reading a chat.db / sms.db: chats, messages, tapbacks, edits, group events, attachments.

Every schema generation from macOS 10.13 / iOS 11 on is read by asking the database which
columns it has and selecting only those (`thread_originator_guid` arrived with macOS 11 /
iOS 14, `date_edited`, `date_retracted`, `message_summary_info` and
`chat_recoverable_message_join` with macOS 13 / iOS 16, `associated_message_emoji` with
macOS 14 / iOS 17). Rows are streamed in ROWID order with one cursor.
"""

from __future__ import annotations

import json
import os
import sqlite3
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import (
    OWNER,
    Attachment,
    Chat,
    Estimate,
    Message,
    Problem,
    Reaction,
    Record,
    Version,
    message_id_from_guid,
)

from .. import sqlite_pages
from . import sqlite
from .body import APP_BALLOON, OBJECT_REPLACEMENT, Body, decode_attributed_body
from .dates import apple_time
from .events import TAPBACK_KINDS, group_event, group_event_text, tapback_emoji, tapback_target
from .summary_info import parse_summary_info
from .typedstream import TypedStreamError

PLATFORM = "imessage"

REQUIRED_TABLES = ("message", "handle", "chat", "chat_message_join")
REQUIRED_MESSAGE_COLUMNS = ("ROWID", "guid", "text", "handle_id", "is_from_me", "date")

# Read when the column exists. payload_data (link previews, app data, often many KB) is left
# out of the raw record on purpose.
OPTIONAL_MESSAGE_COLUMNS = (
    "attributedBody", "service", "subject", "date_read", "date_delivered",
    "cache_has_attachments", "is_audio_message", "item_type", "group_action_type",
    "group_title", "other_handle", "associated_message_guid", "associated_message_type",
    "balloon_bundle_id", "expressive_send_style_id", "destination_caller_id",
    "thread_originator_guid", "thread_originator_part",  # macOS 11 / iOS 14
    "date_edited", "date_retracted", "message_summary_info", "part_count",  # macOS 13 / iOS 16
    "associated_message_emoji",  # macOS 14 / iOS 17
)  # fmt: skip

DAMAGED_ROW = (ValueError, TypeError, OverflowError, KeyError, AttributeError, IndexError)
CHUNK = 500  # rowids per `IN (...)` query (SQLite allows 999 parameters in old versions)
CHAT_STYLE_GROUP = 43  # chat.style; 45 is one-to-one
ORPHAN_PREFIX = "orphan:"  # key of the chat for messages that no chat joins
UNKNOWN_SENDER = "unknown"
MARKS_KEY = "change_marks"  # in the state: the rows edited, unsent or deleted, and when
PAGES_KEY = "pages"  # in the state: the file's pages (sqlite_pages), when it was read as it is


def _int(value: Any) -> int:
    """A date column as an int (a damaged page can hold text there: counted as changed)."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return -1


def handle_key(handle: str) -> str:
    """A handle as a comparable key: e-mails lower-cased, phones as their last 10 digits.

    >>> handle_key("+1 (555) 010-0001"), handle_key("5550100001"), handle_key("Ben@Example.com")
    ('5550100001', '5550100001', 'ben@example.com')
    """
    handle = handle.strip()
    if "@" in handle:
        return handle.lower()
    digits = "".join(c for c in handle if c.isdigit())
    return digits[-10:] if len(digits) >= 7 else (digits or handle.lower())


@dataclass
class ChatInfo:
    rowid: int
    record: Chat
    handles: list[str]


@dataclass
class Counts:
    messages: int = 0
    reactions: int = 0
    undecodable: int = 0
    skipped_duplicates: int = 0
    notes: list[str] = field(default_factory=list)


AttachmentResolver = Callable[[str | None], str | None]


class ChatDb:
    """One open chat.db. `records(state)` yields its records; `state_after()` the watermark."""

    def __init__(self, path: Path, display: str | None = None,
                 resolve_attachment: AttachmentResolver | None = None) -> None:  # fmt: skip
        self.path = path
        self.display = display or str(path)
        self.resolve_attachment = resolve_attachment or (lambda _name: None)
        self.conn = sqlite.open_readonly(path)
        try:
            self._check_schema()
            self.handles = dict(self.conn.execute("SELECT ROWID, id FROM handle"))
            self.chats = self._load_chats()
        except sqlite3.Error as e:
            self.conn.close()
            raise sqlite.translate(path, e) from e
        except FormatError:
            self.conn.close()
            raise
        self.counts = Counts()
        self.yielded_chats: set[str] = set()
        self._one_to_one: dict[str, Chat] | None = None
        self.pages_after: dict[str, Any] | None = None  # the file's pages now (sqlite_pages)

    def close(self) -> None:
        self.conn.close()

    # ----------------------------------------------------------------- schema

    def _check_schema(self) -> None:
        present = sqlite.tables(self.conn)
        missing = [t for t in REQUIRED_TABLES if t not in present]
        if missing:
            raise FormatError(
                f"{self.display}: not a Messages database (chat.db / sms.db): "
                f"missing table(s) {', '.join(missing)}"
            )
        cols = set(sqlite.columns(self.conn, "message")) | {"ROWID"}
        missing = [c for c in REQUIRED_MESSAGE_COLUMNS if c not in cols]
        if missing:
            raise FormatError(f"{self.display}: table message lacks column(s) {', '.join(missing)}")
        self.message_columns = list(REQUIRED_MESSAGE_COLUMNS) + [
            c for c in OPTIONAL_MESSAGE_COLUMNS if c in cols
        ]
        self.has = set(self.message_columns)
        self.has_recoverable = "chat_recoverable_message_join" in present
        self.has_recoverable_parts = "recoverable_message_part" in present
        self.has_attachments = {"attachment", "message_attachment_join"} <= present
        self.attachment_columns = (
            set(sqlite.columns(self.conn, "attachment")) if self.has_attachments else set()
        )
        self.chat_columns = set(sqlite.columns(self.conn, "chat"))

    def _load_chats(self) -> dict[int, ChatInfo]:
        members: dict[int, list[str]] = {}
        if "chat_handle_join" in sqlite.tables(self.conn):
            for chat_rowid, handle_rowid in self.conn.execute(
                "SELECT chat_id, handle_id FROM chat_handle_join ORDER BY chat_id, handle_id"
            ):
                handle = self.handles.get(handle_rowid)
                if handle and handle not in members.setdefault(chat_rowid, []):
                    members[chat_rowid].append(handle)
        wanted: list[str] = [c for c in ("display_name", "chat_identifier", "style") if c in self.chat_columns]
        select = ", ".join(["ROWID", "guid"] + wanted)
        chats: dict[int, ChatInfo] = {}
        for row in self.conn.execute(f"SELECT {select} FROM chat"):
            info = dict(zip(["ROWID", "guid"] + wanted, row))
            handles = members.get(info["ROWID"], [])
            identifier = info.get("chat_identifier") or ""
            style = info.get("style")
            group = (
                style == CHAT_STYLE_GROUP
                if style
                else (len(handles) > 1 or identifier.startswith("chat"))
            )
            name = (info.get("display_name") or "").strip()
            if not name:
                name = ", ".join(handles) if group else (identifier or ", ".join(handles))
            name = name or identifier or str(info["guid"])
            record = Chat(PLATFORM, key=str(info["guid"]), name=name, group=group,
                          participants=list(handles), handles=list(handles))  # fmt: skip
            chats[info["ROWID"]] = ChatInfo(info["ROWID"], record, handles)
        return chats

    # ----------------------------------------------------------------- chats

    def orphan_chat(self, handle: str | None) -> Chat:
        """The chat for messages (or calls) that no chat.db chat holds, named after the handle."""
        if handle:
            return Chat(PLATFORM, key=ORPHAN_PREFIX + handle, name=handle,
                        participants=[handle], handles=[handle])  # fmt: skip
        return Chat(PLATFORM, key=ORPHAN_PREFIX + UNKNOWN_SENDER, name="Unknown")

    def chat_for_handle(self, address: str) -> Chat:
        """The one-to-one chat with this phone / e-mail, else an orphan chat named after it."""
        if self._one_to_one is None:
            self._one_to_one = {}
            for info in self.chats.values():
                if not info.record.group and len(info.handles) == 1:
                    self._one_to_one.setdefault(handle_key(info.handles[0]), info.record)
        found = self._one_to_one.get(handle_key(address))
        return found if found is not None else self.orphan_chat(address)

    def announce(self, chat: Chat) -> Chat | None:
        """`chat` when it has not been yielded yet (the caller yields it), else None."""
        if chat.id in self.yielded_chats:
            return None
        self.yielded_chats.add(chat.id)
        return chat

    # ----------------------------------------------------------------- rows

    def _select(self, where: str) -> str:
        cols = ", ".join(f"m.{c}" for c in self.message_columns)
        recoverable = "NULL, NULL"
        join = ""
        if self.has_recoverable:
            recoverable = "r.chat_id, r.delete_date"
            join = "LEFT JOIN chat_recoverable_message_join r ON r.message_id = m.ROWID"
        return (
            f"SELECT {cols}, j.chat_id, {recoverable} FROM message m "
            f"LEFT JOIN chat_message_join j ON j.message_id = m.ROWID {join} "
            f"WHERE {where} ORDER BY m.ROWID"
        )

    def _rows(
        self, where: str, params: tuple[Any, ...]
    ) -> Iterator[tuple[dict[str, Any], Any, Any, Any]]:
        names = self.message_columns
        n = len(names)
        last = None
        try:
            cursor = self.conn.execute(self._select(where), params)
            for row in cursor:
                if row[0] == last:  # a message joined to two chats: keep the first
                    self.counts.skipped_duplicates += 1
                    continue
                last = row[0]
                yield dict(zip(names, row[:n])), row[n], row[n + 1], row[n + 2]
        except sqlite3.Error as e:
            raise sqlite.translate(self.path, e) from e

    def max_rowid(self) -> int:
        return self.conn.execute("SELECT coalesce(max(ROWID), 0) FROM message").fetchone()[0]

    def guid_of(self, rowid: int) -> str | None:
        row = self.conn.execute("SELECT guid FROM message WHERE ROWID = ?", (rowid,)).fetchone()
        return row[0] if row else None

    def records(self, state: dict[str, Any]) -> Iterator[Record]:
        """Every record, or (with a previous `state`) the new rows plus old rows edited,
        unsent, moved to or out of Recently Deleted since."""
        since = int(state.get("max_rowid") or 0)
        if since and self.guid_of(since) != state.get("guid_at_max"):
            self.counts.notes.append(
                "the database changed identity since the last import: read whole"
            )
            since = 0
        self.top_rowid = self.max_rowid()
        self.top_rowid_guid = self.guid_of(self.top_rowid)
        self.max_edited = int(state.get("max_date_edited") or 0) if since else 0
        self.max_retracted = int(state.get("max_date_retracted") or 0) if since else 0
        self.max_deleted = int(state.get("max_delete_date") or 0) if since else 0
        marks = self._marks_now(since, state)
        self.marks_after = marks
        yield Estimate(max(0, self.top_rowid - since))
        if since:
            yield from self._changed_old_rows(since, marks, state.get(MARKS_KEY))
        for row, chat_rowid, deleted_chat, delete_date in self._rows("m.ROWID > ?", (since,)):
            yield from self._record_or_problem(row, chat_rowid, deleted_chat, delete_date)

    def _marks_now(self, since: int, state: dict[str, Any]) -> dict[str, list[int]]:
        """Every row that was ever edited, unsent or moved to Recently Deleted, with when:
        {rowid: [date_edited, date_retracted, delete_date]}. Few rows; a re-import reads again
        the old rows whose marks changed, whatever dates they carry (an edit made on the phone
        before the last import can reach this Mac after it, dated before edits the last import
        already saw). The dates have no index: they are found by a narrow scan of the table
        (0.4 s of CPU at a million messages), or, past the first import of a file read as it
        is on disk, of the rows in the pages that changed since (sqlite_pages), the others'
        dates being the ones the last import kept."""
        before = state.get(MARKS_KEY)
        self.pages_after, ranges = sqlite_pages.look(
            self.conn, self.conn.file, "message", state.get(PAGES_KEY), since)
        if ranges is None or not isinstance(before, dict):
            dated = self._dated([(None, None)])
        else:
            dated = {r: [m[0], m[1], 0] for r, m in before.items()
                     if (m[0] or m[1]) and int(r) <= since and not _within(int(r), ranges)}
            dated.update(self._dated([*ranges, (since + 1, None)]))
        try:
            if self.has_recoverable:
                for rowid, deleted in self.conn.execute(
                        "SELECT message_id, coalesce(max(delete_date), 0) FROM chat_recoverable_message_join "
                        "GROUP BY message_id"):  # fmt: skip
                    dated.setdefault(str(rowid), [0, 0, 0])[2] = _int(deleted) or 1
        except sqlite3.Error as e:
            raise sqlite.translate(self.path, e) from e
        return dated

    def _dated(self, ranges: list[tuple[int | None, int | None]]) -> dict[str, list[int]]:
        """The rows edited or unsent among `ranges` of rowids (None: an open end)."""
        cols = [c if c in self.has else "0" for c in ("date_edited", "date_retracted")]
        marks: dict[str, list[int]] = {}
        if cols == ["0", "0"]:
            return marks
        sql = (f"SELECT ROWID, coalesce({cols[0]}, 0), coalesce({cols[1]}, 0) FROM message "
               f"WHERE (coalesce({cols[0]}, 0) != 0 OR coalesce({cols[1]}, 0) != 0)")
        try:
            for lo, hi in ranges:
                where = (" AND ROWID >= ?" if lo is not None else "") + (
                    " AND ROWID <= ?" if hi is not None else "")
                for rowid, edited, retracted in self.conn.execute(
                        sql + where, [n for n in (lo, hi) if n is not None]):
                    marks[str(rowid)] = [_int(edited), _int(retracted), 0]
        except sqlite3.Error as e:
            raise sqlite.translate(self.path, e) from e
        return marks

    def _changed_old_rows(self, since: int, marks: dict[str, list[int]],
                          before: dict[str, list[int]] | None) -> Iterator[Record]:  # fmt: skip
        """Rows up to the watermark whose edit, unsend or Recently Deleted marks changed since
        the last import (a state from before marks were kept: rows marked after its newest
        dates, and every marked row, which are few)."""
        rowids: set[int] = set()
        if before is None:
            rowids.update(int(r) for r in marks)
        else:
            rowids.update(int(r) for r in set(marks) | set(before) if marks.get(r) != before.get(r))
        ordered = sorted(r for r in rowids if r <= since)
        for i in range(0, len(ordered), CHUNK):
            chunk = ordered[i : i + CHUNK]
            where = f"m.ROWID IN ({', '.join('?' * len(chunk))})"
            for row, chat_rowid, deleted_chat, delete_date in self._rows(where, tuple(chunk)):
                yield from self._record_or_problem(row, chat_rowid, deleted_chat, delete_date)

    def state_after(self) -> dict[str, Any]:
        return {
            "max_rowid": self.top_rowid,
            "guid_at_max": self.top_rowid_guid,
            "max_date_edited": self.max_edited,
            "max_date_retracted": self.max_retracted,
            "max_delete_date": self.max_deleted,
            MARKS_KEY: self.marks_after,
            PAGES_KEY: self.pages_after,
        }

    # ----------------------------------------------------------------- one row

    def _record_or_problem(self, row: dict[str, Any], chat_rowid: Any, deleted_chat: Any,
                           delete_date: Any) -> Iterator[Record]:  # fmt: skip
        """`_record`, or a Problem keeping the row raw when a damaged page gave it values of
        the wrong type (a number as `text`, text as `date`): the rest of the database imports."""
        try:
            yield from self._record(row, chat_rowid, deleted_chat, delete_date)
        except FormatError:
            raise
        except DAMAGED_ROW as e:
            yield Problem(self.display, row.get("ROWID"),
                          f"unreadable row ({e.__class__.__name__}: {e})",
                          text=json.dumps(row, ensure_ascii=False, default=repr))  # fmt: skip

    def _chat_of(self, row: dict[str, Any], chat_rowid: Any, deleted_chat: Any,
                 sender_handle: str | None) -> Chat:  # fmt: skip
        info = self.chats.get(chat_rowid) or self.chats.get(deleted_chat)
        if info is not None:
            return info.record
        return self.orphan_chat(sender_handle)

    def _record(self, row: dict[str, Any], chat_rowid: Any, deleted_chat: Any,
                delete_date: Any) -> Iterator[Record]:  # fmt: skip
        rowid = row["ROWID"]
        edited_at = row.get("date_edited") or 0
        if edited_at > self.max_edited:
            self.max_edited = edited_at
        retracted_at = row.get("date_retracted") or 0
        if retracted_at > self.max_retracted:
            self.max_retracted = retracted_at
        if delete_date and delete_date > self.max_deleted:
            self.max_deleted = delete_date

        from_me = bool(row["is_from_me"])
        handle = self.handles.get(row["handle_id"]) if row["handle_id"] else None
        if from_me:
            sender, sender_handle = OWNER, None
        elif handle:
            sender, sender_handle = handle, handle
        else:
            info = self.chats.get(chat_rowid) or self.chats.get(deleted_chat)
            only = info.handles[0] if info and len(info.handles) == 1 else None
            sender, sender_handle = (only, only) if only else (UNKNOWN_SENDER, None)
        sent_at = apple_time(row["date"]) or apple_time(1)  # a missing date sorts first
        assert sent_at is not None

        kind = row.get("associated_message_type") or 0
        if kind in TAPBACK_KINDS and row.get("associated_message_guid"):
            yield self._reaction(row, kind, sender, sender_handle, sent_at)
            return

        chat = self._chat_of(row, chat_rowid, deleted_chat, handle)
        new_chat = self.announce(chat)
        if new_chat is not None:
            yield new_chat

        text = row["text"] or ""
        body: Body | None = None
        undecodable = False
        blob = row.get("attributedBody")
        if blob and (not text or OBJECT_REPLACEMENT in text or row.get("is_audio_message")):
            try:
                body = decode_attributed_body(blob)
                text = body.text if body.text or not text else text
            except TypedStreamError as e:
                undecodable = True
                self.counts.undecodable += 1
                yield Problem(self.display, rowid, f"attributedBody could not be decoded: {e}",
                              text=text, chat_id=chat.id)  # fmt: skip
        if not text and deleted_chat is not None and self.has_recoverable_parts:
            text = self._recoverable_text(rowid)

        extra: dict[str, Any] = {}
        raw_extra: dict[str, Any] = {"chat_guid": chat.key}
        shown = text
        if OBJECT_REPLACEMENT in shown or APP_BALLOON in shown:
            shown = shown.replace(OBJECT_REPLACEMENT, "").replace(APP_BALLOON, "").strip()
        if body is not None:
            raw_extra["decoded_text"] = body.text
            if body.attachments:
                extra["attachment_positions"] = [
                    {"offset": i, "guid": g} for i, g in body.attachments
                ]
            if body.mentions:
                extra["mentions"] = [{"handle": m.handle, "text": m.text} for m in body.mentions]
            if body.links:
                extra["links"] = body.links
            if body.transcription:
                extra["transcription"] = body.transcription
                if not shown:
                    shown = body.transcription
        service = row.get("service")
        if service:
            extra["service"] = service

        msg = Message(
            id=message_id_from_guid(PLATFORM, row["guid"]),
            platform=PLATFORM,
            chat_id=chat.id,
            sent_at=sent_at,
            sender=sender,
            text=shown,
            sender_handle=sender_handle,
            guid=row["guid"],
            line=rowid,
        )
        thread = row.get("thread_originator_guid")
        if thread:
            msg.reply_to = message_id_from_guid(PLATFORM, thread)

        item_type = row.get("item_type") or 0
        if item_type:
            self._group_event(msg, row, item_type, extra)

        self._edits(msg, row, extra, raw_extra)
        if deleted_chat is not None:  # in Recently Deleted (macOS 13+ / iOS 16+)
            msg.deleted = True
            extra["recently_deleted"] = True

        if self.has_attachments and (
            row.get("cache_has_attachments", 1) or (body and body.attachments)
        ):
            msg.attachments = self._attachments(rowid)
            if body is not None and body.transcription and row.get("is_audio_message"):
                for a in msg.attachments:  # the voice note's transcript travels with its file
                    if (a.mime_type or "").startswith("audio/"):
                        a.text = body.transcription
            if (
                msg.attachments
                and msg.kind == "text"
                and (not msg.text or row.get("is_audio_message"))
            ):
                msg.kind = "media"
        if row.get("associated_message_guid") and kind:
            extra["associated_message"] = {"type": kind, "guid": row["associated_message_guid"]}
        msg.extra = extra
        if blob and (body is not None or (row["text"] and not undecodable)):
            # The raw record shows the decoded text (`_decoded_text`), or the `text` column the
            # blob only repeats, instead of a kilobyte of hex per message (at a million messages,
            # most of the store). A blob we could not decode stays as it was, for later tools.
            row = {**row, "attributedBody": {"$bytes": len(blob), "decoded": body is not None}}
        msg.raw = fast_raw_json(row, raw_extra)
        self.counts.messages += 1
        yield msg

    def _reaction(self, row: dict[str, Any], kind: int, sender: str,
                  sender_handle: str | None, sent_at: Any) -> Reaction:  # fmt: skip
        emoji, removed = tapback_emoji(kind, row.get("associated_message_emoji"))
        self.counts.reactions += 1
        target = tapback_target(row["associated_message_guid"])
        return Reaction(emoji=emoji, sender=sender, timestamp=sent_at, removed=removed,
                        target_id=message_id_from_guid(PLATFORM, target),
                        sender_handle=sender_handle)  # fmt: skip

    def _group_event(self, msg: Message, row: dict[str, Any], item_type: int,
                     extra: dict[str, Any]) -> None:  # fmt: skip
        event = group_event(item_type, row.get("group_action_type") or 0)
        if event is None:  # other item types (location sharing, kept audio...): keep as they are
            extra["item_type"] = item_type
            if not msg.text:
                msg.kind = "system"
            return
        target = self.handles.get(row.get("other_handle") or 0)
        title = row.get("group_title") or ""
        extra["event"] = event
        if target:
            extra["target"] = target
        if event == "renamed":
            extra["title"] = title
        msg.kind = "system"
        msg.text = group_event_text(event, msg.sender, target, title)

    def _edits(self, msg: Message, row: dict[str, Any], extra: dict[str, Any],
               raw_extra: dict[str, Any]) -> None:  # fmt: skip
        summary_blob = row.get("message_summary_info")
        edited_at = row.get("date_edited") or 0
        retracted_at = row.get("date_retracted") or 0
        if not summary_blob and not edited_at and not retracted_at:
            return
        info = parse_summary_info(summary_blob)
        # Unsending also stamps date_edited; only an edit history (or a bare date_edited on
        # a message that was not unsent) makes a message edited.
        if info.edited or (edited_at and not retracted_at and not info.unsent_parts):
            msg.edited = True
            earlier = info.earlier_versions()
            msg.versions = [Version(v.text, v.timestamp) for v in earlier]
            if edited := apple_time(edited_at):
                extra["edited_at"] = edited.isoformat()
            if earlier:
                raw_extra["earlier_versions"] = [
                    {"part": v.part, "text": v.text,
                     "timestamp": v.timestamp.isoformat() if v.timestamp else None}
                    for v in earlier
                ]  # fmt: skip
        if info.unsent_parts or retracted_at:
            if info.fully_unsent or (retracted_at and not info.unsent_parts and not msg.text):
                msg.deleted = True
            else:
                extra["unsent_parts"] = info.unsent_parts
            if unsent := apple_time(retracted_at):
                extra["unsent_at"] = unsent.isoformat()
        for problem in info.problems:
            extra.setdefault("problems", []).append(problem)

    def _recoverable_text(self, rowid: int) -> str:
        texts = []
        for (blob,) in self.conn.execute(
            "SELECT part_text FROM recoverable_message_part WHERE message_id = ? ORDER BY part_index",
            (rowid,),
        ):
            try:
                texts.append(
                    decode_attributed_body(blob).text if isinstance(blob, bytes) else str(blob)
                )
            except TypedStreamError:
                continue
        return "".join(texts)

    def _attachments(self, rowid: int) -> list[Attachment]:
        wanted = [c for c in ("guid", "filename", "mime_type", "uti", "transfer_name", "total_bytes")
                  if c in self.attachment_columns]  # fmt: skip
        cols = ", ".join(f"a.{c}" for c in wanted)
        out = []
        for values in self.conn.execute(
            f"SELECT {cols} FROM message_attachment_join j JOIN attachment a ON a.ROWID = j.attachment_id "
            "WHERE j.message_id = ? ORDER BY a.ROWID",
            (rowid,),
        ):
            a = dict(zip(wanted, values))
            filename = a.get("filename")
            name = a.get("transfer_name") or (os.path.basename(filename) if filename else None)
            path = self.resolve_attachment(filename)
            out.append(Attachment(
                name=name,
                mime_type=a.get("mime_type") or _guess_mime(name, a.get("uti")),
                size=a.get("total_bytes") or None,
                path=path,
                guid=a.get("guid"),
                present=path is not None,
            ))  # fmt: skip
        return out


def _within(rowid: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether `rowid` is in one of the sorted, non-overlapping `ranges`."""
    i = bisect_right(ranges, (rowid, float("inf"))) - 1
    return i >= 0 and ranges[i][0] <= rowid <= ranges[i][1]


def fast_raw_json(row: dict[str, Any], extra: dict[str, Any]) -> str:
    """The row as JSON (blobs as {"$hex": ...}, keys sorted) plus `extra` under "_"-prefixed
    keys: what base.raw_json gives, on one line. raw_json's indent makes json use its pure-Python
    encoder, several times slower; at a million rows that is most of an import's time."""
    out = {k: ({"$hex": v.hex()} if isinstance(v, (bytes, bytearray, memoryview)) else v)
           for k, v in row.items()}  # fmt: skip
    for k, v in extra.items():
        out["_" + k] = v
    return json.dumps(out, ensure_ascii=False, sort_keys=True, default=str)


def _guess_mime(name: str | None, uti: str | None) -> str | None:
    import mimetypes

    if name:
        guessed = mimetypes.guess_type(name)[0]
        if guessed:
            return guessed
    return {"public.jpeg": "image/jpeg", "public.png": "image/png", "public.heic": "image/heic",
            "com.apple.coreaudio-format": "audio/x-caf", "public.mpeg-4": "video/mp4",
            "com.apple.quicktime-movie": "video/quicktime"}.get(uti or "")  # fmt: skip
