"""What a seat may read, as a SQL condition on the chats table: its platforms and chats, minus
agent sessions past their retention period. An id outside the scope is treated exactly like an
unknown id by every read."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import ColumnElement, or_, true

from chatmem.config import Seat

from .models import Chat

AGENT = "agent"  # the platform of logged agent sessions


def expired_sessions(seat: Seat, chat_table: Any = None) -> ColumnElement[bool]:
    """True for agent sessions older than the seat's retention period: gone from every tool
    (get_conversation_history still names them, with `isExpired`)."""
    t = chat_table if chat_table is not None else Chat.__table__
    cutoff = datetime.now(timezone.utc).replace(tzinfo=None) - timedelta(days=seat.retention_days)
    return (t.c.platform == AGENT) & t.c.created_at.is_not(None) & (t.c.created_at < cutoff)


def chat_filter(seat: Seat, chat_table: Any = None, *, include_expired: bool = False) -> ColumnElement[bool]:
    """A SQL condition on the chats table that keeps the chats this seat may read."""
    t = chat_table if chat_table is not None else Chat.__table__
    cond: ColumnElement[bool] = true() if include_expired else ~expired_sessions(seat, t)
    if seat.unrestricted:
        return cond
    if seat.platforms:
        cond = cond & t.c.platform.in_(seat.platforms)
    if seat.include_chats:
        cond = cond & or_(t.c.id.in_(seat.include_chats), t.c.name.in_(seat.include_chats))
    if seat.exclude_chats:
        cond = cond & ~or_(t.c.id.in_(seat.exclude_chats), t.c.name.in_(seat.exclude_chats))
    return cond
