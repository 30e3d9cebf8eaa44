"""`chatmem stats`: what the store holds, per platform, and the latest imports."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from chatmem.config import Seat
from chatmem.store import Store
from chatmem.store.models import Call, Chat, ImportRun, Message, Unparsed

from .scope import chat_filter


def store_stats(store: Store, seat: Seat) -> dict[str, Any]:
    mt, ct, ch, rt = Message.__table__, Call.__table__, Chat.__table__, ImportRun.__table__
    visible = select(ch.c.id).where(chat_filter(seat))
    with store.read() as conn:
        per_platform = {}
        for platform, chats, messages in conn.execute(
                select(ch.c.platform, func.count(), func.coalesce(func.sum(ch.c.message_count), 0))
                .where(chat_filter(seat)).group_by(ch.c.platform)):
            per_platform[platform] = {"chats": chats, "messages": int(messages), "calls": 0}
        for platform, calls in conn.execute(select(ct.c.platform, func.count())
                                            .where(ct.c.chat_id.in_(visible)).group_by(ct.c.platform)):
            per_platform.setdefault(platform, {"chats": 0, "messages": 0, "calls": 0})["calls"] = calls
        first, last = conn.execute(select(func.min(mt.c.sent_at), func.max(mt.c.sent_at))
                                   .where(mt.c.chat_id.in_(visible))).one()
        unparsed = conn.execute(select(func.count()).select_from(Unparsed.__table__)).scalar_one()
        runs = conn.execute(select(rt.c.id, rt.c.path, rt.c.platform, rt.c.finished_at, rt.c.status)
                            .order_by(rt.c.id.desc()).limit(5)).all()
    return {
        "home": str(store.home),
        "messages": sum(p["messages"] for p in per_platform.values()),
        "chats": sum(p["chats"] for p in per_platform.values()),
        "calls": sum(p["calls"] for p in per_platform.values()),
        "platforms": per_platform,
        "first": first.isoformat() + "Z" if first else None,
        "last": last.isoformat() + "Z" if last else None,
        "unparsed_lines": unparsed if seat.unrestricted else None,
        "indexed": store.index.doc_count(),
        "recent_imports": [
            {"run": r.id, "path": r.path, "platform": r.platform, "status": r.status,
             "finished": r.finished_at.isoformat() + "Z" if r.finished_at else None}
            for r in runs] if seat.unrestricted else [],
    }
