"""list_chats: the chats a seat may read, newest activity first."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store
from chatmem.store.models import Chat

from .records import timestamp_fields
from .search import check_int


def list_chats(store: Store, seat: Seat, platform: str | None = None, query: str | None = None,
               limit: int = 50) -> dict[str, Any]:
    from .scope import chat_filter

    limit = check_int(limit, "limit", 1, 500)
    if query is not None and not isinstance(query, str):
        raise ArgumentError("query must be a string")
    t = Chat.__table__
    stmt = select(t).where(chat_filter(seat))
    if platform:
        stmt = stmt.where(t.c.platform == platform)
    if query:
        like = f"%{query.lower()}%"
        # participants are a JSON list; its text form is enough for a name match
        from sqlalchemy import String, cast

        stmt = stmt.where(or_(func.lower(t.c.name).like(like),
                              func.lower(cast(t.c.participants, String)).like(like)))
    stmt = stmt.order_by(t.c.last_at.desc().nulls_last(), t.c.name).limit(limit + 1)
    tz = store.config.timezone
    with store.read() as conn:
        rows = conn.execute(stmt).all()
    chats = []
    for r in rows[:limit]:
        chats.append({
            "source": r.id, "platform": r.platform, "chat": r.name, "group": bool(r.is_group),
            "participants": list(r.participants or []), "messages": r.message_count or 0,
            "first": timestamp_fields(r.first_at, tz)["timestamp"] if r.first_at else None,
            "last": timestamp_fields(r.last_at, tz)["timestamp"] if r.last_at else None,
        })
    return {"chats": chats, "has_more": len(rows) > limit}
