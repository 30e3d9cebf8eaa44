"""What a seat may read: platforms and chats. An id outside the scope is treated exactly like
an unknown id by every tool."""

from __future__ import annotations

from sqlalchemy import false, or_, select, true
from sqlalchemy.engine import Connection

from chatmem.config import Seat
from chatmem.store.models import Chat


def chat_filter(seat: Seat, chat_table=None):
    """A SQL condition on the chats table that keeps the chats this seat may read."""
    t = chat_table if chat_table is not None else Chat.__table__
    if seat.unrestricted:
        return true()
    cond = true()
    if seat.platforms:
        cond = cond & t.c.platform.in_(seat.platforms)
    if seat.include_chats:
        cond = cond & or_(t.c.id.in_(seat.include_chats), t.c.name.in_(seat.include_chats))
    if seat.exclude_chats:
        cond = cond & ~or_(t.c.id.in_(seat.exclude_chats), t.c.name.in_(seat.exclude_chats))
    return cond


def allowed_chat_ids(conn: Connection, seat: Seat) -> set[str] | None:
    """None when the seat sees everything, else the set of readable chat ids."""
    if seat.unrestricted:
        return None
    t = Chat.__table__
    return {r.id for r in conn.execute(select(t.c.id).where(chat_filter(seat)))}


def can_read_chat(conn: Connection, seat: Seat, chat_id: str) -> bool:
    if seat.unrestricted:
        return True
    t = Chat.__table__
    return conn.execute(select(t.c.id).where((t.c.id == chat_id) & chat_filter(seat))).first() is not None


__all__ = ["allowed_chat_ids", "can_read_chat", "chat_filter", "false"]
