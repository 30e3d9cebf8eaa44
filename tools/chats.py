"""list_chats: the chats a seat may read, newest activity first."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store

from .lookup import check_int, check_platform, known_platforms
from .records import chat_name, timestamp_fields
from .types import ChatInfo, ListChatsResult


def list_chats(store: Store, seat: Seat, platform: str | None = None, query: str | None = None,
               limit: int = 50) -> ListChatsResult:
    limit = check_int(limit, "limit", 1, 500)
    if query is not None and not isinstance(query, str):
        raise ArgumentError("query must be a string")
    platform = check_platform(platform, known_platforms(store))
    tz = store.config.timezone
    with store.reader() as r:
        rows = r.chats(seat, platform=platform, query=query, limit=limit + 1)
        names = r.names()
        # participants as every other tool names them: the person's name, not the raw handle
        shown = r.handle_names([p for row in rows[:limit] for p in (row.participants or [])])
    chats = [chat_info(row, names, shown, tz) for row in rows[:limit]]
    return {"chats": chats, "has_more": len(rows) > limit}


def chat_info(row: Any, names: Mapping[str, str], shown: Mapping[str, str], tz: tzinfo) -> ChatInfo:
    """A chat row as the tools list it; `shown` maps a participant's handle to their name
    (`Reader.handle_names`)."""
    return {
        "source": row.id, "platform": row.platform, "chat": chat_name(row, names), "group": bool(row.is_group),
        "participants": list(dict.fromkeys(shown.get(p, p) for p in row.participants or [])),
        "messages": row.message_count or 0,
        "first": timestamp_fields(row.first_at, tz)["timestamp"] if row.first_at else None,
        "last": timestamp_fields(row.last_at, tz)["timestamp"] if row.last_at else None,
    }
