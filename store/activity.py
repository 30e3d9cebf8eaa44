"""How much was said when, and with whom: the aggregates behind the archive's pictures.

The database groups messages by UTC hour (a few tens of thousands of rows for years of chats,
whatever the archive's size), over the text of the time column on SQLite (no date parsing per
row); the caller turns hours into the owner's months, weekdays and local hours. Counts per
person and per year, and each person's first and last message, are grouped in SQL as well.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from . import models as m


class HourCount(NamedTuple):  # tens of thousands of them: a tuple is cheaper than a dataclass
    hour: int  # hours since 1970-01-01 00:00 UTC
    platform: str
    count: int


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
