"""The whole store as JSON Lines in the import format: export -> import into an empty store
reproduces the same ids and contents, so the user's data is never locked in."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from sqlalchemy import select
from sqlalchemy.engine import Connection

from chatmem.errors import ChatmemError

from . import models as m
from .permissions import open_private

BATCH = 2000


def iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return dt.replace(tzinfo=timezone.utc).isoformat()


def export_records(conn: Connection) -> Iterator[dict]:
    """People first, then each chat with its messages and calls in time order, then the saved
    memories: everything a store holds that is not derived."""
    ch, mt, ct = m.Chat.__table__, m.Message.__table__, m.Call.__table__
    yield from _people(conn)
    for chat in conn.execute(select(ch).order_by(ch.c.id)).all():
        base = {"platform": chat.platform, "chat": chat.name, "source": chat.id,
                "chat_key": chat.key, "group": bool(chat.is_group)}
        chat_line = {"type": "chat", **base, "participants": chat.participants or [],
                     "handles": chat.handles or []}
        if chat.created_at is not None:
            chat_line["created_at"] = iso(chat.created_at)
        if chat.memory_paused:
            chat_line["memory_paused"] = True
        yield chat_line
        rows = conn.execute(select(mt).where(mt.c.chat_id == chat.id)
                            .order_by(mt.c.sent_at, mt.c.ordinal, mt.c.id)
                            .execution_options(yield_per=BATCH))
        for part in rows.partitions(BATCH):
            extras = _details(conn, [r.id for r in part])
            for r in part:
                rec = {"type": "message", "id": r.id, **base, "timestamp": iso(r.sent_at),
                       "sender": r.sender, "text": r.text, "kind": r.kind,
                       "deleted": bool(r.deleted), "edited": bool(r.edited)}
                for key in ("guid", "sender_handle", "reply_to"):
                    if getattr(r, key):
                        rec[key] = getattr(r, key)
                if r.extra:
                    rec["extra"] = r.extra
                rec.update({k: v for k, v in extras[r.id].items() if v})
                rec["raw"] = r.raw
                yield rec
        for r in conn.execute(select(ct).where(ct.c.chat_id == chat.id).order_by(ct.c.started_at)):
            rec = {"type": "call", "id": r.id, **base, "timestamp": iso(r.started_at),
                   "direction": r.direction, "media": r.media}
            for key in ("duration", "answered", "peer", "summary", "transcript"):
                if getattr(r, key) is not None:
                    rec[key] = getattr(r, key)
            rec["raw"] = r.raw
            yield rec


    mem = m.Memory.__table__
    for r in conn.execute(select(mem).order_by(mem.c.chat_id, mem.c.version)):
        rec = {"type": "memory", "id": r.id, "source": r.chat_id, "version": r.version,
               "text": r.text, "cites": list(r.cites or []), "created_at": iso(r.created_at)}
        if r.newest_cited_at is not None:
            rec["newest_cited_at"] = iso(r.newest_cited_at)
        if r.seat:
            rec["seat"] = r.seat
        yield rec


def _people(conn: Connection) -> Iterator[dict]:
    pt, ht = m.Person.__table__, m.Handle.__table__
    handles: dict[str, list[dict]] = defaultdict(list)
    for r in conn.execute(select(ht).order_by(ht.c.id)):
        handles[r.person_id].append({"kind": r.kind, "value": r.value, "source": r.source})
    for r in conn.execute(select(pt).order_by(pt.c.id)):
        yield {"type": "person", "person": r.id, "name": r.name, "manual": bool(r.manual),
               "from_contact": bool(r.from_contact), "handles": handles.get(r.id, [])}


def _details(conn: Connection, ids: list[str]) -> dict[str, dict]:
    vt, rt, at = m.MessageVersion.__table__, m.Reaction.__table__, m.Attachment.__table__
    out: dict[str, dict] = defaultdict(lambda: {"versions": [], "reactions": [], "attachments": []})
    for r in conn.execute(select(vt).where(vt.c.message_id.in_(ids)).order_by(vt.c.position)):
        out[r.message_id]["versions"].append({"text": r.text, "timestamp": iso(r.timestamp)})
    for r in conn.execute(select(rt).where(rt.c.message_id.in_(ids)).order_by(rt.c.id)):
        item = {"emoji": r.emoji, "sender": r.sender, "timestamp": iso(r.timestamp)}
        if r.removed:
            item["removed"] = True
        out[r.message_id]["reactions"].append(item)
    for r in conn.execute(select(at).where(at.c.message_id.in_(ids)).order_by(at.c.position)):
        out[r.message_id]["attachments"].append(
            {k: getattr(r, k) for k in ("name", "mime_type", "size", "path", "guid") if getattr(r, k) is not None})
    return out


def export_lines(conn: Connection) -> Iterator[str]:
    for record in export_records(conn):
        yield json.dumps(record, ensure_ascii=False) + "\n"


def write_export(conn: Connection, out: Path | IO[str]) -> int:
    """Write every record to `out` (a file, replaced only once complete, or an open text
    stream); returns how many records were written."""
    if not isinstance(out, Path):
        n = 0
        for line in export_lines(conn):
            out.write(line)
            n += 1
        return n
    tmp = out.with_name(out.name + ".partial")
    try:
        with open_private(tmp) as f:  # the whole store: only the owner may read it
            n = write_export(conn, f)
        tmp.replace(out)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ChatmemError(f"cannot write {out}: {e.strerror}") from e
    return n
