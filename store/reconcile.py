"""One conversation, however many exports or readers hold it.

Two readers of one platform can hold the same conversation under different natural keys:
signal-export names a chat by its folder ("sigexport:Anna Berg") where Signal Desktop has a
conversation id; a phone's backup numbers its chats itself. Their messages carry different ids
(a content key here, a database GUID there). This module finds the overlap and folds it:

- A chat seen for the first time is the same chat as one the store already has when both are
  of one platform, both groups or both one-to-one, named alike, keyed by *different readers*
  (the key's namespace, `sigexport:` vs a bare conversation id), and — for one-to-one chats
  where both know handles — share a handle. Exactly one such chat must exist; its id stays,
  and the newcomer's id becomes an alias (`chat_aliases`).
- A message new to the store is the same message as one that another source gave the same
  chat, with the same sender (name, or the same person), time to the second and text
  (whitespace-folded). Its id becomes an alias of the stored one, and the stored record is
  completed from it (ids, attachments, reactions, versions), never made poorer.
- Calls likewise by chat, start to the second and voice/video.

Each message keeps every source it came from: the first is its own import run, the others
are rows of `record_sources` with that source's digest and raw text, so re-importing either
source finds its own version unchanged and adds nothing.

The id that stays is the one the store gave out first (citations already use it); the other
reader's id is an alias that every tool accepts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection

from chatmem import records as rec

from . import models as m

SQL_CHUNK = 500
MATCH_PROBE = 2000  # stored messages in a batch's time range read without asking `shared` first
NAMESPACE = re.compile(r"([a-z][a-z0-9-]*):(?! )")  # "sigexport:Anna Berg" -> "sigexport"


def chat_namespace(key: str) -> str:
    """The reader a chat key comes from: its `name:` prefix, '' for bare platform ids.

    >>> chat_namespace("sigexport:Anna Berg"), chat_namespace("c0a0-11"), chat_namespace("x")
    ('sigexport', '', '')
    """
    found = NAMESPACE.match(key or "")
    return found.group(1) if found else ""


def fold_text(text: str | None) -> str:
    """Text as compared across readers: whitespace runs folded, ends stripped.

    >>> fold_text("  Hi   all 👋  ")
    'Hi all 👋'
    """
    return " ".join((text or "").split())


def to_second(dt: datetime) -> datetime:
    """A naive UTC time cut to the second (readers keep milliseconds, or not)."""
    return dt.replace(microsecond=0)


@dataclass
class Stored:
    """What the store has for a message, as reconciliation needs it."""

    id: str
    digest: str
    text: str
    deleted: bool
    run_id: int | None = None
    sent_at: datetime | None = None  # as stored (UTC)


class Reconciler:
    """Per import of one source: chat aliases, the other sources' messages, merges."""

    def __init__(self, conn: Connection, run_id: int, origin: str, fresh: bool,
                 run_origin: dict[int, str] | None = None) -> None:
        """`run_origin`: a Reconciler's of a transaction committed just before this one, with
        nothing written since."""
        self.conn, self.run_id, self.origin, self.fresh = conn, run_id, origin, fresh
        runs = m.ImportRun.__table__
        # import run -> the source path it read (a handful of rows even in big stores)
        self.run_origin: dict[int, str] = (run_origin if run_origin is not None else
                                           dict(conn.execute(select(runs.c.id, runs.c.path)).all()))
        self.run_origin[run_id] = origin
        self.chat_map: dict[str, str] = {}  # chat id an importer yielded -> the stored chat
        self._shared: dict[str, bool] = {}
        self._newest: dict[str, datetime | None] = {}  # chat -> its newest message when first asked
        self._platform_chats: dict[str, Sequence[Any]] = {}
        self.merged_messages = 0
        self.merged_calls = 0
        self.chat_notes: list[str] = []

    # ------------------------------------------------------------------ origins

    def other_origin(self, run_id: int | None) -> bool:
        """Did a different source (not an earlier import of this one) write this row?"""
        return run_id is not None and self.run_origin.get(run_id, self.origin) != self.origin

    def shared(self, chat_id: str) -> bool:
        """Does this chat hold records another source wrote (so overlap is possible)?"""
        if self.fresh:
            return False
        found = self._shared.get(chat_id)
        if found is None:
            others = [r for r, o in self.run_origin.items() if o != self.origin]
            found = False
            if others:
                for table in (m.Message.__table__, m.Call.__table__):
                    for i in range(0, len(others), SQL_CHUNK):
                        if self.conn.execute(select(table.c.id).where(and_(
                                table.c.chat_id == chat_id,
                                table.c.run_id.in_(others[i:i + SQL_CHUNK]))).limit(1)).first():
                            found = True
                            break
                    if found:
                        break
            self._shared[chat_id] = found
        return found

    # ------------------------------------------------------------------ chats

    def chat(self, chat: rec.Chat) -> None:
        """Point `chat.id` at the stored chat it is (itself, an alias, or a partner found now)."""
        yielded = chat.id
        target = self._chat_target(chat)
        if target != yielded:
            self.chat_map[yielded] = target
            chat.id = target

    def chat_id(self, chat_id: str) -> str:
        return self.chat_map.get(chat_id, chat_id)

    def _chat_target(self, chat: rec.Chat) -> str:
        if self.fresh:
            return chat.id
        t, at = m.Chat.__table__, m.ChatAlias.__table__
        if self.conn.execute(select(t.c.id).where(t.c.id == chat.id)).first() is not None:
            return chat.id
        alias = self.conn.execute(select(at.c.chat_id).where(at.c.alias == chat.id)).first()
        if alias is not None:
            return alias.chat_id
        partners = [c for c in self._chats_of(chat.platform) if self._same_chat(chat, c)]
        if len(partners) != 1:
            if len(partners) > 1:
                self.chat_notes.append(
                    f"chat {chat.name!r} matches {len(partners)} chats of other exports; "
                    "kept apart (merge by hand with --chat)")
            return chat.id
        target = partners[0].id
        self.conn.execute(at.insert().values(alias=chat.id, chat_id=target, key=chat.key))
        self.chat_notes.append(f"chat {chat.name!r} is the same conversation as {target} "
                               "from another export: merged")
        return target

    def _chats_of(self, platform: str) -> Sequence[Any]:
        rows = self._platform_chats.get(platform)
        if rows is None:
            t = m.Chat.__table__
            rows = self._platform_chats[platform] = self.conn.execute(
                select(t.c.id, t.c.key, t.c.name, t.c.is_group, t.c.handles)
                .where(t.c.platform == platform)).all()
        return rows

    @staticmethod
    def _same_chat(chat: rec.Chat, row: Any) -> bool:
        if bool(row.is_group) != bool(chat.group):
            return False
        if chat_namespace(row.key) == chat_namespace(chat.key):
            return False  # one reader never gives one conversation two keys
        if (row.name or "").casefold() != (chat.name or "").casefold():
            return False
        mine = {h.casefold() for h in chat.handles}
        theirs = {str(h).casefold() for h in (row.handles or [])}
        return chat.group or not mine or not theirs or bool(mine & theirs)

    # ------------------------------------------------------------------ messages

    def match_messages(self, messages: Iterable[rec.Message],
                       person_of: Callable[[str, str | None], str | None]) -> dict[str, Stored]:
        """New messages (ids the store does not know) -> the stored message each one is."""
        by_chat: dict[str, list[rec.Message]] = {}
        if self.fresh or not self._others():
            return {}
        for msg in messages:
            by_chat.setdefault(msg.chat_id, []).append(msg)
        out: dict[str, Stored] = {}
        mt, st = m.Message.__table__, m.RecordSource.__table__
        for chat_id, msgs in by_chat.items():
            first = min(to_second(_naive(x.sent_at)) for x in msgs)
            last = max(to_second(_naive(x.sent_at)) for x in msgs) + timedelta(seconds=1)
            if not self._worth_matching(chat_id, first, last):
                continue
            rows = [r for r in self.conn.execute(
                select(mt.c.id, mt.c.digest, mt.c.text, mt.c.deleted, mt.c.run_id, mt.c.sender,
                       mt.c.person_id, mt.c.sent_at)
                .where(and_(mt.c.chat_id == chat_id, mt.c.sent_at >= first, mt.c.sent_at < last))
                .order_by(mt.c.sent_at, mt.c.ordinal)) if self.other_origin(r.run_id)]
            if not rows:
                continue
            ids = [r.id for r in rows]
            taken: set[str] = set()  # already completed from this source: not a candidate again
            for i in range(0, len(ids), SQL_CHUNK):
                taken.update(x for x, in self.conn.execute(select(st.c.record_id).where(and_(
                    st.c.record_id.in_(ids[i:i + SQL_CHUNK]), st.c.origin == self.origin))))
            pool: dict[tuple, list[Any]] = {}
            for r in rows:
                if r.id not in taken:
                    pool.setdefault((to_second(r.sent_at), fold_text(r.text)), []).append(r)
            for msg in msgs:
                found = pool.get((to_second(_naive(msg.sent_at)), fold_text(msg.text)))
                if not found:
                    continue
                pick = next((r for r in found if _same_sender(msg, r, person_of)), None)
                if pick is not None:
                    found.remove(pick)
                    out[msg.id] = Stored(pick.id, pick.digest, pick.text, pick.deleted, pick.run_id, pick.sent_at)
        return out

    def _others(self) -> bool:
        """Does the store know an import run of another source (else no stored row can be
        another source's, and no new message is matched)?"""
        return any(o != self.origin for o in self.run_origin.values())

    def _worth_matching(self, chat_id: str, first: datetime, last: datetime) -> bool:
        """Whether the stored messages of `chat_id` from `first` to before `last` may hold
        another source's: False when the chat holds none of another source's (`shared`), or
        none at all in that time. A thread that grew (new messages newer than every stored
        one) has none there: its newest stored time, read once per chat along the chat's
        index (rows written since are this source's own, never matched), answers every batch
        of it, and spares `shared` its walk over every row of the chat (a 560,000-message
        thread: ~0.3 s)."""
        known = self._shared.get(chat_id)
        if known is not None:
            return known
        mt = m.Message.__table__
        if chat_id not in self._newest:
            self._newest[chat_id] = self.conn.execute(
                select(func.max(mt.c.sent_at)).where(mt.c.chat_id == chat_id)).scalar()
        newest = self._newest[chat_id]
        if newest is None or newest < first:
            return False
        there = self.conn.execute(select(func.count()).select_from(
            select(mt.c.chat_id).where(and_(mt.c.chat_id == chat_id, mt.c.sent_at >= first,
                                            mt.c.sent_at < last)).limit(MATCH_PROBE + 1).subquery())).scalar()
        if not there:
            return False
        # few stored there: reading them is cheaper than `shared` and finds the same (the
        # rows of this source's own runs are left out either way)
        return there <= MATCH_PROBE or self.shared(chat_id)

    def alias(self, alias: str, target: str) -> None:
        self.conn.execute(m.MessageAlias.__table__.insert().values(alias=alias, message_id=target))

    def source_digest(self, record_id: str) -> str | None:
        """The digest this source's version of a stored record had, when it was merged before."""
        st = m.RecordSource.__table__
        row = self.conn.execute(select(st.c.digest).where(and_(
            st.c.record_id == record_id, st.c.origin == self.origin))).first()
        return row.digest if row is not None else None

    def remember_source(self, record_id: str, source_id: str, digest: str, raw: str) -> None:
        """Record (or refresh) this source's version of a stored record."""
        st = m.RecordSource.__table__
        where = and_(st.c.record_id == record_id, st.c.origin == self.origin)
        if self.conn.execute(select(st.c.record_id).where(where)).first() is None:
            self.conn.execute(st.insert().values(record_id=record_id, origin=self.origin,
                                                 source_id=source_id, digest=digest, raw=raw,
                                                 run_id=self.run_id))
        else:
            self.conn.execute(st.update().where(where).values(
                source_id=source_id, digest=digest, raw=raw, run_id=self.run_id))

    # ------------------------------------------------------------------ calls

    def match_call(self, call: rec.Call) -> str | None:
        """A new call -> the stored call another source gave the same chat, or None. The calls
        of that second are read along the chat's call index (not `shared` first: its walk over
        every message of a chat that holds no other source's read a 560,000-message thread for
        each new call in it, ~0.3 s; a chat without another source's rows gives none here)."""
        if self.fresh:
            return None
        ct = m.Call.__table__
        start = to_second(_naive(call.started_at))
        rows = [r for r in self.conn.execute(
            select(ct.c.id, ct.c.run_id, ct.c.media).where(and_(
                ct.c.chat_id == call.chat_id, ct.c.started_at >= start,
                ct.c.started_at < start + timedelta(seconds=1))))
            if self.other_origin(r.run_id) and r.media == call.media
            and self.source_digest(r.id) is None]
        return rows[0].id if len(rows) == 1 else None


def _naive(dt: datetime) -> datetime:
    return rec.utc(dt).replace(tzinfo=None)


def _same_sender(msg: rec.Message, row: Any,
                 person_of: Callable[[str, str | None], str | None]) -> bool:
    if (msg.sender or "").casefold() == (row.sender or "").casefold():
        return True
    if rec.OWNER in (msg.sender, row.sender):
        return False
    person = person_of(msg.sender, msg.sender_handle)
    return person is not None and person == row.person_id


def merge_attachments(old: list[dict], new: list[rec.Attachment]) -> list[rec.Attachment]:
    """The richer of two readers' attachment lists: field by field, nothing known is lost.

    >>> merge_attachments([{"name": "a.jpg", "size": 5}], [rec.Attachment(None, "image/jpeg", None, "x/1")])
    [Attachment(name='a.jpg', mime_type='image/jpeg', size=5, path='x/1', guid=None, present=None, key=None, text=None)]
    """
    out: list[rec.Attachment] = []
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else {}
        b = asdict(new[i]) if i < len(new) else {}
        merged = {f.name: a.get(f.name) if a.get(f.name) is not None else b.get(f.name)
                  for f in fields(rec.Attachment)}
        if _file_rank(b) > _file_rank(a):  # the incoming file is the better one: its facts with it
            merged.update(path=b.get("path"), key=b.get("key"), present=b.get("present"))
        else:
            merged.update(path=a.get("path"), key=a.get("key"), present=a.get("present"))
        if merged["path"] is None:
            merged["path"] = a.get("path") or b.get("path")
        out.append(rec.Attachment(**merged))
    return out


def _file_rank(att: dict) -> tuple:
    """Which of two records of one attachment points at the better file, whatever came first:
    a file on this machine beats one that is not (an encrypted one with its key is as good as a
    plain one: both can be read), and between equals the smaller path wins, so import order
    never decides."""
    path = att.get("path")
    if not path:
        return (0, 0, "")
    on_disk = os.path.isfile(path) or (path.startswith("zip:") and att.get("present") is not False)
    return (1, int(on_disk), _Reversed(path))


class _Reversed(str):
    """A string that sorts backwards (the smaller path ranks higher)."""

    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)

    def __gt__(self, other: str) -> bool:
        return str.__lt__(self, other)
