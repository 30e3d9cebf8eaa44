"""How much was said when, and with whom: the aggregates behind the archive's pictures.

The database groups messages by UTC hour (a few tens of thousands of rows for years of chats,
whatever the archive's size), over the text of the time column on SQLite (no date parsing per
row); the caller turns hours into the owner's months, weekdays and local hours. Counts per
person and per year, and each person's first and last message, are grouped in SQL as well.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

from sqlalchemy import asc, desc, func, select
from sqlalchemy.engine import Connection

from . import models as m


class HourCount(NamedTuple):  # tens of thousands of them: a tuple is cheaper than a dataclass
    hour: int  # hours since 1970-01-01 00:00 UTC
    platform: str
    messages: int  # (not `count`: a tuple's own method has that name)


@dataclass(frozen=True)
class PersonYear:
    person_id: str
    year: int
    count: int


@dataclass(frozen=True)
class PersonSpan:
    person_id: str
    first: datetime
    last: datetime
    count: int


def _hour_expr(conn: Connection, column):
    """'YYYY-MM-DD HH' of a UTC time."""
    if conn.dialect.name == "postgresql":
        return func.to_char(func.date_trunc("hour", column), "YYYY-MM-DD HH24")
    # SQLite keeps times as 'YYYY-MM-DD HH:MM:SS.ffffff': its first 13 characters are the hour
    # (strftime would parse every row's date first)
    return func.substr(column, 1, 13)


def _year_expr(conn: Connection, column):
    if conn.dialect.name == "postgresql":
        return func.to_char(column, "YYYY")
    return func.substr(column, 1, 4)


class _Hours:
    """'YYYY-MM-DD HH' -> hours since the epoch, each day's date parsed once."""

    def __init__(self) -> None:
        self.days: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        day = text[:10]
        d = self.days.get(day)
        if d is None:
            d = self.days[day] = (date.fromisoformat(day) - EPOCH).days
        return d * 24 + int(text[11:13])


EPOCH = date(1970, 1, 1)


def _visible(stmt, chat_ids: Collection[str] | None):
    t = m.Message.__table__
    return stmt if chat_ids is None else stmt.where(t.c.chat_id.in_(list(chat_ids)))


def messages_per_hour(conn: Connection, chat_ids: Collection[str] | None) -> Iterator[HourCount]:
    """Messages per UTC hour and platform, in the chats given (None: every chat)."""
    t = m.Message.__table__
    hour = _hour_expr(conn, t.c.sent_at).label("hour")
    stmt = _visible(select(hour, t.c.platform, func.count()), chat_ids)
    hours = _Hours()
    for h, platform, n in conn.execute(stmt.group_by(hour, t.c.platform)):
        yield HourCount(hours(h), platform, int(n))


def messages_per_person_year(conn: Connection, chat_ids: Collection[str] | None) -> Iterator[PersonYear]:
    """Messages per sender (person) and UTC year, the owner left out."""
    t = m.Message.__table__
    year = _year_expr(conn, t.c.sent_at).label("year")
    stmt = _visible(select(t.c.person_id, year, func.count())
                    .where(t.c.person_id.is_not(None), t.c.person_id != "me"), chat_ids)
    for pid, y, n in conn.execute(stmt.group_by(t.c.person_id, year)):
        yield PersonYear(pid, int(y), int(n))


def person_spans(conn: Connection, chat_ids: Collection[str] | None) -> Iterator[PersonSpan]:
    """Each person's first and last message in the chats given, from them or to them in
    their one-to-one chats (the owner left out)."""
    t, c = m.Message.__table__, m.Chat.__table__
    # who a message is "with": its sender, or, for the owner's messages in a one-to-one chat,
    # the other person of that chat
    with_person = func.coalesce(
        func.nullif(t.c.person_id, "me"),
        select(c.c.person_id).where((c.c.id == t.c.chat_id) & (c.c.is_group.is_(False)))
        .scalar_subquery())
    who = with_person.label("who")
    stmt = _visible(select(who, func.min(t.c.sent_at), func.max(t.c.sent_at), func.count()),
                    chat_ids)
    for pid, first, last, n in conn.execute(stmt.group_by(who)):
        if pid and pid != "me":
            yield PersonSpan(pid, first, last, int(n))


def person_messages_per_hour(conn: Connection, chat_ids: Collection[str] | None,
                             person_ids: Collection[str]) -> Iterator[tuple[str, HourCount]]:
    """Messages per UTC hour from each of the people given."""
    t = m.Message.__table__
    if not person_ids:
        return
    hour = _hour_expr(conn, t.c.sent_at).label("hour")
    stmt = _visible(select(t.c.person_id, hour, func.count())
                    .where(t.c.person_id.in_(list(person_ids))), chat_ids)
    hours = _Hours()
    for pid, h, n in conn.execute(stmt.group_by(t.c.person_id, hour)):
        yield pid, HourCount(hours(h), "", int(n))


# ---------------------------------------------------------------------- one person


@dataclass(frozen=True)
class PersonOverview:
    """What the archive holds of one person, in the chats given."""

    handles: dict[str, list[str]]  # platform -> the handles they wrote from, most used first
    names: dict[str, list[str]]  # platform -> the names it showed for them, most used first
    messages: dict[str, int]  # platform -> messages from them
    chat_ids: list[str]  # their one-to-one chats and the groups they wrote in
    first_id: str | None  # the first and last message with them (from them, or to them alone)
    last_id: str | None


def person_overview(conn: Connection, person_id: str,
                    chat_ids: Collection[str] | None) -> PersonOverview:
    """One person across platforms, in the chats given (None: every chat): the handles each
    platform knows them by, their messages per platform, their chats, and the first and last
    message with them. Grouped over the person and chat indexes, never a scan of the archive."""
    t, c = m.Message.__table__, m.Chat.__table__
    from_them = _visible(select(t.c.platform, t.c.sender, t.c.sender_handle, func.count())
                         .where(t.c.person_id == person_id), chat_ids)
    handles: dict[str, Counter[str]] = defaultdict(Counter)
    names: dict[str, Counter[str]] = defaultdict(Counter)
    messages: Counter[str] = Counter()
    for platform, sender, handle, n in conn.execute(
            from_them.group_by(t.c.platform, t.c.sender, t.c.sender_handle)):
        messages[platform] += int(n)
        if handle:
            handles[platform][handle] += int(n)
        if sender and sender != handle:
            names[platform][sender] += int(n)
    alone = select(c.c.id, c.c.platform, c.c.handles).where(c.c.person_id == person_id,
                                                            c.c.is_group.is_(False))
    if chat_ids is not None:
        alone = alone.where(c.c.id.in_(list(chat_ids)))
    one_to_one = conn.execute(alone).all()
    for row in one_to_one:
        for handle in row.handles or []:
            if isinstance(handle, str) and handle:
                handles[row.platform][handle] += 0  # known, even where they never wrote
    wrote_in = _visible(select(t.c.chat_id).where(t.c.person_id == person_id).distinct(), chat_ids)
    chats = list(dict.fromkeys([*(r.id for r in one_to_one), *conn.execute(wrote_in).scalars()]))

    def end(order: Any) -> tuple[datetime, str] | None:
        found = []
        for cond in (t.c.person_id == person_id,
                     t.c.chat_id.in_([r.id for r in one_to_one]) if one_to_one else None):
            if cond is None:
                continue
            row = conn.execute(_visible(select(t.c.sent_at, t.c.id).where(cond), chat_ids)
                               .order_by(order(t.c.sent_at), order(t.c.ordinal), order(t.c.id))
                               .limit(1)).first()
            if row is not None:
                found.append((row.sent_at, row.id))
        return (min(found) if order is asc else max(found)) if found else None

    first, last = end(asc), end(desc)
    def ranked(counts: dict[str, Counter[str]]) -> dict[str, list[str]]:
        return {p: [h for h, _ in sorted(c.items(), key=lambda x: (-x[1], x[0]))]
                for p, c in sorted(counts.items())}

    return PersonOverview(
        handles=ranked(handles), names=ranked(names),
        messages=dict(sorted(messages.items())), chat_ids=chats,
        first_id=first[1] if first else None, last_id=last[1] if last else None)
