"""list_chats: the chats a seat may read, newest activity first."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, cast, func, or_, select

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store
from chatmem.store.models import Chat, Message, Person

from .records import chat_name, timestamp_fields
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
    tz = store.config.timezone
    with store.read() as conn:
        if query:
            like = f"%{query.lower()}%"
            # participants are a JSON list; its text form is enough for a name match
            people = _people_matching(conn, query, store.config.region)
            mt = Message.__table__
            stmt = stmt.where(or_(
                func.lower(t.c.name).like(like),
                func.lower(cast(t.c.participants, String)).like(like),
                # a person's chats on every platform: their one-to-one chats and the groups
                # they wrote in, whatever name each platform shows for them
                t.c.person_id.in_(people),
                t.c.id.in_(select(mt.c.chat_id).where(mt.c.person_id.in_(people)).distinct()),
            ))
        stmt = stmt.order_by(t.c.last_at.desc().nulls_last(), t.c.name).limit(limit + 1)
        rows = conn.execute(stmt).all()
        names = store.display_names(conn)
    chats = []
    for r in rows[:limit]:
        chats.append({
            "source": r.id, "platform": r.platform, "chat": chat_name(r, names), "group": bool(r.is_group),
            "participants": list(r.participants or []), "messages": r.message_count or 0,
            "first": timestamp_fields(r.first_at, tz)["timestamp"] if r.first_at else None,
            "last": timestamp_fields(r.last_at, tz)["timestamp"] if r.last_at else None,
        })
    return {"chats": chats, "has_more": len(rows) > limit}


def _people_matching(conn, query: str, region: str | None) -> list[str]:
    """Ids of people (not the owner) whose name contains `query`, or who have it as a handle."""
    from chatmem.store.people import find_person

    pt = Person.__table__
    ids = list(conn.execute(select(pt.c.id).where(func.lower(pt.c.name).like(f"%{query.lower()}%"))).scalars())
    ids += find_person(conn, query, region) if query.strip() else []
    return [i for i in dict.fromkeys(ids) if i != "me"]
