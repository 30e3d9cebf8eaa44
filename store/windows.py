"""Reading a conversation by windows: costs that do not grow with the chat.

A chat's message count is kept on its row (`chats.message_count`, maintained by the ingest
and by agent turns), so no read counts a chat's messages. Windows are read newest first along
the index on (chat_id, sent_at, ordinal) with a LIMIT, so a window of 10 costs the same in a
chat of 100 messages or of a million. Counting a chat's calls stays a live count: calls are
few, and they have an index of their own.

A position deep in a chat (a window `before` a message, a history `offset`, the messages
`since` a time) is counted from `message_months`: how many messages each chat has per month.
Every path that adds, moves or removes messages keeps it: the ingest adds each batch's counts
with one upsert per chat-month (`MonthCounts`) and moves a message whose chat or month changed,
an agent turn adds one, forget counts the chats it took messages from again
(`recount_months`). Such a count is the sum of the whole months on one side (about a hundred
rows for ten years) plus a count along the index inside one month; the same on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select, text, true, tuple_
from sqlalchemy.engine import Connection, Row

from . import models as m

_MESSAGES = m.Message.__table__
_CALLS = m.Call.__table__
_MONTHS = m.MessageMonth.__table__

_UPSERT = text("INSERT INTO message_months (chat_id, month, n) VALUES (:chat_id, :month, :n) "
               "ON CONFLICT (chat_id, month) DO UPDATE SET n = message_months.n + excluded.n")
# the triggers that kept the counts before the ingest did (schema 2): dropped when a store is upgraded
OLD_TRIGGERS = ("message_months_insert", "message_months_delete", "message_months_update")


class MonthCounts:
    """Messages added (+1) and taken away (-1) per chat and month, written as one upsert per
    chat-month (`write`): the ingest writes a batch's counts with the batch."""

    def __init__(self) -> None:
        self.delta: Counter[tuple[str, str]] = Counter()

    def add(self, chat_id: str, when: datetime, n: int = 1) -> None:
        self.delta[(chat_id, _month(when))] += n

    def move(self, old: tuple[str, datetime], new: tuple[str, datetime]) -> None:
        """A stored message changed chat or time: counted where it is now, not where it was."""
        if old[0] != new[0] or _month(old[1]) != _month(new[1]):
            self.add(*old, n=-1)
            self.add(*new)

    def write(self, conn: Connection) -> None:
        rows = [{"chat_id": c, "month": mo, "n": n} for (c, mo), n in self.delta.items() if n]
        self.delta.clear()
        if rows:
            conn.execute(_UPSERT, rows)


def recount_months(conn: Connection, chat_ids: Iterable[str] | None = None) -> None:
    """Count the messages per month again, of the chats named (of every chat without):
    after a delete (forget), and once when a store is upgraded to kept counts."""
    if chat_ids is not None:
        chat_ids = sorted(set(chat_ids))
        if not chat_ids:
            return
    chunks: list[list[str] | None] = ([chat_ids[i:i + 500] for i in range(0, len(chat_ids), 500)]
                                      if chat_ids is not None else [None])
    dialect = conn.dialect.name
    for chunk in chunks:
        mine = _MONTHS.c.chat_id.in_(chunk) if chunk is not None else true()
        conn.execute(_MONTHS.delete().where(mine))
        where = _MESSAGES.c.chat_id.in_(chunk) if chunk is not None else true()
        if dialect in ("sqlite", "postgresql"):
            month = _month_sql(_MESSAGES.c.sent_at, dialect)
            conn.execute(_MONTHS.insert().from_select(
                ["chat_id", "month", "n"],
                select(_MESSAGES.c.chat_id, month, func.count()).where(where)
                .group_by(_MESSAGES.c.chat_id, month)))
        else:  # another database: the months counted here
            counts = MonthCounts()
            for chat_id, when in conn.execute(select(_MESSAGES.c.chat_id, _MESSAGES.c.sent_at).where(where)):
                counts.add(chat_id, when)
            counts.write(conn)


def keep_month_counts(conn: Connection) -> None:
    """Upgrade a store whose month counts were kept by triggers (or not at all): drop the
    triggers (the ingest counts now) and count every chat's months once (~1 s per million)."""
    if conn.dialect.name == "sqlite":
        for name in OLD_TRIGGERS:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
    recount_months(conn)


def _month_sql(column: Any, dialect: str) -> Any:
    """The "YYYY-MM" of a DateTime column in SQL (SQLite keeps a DateTime as
    "YYYY-MM-DD HH:MM:SS.ffffff": its first seven characters)."""
    return func.substr(column, 1, 7) if dialect == "sqlite" else func.to_char(column, "YYYY-MM")


def _month(t: datetime) -> str:
    return f"{t.year:04d}-{t.month:02d}"


def _month_span(month: str) -> tuple[datetime, datetime]:
    year, mon = int(month[:4]), int(month[5:7])
    return datetime(year, mon, 1), datetime(year + mon // 12, mon % 12 + 1, 1)


def messages_older(conn: Connection, chat_id: str, when: datetime) -> int:
    """How many messages of the chat were sent before `when`: the kept counts of the months
    before, then along the index from the start of `when`'s month."""
    mine = _MESSAGES.c.chat_id == chat_id
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
    return total - messages_older(conn, chat.id, since)


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


def calls_among_newest(conn: Connection, chat_id: str, offset: int) -> int:
    """How many calls are among the chat's `offset` newest turns (messages and calls merged
    newest first; at the same time a message comes first, i.e. is newer).

    From the kept month counts and the calls per month, the month the `offset`-th turn falls
    in; inside it, call j (newest first) is turn j + the month's messages sent at or after it,
    and the first call at or past the offset is found by halving, each count along the index
    between two calls already placed (all of them together read the month's index about
    twice). The calls counted are only those no older than the month of the `offset`-th newest
    message (the turn at the offset cannot be older). A chat of 1M messages and 10,000 calls:
    a few hundred microseconds whatever the depth, where reading the skipped calls' times and
    counting the messages newer than each took 12-36 ms."""
    if offset <= 0:
        return 0
    month_of = _month_sql(_CALLS.c.started_at, conn.dialect.name)
    months = conn.execute(select(_MONTHS.c.month, _MONTHS.c.n).where(_MONTHS.c.chat_id == chat_id)
                          .order_by(_MONTHS.c.month.desc())).all()
    messages: dict[str, int] = {}
    seen, floor = 0, None
    for month, n in months:
        messages[month] = n
        seen += n
        if seen >= offset and floor is None:
            floor = month
    cond = _CALLS.c.chat_id == chat_id
    if floor is not None:
        cond = cond & (_CALLS.c.started_at >= _month_span(floor)[0])
    calls: dict[str, int] = dict(conn.execute(select(month_of, func.count()).where(cond).group_by(month_of)).all())
    newer = calls_newer = 0  # turns and calls in the months newer than the one at the offset
    for month in sorted(set(messages) | set(calls), reverse=True):
        n_msgs, n_calls = messages.get(month, 0), calls.get(month, 0)
        if newer + n_msgs + n_calls > offset:
            break
        newer += n_msgs + n_calls
        calls_newer += n_calls
    else:
        return calls_newer  # the offset is past the chat's last turn
    if not n_calls:
        return calls_newer
    start, end = _month_span(month)
    ct, mt = _CALLS.c, _MESSAGES.c
    times = list(conn.execute(select(ct.started_at).where(ct.chat_id == chat_id, ct.started_at >= start,
                                                           ct.started_at < end)
                              .order_by(ct.started_at.desc(), ct.id.desc())).scalars())
    wanted = offset - newer  # the position of the offset inside the month
    lo, hi = 0, len(times)
    ref_time, ref_after = end, 0  # a placed call (or the month's end) newer than lo: messages at or after it
    while lo < hi:
        mid = (lo + hi) // 2
        after = ref_after + _count(conn, (mt.chat_id == chat_id) & (mt.sent_at >= times[mid])
                                   & (mt.sent_at < ref_time))
        if mid + after < wanted:
            lo, ref_time, ref_after = mid + 1, times[mid], after
        else:
            hi = mid
    return calls_newer + lo


def newest_calls(conn: Connection, chat_id: str, limit: int, offset: int = 0) -> list[Row]:
    """The chat's newest calls, newest first, skipping the `offset` newest."""
    ct = _CALLS
    q = (select(ct).where(ct.c.chat_id == chat_id)
         .order_by(ct.c.started_at.desc(), ct.c.id.desc()).limit(limit))
    if offset:
        q = q.offset(offset)
    return list(conn.execute(q).all())
