"""`chatmem doctor`: where the store and config are, how big, what they hold, whether the
index is current, what `sync` would read again, and what looks wrong."""

from __future__ import annotations

import os
from pathlib import Path

from typing_extensions import TypedDict

from chatmem.config import Config, Seat
from chatmem.store import Store
from chatmem.store.permissions import permission_warnings


class IndexState(TypedDict):
    documents: int
    behind: int  # ingest steps the index has not applied yet (0: current)
    segments: int  # the index's segments: each search walks each (`reindex --merge` packs them)
    busy: bool  # another process was writing it when we looked


class SyncEntry(TypedDict):
    path: str
    platform: str
    status: str  # unchanged | changed | missing
    imported: str


class DoctorResult(TypedDict):
    home: str
    config: str | None
    config_found: bool
    database: str
    read_only: bool
    sizes: dict[str, int]
    counts: dict[str, int]
    index: IndexState
    sync: list[SyncEntry]
    warnings: list[str]


MANY_SEGMENTS = 24  # more than this: doctor suggests `chatmem reindex --merge`


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return 0


def diagnose(store: Store, seat: Seat, config: Config) -> DoctorResult:
    home = store.home
    warnings: list[str] = []
    with store.reader() as r:
        counts = r.platform_counts(seat)
        people = len(r.people(seat=seat, limit=100_000))
        sources = len(r.sources())
    db_seq = store.database_seq()
    behind = max(0, db_seq - store.index.seq)
    if behind:
        warnings.append("the search index is behind the database: the next command that may "
                        "write the index (any read, when no import runs) catches it up")
    if store.index_busy:
        warnings.append("an import was updating the search index when this ran")
    segments = store.index.segment_count()
    if segments > MANY_SEGMENTS:
        warnings.append(f"the search index has {segments} segments (imports merge them a little at "
                        "a time, and each search walks each): `chatmem reindex --merge` packs them")
    warnings += permission_warnings(home)  # what other users of this machine could read
    if store.read_only:
        warnings.append(f"{home} is read-only: reads work, imports and other changes do not")
    preview = store.sync_preview()
    missing = [s["path"] for s in preview if s["status"] == "missing"]
    if missing:
        warnings.append(f"{len(missing)} imported source(s) no longer exist (what was imported "
                        "from them is kept): " + ", ".join(missing[:3]))
    config_path = config.path
    return {
        "home": str(home),
        "config": str(config_path) if config_path else None,
        "config_found": bool(config_path and Path(config_path).is_file()),
        "database": store.engine.url.render_as_string(hide_password=True),
        "read_only": store.read_only,
        "sizes": {"database": sum(_size(home / n) for n in os.listdir(home) if n.startswith("chatmem.db")),
                  "index": _size(home / "index"), "media": _size(home / "media")},
        "counts": {"messages": sum(c["messages"] for c in counts.values()),
                   "calls": sum(c["calls"] for c in counts.values()),
                   "chats": sum(c["chats"] for c in counts.values()),
                   "people": people, "sources": sources},
        "index": {"documents": store.index.doc_count(), "behind": behind, "busy": store.index_busy,
                  "segments": segments},
        "sync": [SyncEntry(path=p["path"], platform=p["platform"], status=p["status"],
                           imported=p["imported"]) for p in preview],
        "warnings": warnings,
    }
