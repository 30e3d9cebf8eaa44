"""What a seat may read, as a SQL condition on the chats table. An id outside the scope is
treated exactly like an unknown id by every read."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, or_, true

from chatmem.config import Seat

from .models import Chat


def chat_filter(seat: Seat, chat_table: Any = None) -> ColumnElement[bool]:
    """A SQL condition on the chats table that keeps the chats this seat may read."""
    t = chat_table if chat_table is not None else Chat.__table__
    if seat.unrestricted:
        return true()
    cond: ColumnElement[bool] = true()
    if seat.platforms:
        cond = cond & t.c.platform.in_(seat.platforms)
    if seat.include_chats:
        cond = cond & or_(t.c.id.in_(seat.include_chats), t.c.name.in_(seat.include_chats))
    if seat.exclude_chats:
        cond = cond & ~or_(t.c.id.in_(seat.exclude_chats), t.c.name.in_(seat.exclude_chats))
    return cond
