"""Reading a conversation by windows: costs that do not grow with the chat.

A chat's message count is kept on its row (`chats.message_count`, maintained by the ingest
and by agent turns), so no read counts a chat's messages. Windows are read newest first along
the index on (chat_id, sent_at, ordinal) with a LIMIT, so a window of 10 costs the same in a
chat of 100 messages or of a million. Counting a chat's calls stays a live count: calls are
few, and they have an index of their own.

A position deep in a chat (a window `before` a message, a history `offset`, the messages
`since` a time) is counted from `message_months`: how many messages each chat has per month,
kept by triggers on `messages` so that every write path (imports, re-imports that move or
delete messages, agent turns, forget) keeps it true without knowing of it. Such a count is
the sum of the whole months on one side (about a hundred rows for ten years) plus a count
along the index inside one month. SQLite only: on PostgreSQL the counts go along the index.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import and_, func, or_, select, text, tuple_
from sqlalchemy.engine import Connection, Engine, Row

from . import models as m

_MESSAGES = m.Message.__table__
_CALLS = m.Call.__table__
_MONTHS = m.MessageMonth.__table__

# SQLite stores a DateTime as "YYYY-MM-DD HH:MM:SS.ffffff": its first seven characters are the month
_MONTH_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS message_months_insert AFTER INSERT ON messages BEGIN
         INSERT INTO message_months (chat_id, month, n) VALUES (new.chat_id, substr(new.sent_at, 1, 7), 1)
         ON CONFLICT (chat_id, month) DO UPDATE SET n = n + 1;
       END""",
    """CREATE TRIGGER IF NOT EXISTS message_months_delete AFTER DELETE ON messages BEGIN
         UPDATE message_months SET n = n - 1 WHERE chat_id = old.chat_id AND month = substr(old.sent_at, 1, 7);
       END""",
    """CREATE TRIGGER IF NOT EXISTS message_months_update AFTER UPDATE OF chat_id, sent_at ON messages
       WHEN old.chat_id IS NOT new.chat_id OR substr(old.sent_at, 1, 7) IS NOT substr(new.sent_at, 1, 7) BEGIN
         UPDATE message_months SET n = n - 1 WHERE chat_id = old.chat_id AND month = substr(old.sent_at, 1, 7);
         INSERT INTO message_months (chat_id, month, n) VALUES (new.chat_id, substr(new.sent_at, 1, 7), 1)
         ON CONFLICT (chat_id, month) DO UPDATE SET n = n + 1;
       END""",
)


_KEPT: WeakKeyDictionary[Engine, bool] = WeakKeyDictionary()


def months_kept(conn: Connection) -> bool:
    """Whether this database keeps `message_months` (its triggers exist): a SQLite store opened
    for writing by this version or later. Asked once per engine."""
    kept = _KEPT.get(conn.engine)
    if kept is None:
        kept = _KEPT[conn.engine] = conn.dialect.name == "sqlite" and conn.execute(text(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'message_months_%'"
        )).scalar_one() == len(_MONTH_TRIGGERS)
    return kept


def keep_month_counts(conn: Connection) -> None:
    """Create the triggers that keep `message_months` (SQLite) where they are missing, and
    count the messages the store already holds (once, ~1 s per million)."""
    if conn.dialect.name != "sqlite":
        return
    have = conn.execute(text("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' "
                             "AND name LIKE 'message_months_%'")).scalar_one()
    if have == len(_MONTH_TRIGGERS):
        return
    for ddl in _MONTH_TRIGGERS:
        conn.execute(text(ddl))
    conn.execute(text("DELETE FROM message_months"))
    conn.execute(text("INSERT INTO message_months (chat_id, month, n) SELECT chat_id, substr(sent_at, 1, 7), "
                      "count(*) FROM messages GROUP BY chat_id, substr(sent_at, 1, 7)"))
    _KEPT[conn.engine] = True


def _month(t: datetime) -> str:
    return f"{t.year:04d}-{t.month:02d}"


def _month_span(month: str) -> tuple[datetime, datetime]:
    year, mon = int(month[:4]), int(month[5:7])
    return datetime(year, mon, 1), datetime(year + mon // 12, mon % 12 + 1, 1)


def messages_older(conn: Connection, chat_id: str, when: datetime) -> int:
    """How many messages of the chat were sent before `when`: the kept counts of the months
    before, then along the index from the start of `when`'s month."""
    mine = _MESSAGES.c.chat_id == chat_id
    if not months_kept(conn):
        return _count(conn, mine & (_MESSAGES.c.sent_at < when))
    whole = conn.execute(select(func.coalesce(func.sum(_MONTHS.c.n), 0))
                         .where(_MONTHS.c.chat_id == chat_id, _MONTHS.c.month < _month(when))).scalar_one()
    start = _month_span(_month(when))[0]
    return int(whole) + _count(conn, mine & (_MESSAGES.c.sent_at >= start) & (_MESSAGES.c.sent_at < when))


def messages_before(conn: Connection, chat_id: str, position: tuple[datetime, int, str],
                    since: datetime | None = None) -> int:
    """How many messages of the chat come before `position` (sent_at, ordinal, id) in chat
    order, and at or after `since` when given."""
    when, ordinal, msg_id = position
    if since is not None and since > when:
        return 0
    mt = _MESSAGES.c
    tied = _count(conn, (mt.chat_id == chat_id) & (mt.sent_at == when)
                  & or_(mt.ordinal < ordinal, and_(mt.ordinal == ordinal, mt.id < msg_id)))
    older = messages_older(conn, chat_id, when) + tied
    return older - messages_older(conn, chat_id, since) if since is not None else older


def message_count(conn: Connection, chat: Row, since: datetime | None = None) -> int:
    """How many messages `chat` has (at or after `since` when given), without counting them all.

    With `since`, the smaller side of the split is counted along the index: the messages at or
    after `since`, or those before it subtracted from the kept total; which side is smaller is
    guessed from where `since` falls between the chat's first and last message.
    """
    total = int(chat.message_count or 0)
    if since is None:
        return total
    first, last = chat.first_at, chat.last_at
    if first is None or last is None or since <= first:
        return total
    if since > last:
        return 0
    if months_kept(conn):
        return total - messages_older(conn, chat.id, since)
    cond = _MESSAGES.c.chat_id == chat.id
    span = (last - first).total_seconds() or 1.0
    if (since - first).total_seconds() / span > 0.5:  # most messages are older: count the newer
        return _count(conn, cond & (_MESSAGES.c.sent_at >= since))
    return total - _count(conn, cond & (_MESSAGES.c.sent_at < since))


def call_count(conn: Connection, chat_id: str, since: datetime | None = None) -> int:
    cond = _CALLS.c.chat_id == chat_id
    if since is not None:
        cond = cond & (_CALLS.c.started_at >= since)
    return _count(conn, cond, _CALLS)


def _count(conn: Connection, cond: Any, table: Any = _MESSAGES) -> int:
    return int(conn.execute(select(func.count()).select_from(table).where(cond)).scalar_one())


def newest_messages(conn: Connection, chat_id: str, limit: int, offset: int = 0,
                    columns: list[Any] | None = None) -> list[Row]:
    """The chat's newest messages, newest first, skipping the `offset` newest.

    An offset is walked along the index alone: the month it falls in (from the kept counts),
    the (time, ordinal) key at that position inside the month, how many messages are newer
    than it, then `limit` whole rows from that key on. (An OFFSET on the rows themselves read
    every skipped row whole: 3.5 s for an offset of 50,000.)"""
    mt = _MESSAGES
    order = (mt.c.sent_at.desc(), mt.c.ordinal.desc(), mt.c.id.desc())
    q = select(*(columns or [mt])).where(mt.c.chat_id == chat_id).order_by(*order)
    if not offset:
        return list(conn.execute(q.limit(limit)).all())
    mine = mt.c.chat_id == chat_id
    newer = 0  # messages in the months newer than the one the offset falls in
    if months_kept(conn):
        for month, n in conn.execute(select(_MONTHS.c.month, _MONTHS.c.n).where(_MONTHS.c.chat_id == chat_id)
                                     .order_by(_MONTHS.c.month.desc())):
            if newer + n > offset:
                start, end = _month_span(month)
                mine = mine & (mt.c.sent_at >= start) & (mt.c.sent_at < end)
                break
            newer += n
        else:
            return []
    key = conn.execute(select(mt.c.sent_at, mt.c.ordinal).where(mine)
                       .order_by(mt.c.sent_at.desc(), mt.c.ordinal.desc())
                       .limit(1).offset(offset - newer)).first()
    if key is None:
        return []
    at = tuple_(mt.c.sent_at, mt.c.ordinal)
    newer += _count(conn, mine & (at > tuple_(key.sent_at, key.ordinal)))
    skip = offset - newer  # messages with the same key that come first (by id): almost always 0
    rows = conn.execute(q.where(at <= tuple_(key.sent_at, key.ordinal)).limit(skip + limit)).all()
    return list(rows[skip:])


def newest_calls(conn: Connection, chat_id: str, limit: int, offset: int = 0) -> list[Row]:
    """The chat's newest calls, newest first, skipping the `offset` newest."""
    ct = _CALLS
    q = (select(ct).where(ct.c.chat_id == chat_id)
         .order_by(ct.c.started_at.desc(), ct.c.id.desc()).limit(limit))
    if offset:
        q = q.offset(offset)
    return list(conn.execute(q).all())
