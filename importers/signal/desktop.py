"""Signal Desktop's database → records.

One streaming pass over `messages` in rowid order. Each row's `json` holds the message as the
app keeps it; newer schemas (1270+) moved some fields out of it into columns, so a field is
read from its column when the schema has one, else from json. Per schema version:
- the sender column is `source` (e164, old), `sourceUuid` (~2020–2023) or `sourceServiceId`;
- attachments are in json (before 1360) or in table `message_attachments` (1360+);
- calls are in `json.callHistoryDetails` (before ~88) or in table `callsHistory`.

    messages row (type 'outgoing', sent_at 1696178282339, json.editHistory [v2, v1])
      → Message(sender='me', sent_at=2023-10-01 16:38:02.339 UTC, edited=True, versions=[v1])
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
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
    message_id_from_guid,
)

from .common import PLATFORM, SYSTEM_SENDER, from_ms, splice_mentions
from .desktop_db import Database, column_names, detect_database, open_database
from .desktop_events import call_facts, system_actor, system_text
from .desktop_people import People, sender_key
from .desktop_resume import Plan

# Columns read from `messages` when present (never `*`: generated columns cost a JSON parse each).
MESSAGE_COLUMNS = (
    "id",
    "json",
    "conversationId",
    "type",
    "body",
    "sent_at",
    "timestamp",
    "serverTimestamp",
    "sourceServiceId",
    "sourceUuid",
    "source",
    "isErased",
    "isViewOnce",
    "hasAttachments",
)
SENDER_COLUMNS = ("sourceServiceId", "sourceUuid", "source")  # newest first
MESSAGE_TYPES = {"incoming", "outgoing", None}
SKIPPED_TYPES = {"story"}  # stories are not chat history
ROOT_VERSION = -1  # message_attachments.editHistoryIndex of the current version
VOICE_NOTE_FLAG = 1  # attachment.flags bit: recorded in-app as a voice message
DAMAGED_ROW = (ValueError, TypeError, OverflowError, KeyError, AttributeError)
MENTION = "\ufffc"  # Signal's placeholder in `body` where a bodyRange mention goes


def row_raw(row: dict[str, Any], json_ok: bool = True) -> str:
    """The row as JSON, its `json` column spliced in as the object it is (kept verbatim).

    Serialising only the columns and splicing the text the app wrote is several times faster
    than re-encoding the parsed json, and shows exactly what the database holds.

    >>> row_raw({"rowid": 7, "type": "outgoing", "json": '{"body": "hi"}'})
    '{"rowid": 7, "type": "outgoing", "json": {"body": "hi"}}'
    """
    if not json_ok or not row.get("json"):  # unreadable json stays a string
        return json.dumps(row, ensure_ascii=False, default=str)
    columns = {k: v for k, v in row.items() if k != "json"}
    text = json.dumps(columns, ensure_ascii=False, default=str)
    return f'{text[:-1]}{", " if columns else ""}"json": {row["json"]}}}'


ATTACHMENT_COLUMNS = ("contentType", "size", "fileName", "path", "flags", "localKey", "version",
                      "caption")


def attachments_root(db_path: Path) -> Path | None:
    """Signal's attachments.noindex folder for a database at `db_path`: in the Signal folder
    (`<Signal>/sql/db.sqlite`), or beside a copied database."""
    base = db_path if db_path.is_dir() else db_path.parent
    for folder in (base, base.parent):
        candidate = folder / "attachments.noindex"
        if candidate.is_dir():
            return candidate
    return None


def _time_key(value: Any) -> Any:
    """A time as SQLite compares it with an INTEGER column: digits in text count as the number."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class DesktopReader:
    name = "signal-desktop"

    def detect(self, path: Path) -> bool:
        return detect_database(Path(path))

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        path = Path(path)
        with open_database(path) as db:
            try:
                yield from _Run(db, path, options.state).records()
            except db.errors as e:  # corrupt page, database locked mid-read...
                raise FormatError(f"{path}: cannot read the database ({e})") from e


class _Run:
    """One import of one database: what is known about it, and the per-row work."""

    def __init__(self, db: Database, path: Path, state: dict[str, Any] | None = None) -> None:
        self.conn, self.path, self.errors = db.conn, path, db.errors
        self.file = db.file  # the database file as SQLite reads it, when its pages can be read
        self.state = state or {}
        self.notes: list[str] = []  # for the report, besides the counts
        self.where = f"{path} messages"
        self.people = People(db.conn, db.tables)
        self.columns = [c for c in MESSAGE_COLUMNS if c in set(column_names(db.conn, "messages"))]
        self.sender_columns = [c for c in SENDER_COLUMNS if c in self.columns]
        self.calls = self._calls_history() if "callsHistory" in db.tables else {}
        self.has_attachment_table = "message_attachments" in db.tables
        self.attachment_columns = (set(column_names(db.conn, "message_attachments"))
                                   if self.has_attachment_table else set())
        self.attachments_root = attachments_root(path)
        self.quote_targets: dict[int, str] = {}
        self.chats: dict[str, Chat] = {}  # conversation id → its chat, once yielded
        self.stories = 0
        self.unresolved_quotes = 0

    # ------------------------------------------------------------------ lookups made up front

    def _calls_history(self) -> dict[str, dict[str, Any]]:
        cols = column_names(self.conn, "callsHistory")
        rows = (dict(zip(cols, row)) for row in self.conn.execute("SELECT * FROM callsHistory"))
        return {row["callId"]: row for row in rows}

    def _quote_targets(self, plan: Plan) -> dict[int, str]:
        """rowid of a quoting message (among the rows `plan` reads) → Signal id of the message
        it quotes.

        A quote names its target by (conversation, sent_at of the target, author). SQLite joins
        these in one query, so the Python pass needs no map of every message seen: memory stays
        flat on million-message databases. The target is looked up by its time (an index on
        sent_at, or an automatic one SQLite builds once): `+` keeps SQLite off Signal's
        conversation index, which it otherwise walked a whole chat along for every quote
        (16 s of CPU per 100k messages; hours at 1M). The quoting rows stay the outer loop.
        """
        author = f"t.{self.sender_columns[0]}" if self.sender_columns else "NULL"

        def quote(field: str) -> str:  # one malformed row must not fail the whole query
            return f"CASE WHEN json_valid(q.json) THEN json_extract(q.json, '$.quote.{field}') END"

        query = f"""
            SELECT q.rowid, t.id, t.type, {author},
                   coalesce({quote("authorAci")}, {quote("authorUuid")}, {quote("author")})
            FROM messages AS q CROSS JOIN messages AS t
              ON +t.conversationId = q.conversationId AND t.sent_at = {quote("id")}
            WHERE instr(q.json, '"quote"') > 0 AND t.rowid != q.rowid"""
        try:
            if plan.ranges is None:
                pairs = self.conn.execute(query).fetchall()
            else:
                pairs = self._quote_pairs_in(plan, author, quote)
        except self.errors as e:  # an SQLite without JSON functions (before 3.38, optional)
            self.notes.append(f"quotes are kept as text, not linked: {e}")
            return {}
        candidates: dict[int, list[str]] = {}
        matching: dict[int, str] = {}
        for rowid, target, kind, author_id, quoted_id in pairs:
            candidates.setdefault(rowid, []).append(target)
            if kind == "outgoing":
                same = self.people.is_owner(quoted_id)
            else:
                quoted = self.people.find(quoted_id)
                same = quoted is not None and quoted is self.people.find(sender_key(author_id))
            if same:
                matching.setdefault(rowid, target)
        # Two authors can send at the same millisecond: the author decides, else the only one.
        return {
            rowid: matching.get(rowid) or found[0]
            for rowid, found in candidates.items()
            if rowid in matching or len(found) == 1
        }

    def _quote_pairs_in(self, plan: Plan, author: str, quote: Callable[[str], str]) -> list[tuple]:
        """The join of `_quote_targets` for the quoting rows among the rows a re-import reads
        (`plan.ranges`): (quoting rowid, target id, target type, target author, quoted author).

        A re-import reads a few rows: their quotes' targets are found in one pass over the
        times they name, among the blocks of rows whose times can hold them (the plan's
        bounds; Signal's index on sent_at, else a scan of those blocks) instead of the index
        SQLite would build on every message's time for the join (1.9 s at a million)."""
        assert plan.ranges is not None
        quoting = self._in_ranges(
            f"""SELECT q.rowid, q.conversationId, {quote("id")},
                       coalesce({quote("authorAci")}, {quote("authorUuid")}, {quote("author")})
                FROM messages AS q WHERE instr(q.json, '"quote"') > 0""", plan.ranges, ())
        wanted = {_time_key(qid) for _, _, qid, _ in quoting if qid is not None}
        if not wanted:
            return []
        query = f"""SELECT t.rowid, t.conversationId, t.sent_at, t.id, t.type, {author}
                    FROM messages AS t WHERE t.sent_at IN (SELECT value FROM json_each(?))"""
        times = (json.dumps(sorted(wanted, key=str)),)
        blocks = plan.holding_times(wanted)
        found = (self.conn.execute(query, times).fetchall() if blocks is None
                 else self._in_ranges(query, blocks, times))
        targets: dict[tuple[Any, Any], list[tuple]] = {}
        for rowid, conv, sent_at, target, kind, target_author in found:
            targets.setdefault((conv, _time_key(sent_at)), []).append(
                (rowid, target, kind, target_author))
        pairs = []
        for qrow, conv, qid, quoted in quoting:
            for rowid, target, kind, target_author in targets.get((conv, _time_key(qid)), ()):
                if rowid != qrow:
                    pairs.append((qrow, target, kind, target_author, quoted))
        return pairs

    def _in_ranges(self, query: str, ranges: list[tuple[int, int]],
                   params: tuple[Any, ...]) -> list[tuple]:
        """The rows of `query` (a SELECT with a WHERE) among `ranges` of rowids."""
        out: list[tuple] = []
        for i in range(0, len(ranges), 200):  # some hundred ranges per query
            part = ranges[i:i + 200]
            where = " OR ".join("rowid BETWEEN ? AND ?" for _ in part)
            out += self.conn.execute(f"{query} AND ({where})",
                                     [*params, *(n for r in part for n in r)]).fetchall()
        return out

    # ------------------------------------------------------------------------------ the pass

    def records(self) -> Iterator[Record]:
        keys = ("messageId", "editHistoryIndex", "attachmentType", "orderInMessage",
                *ATTACHMENT_COLUMNS)
        plan = Plan(self.conn, self.columns, self.people, self.calls,
                    [c for c in keys if c in self.attachment_columns]
                    if self.has_attachment_table else None, self.state, self.file)
        self.quote_targets = self._quote_targets(plan)
        yield Estimate(plan.estimate())
        names = ["rowid", *self.columns]
        for values in self._rows(plan.ranges):
            row = dict(zip(names, values))
            try:
                data = json.loads(row["json"]) if row.get("json") else {}
            except ValueError as e:
                yield Problem(
                    self.where, row["rowid"], f"unreadable json ({e})", row_raw(row, False)
                )
                continue
            try:
                yield from self._row(row, data if isinstance(data, dict) else {})
            except FormatError:
                raise
            except DAMAGED_ROW as e:
                # a damaged page gives values of the wrong type ("Incoming" as sent_at, a number
                # as conversationId): the row is reported and kept raw, the rest imports
                yield Problem(self.where, row["rowid"],
                              f"unreadable row ({e.__class__.__name__}: {e})", row_raw(row, False))
        notes = self._notes()
        if plan.ranges is not None or plan.reason != "first import":
            notes.append(plan.note())
        yield SourceState(state={RESUME_STATE: plan.state}, notes=notes)

    def _rows(self, ranges: list[tuple[int, int]] | None) -> Iterator[tuple]:
        """The rows of `messages` in rowid order: all, or those in `ranges`."""
        query = f"SELECT rowid, {', '.join(self.columns)} FROM messages"
        if ranges is None:
            yield from self.conn.execute(f"{query} ORDER BY rowid")
            return
        for lo, hi in ranges:
            yield from self.conn.execute(f"{query} WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                                         (lo, hi))

    def _row(self, row: dict[str, Any], data: dict[str, Any]) -> Iterator[Record]:
        def field(name: str) -> Any:
            value = row.get(name)
            return data.get(name) if value is None else value

        kind = field("type")
        if kind in SKIPPED_TYPES:
            self.stories += 1
            return
        conversation = field("conversationId")
        if conversation is not None and not isinstance(conversation, str):
            conversation = str(conversation)  # a damaged row; Signal writes a uuid string
        sent = field("sent_at") or field("timestamp")
        if not conversation or not sent:
            yield Problem(
                self.where, row["rowid"], "message without a conversation or time", row_raw(row)
            )
            return
        chat = self.chats.get(conversation)
        if chat is None:
            chat = self.chats[conversation] = self.people.chat(conversation)
            yield chat
        if kind == "call-history":
            call = self._call(row, data, chat, sent)
            if call is not None:
                yield call
                return
        guid = field("id")
        message = Message(
            id=message_id_from_guid(PLATFORM, guid),
            platform=PLATFORM,
            chat_id=chat.id,
            sent_at=from_ms(sent),
            sender=OWNER,
            guid=guid,
            raw=row_raw(row),
            line=row["rowid"],
        )
        if kind in MESSAGE_TYPES:
            self._fill_message(message, row, data, field, chat)
        else:
            actor = system_actor(kind, data)
            message.kind = "system"
            message.sender = self.people.name(actor) if actor else SYSTEM_SENDER
            message.text = system_text(kind, data, self.people.name)
            message.extra["event"] = kind
        yield message

    def _fill_message(self, m: Message, row: dict, data: dict, field: Any, chat: Chat) -> None:
        if field("type") != "outgoing":
            source = sender_key(next((row[c] for c in self.sender_columns if row.get(c)), None))
            source = (
                source
                or data.get("sourceServiceId")
                or data.get("sourceUuid")
                or data.get("source")
            )
            if source is None and not chat.group:
                source = chat.key  # a 1:1 chat has one other person
            m.sender = self.people.name(source)
            m.sender_handle = None if m.sender == OWNER else self.people.handle(source)
        m.text = field("body") or ""
        if MENTION in m.text and data.get("bodyRanges"):
            m.text = self._with_mentions(m.text, data["bodyRanges"], m.extra)
        m.deleted = bool(data.get("deletedForEveryone") or row.get("isErased"))
        if row.get("isViewOnce") or data.get("isViewOnce"):
            m.extra["view_once"] = True
        self._quote(m, row, data)
        m.reactions = [self._reaction(r) for r in data.get("reactions") or [] if r.get("emoji")]
        history = data.get("editHistory") or []
        if len(history) > 1:  # newest first, the first being the current text
            m.edited = True
            m.versions = [
                Version(
                    v.get("body") or "", from_ms(v["timestamp"]) if v.get("timestamp") else None
                )
                for v in reversed(history[1:])
            ]
        if data.get("editMessageTimestamp"):
            m.edited = True
            m.extra["edited_at"] = from_ms(data["editMessageTimestamp"]).isoformat()
        m.attachments = self._attachments(m, row, data)
        if data.get("sticker"):
            sticker = data["sticker"]
            m.extra["sticker"] = {k: sticker.get(k) for k in ("packId", "stickerId", "emoji")}
            m.kind = "media"
        if m.attachments:
            m.kind = "media"

    def _with_mentions(self, text: str, ranges: list[dict], extra: dict) -> str:
        """Put '@Name' where Signal left U+FFFC (see `common.splice_mentions`)."""
        mentions = [
            (r.get("start", 0), r.get("length", 1),
             self.people.name(r.get("mentionAci") or r.get("mentionUuid")))
            for r in ranges
            if r.get("mentionAci") or r.get("mentionUuid")
        ]
        return splice_mentions(text, mentions, extra)

    def _quote(self, m: Message, row: dict, data: dict) -> None:
        quote = data.get("quote")
        if not isinstance(quote, dict):
            return
        target = self.quote_targets.get(row["rowid"])
        if target is not None:
            m.reply_to = message_id_from_guid(PLATFORM, target)
            return
        self.unresolved_quotes += 1
        author = quote.get("authorAci") or quote.get("authorUuid") or quote.get("author")
        m.extra["quote"] = {
            "text": quote.get("text") or "",
            "author": self.people.name(author) if author else None,
            "sent_at": from_ms(quote["id"]).isoformat()
            if isinstance(quote.get("id"), int)
            else None,
        }

    def _reaction(self, r: dict[str, Any]) -> Reaction:
        who = r.get("fromId")
        return Reaction(
            emoji=r["emoji"],
            sender=self.people.name(who),
            timestamp=from_ms(r["timestamp"]) if r.get("timestamp") else None,
            sender_handle=None if self.people.is_owner(who) else self.people.handle(who),
        )

    def _attachments(self, m: Message, row: dict, data: dict) -> list[Attachment]:
        items = data.get("attachments") or []
        if not items and self.has_attachment_table and row.get("hasAttachments"):
            keys = tuple(c for c in ATTACHMENT_COLUMNS if c in self.attachment_columns)
            cur = self.conn.execute(
                f"SELECT {', '.join(keys)} FROM message_attachments"
                " WHERE messageId = ? AND editHistoryIndex = ? AND attachmentType = 'attachment'"
                " ORDER BY orderInMessage",
                (m.guid, ROOT_VERSION),
            )
            items = [dict(zip(keys, values)) for values in cur]
            # so the raw record shows them too, without the file's decryption key
            row["message_attachments"] = [
                {k: v for k, v in a.items() if k != "localKey"} for a in items]
            m.raw = row_raw(row)
        out = []
        for a in items:
            if (a.get("flags") or 0) & VOICE_NOTE_FLAG:
                m.extra["voice_note"] = True
            out.append(self._attachment(a))
        return out

    def _attachment(self, a: dict[str, Any]) -> Attachment:
        """Where the file is: `path` is relative to Signal's attachments.noindex folder; newer
        versions encrypt the file with the record's `localKey` (version 2)."""
        relative = a.get("path")
        file = None
        if relative and self.attachments_root is not None:
            candidate = (self.attachments_root / relative).resolve()
            if candidate.is_relative_to(self.attachments_root.resolve()):
                file = candidate
        present = file is not None and file.is_file()
        encrypted = bool(a.get("localKey")) and (a.get("version") or 0) >= 2
        return Attachment(
            name=a.get("fileName"), mime_type=a.get("contentType"), size=a.get("size"),
            # where the file is; when it is not there, the path Signal recorded (relative to
            # its attachments.noindex folder), so nothing the source said is lost
            path=str(file) if present else relative, present=present,
            key=a.get("localKey") if encrypted else None,
            text=a.get("caption") or None,
        )

    def _call(self, row: dict, data: dict, chat: Chat, sent: int) -> Call | None:
        key = data.get("callId")
        history = self.calls.get(key) if key else None
        details = data.get("callHistoryDetails")
        if history is None and not details:
            return None  # nothing known about the call: kept as a system message
        facts = call_facts(history, details)
        if history is not None:
            row["callsHistory"] = history
        return Call(
            # The call-history row's id, not callId: old schemas have no callId, and Signal's
            # migration to callsHistory keeps the row, so the id survives an app upgrade.
            id=call_id(PLATFORM, row.get("id") or data.get("id")),
            platform=PLATFORM,
            chat_id=chat.id,
            started_at=from_ms(facts["started"] or sent),
            direction=facts["direction"],
            media=facts["media"],
            duration=facts["duration"],
            answered=facts["answered"],
            peer=None if chat.group else chat.name,
            raw=row_raw(row),
            line=row["rowid"],
        )

    def _notes(self) -> list[str]:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        sender = self.sender_columns[0] if self.sender_columns else "none"
        notes = [f"Signal Desktop database, schema version {version}, sender column {sender}"]
        if self.people.owner_conversation is None:
            notes.append("the owner's own account was not found (items.uuid_id)")
        if self.stories:
            notes.append(f"{self.stories} story row(s) skipped: stories are not chat history")
        if self.unresolved_quotes:
            notes.append(
                f"{self.unresolved_quotes} quote(s) of a message not in the database kept as text"
            )
        notes += self.notes
        return notes
