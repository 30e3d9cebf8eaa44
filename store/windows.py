"""Reading a conversation by windows: costs that do not grow with the chat.

A chat's message count is kept on its row (`chats.message_count`, maintained by the ingest
and by agent turns), so no read counts a chat's messages. Windows are read newest first along
the index on (chat_id, sent_at, ordinal) with a LIMIT, so a window of 10 costs the same in a
chat of 100 messages or of a million. Counting a chat's calls stays a live count: calls are
few, and they have an index of their own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, tuple_
from sqlalchemy.engine import Connection, Row

from . import models as m

_MESSAGES = m.Message.__table__
_CALLS = m.Call.__table__


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

    An offset is walked along the index alone: the (time, ordinal) key at that position, how
    many messages are newer than it, then `limit` whole rows from that key on. (An OFFSET on
    the rows themselves read every skipped row whole: 3.5 s for an offset of 50,000.)"""
    mt = _MESSAGES
    order = (mt.c.sent_at.desc(), mt.c.ordinal.desc(), mt.c.id.desc())
    q = select(*(columns or [mt])).where(mt.c.chat_id == chat_id).order_by(*order)
    if not offset:
        return list(conn.execute(q.limit(limit)).all())
    mine = mt.c.chat_id == chat_id
    key = conn.execute(select(mt.c.sent_at, mt.c.ordinal).where(mine)
                       .order_by(mt.c.sent_at.desc(), mt.c.ordinal.desc())
                       .limit(1).offset(offset)).first()
    if key is None:
        return []
    at = tuple_(mt.c.sent_at, mt.c.ordinal)
    newer = _count(conn, mine & (at > tuple_(key.sent_at, key.ordinal)))
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
