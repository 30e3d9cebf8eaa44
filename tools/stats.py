"""`chatmem stats`: what the store holds, per platform, and the latest imports."""

from __future__ import annotations

from typing import Any

from chatmem.config import Seat
from chatmem.store import Store


def store_stats(store: Store, seat: Seat) -> dict[str, Any]:
    with store.reader() as r:
        per_platform = r.platform_counts(seat)
        first, last = r.time_span(seat)
        unparsed = r.unparsed_count()
        runs = r.recent_imports(5)
    return {
        "home": str(store.home),
        "messages": sum(p["messages"] for p in per_platform.values()),
        "chats": sum(p["chats"] for p in per_platform.values()),
        "calls": sum(p["calls"] for p in per_platform.values()),
        "platforms": per_platform,
        "first": first.isoformat() + "Z" if first else None,
        "last": last.isoformat() + "Z" if last else None,
        "unparsed_lines": unparsed if seat.unrestricted else None,
        "indexed": store.index.doc_count() if seat.unrestricted else None,
        "recent_imports": [
            {"run": run.id, "path": run.path, "platform": run.platform, "status": run.status,
             "finished": run.finished_at.isoformat() + "Z" if run.finished_at else None}
            for run in runs] if seat.unrestricted else [],
    }
