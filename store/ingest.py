"""The one write path: importer records -> database (one transaction per source) -> index.

Idempotent upsert keyed on the stable id. A record whose content digest matches the stored one
is unchanged; a changed record is updated without ever losing text an earlier import had (the
old text becomes an earlier version). Messages without a platform GUID (WhatsApp) that turn up
deleted or edited in a newer export carry a different content id: they are reconciled onto the
message the earlier import had (same chat, time and sender), and their id becomes an alias.
The same conversation from another reader or export is folded in by `reconcile.Reconciler`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, fields, replace
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import and_, bindparam, case, func, or_, select
from sqlalchemy.engine import Connection

from chatmem import records as rec

from . import models as m
from .db import next_seq
from .people import AGENT, APP_SENDERS, People
from .reconcile import Reconciler, fold_text, merge_attachments
from .report import Report
from .windows import MonthCounts

BATCH = 2000
SQL_CHUNK = 500  # ids per IN (...) list
MAX_PROBLEMS_SHOWN = 5


def to_utc_naive(dt: datetime | None) -> datetime | None:
    if dt is None:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
    return dt


def _digest(payload: dict[str, Any]) -> str:
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(data.encode("utf-8"), digest_size=16).hexdigest()


def message_digest(msg: rec.Message) -> str:
    """What the source said about a message, as 32 hex digits: equal digests, unchanged."""
    h = hashlib.blake2b(digest_size=16)
    # plain fields joined by a separator that cannot occur in them; the rarely present lists
    # and dicts go through JSON (much slower, so only when there is something to encode)
    h.update("\x1f".join((
        str(to_utc_naive(msg.sent_at)), msg.sender or "", msg.sender_handle or "", msg.text or "",
        msg.kind, "d" if msg.deleted else "", "e" if msg.edited else "", msg.reply_to or "",
        msg.chat_id, msg.raw or "")).encode("utf-8", "surrogatepass"))
    if msg.versions or msg.reactions or msg.attachments or msg.extra:
        h.update(json.dumps([
            [(v.text, str(to_utc_naive(v.timestamp))) for v in msg.versions],
            [(r.emoji, r.sender, r.removed) for r in msg.reactions],
            [asdict(a) for a in msg.attachments], msg.extra,
        ], sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _edited_before(extra: dict | None, than: dict | None) -> bool:
    """Do both say when the message was last edited (`edited_at`), `extra` earlier than `than`?"""
    a, b = (extra or {}).get("edited_at"), (than or {}).get("edited_at")
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    try:
        return datetime.fromisoformat(a) < datetime.fromisoformat(b)
    except (TypeError, ValueError):  # unreadable, or one with a zone and one without
        return False


def message_row(msg: rec.Message, digest: str, seq: int, ordinal: int, person_id: str | None,
                run_id: int | None) -> dict[str, Any]:
    """The messages-table row of a record: every writer of messages builds it here."""
    return {
        "id": msg.id, "seq": seq, "chat_id": msg.chat_id, "platform": msg.platform,
        "sent_at": to_utc_naive(msg.sent_at), "ordinal": ordinal,
        "sender": msg.sender, "sender_handle": msg.sender_handle, "text": msg.text or "",
        "person_id": person_id,
        "kind": msg.kind, "guid": msg.guid, "deleted": msg.deleted, "edited": msg.edited,
        "reply_to": msg.reply_to, "extra": msg.extra or {}, "raw": msg.raw, "digest": digest,
        "role": msg.extra.get("role") if msg.extra else None, "run_id": run_id,
    }


def call_digest(call: rec.Call) -> str:
    return _digest({k: v for k, v in asdict(call).items() if k not in ("line",)})


class SeenIds:
    """A set of ids that may answer "maybe" (a Bloom filter): fixed memory however many ids,
    so that an import of millions of messages does not grow with them. "Maybe" is then
    checked against the database; with 1M ids about 0.4% of lookups are wasted.

    >>> seen = SeenIds(); seen.add("m_1"); ("m_1" in seen, "m_2" in seen)
    (True, False)
    """

    BITS = 1 << 25  # 4 MB

    def __init__(self) -> None:
        self.bits = bytearray(self.BITS // 8)

    def _slots(self, key: str) -> tuple[int, int]:
        h = hash(key)  # per-process hashing is all an in-memory filter needs
        return h & (self.BITS - 1), (h >> 25) & (self.BITS - 1)

    def add(self, key: str) -> None:
        for slot in self._slots(key):
            self.bits[slot >> 3] |= 1 << (slot & 7)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        return all(self.bits[slot >> 3] & (1 << (slot & 7)) for slot in self._slots(key))


# ---------------------------------------------------------------------- the pipeline


class Ingest:
    """Writes one source's records inside the caller's open transaction `conn`."""

    def __init__(self, conn: Connection, report: Report, run_id: int,
                 on_progress: Callable[..., None] | None = None,
                 options: rec.ImportOptions | None = None, after: Ingest | None = None):
        """`after`: the ingest of the source before, in one import of several (a Meta download:
        a source a thread), committed: its people and import runs are taken over instead of
        read again when nothing else took an ingest seq since (a few ms a source)."""
        self.conn = conn
        self.report = report
        self.run_id = run_id
        self.seq = next_seq(conn)
        options = options or rec.ImportOptions()
        if after is not None and after.seq != self.seq - 1:
            after = None
        self.people: People = People(conn, self.seq, options.default_region,
                             options.owner_names, options.owner_handles,
                             known=after.people if after is not None else None)
        self.person_cache: dict[tuple[str, str | None], str | None] = {}
        self.on_progress = on_progress or (lambda n, total=None, phase=None: None)
        self.messages: list[rec.Message] = []
        self.calls: list[rec.Call] = []
        self.reactions: list[rec.Reaction] = []
        self.touched_chats: set[str] = set()
        self.inserted: Counter[str] = Counter()  # messages inserted per chat
        self.months = MonthCounts()  # this batch's messages per chat and month, written with it
        # chat id → [first, last] time of the messages this import inserted in it
        self.span: dict[str, list[datetime]] = {}
        self.recount: set[str] = set()  # chats whose stored messages changed: first/last asked again
        self.pending_chats: list[rec.Chat] = []  # written before the next batch that may need them
        self.chat_names: dict[str, str] = {}
        self.state: rec.SourceState | None = None
        self.count = 0
        self.records = 0  # anything the importer yielded at all but an Estimate
        self.expected: int | None = None  # what the importer's Estimate announced
        self.ordinal = 0
        # Into an empty store nothing can exist yet but what this import wrote itself: skip the
        # per-batch lookups of earlier rows (a fifth of a first import's database time).
        mt = m.Message.__table__
        self.fresh = conn.execute(select(mt.c.id).limit(1)).first() is None
        # (4 MB zeroed: only where it is asked, not for each thread of a download's re-import)
        self.written = SeenIds() if self.fresh else None
        self._insert_plans: dict[tuple, tuple[str | None, list]] = {}  # ids inserted by this import, in fresh mode
        self.reconcile: Reconciler = Reconciler(conn, run_id, report.path, self.fresh,
                                    after.reconcile.run_origin if after is not None else None)

    # -- dispatch
    def feed(self, records: Iterable[rec.Record]) -> None:
        remap = self.reconcile.chat_map
        for r in records:
            self.records += 1
            if remap and isinstance(r, (rec.Message, rec.Call, rec.Problem)) and r.chat_id in remap:
                r.chat_id = remap[r.chat_id]  # the same conversation, as another export keys it
            if isinstance(r, rec.Message):
                self.messages.append(r)
                if len(self.messages) >= BATCH:
                    self.flush_messages()
            elif isinstance(r, rec.Chat):
                # written, in order, before the next batch of messages: a source that names
                # its chat before each of a few messages (Signal, by conversation) costs one
                # batch, not one per chat
                self.reconcile.chat(r)
                self.pending_chats.append(r)
                if len(self.pending_chats) >= BATCH:
                    self.flush_chats()
            elif isinstance(r, rec.Call):
                self.calls.append(r)
                if len(self.calls) >= BATCH:
                    self.flush_calls()
            elif isinstance(r, rec.Reaction):
                self.reactions.append(r)
            elif isinstance(r, rec.Problem):
                self.flush_chats()
                self.add_problem(r)
            elif isinstance(r, rec.Contact):
                self.add_contact(r)
            elif isinstance(r, rec.Person):
                self.flush_messages()
                self.people.restore(r)
                self.report.contacts += 1
            elif isinstance(r, rec.SavedMemory):
                self.flush_chats()
                self.add_memory(r)
            elif isinstance(r, rec.Estimate):
                self.expected = (self.expected or 0) + r.records
                self.records -= 1  # a forecast is not something imported (an empty file is an error)
            elif isinstance(r, rec.SourceState):
                self.state = r
                self.report.notes.extend(r.notes)
        self.flush_chats()
        self.flush_messages()
        self.flush_calls()
        self.flush_reactions()
        self.finish_chats()
        self._reconcile_notes()
        # new senders get their person; after contacts, every link is checked again
        self.people.link(only_unlinked=self.report.contacts == 0)

    def _reconcile_notes(self) -> None:
        r = self.reconcile
        self.report.notes.extend(r.chat_notes)
        if r.merged_messages or r.merged_calls:
            self.report.notes.append(
                f"{r.merged_messages} message(s) and {r.merged_calls} call(s) were already in the "
                "store from another export of the same chats: kept once, completed from this one")

    # -- chats
    def flush_chats(self) -> None:
        batch, self.pending_chats = self.pending_chats, []
        for chat in batch:
            self.upsert_chat(chat)

    def upsert_chat(self, chat: rec.Chat) -> None:
        t = m.Chat.__table__
        row = self.conn.execute(select(t.c.name, t.c.participants, t.c.handles, t.c.is_group)
                                .where(t.c.id == chat.id)).first()
        participants = list(dict.fromkeys(chat.participants))
        handles = list(dict.fromkeys(chat.handles))
        if row is None:
            self.conn.execute(t.insert().values(
                id=chat.id, platform=chat.platform, key=chat.key, name=chat.name,
                is_group=chat.group, participants=participants, handles=handles,
                message_count=0, memory_paused=bool(chat.memory_paused),
                created_at=to_utc_naive(chat.created_at), seq=self.seq))
        else:
            merged_p = list(dict.fromkeys([*(row.participants or []), *participants]))
            merged_h = list(dict.fromkeys([*(row.handles or []), *handles]))
            if (row.name, merged_p, merged_h, row.is_group) != (chat.name, row.participants, row.handles, chat.group):
                self.conn.execute(t.update().where(t.c.id == chat.id).values(
                    name=chat.name, participants=merged_p, handles=merged_h,
                    is_group=chat.group or row.is_group, seq=self.seq))
                if row.name != chat.name:
                    # the chat name is part of every message's index document
                    self.conn.execute(m.Message.__table__.update()
                                      .where(m.Message.__table__.c.chat_id == chat.id)
                                      .values(seq=self.seq))
        if row is not None and (chat.created_at is not None or chat.memory_paused is not None):
            extra_values: dict[str, Any] = {}
            if chat.created_at is not None:
                extra_values["created_at"] = to_utc_naive(chat.created_at)
            if chat.memory_paused is not None:
                extra_values["memory_paused"] = chat.memory_paused
            self.conn.execute(t.update().where(t.c.id == chat.id).values(**extra_values))
        self.chat_names[chat.id] = chat.name
        cr = self.report.chat(chat.id)
        cr.name, cr.platform = chat.name, chat.platform

    def finish_chats(self) -> None:
        """Bring count / first / last of every chat whose messages this import inserted or
        changed up to date (a chat it only read unchanged stays as it is).

        The count grows by what this import inserted (it is kept on the chat row so that reads
        never count a chat's messages). First and last: where messages were only added, the
        earlier of the stored first and the first added (one statement for all such chats);
        where stored messages changed (a time corrected, a message moved to another chat), two
        seeks along the chat's index."""
        t, mt = m.Chat.__table__, m.Message.__table__
        added = []
        for chat_id in sorted(self.recount):
            first = self.conn.execute(select(func.min(mt.c.sent_at)).where(mt.c.chat_id == chat_id)).scalar()
            last = self.conn.execute(select(func.max(mt.c.sent_at)).where(mt.c.chat_id == chat_id)).scalar()
            self.conn.execute(t.update().where(t.c.id == chat_id).values(
                message_count=t.c.message_count + self.inserted.get(chat_id, 0),
                first_at=first, last_at=last))
        for chat_id in sorted(set(self.span) - self.recount):
            lo, hi = self.span[chat_id]
            added.append({"b_id": chat_id, "b_n": self.inserted.get(chat_id, 0), "b_lo": lo, "b_hi": hi})
        if added:
            when = t.c.first_at.type
            b_lo, b_hi = bindparam("b_lo", type_=when), bindparam("b_hi", type_=when)
            self.conn.execute(t.update().where(t.c.id == bindparam("b_id")).values(
                message_count=t.c.message_count + bindparam("b_n"),
                first_at=case((or_(t.c.first_at.is_(None), t.c.first_at > b_lo), b_lo), else_=t.c.first_at),
                last_at=case((or_(t.c.last_at.is_(None), t.c.last_at < b_hi), b_hi), else_=t.c.last_at)),
                added)

    # -- messages
    def flush_messages(self) -> None:
        self.flush_chats()
        if not self.messages:
            return
        batch, self.messages = self.messages, []
        mt, vt, at = m.Message.__table__, m.MessageVersion.__table__, m.Attachment.__table__
        # later duplicates of an id in the same batch win, counted as unchanged/updated
        by_id: dict[str, rec.Message] = {}
        dupes: list[rec.Message] = []
        for msg in batch:
            if msg.id in by_id:
                dupes.append(by_id[msg.id])
            by_id[msg.id] = msg
        if self.fresh:
            aliases = {}
            existing = self._existing_messages({i for i in by_id if i in (self.written or ())})
        else:
            aliases = self._aliases(list(by_id))
            existing = self._existing_messages({aliases.get(i, i) for i in by_id})
        # ids new to the store: the same message from another export of the same chat?
        matches = {} if self.fresh else self.reconcile.match_messages(
            [msg for i, msg in by_id.items() if aliases.get(i, i) not in existing], self._person)
        inserts, versions, attachments = [], [], []
        for msg in dupes:
            self.report.chat(msg.chat_id).unchanged += 1
        digests = {msg_id: message_digest(msg) for msg_id, msg in by_id.items()}
        blank_only = set() if self.fresh else self._blank_only(m.Message.__table__, [
            (aliases.get(i, i), msg, existing[aliases.get(i, i)]["digest"], message_digest)
            for i, msg in by_id.items() if aliases.get(i, i) in existing
            and existing[aliases.get(i, i)]["digest"] != digests[i]
            and not self.reconcile.other_origin(existing[aliases.get(i, i)].get("run_id"))])
        for msg_id, msg in by_id.items():
            target = aliases.get(msg_id, msg_id)
            digest = digests[msg_id]
            old = existing.get(target)
            cr = self.report.chat(msg.chat_id)
            self.touched_chats.add(msg.chat_id)
            if target in blank_only:
                cr.unchanged += 1
                existing[target] = {**existing[target], "digest": digest}
                continue
            if old is None and not self.fresh and msg.guid is None and (msg.deleted or msg.edited):
                old = self._reconcile_content_keyed(msg)
                if old is not None:
                    target = old["id"]
            if old is None and msg_id in matches:
                found = matches[msg_id]
                self.reconcile.alias(msg_id, found.id)
                old, target = {"id": found.id, "digest": found.digest, "text": found.text,
                               "deleted": found.deleted, "run_id": found.run_id,
                               "chat_id": msg.chat_id, "sent_at": found.sent_at}, found.id
            if old is None:
                self.ordinal += 1
                row = self._message_row(msg, digest)
                inserts.append(row)
                when = row["sent_at"]
                span = self.span.get(msg.chat_id)
                if span is None:
                    self.span[msg.chat_id] = [when, when]
                elif when < span[0]:
                    span[0] = when
                elif when > span[1]:
                    span[1] = when
                versions.extend(self._version_rows(msg_id, msg.versions, "source"))
                attachments.extend(self._attachment_rows(msg_id, msg.attachments))
                cr.new += 1
                self.inserted[msg.chat_id] += 1
                self.months.add(msg.chat_id, when)
                if self.written is not None:
                    self.written.add(msg_id)
                existing[msg_id] = {"id": msg_id, "digest": digest, "text": msg.text,
                                    "deleted": msg.deleted, "chat_id": msg.chat_id, "sent_at": when}
            elif old["digest"] == digest:
                cr.unchanged += 1
            elif self.reconcile.other_origin(old.get("run_id")):
                # another export's view of a stored message: complete it, never replace it
                if self.reconcile.source_digest(target) == digest:
                    cr.unchanged += 1
                elif self._merge_message(target, msg, digest):
                    self.recount.add(msg.chat_id)
                    cr.updated += 1
                else:
                    cr.unchanged += 1
            else:
                when = self._update_message(target, old, msg, digest)
                self.recount.add(msg.chat_id)
                moved_from = old.get("chat_id")
                if moved_from and moved_from != msg.chat_id:  # the source moved it to another chat
                    self.inserted[moved_from] -= 1
                    self.inserted[msg.chat_id] += 1
                    self.touched_chats.add(moved_from)
                    self.recount.add(moved_from)
                self.months.move((moved_from or msg.chat_id, old["sent_at"]), (msg.chat_id, when))
                existing[target] = {**old, "digest": digest, "chat_id": msg.chat_id, "sent_at": when}
                cr.updated += 1
            for r in msg.reactions:
                self.reactions.append(rec.Reaction(
                    emoji=r.emoji, sender=r.sender, timestamp=r.timestamp, removed=r.removed,
                    target_id=target, sender_handle=r.sender_handle))
        if inserts:
            self._insert(mt, inserts)
        if versions:
            self._insert(vt, versions)
        if attachments:
            self._insert(at, attachments)
        self.months.write(self.conn)
        self.count += len(batch)
        self.on_progress(self.count, self.expected)
        if len(self.reactions) >= BATCH:
            self.flush_reactions()

    def _blank_only(self, table: Any, changed: list[tuple[str, Any, str, Callable[[Any], str]]]) -> set[str]:
        """Of stored records whose digest differs from the source's record now (stored id,
        record, stored digest, digest function), those where only blank characters at the end
        of the raw text differ (an earlier version of a reader kept the blank after an element):
        their raw text and digest are brought up to date quietly, as unchanged, nothing else
        rewritten or indexed again. Their ids."""
        if not changed:
            return set()
        ids = [c[0] for c in changed]
        stored: dict[str, str] = {}
        for i in range(0, len(ids), SQL_CHUNK):
            stored.update(self.conn.execute(select(table.c.id, table.c.raw)
                                            .where(table.c.id.in_(ids[i:i + SQL_CHUNK]))).all())
        fixes = []
        for target, record, old_digest, digest_of in changed:
            raw, old_raw = record.raw or "", stored.get(target) or ""
            if (old_raw != raw and old_raw.rstrip() == raw.rstrip()
                    and digest_of(replace(record, raw=old_raw)) == old_digest):
                fixes.append({"target": target, "raw": raw, "digest": digest_of(record)})
        if fixes:
            self.conn.execute(table.update().where(table.c.id == bindparam("target"))
                              .values(raw=bindparam("raw"), digest=bindparam("digest")), fixes)
        return {f["target"] for f in fixes}

    def _insert(self, table: Any, rows: list[dict]) -> None:
        """Insert rows that all have the same keys. On SQLite straight through the driver's
        executemany, with each column's own bind processing (what SQLAlchemy would store),
        skipping the statement's per-row parameter building: about a third of a bulk insert's
        Python time (PERFORMANCE.md: raw executemany 264k rows/s, Core insert 170k rows/s)."""
        if self.conn.dialect.name != "sqlite":
            self.conn.execute(table.insert(), rows)
            return
        names = list(rows[0])
        key = (table.name, tuple(names))
        plan = self._insert_plans.get(key)
        if plan is None:
            dialect = self.conn.dialect
            if any(c.name not in names and (c.default is not None or c.server_default is not None)
                   for c in table.c):
                plan = None, []  # a column left to its default: let SQLAlchemy fill it in
            else:
                procs = [table.c[n].type._cached_bind_processor(dialect) for n in names]
                columns = ", ".join('"' + n + '"' for n in names)
                plan = (f'INSERT INTO "{table.name}" ({columns}) VALUES ({", ".join("?" * len(names))})',
                        procs)
            self._insert_plans[key] = plan
        sql, procs = plan
        if sql is None:
            self.conn.execute(table.insert(), rows)
            return
        pairs = list(zip(names, procs))
        data = [tuple(row[n] if p is None else p(row[n]) for n, p in pairs) for row in rows]
        self.conn.exec_driver_sql(sql, data)

    def _aliases(self, ids: list[str]) -> dict[str, str]:
        t = m.MessageAlias.__table__
        out: dict[str, str] = {}
        for i in range(0, len(ids), SQL_CHUNK):
            for alias, target in self.conn.execute(
                    select(t.c.alias, t.c.message_id).where(t.c.alias.in_(ids[i:i + SQL_CHUNK]))):
                out[alias] = target
        return out

    def _existing_messages(self, ids: set[str]) -> dict[str, dict]:
        mt = m.Message.__table__
        out: dict[str, dict] = {}
        id_list = list(ids)
        for i in range(0, len(id_list), SQL_CHUNK):
            rows = self.conn.execute(
                select(mt.c.id, mt.c.digest, mt.c.text, mt.c.deleted, mt.c.chat_id, mt.c.run_id,
                       mt.c.sent_at).where(mt.c.id.in_(id_list[i:i + SQL_CHUNK])))
            for row in rows:
                out[row.id] = dict(row._mapping)
        return out

    def _reconcile_content_keyed(self, msg: rec.Message) -> dict | None:
        """A deleted/edited message without a GUID: find the message an earlier import had
        at the same time from the same sender in the same chat, and alias onto it."""
        mt = m.Message.__table__
        when = to_utc_naive(msg.sent_at)
        rows = self.conn.execute(
            select(mt.c.id, mt.c.digest, mt.c.text, mt.c.deleted, mt.c.chat_id, mt.c.run_id, mt.c.sent_at)
            .where(and_(mt.c.chat_id == msg.chat_id, mt.c.sent_at == when,
                        mt.c.sender == msg.sender, mt.c.run_id != self.run_id,
                        mt.c.kind == msg.kind if not msg.deleted else mt.c.id.isnot(None)))
        ).all()
        candidates = [dict(r._mapping) for r in rows if r.id != msg.id]
        if msg.edited:
            candidates = [c for c in candidates if not c["deleted"]]
        if len(candidates) != 1:
            return None
        old = candidates[0]
        self.conn.execute(m.MessageAlias.__table__.insert().values(alias=msg.id, message_id=old["id"]))
        return old

    def _message_row(self, msg: rec.Message, digest: str) -> dict:
        # an agent session's turns are written by roles (user, assistant), not people; the
        # app's own notices ("Signal": safety number changed) are written by no one
        by_app = (msg.kind == "system" and not msg.sender_handle
                  and msg.sender.casefold() in APP_SENDERS)
        person = None if msg.platform == AGENT or by_app else self._person(msg.sender, msg.sender_handle)
        return message_row(msg, digest, self.seq, self.ordinal if msg.line is None else msg.line,
                           person, self.run_id)

    def _person(self, sender: str, handle: str | None) -> str | None:
        """The person behind a sender, resolved once per (sender, handle) in this import."""
        key = (sender, handle)
        if key not in self.person_cache:
            self.person_cache[key] = self.people.resolve(sender, handle)
        return self.people.current(self.person_cache[key])

    @staticmethod
    def _version_rows(message_id: str, versions: list[rec.Version], origin: str, start: int = 0) -> list[dict]:
        return [{"message_id": message_id, "position": start + i, "text": v.text,
                 "timestamp": to_utc_naive(v.timestamp), "origin": origin}
                for i, v in enumerate(versions)]

    @staticmethod
    def _attachment_rows(message_id: str, atts: list[rec.Attachment]) -> list[dict]:
        return [{"id": rec.attachment_id(message_id, i, a.name), "message_id": message_id,
                 "position": i, "name": a.name, "mime_type": a.mime_type, "size": a.size,
                 "path": a.path, "guid": a.guid, "present": a.present, "key": a.key,
                 "text": a.text} for i, a in enumerate(atts)]

    def _update_message(self, target: str, old: dict, msg: rec.Message, digest: str) -> datetime:
        """Apply a changed record; text an earlier import had is never lost. Its time as
        stored (UTC) now."""
        mt, vt = m.Message.__table__, m.MessageVersion.__table__
        known = [(r.text, r.timestamp) for r in self.conn.execute(
            select(vt.c.text, vt.c.timestamp).where(vt.c.message_id == target).order_by(vt.c.position))]
        known_texts = {t for t, _ in known}
        new_versions = [v for v in msg.versions if v.text not in known_texts]
        rows = self._version_rows(target, new_versions, "source", start=len(known))
        known_texts.update(v.text for v in new_versions)
        text = msg.text or ""
        old_text = old.get("text") or ""
        st = m.RecordSource.__table__
        cur = None
        if self.conn.execute(select(st.c.record_id).where(st.c.record_id == target)).first():
            cur = self.conn.execute(select(mt.c.guid, mt.c.reply_to, mt.c.sender_handle, mt.c.extra)
                                    .where(mt.c.id == target)).one()
        later_edit = (cur is not None and msg.edited and not msg.deleted and bool(old_text)
                      and _edited_before(msg.extra, cur.extra))
        if msg.deleted and old_text and not old.get("deleted"):
            text = old_text  # deleted for everyone after we had read it: keep what it said
        elif later_edit:  # another export showed a later edit: it stays, this text is a version
            if text and text != old_text and text not in known_texts:
                rows += self._version_rows(target, [rec.Version(text, None)], "source",
                                           start=len(known) + len(rows))
            text = old_text
        elif old_text and old_text != text and old_text not in known_texts:
            rows += self._version_rows(target, [rec.Version(old_text, None)], "earlier-import",
                                       start=len(known) + len(rows))
        if rows:
            self.conn.execute(vt.insert(), rows)
        values = self._message_row(msg, digest)
        for key in ("id", "ordinal", "run_id"):
            values.pop(key)
        values["text"] = text
        values["edited"] = msg.edited or bool(rows) or bool(known)
        values["deleted"] = msg.deleted or bool(old.get("deleted"))
        atts = msg.attachments
        if cur is not None:
            # completed from another export: what that export added stays
            for key in ("guid", "reply_to", "sender_handle"):
                values[key] = values[key] or getattr(cur, key)
            values["extra"] = {**(cur.extra or {}), **values["extra"]}
            if later_edit:
                values["extra"]["edited_at"] = cur.extra["edited_at"]
            atts = merge_attachments(self._stored_attachments(target), atts) if atts else atts
        if atts:
            self._replace_attachments(target, atts)
        self.conn.execute(mt.update().where(mt.c.id == target).values(**values))
        sent: datetime = values["sent_at"]
        return sent

    def _replace_attachments(self, target: str, atts: list[rec.Attachment]) -> None:
        at = m.Attachment.__table__
        # a copy made with --copy-media stays the attachment's, whatever else changed
        copied = dict(self.conn.execute(select(at.c.id, at.c.copied).where(
            (at.c.message_id == target) & at.c.copied.is_not(None))).all())
        self.conn.execute(at.delete().where(at.c.message_id == target))
        new_rows = self._attachment_rows(target, atts)
        for row in new_rows:
            row["copied"] = copied.get(row["id"])
        self.conn.execute(at.insert(), new_rows)

    def _stored_attachments(self, message_id: str) -> list[dict]:
        at = m.Attachment.__table__
        names = [f.name for f in fields(rec.Attachment)]
        return [dict(r._mapping) for r in self.conn.execute(
            select(*(at.c[n] for n in names)).where(at.c.message_id == message_id)
            .order_by(at.c.position))]

    def _merge_message(self, target: str, msg: rec.Message, digest: str) -> bool:
        """Complete a stored message from another export's record of it: ids, text, reply,
        flags, versions and attachments it lacks; it keeps its own digest, so each source
        finds its own version unchanged next time. False when this record adds nothing the
        message lacks (an export that had it as it was, read again after another export
        changed it): then only this source's version is remembered, the message is left as it
        is (not listed with one more source, not indexed again)."""
        mt, vt = m.Message.__table__, m.MessageVersion.__table__
        cur = self.conn.execute(select(mt).where(mt.c.id == target)).one()
        values: dict[str, Any] = {"seq": self.seq}
        for key in ("guid", "sender_handle", "reply_to", "text"):
            if getattr(msg, key) and not getattr(cur, key):
                values[key] = getattr(msg, key)
        known = [r.text for r in self.conn.execute(
            select(vt.c.text).where(vt.c.message_id == target).order_by(vt.c.position))]
        new_versions = [v for v in msg.versions if v.text not in set(known)]
        if (msg.edited and not msg.deleted and cur.text and msg.text
                and fold_text(msg.text) != fold_text(cur.text)):
            if _edited_before(msg.extra, cur.extra):
                # an earlier edit than the one shown (both exports say when): a version
                if msg.text not in known and msg.text not in {v.text for v in new_versions}:
                    new_versions.append(rec.Version(msg.text, None))
            else:
                # a newer export shows it edited: its text is current, the stored one a version
                values["text"] = msg.text
                if cur.text not in known and cur.text not in {v.text for v in new_versions}:
                    self.conn.execute(vt.insert(), self._version_rows(
                        target, [rec.Version(cur.text, None)], "earlier-import", start=len(known)))
                    known.append(cur.text)
        if msg.deleted and not cur.deleted:
            values["deleted"] = True
        if (msg.edited or msg.versions) and not cur.edited:
            values["edited"] = True
        if cur.kind == "text" and msg.kind == "media":
            values["kind"] = "media"
        origins = {self.reconcile.run_origin.get(cur.run_id, ""), self.reconcile.origin,
                   *((cur.extra or {}).get("sources") or [])}
        values["extra"] = {**msg.extra, **(cur.extra or {}),
                           "sources": sorted(o for o in origins if o)}
        if "text" in values and msg.extra.get("edited_at"):  # the edit shown is this one
            values["extra"]["edited_at"] = msg.extra["edited_at"]
        merged: list[rec.Attachment] | None = None
        if msg.attachments:
            stored = self._stored_attachments(target)
            merged = merge_attachments(stored, msg.attachments)
            if [asdict(a) for a in merged] == stored:
                merged = None
        before = {k: v for k, v in (cur.extra or {}).items() if k != "sources"}
        after = {k: v for k, v in values["extra"].items() if k != "sources"}
        if set(values) == {"seq", "extra"} and after == before and not new_versions and merged is None:
            self.reconcile.remember_source(target, msg.id, digest, msg.raw)
            return False
        if new_versions:
            self.conn.execute(vt.insert(), self._version_rows(target, new_versions, "source",
                                                              start=len(known)))
        if merged is not None:
            self._replace_attachments(target, merged)
        self.conn.execute(mt.update().where(mt.c.id == target).values(**values))
        self.reconcile.remember_source(target, msg.id, digest, msg.raw)
        self.reconcile.merged_messages += 1
        return True

    # -- reactions
    def flush_reactions(self) -> None:
        if not self.reactions:
            return
        batch, self.reactions = self.reactions, []
        t = m.Reaction.__table__
        keyed: dict[tuple, rec.Reaction] = {}
        for r in batch:
            keyed[(r.target_id, r.sender, r.emoji)] = r
        # the reactions of these messages, along the message_id index (SQLite reads every row of
        # the table for a (message_id, sender, emoji) IN list: 4 ms a batch at a million messages)
        targets = list({key[0] for key in keyed})
        existing: dict[tuple, bool] = {}
        for i in range(0, len(targets), SQL_CHUNK):
            for row in self.conn.execute(select(t.c.message_id, t.c.sender, t.c.emoji, t.c.removed)
                                         .where(t.c.message_id.in_(targets[i:i + SQL_CHUNK]))):
                key = (row.message_id, row.sender, row.emoji)
                if key in keyed:
                    existing[key] = row.removed
        inserts = []
        for key, r in keyed.items():
            if key not in existing:
                inserts.append({"message_id": key[0], "sender": key[1], "emoji": key[2],
                                "timestamp": to_utc_naive(r.timestamp), "removed": r.removed})
                self.report.reactions += 1
            elif existing[key] != r.removed:
                self.conn.execute(t.update().where(and_(t.c.message_id == key[0], t.c.sender == key[1],
                                                        t.c.emoji == key[2])).values(removed=r.removed))
        if inserts:
            self.conn.execute(t.insert(), inserts)

    # -- calls
    def flush_calls(self) -> None:
        self.flush_chats()
        if not self.calls:
            return
        batch, self.calls = self.calls, []
        t = m.Call.__table__
        by_id = {c.id: c for c in batch}
        aliases = {} if self.fresh else self._aliases(list(by_id))
        ids = list({aliases.get(i, i) for i in by_id})
        existing: dict[str, str] = {}
        origin_run: dict[str, int | None] = {}
        for i in range(0, len(ids), SQL_CHUNK):
            for row in self.conn.execute(select(t.c.id, t.c.digest, t.c.run_id)
                                         .where(t.c.id.in_(ids[i:i + SQL_CHUNK]))):
                existing[row.id], origin_run[row.id] = row.digest, row.run_id
        inserts = []
        blank_only = set() if self.fresh else self._blank_only(t, [
            (aliases.get(i, i), call, existing[aliases.get(i, i)], call_digest)
            for i, call in by_id.items() if aliases.get(i, i) in existing
            and existing[aliases.get(i, i)] != call_digest(call)
            and not self.reconcile.other_origin(origin_run[aliases.get(i, i)])])
        for source_cid, call in by_id.items():
            digest = call_digest(call)
            cid = aliases.get(source_cid, source_cid)
            if cid in blank_only:
                self.report.calls["unchanged"] += 1
                continue
            if cid not in existing and not self.fresh:
                found = self.reconcile.match_call(call)
                if found is not None:  # the same call from another export of this chat
                    self.reconcile.alias(source_cid, found)
                    self._merge_call(found, call, digest)
                    self.report.calls["updated"] += 1
                    continue
            if cid in existing and existing[cid] != digest and self.reconcile.other_origin(origin_run[cid]):
                if self.reconcile.source_digest(cid) == digest:
                    self.report.calls["unchanged"] += 1
                else:
                    self._merge_call(cid, call, digest)
                    self.report.calls["updated"] += 1
                continue
            values = {"id": cid, "seq": self.seq, "chat_id": call.chat_id, "platform": call.platform,
                      "started_at": to_utc_naive(call.started_at), "direction": call.direction,
                      "media": call.media, "duration": call.duration, "answered": call.answered,
                      "peer": call.peer, "summary": call.summary, "transcript": call.transcript,
                      "raw": call.raw, "digest": digest, "run_id": self.run_id}
            self.touched_chats.add(call.chat_id)
            if cid not in existing:
                inserts.append(values)
                self.report.calls["new"] += 1
            elif existing[cid] == digest:
                self.report.calls["unchanged"] += 1
            else:
                values.pop("run_id")
                # a stored summary/transcript is never replaced by an empty one
                if not call.summary:
                    values.pop("summary")
                if not call.transcript:
                    values.pop("transcript")
                self.conn.execute(t.update().where(t.c.id == cid).values(**values))
                self.report.calls["updated"] += 1
        if inserts:
            self.conn.execute(t.insert(), inserts)

    def _merge_call(self, target: str, call: rec.Call, digest: str) -> None:
        """Fill what a stored call lacks from another export's record of it."""
        t = m.Call.__table__
        cur = self.conn.execute(select(t).where(t.c.id == target)).one()
        values: dict[str, Any] = {k: getattr(call, k) for k in
                                  ("duration", "answered", "peer", "summary", "transcript")
                                  if getattr(cur, k) is None and getattr(call, k) is not None}
        if values:
            self.conn.execute(t.update().where(t.c.id == target).values(seq=self.seq, **values))
        self.reconcile.remember_source(target, call.id, digest, call.raw)
        self.reconcile.merged_calls += 1

    # -- problems and contacts
    def add_problem(self, p: rec.Problem) -> None:
        self.conn.execute(m.Unparsed.__table__.insert().values(
            run_id=self.run_id, source_path=self.report.path, where=p.where, line=p.line,
            reason=p.reason, text=p.text, chat_id=p.chat_id))
        self.report.unparsed += 1
        shown = {"where": p.where, "line": p.line, "reason": p.reason, "text": p.text[:200]}
        if p.chat_id:
            cr = self.report.chat(p.chat_id)
            cr.unparsed += 1
            if len(cr.problems) < MAX_PROBLEMS_SHOWN:
                cr.problems.append(shown)
        elif len(self.report.problems) < MAX_PROBLEMS_SHOWN:
            self.report.problems.append(shown)

    def add_memory(self, mem: rec.SavedMemory) -> None:
        """A saved memory version from an export; one the store already has is left alone."""
        t = m.Memory.__table__
        if self.conn.execute(select(t.c.id).where(t.c.id == mem.id)).first() is None:
            self.conn.execute(t.insert().values(
                id=mem.id, chat_id=mem.chat_id, version=mem.version, text=mem.text,
                cites=list(mem.cites), created_at=to_utc_naive(mem.created_at),
                newest_cited_at=to_utc_naive(mem.newest_cited_at), seat=mem.seat))

    def add_contact(self, c: rec.Contact) -> None:
        self.people.add_contact(c)
        self.report.contacts += 1
