"""The store's read API: every question the tools ask of the database, in one place.

`with store.reader() as r:` gives a `Reader` over one read connection. Its methods return rows
(attribute access: `row.id`, `row.sent_at`...) or plain values; the tools never write SQL.
Lookups that take a `seat` return None for an id outside the seat's scope, exactly as for an
unknown id, so no tool can tell the two apart.

A chat's order is `(sent_at, ordinal, id)`; calls sort before messages of the same instant.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, and_, cast, func, or_, select, tuple_
from sqlalchemy.engine import Connection

from chatmem.config import Seat

from . import models as m
from . import windows
from .scope import chat_filter, expired_sessions

if TYPE_CHECKING:
    from .store import Store

Row = Any  # a result row: attribute access by column name
PAGE = 200  # rows fetched per query when walking a chat newest first
MESSAGE_BRIEF = ("id", "sent_at", "ordinal", "sender", "person_id", "text", "kind", "deleted", "reply_to")
IN_BATCH = 500  # ids per IN (...) list

_mt, _ct, _ch = m.Message.__table__, m.Call.__table__, m.Chat.__table__


def _before(sent_at: datetime, ordinal: int, msg_id: str) -> Any:
    """Messages strictly before (sent_at, ordinal, id) in chat order."""
    # the plain range on sent_at lets the index bound the scan; the OR breaks ties
    return and_(_mt.c.sent_at <= sent_at,
                or_(_mt.c.sent_at < sent_at,
                    and_(_mt.c.sent_at == sent_at, or_(_mt.c.ordinal < ordinal,
                                                        and_(_mt.c.ordinal == ordinal, _mt.c.id < msg_id)))))


def _after(sent_at: datetime, ordinal: int, msg_id: str) -> Any:
    return and_(_mt.c.sent_at >= sent_at,
                or_(_mt.c.sent_at > sent_at,
                    and_(_mt.c.sent_at == sent_at, or_(_mt.c.ordinal > ordinal,
                                                        and_(_mt.c.ordinal == ordinal, _mt.c.id > msg_id)))))


class Reader:
    """Reads over one connection; obtained from `Store.reader()`."""

    def __init__(self, store: Store, conn: Connection):
        self.store = store
        self.conn = conn

    # ------------------------------------------------------------------ people's names
    def names(self) -> Mapping[str, str]:
        """person id -> the name to show, looked up as asked."""
        return self.store.display_names(self.conn)

    # ------------------------------------------------------------------ one record, in scope
    def chat(self, seat: Seat, chat_id: str, *, include_expired: bool = False) -> Row | None:
        """The chat row, or None when it does not exist or the seat may not read it (an expired
        agent session counts as gone unless `include_expired`). An id another export gave the
        same conversation (a chat alias, store/reconcile.py) leads to it too."""
        at = m.ChatAlias.__table__
        alias = self.conn.execute(select(at.c.chat_id).where(at.c.alias == chat_id)).scalar()
        return self.conn.execute(select(_ch).where(
            (_ch.c.id == (alias or chat_id)) & chat_filter(seat, include_expired=include_expired))).first()

    def readable_chat_ids(self, seat: Seat) -> set[str] | None:
        """None when the seat sees every chat, else the ids of the chats it may read."""
        if seat.unrestricted and self.expired_session_ids(seat) == []:
            return None
        return set(self.conn.execute(select(_ch.c.id).where(chat_filter(seat))).scalars())

    def expired_session_ids(self, seat: Seat) -> list[str]:
        """Agent sessions past the retention period (gone from every tool)."""
        return list(self.conn.execute(select(_ch.c.id).where(expired_sessions(seat))).scalars())

    def unknown_ids(self, seat: Seat, ids: list[str]) -> list[str]:
        """Those of `ids` that name no record this seat may read: message (or alias), logged
        turn, call, attachment, chat or memory."""
        at, memt, alias = m.Attachment.__table__, m.Memory.__table__, m.MessageAlias.__table__
        c = self.conn
        aliases = dict(c.execute(select(alias.c.alias, alias.c.message_id).where(alias.c.alias.in_(ids))).all())
        real = {aliases.get(i, i) for i in ids}
        visible = select(_ch.c.id).where(chat_filter(seat))
        found = set(c.execute(select(_mt.c.id).where(_mt.c.id.in_(real), _mt.c.chat_id.in_(visible))).scalars())
        found |= set(c.execute(select(_ct.c.id).where(_ct.c.id.in_(real), _ct.c.chat_id.in_(visible))).scalars())
        found |= set(c.execute(select(_ch.c.id).where(_ch.c.id.in_(real), chat_filter(seat))).scalars())
        found |= set(c.execute(select(at.c.id).where(
            at.c.id.in_(real), at.c.message_id.in_(select(_mt.c.id).where(_mt.c.chat_id.in_(visible))))).scalars())
        if seat.memory:
            found |= set(c.execute(select(memt.c.id).where(memt.c.id.in_(real),
                                                           memt.c.chat_id.in_(visible))).scalars())
        return [i for i in ids if aliases.get(i, i) not in found]

    def chat_key(self, chat_id: str) -> str | None:
        """A chat's natural key in its platform (what importers call the chat)."""
        return self.conn.execute(select(_ch.c.key).where(_ch.c.id == chat_id)).scalar()

    def resolve_message_id(self, record_id: str) -> str:
        """A message (or call) id, following an alias (an id another export gave the same record)."""
        t = m.MessageAlias.__table__
        row = self.conn.execute(select(t.c.message_id).where(t.c.alias == record_id)).first()
        return row.message_id if row is not None else record_id

    def message(self, seat: Seat, record_id: str) -> tuple[Row, Row] | None:
        """(message row, chat row), or None when unknown or out of the seat's scope."""
        row = self.conn.execute(select(_mt).where(_mt.c.id == self.resolve_message_id(record_id))).first()
        if row is None:
            return None
        chat = self.chat(seat, row.chat_id)
        return (row, chat) if chat is not None else None

    def call(self, seat: Seat, record_id: str) -> tuple[Row, Row] | None:
        """(call row, chat row), or None when unknown or out of the seat's scope."""
        row = self.conn.execute(select(_ct).where(_ct.c.id == self.resolve_message_id(record_id))).first()
        if row is None:
            return None
        chat = self.chat(seat, row.chat_id)
        return (row, chat) if chat is not None else None

    def other_sources(self, record_id: str) -> Sequence[Row]:
        """(origin, raw) of each further export a merged message or call was also read from."""
        t = m.RecordSource.__table__
        return list(self.conn.execute(select(t.c.origin, t.c.raw).where(t.c.record_id == record_id)
                                      .order_by(t.c.origin)))

    def attachment(self, attachment_id: str) -> Row | None:
        """An attachment row (check its message's scope with `message`)."""
        t = m.Attachment.__table__
        return self.conn.execute(select(t).where(t.c.id == attachment_id)).first()

    def memory(self, memory_id: str) -> Row | None:
        t = m.Memory.__table__
        return self.conn.execute(select(t).where(t.c.id == memory_id)).first()

    # ------------------------------------------------------------------ around a message
    def neighbours(self, chat_id: str, sent_at: datetime, ordinal: int, msg_id: str,
                   before: int, after: int) -> tuple[Sequence[Row], Sequence[Row]]:
        """Up to `before` messages before the position (newest first) and `after` after it
        (oldest first), by position in the chat, not by a time window."""
        older = self.conn.execute(
            select(_mt).where(_mt.c.chat_id == chat_id, _before(sent_at, ordinal, msg_id))
            .order_by(_mt.c.sent_at.desc(), _mt.c.ordinal.desc(), _mt.c.id.desc()).limit(before)
        ).all() if before else []
        newer = self.conn.execute(
            select(_mt).where(_mt.c.chat_id == chat_id, _after(sent_at, ordinal, msg_id))
            .order_by(_mt.c.sent_at, _mt.c.ordinal, _mt.c.id).limit(after)
        ).all() if after else []
        return older, newer

    def message_details(self, message_id: str) -> tuple[Sequence[Row], Sequence[Row], Sequence[Row], list[str]]:
        """A message's earlier versions, live reactions, attachments and (up to 100) replies."""
        vt, rt, at = m.MessageVersion.__table__, m.Reaction.__table__, m.Attachment.__table__
        c = self.conn
        versions = c.execute(select(vt).where(vt.c.message_id == message_id).order_by(vt.c.position)).all()
        reactions = c.execute(select(rt).where(rt.c.message_id == message_id, rt.c.removed.is_(False))
                              .order_by(rt.c.id)).all()
        attachments = c.execute(select(at).where(at.c.message_id == message_id).order_by(at.c.position)).all()
        replies = list(c.execute(select(_mt.c.id).where(_mt.c.reply_to == message_id)
                                 .order_by(_mt.c.sent_at, _mt.c.ordinal).limit(100)).scalars())
        return versions, reactions, attachments, replies

    def message_extras(self, rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
        """What an item needs beyond its row, for many messages at once: id -> {"attachments":
        [(name, mime type, attachment id, present or copied)], "reply_to": the replied-to row (id, sender, person_id, text,
        deleted), "earlier": the text a deleted message had where an import kept it}."""
        at, vt = m.Attachment.__table__, m.MessageVersion.__table__
        out: dict[str, dict[str, Any]] = {r.id: {} for r in rows}
        ids = list(out)
        targets = {r.reply_to for r in rows if getattr(r, "reply_to", None)}
        deleted = [r.id for r in rows if getattr(r, "deleted", False)]
        for i in range(0, len(ids), IN_BATCH):
            for row in self.conn.execute(select(at.c.message_id, at.c.name, at.c.mime_type, at.c.id,
                                                at.c.present, at.c.copied)
                                         .where(at.c.message_id.in_(ids[i:i + IN_BATCH]))
                                         .order_by(at.c.message_id, at.c.position)):
                out[row.message_id].setdefault("attachments", []).append(
                    (row.name, row.mime_type, row.id, bool(row.present or row.copied)))
        quoted = {}
        if targets:
            quoted = {row.id: row for row in self.conn.execute(
                select(_mt.c.id, _mt.c.sender, _mt.c.person_id, _mt.c.text, _mt.c.deleted)
                .where(_mt.c.id.in_(list(targets)[:IN_BATCH])))}
        for r in rows:
            if getattr(r, "reply_to", None):
                out[r.id]["reply_to"] = quoted.get(r.reply_to) or r.reply_to
        if deleted:
            for version in self.conn.execute(select(vt.c.message_id, vt.c.text)
                                             .where(vt.c.message_id.in_(deleted[:IN_BATCH]))
                                             .order_by(vt.c.message_id, vt.c.position)):
                if version.text:
                    out[version.message_id]["earlier"] = version.text  # the newest kept text wins
        return out

    def message_versions(self, message_id: str) -> Sequence[Row]:
        vt = m.MessageVersion.__table__
        return self.conn.execute(select(vt).where(vt.c.message_id == message_id).order_by(vt.c.position)).all()

    # ------------------------------------------------------------------ a chat's window
    def message_pages(self, chat_id: str, since: datetime | None = None,
                      before: tuple[datetime, int, str] | None = None, first: int = PAGE) -> Iterator[list[Row]]:
        """The chat's messages (MESSAGE_BRIEF columns), newest first, a page at a time: `first`
        rows, then PAGE at a time; only those older than the position `before` (sent_at,
        ordinal, id) when given."""
        cond = _mt.c.chat_id == chat_id
        if since is not None:
            cond = cond & (_mt.c.sent_at >= since)
        columns = [_mt.c[name] for name in MESSAGE_BRIEF]
        last: Any = None
        if before is not None:
            cond = cond & _before(*before)
        size = max(1, first)
        while True:
            q = select(*columns).where(cond)
            if last is not None:
                q = q.where(_before(last.sent_at, last.ordinal, last.id))
            rows = list(self.conn.execute(q.order_by(_mt.c.sent_at.desc(), _mt.c.ordinal.desc(), _mt.c.id.desc())
                                          .limit(size)).all())
            if rows:
                yield rows
            if len(rows) < size:
                return
            last, size = rows[-1], PAGE

    def latest_messages(self, chat_id: str, limit: int, offset: int = 0) -> Sequence[Row]:
        """The chat's `limit` newest messages (whole rows), newest first, skipping `offset`."""
        return windows.newest_messages(self.conn, chat_id, limit, offset)

    def latest_calls(self, chat_id: str, limit: int, offset: int = 0) -> Sequence[Row]:
        return windows.newest_calls(self.conn, chat_id, limit, offset)

    def calls_newest_first(self, chat_id: str, since: datetime | None = None,
                           before: tuple[datetime, int, str] | None = None) -> Iterator[Row]:
        """The chat's calls (at or after `since`, older than the position `before` in chat
        order), newest first, read PAGE at a time: a window of a chat with thousands of calls
        reads the few it shows."""
        cond = _call_cond(chat_id, since, before)
        last: Any = None
        while True:
            q = select(_ct).where(cond)
            if last is not None:
                q = q.where(tuple_(_ct.c.started_at, _ct.c.id) < tuple_(last.started_at, last.id))
            rows = list(self.conn.execute(q.order_by(_ct.c.started_at.desc(), _ct.c.id.desc()).limit(PAGE)))
            yield from rows
            if len(rows) < PAGE:
                return
            last = rows[-1]

    def chat_messages_by_id(self, chat_id: str, ids: list[str]) -> dict[str, Row]:
        """Those of `ids` that are messages of this chat (brief rows), by id."""
        if not ids:
            return {}
        columns = [_mt.c[name] for name in MESSAGE_BRIEF]
        return {r.id: r for r in self.conn.execute(
            select(*columns).where(_mt.c.id.in_(ids), _mt.c.chat_id == chat_id))}

    def count_messages(self, chat: Row, since: datetime | None = None) -> int:
        """How many messages the chat row has (at or after `since`), from the count it keeps."""
        return windows.message_count(self.conn, chat, since)

    def count_messages_before(self, chat_id: str, before: tuple[datetime, int, str],
                              since: datetime | None = None) -> int:
        """Messages of the chat older than the position `before` (and at or after `since`)."""
        return windows.messages_before(self.conn, chat_id, before, since)

    def count_calls(self, chat_id: str, since: datetime | None = None,
                    before: tuple[datetime, int, str] | None = None) -> int:
        """Calls of the chat (at or after `since`, older than the position `before`)."""
        if before is None:
            return windows.call_count(self.conn, chat_id, since)
        count = select(func.count()).select_from(_ct)
        when, ordinal, ident = before
        if ordinal < 0 and ident:  # before a call: the older times, then its minute's smaller ids,
            # each a range along the index (one OR over both read every call of the chat: 3.3 ms
            # for 10,000 calls, the two ranges 0.5 ms)
            older = _call_cond(chat_id, since, (when, -1, ""))
            tied = (_ct.c.chat_id == chat_id) & (_ct.c.started_at == when) & (_ct.c.id < ident)
            if since is not None:
                tied = tied & (_ct.c.started_at >= since)
            return sum(int(self.conn.execute(count.where(c)).scalar_one()) for c in (older, tied))
        return int(self.conn.execute(count.where(_call_cond(chat_id, since, before))).scalar_one())

    def calls_among_newest(self, chat_id: str, offset: int) -> int:
        """How many calls are among the chat's `offset` newest turns (messages and calls)."""
        return windows.calls_among_newest(self.conn, chat_id, offset)

    def count_newer(self, chat: Row, when: datetime | None) -> int:
        """Messages and calls in the chat (its row) after `when` (all of them when `when` is
        None). The messages from the chat's kept counts (store/windows.py), not along the chat."""
        c_cond = _ct.c.chat_id == chat.id
        if when is not None:
            c_cond = c_cond & (_ct.c.started_at > when)
        calls = self.conn.execute(select(func.count()).select_from(_ct).where(c_cond)).scalar_one()
        messages = windows.message_count(self.conn, chat, when)  # at or after `when`
        if when is not None and messages:
            messages -= self.conn.execute(select(func.count()).select_from(_mt).where(
                (_mt.c.chat_id == chat.id) & (_mt.c.sent_at == when))).scalar_one()
        return messages + calls

    def item_times(self, chat_id: str, ids: list[str]) -> dict[str, datetime]:
        """id -> time for those of `ids` (aliases followed) that are messages or calls of the
        chat; keyed by the id as given."""
        at = m.MessageAlias.__table__
        aliases = dict(self.conn.execute(select(at.c.alias, at.c.message_id).where(at.c.alias.in_(ids))).all())
        wanted = {aliases.get(i, i) for i in ids}
        times = dict(self.conn.execute(select(_mt.c.id, _mt.c.sent_at)
                                       .where(_mt.c.id.in_(wanted), _mt.c.chat_id == chat_id)).all())
        times.update(self.conn.execute(select(_ct.c.id, _ct.c.started_at)
                                       .where(_ct.c.id.in_(wanted), _ct.c.chat_id == chat_id)).all())
        return {i: times[aliases.get(i, i)] for i in ids if aliases.get(i, i) in times}

    # ------------------------------------------------------------------ memories
    def latest_memory(self, chat_id: str) -> Row | None:
        t = m.Memory.__table__
        return self.conn.execute(select(t).where(t.c.chat_id == chat_id)
                                 .order_by(t.c.version.desc()).limit(1)).first()

    def earlier_memories(self, chat_id: str, version: int) -> list[str]:
        """Ids of the chat's memory versions before `version`, oldest first."""
        t = m.Memory.__table__
        return list(self.conn.execute(select(t.c.id).where(t.c.chat_id == chat_id, t.c.version < version)
                                      .order_by(t.c.version)).scalars())

    # ------------------------------------------------------------------ lists
    def chats(self, seat: Seat, platform: str | None = None, query: str | None = None,
              limit: int = 50) -> Sequence[Row]:
        """Chats the seat may read, newest activity first (up to `limit`). `query` matches the
        chat's name, its participants, and the people in it (by name or handle)."""
        stmt = select(_ch).where(chat_filter(seat))
        if platform:
            stmt = stmt.where(_ch.c.platform == platform)
        if query:
            like = f"%{query.lower()}%"
            people = self._people_matching(query)
            stmt = stmt.where(or_(
                func.lower(_ch.c.name).like(like),
                # participants are a JSON list; its text form is enough for a name match
                func.lower(cast(_ch.c.participants, String)).like(like),
                # a person's chats on every platform: their one-to-one chats and the groups
                # they wrote in, whatever name each platform shows for them
                _ch.c.person_id.in_(people),
                _ch.c.id.in_(select(_mt.c.chat_id).where(_mt.c.person_id.in_(people)).distinct()),
            ))
        stmt = stmt.order_by(_ch.c.last_at.desc().nulls_last(), _ch.c.name).limit(limit)
        return self.conn.execute(stmt).all()

    def _people_matching(self, query: str) -> list[str]:
        """Ids of people (not the owner) whose name contains `query`, or who have it as a handle."""
        from .people import find_person

        pt = m.Person.__table__
        ids = list(self.conn.execute(select(pt.c.id).where(func.lower(pt.c.name).like(f"%{query.lower()}%")))
                   .scalars())
        ids += find_person(self.conn, query, self.store.config.region) if query.strip() else []
        return [i for i in dict.fromkeys(ids) if i != "me"]

    def find_person(self, text: str) -> list[str]:
        """Ids of the people a name, phone number, e-mail or person id means."""
        from .people import find_person

        return find_person(self.conn, text, self.store.config.region)

    def resolve_people(self, text: str) -> list[tuple[str, str]]:
        """(person id, name) of the people a name as people say it means (see people.resolve_people)."""
        from .people import resolve_people

        return resolve_people(self.conn, text, self.store.config.region)

    def closest_people(self, text: str) -> list[str]:
        from .people import closest_people

        return closest_people(self.conn, text)

    def people(self, query: str | None = None, limit: int = 200, seat: Seat | None = None) -> list[dict[str, Any]]:
        """People with their handles, platforms and message counts (the owner first). For a
        seat that does not see everything: only the people of its chats, counted there."""
        from .people import list_people

        visible = None
        if seat is not None and not seat.unrestricted:
            visible = select(_ch.c.id).where(chat_filter(seat))
        return list_people(self.conn, query, limit, visible_chats=visible)

    def handle_names(self, handles: list[str]) -> dict[str, str]:
        """handle as a chat lists it ("+1 555 0100 001", "Anna") -> the name of the person
        behind it, for the handles that belong to a named person (the owner is `me`)."""
        from .people import normalize_handle

        region = self.store.config.region
        keys = {h: normalize_handle(h, region) for h in set(handles) if isinstance(h, str)}
        values = {k[1] for k in keys.values() if k}
        if not values:
            return {}
        ht, pt = m.Handle.__table__, m.Person.__table__
        owners = {(r.kind, r.value): r.name for r in self.conn.execute(
            select(ht.c.kind, ht.c.value, pt.c.name).join(pt, pt.c.id == ht.c.person_id)
            .where(ht.c.value.in_(values)))}
        return {h: owners[k] for h, k in keys.items() if k in owners}

    def platforms(self) -> list[str]:
        """The platforms of the chats in the store."""
        return sorted(self.conn.execute(select(_ch.c.platform).distinct()).scalars())

    def sources(self) -> Sequence[Row]:
        """Every source imported so far (path, platform, options), oldest first."""
        st = m.Source.__table__
        return self.conn.execute(select(st).order_by(st.c.id)).all()

    def platform_counts(self, seat: Seat) -> dict[str, dict[str, int]]:
        """platform -> {chats, messages, calls} the seat may read."""
        visible = select(_ch.c.id).where(chat_filter(seat))
        out: dict[str, dict[str, int]] = {}
        for platform, chats, messages in self.conn.execute(
                select(_ch.c.platform, func.count(), func.coalesce(func.sum(_ch.c.message_count), 0))
                .where(chat_filter(seat)).group_by(_ch.c.platform)):
            out[platform] = {"chats": chats, "messages": int(messages), "calls": 0}
        for platform, calls in self.conn.execute(select(_ct.c.platform, func.count())
                                                 .where(_ct.c.chat_id.in_(visible)).group_by(_ct.c.platform)):
            out.setdefault(platform, {"chats": 0, "messages": 0, "calls": 0})["calls"] = calls
        return out

    def time_span(self, seat: Seat) -> tuple[datetime | None, datetime | None]:
        """The first and last message time the seat may read."""
        visible = select(_ch.c.id).where(chat_filter(seat))
        first, last = self.conn.execute(select(func.min(_mt.c.sent_at), func.max(_mt.c.sent_at))
                                        .where(_mt.c.chat_id.in_(visible))).one()
        return first, last

    def unparsed_count(self) -> int:
        return self.conn.execute(select(func.count()).select_from(m.Unparsed.__table__)).scalar_one()

    def recent_imports(self, limit: int = 5) -> Sequence[Row]:
        rt = m.ImportRun.__table__
        return self.conn.execute(select(rt.c.id, rt.c.path, rt.c.platform, rt.c.finished_at, rt.c.status)
                                 .order_by(rt.c.id.desc()).limit(limit)).all()

    def data_version(self) -> tuple[int, int]:
        """Changes whenever messages are added, changed, renamed or forgotten (the ingest
        sequence and the message count): what a long-running face keys a cache of aggregates on."""
        from .db import current_seq

        return current_seq(self.conn), int(self.conn.execute(
            select(func.count()).select_from(_mt)).scalar_one())


def _call_cond(chat_id: str, since: datetime | None, before: tuple[datetime, int, str] | None) -> Any:
    """A chat's calls at or after `since` and older than the position `before`: (time, ordinal,
    id) of a message (its minute's calls are older: a message comes first at the same time),
    (time, -1, id) of a call (its minute's calls of smaller id are older), (time, -1, "") of a
    time."""
    cond = _ct.c.chat_id == chat_id
    if since is not None:
        cond = cond & (_ct.c.started_at >= since)
    if before is not None:
        when, ordinal, ident = before
        if ordinal >= 0:
            cond = cond & (_ct.c.started_at <= when)
        elif ident:  # a row value: the index is read from that position down, not from the newest call
            cond = cond & (tuple_(_ct.c.started_at, _ct.c.id) < tuple_(when, ident))
        else:
            cond = cond & (_ct.c.started_at < when)
    return cond
