"""read_raw_data: the full original text of one record, after a search has found it.

For a message that is the source's own text (the exported lines, or the decoded database row),
followed by its earlier versions, reactions and attachments. Ids: `m_` message (or an alias),
`m_...@v<n>` an earlier version, `c_` call, `a_` attachment, `t_` logged turn, `mem_` memory.
An unknown id, or one outside the seat's scope, gives `ok: false` and the same `error`.
"""

from __future__ import annotations

import json
from typing import Any

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store
from chatmem.store.media import shown_path
from chatmem.store.reads import Reader

from .lookup import call_text
from .records import chat_name, shown_sender, timestamp_fields
from .secrets import masker
from .types import RawResult

MAX_CHARS = 1_000_000
VERSION_MARK = "@v"


def _relations(chat_id: str | None, **more: Any) -> dict[str, Any]:
    rel: dict[str, Any] = {"chat": chat_id, "reply_to": None, "replies": [], "reactions": [],
                           "attachments": [], "versions": []}
    rel.update(more)
    return rel


def _message(r: Reader, seat: Seat, record_id: str, tz) -> dict[str, Any] | None:
    version = None
    if VERSION_MARK in record_id:
        record_id, _, n = record_id.partition(VERSION_MARK)
        if not n.isdigit() or int(n) < 1:
            return None
        version = int(n)
    found = r.message(seat, record_id)
    if found is None:
        return None
    row, chat = found
    names = r.names()
    who, where = shown_sender(row, names), chat_name(chat, names)
    versions, reactions, attachments, replies = r.message_details(row.id)
    when = timestamp_fields(row.sent_at, tz)
    if version is not None:
        if version > len(versions):
            return None
        v = versions[version - 1]
        stamp = timestamp_fields(v.timestamp, tz)["timestamp"] if v.timestamp else "time unknown"
        return {"type": "message", "title": f"earlier version {version} of {who}'s message in {where}, "
                                            f"{when['date']}",
                "content": f"{stamp}: {v.text}",
                "relations": _relations(chat.id, versions=[row.id])}
    turn = row.platform == "agent" and row.role is not None
    parts = [row.raw or row.text or "", *_other_sources(r, row.id)]
    if versions:
        parts.append("--- earlier versions ---")
        parts += [f"v{i}{' ' + timestamp_fields(v.timestamp, tz)['timestamp'] if v.timestamp else ''}: {v.text}"
                  for i, v in enumerate(versions, 1)]
    if reactions:
        parts.append("--- reactions ---")
        parts += [f"{x.emoji} {x.sender}" for x in reactions]
    if attachments:
        parts.append("--- attachments ---")
        parts += [f"{a.id} {a.name or '(no name)'} {a.mime_type or ''} "
                  f"{'' if a.size is None else f'{a.size} bytes'} {shown_path(a.path)}".rstrip() for a in attachments]
    if turn:
        title = f"turn {row.ordinal} ({row.role}) of {where}, {when['date']}"
        relations = _relations(chat.id, refs=[str(r) for r in (row.extra or {}).get("refs", [])])
    else:
        title = f"{who} in {where}, {when['date']}"
        relations = _relations(
            chat.id, reply_to=row.reply_to, replies=replies,
            reactions=[f"{x.emoji} {x.sender}" for x in reactions],
            attachments=[a.id for a in attachments],
            versions=[f"{row.id}{VERSION_MARK}{i}" for i in range(1, len(versions) + 1)])
    return {"type": "turn" if turn else "message", "title": title, "content": "\n".join(parts),
            "relations": relations}


def _other_sources(r: Reader, record_id: str) -> list[str]:
    """The record as each further export had it (one conversation held by several)."""
    out: list[str] = []
    for src in r.other_sources(record_id):
        out += [f"--- also in {src.origin} ---", src.raw]
    return out


def _call(r: Reader, seat: Seat, record_id: str, tz) -> dict[str, Any] | None:
    found = r.call(seat, record_id)
    if found is None:
        return None
    row, chat = found
    parts = [row.raw or call_text(row), *_other_sources(r, row.id)]
    if row.summary:
        parts += ["--- summary ---", row.summary]
    if row.transcript:
        parts += ["--- transcript ---", row.transcript]
    when = timestamp_fields(row.started_at, tz)
    return {"type": "call", "title": f"{row.direction} {row.media} call in {chat_name(chat, r.names())}, "
                                     f"{when['date']}",
            "content": "\n".join(parts), "relations": _relations(chat.id)}


def _attachment(r: Reader, seat: Seat, record_id: str, tz) -> dict[str, Any] | None:
    row = r.attachment(record_id)
    if row is None:
        return None
    found = r.message(seat, row.message_id)
    if found is None:
        return None
    msg, chat = found
    meta = {"id": row.id, "message": msg.id, "name": row.name, "mime_type": row.mime_type, "size": row.size,
            "path": shown_path(row.path) or None, "guid": row.guid}
    return {"type": "attachment", "title": f"{row.name or 'attachment'} from {shown_sender(msg, r.names())} in "
                     f"{chat_name(chat, r.names())}",
            "content": json.dumps(meta, ensure_ascii=False, indent=1),
            "relations": _relations(chat.id, message=msg.id)}


def _memory(r: Reader, seat: Seat, record_id: str, tz) -> dict[str, Any] | None:
    if not seat.memory:
        return None
    row = r.memory(record_id)
    if row is None:
        return None
    chat = r.chat(seat, row.chat_id)
    if chat is None:
        return None
    others = r.earlier_memories(row.chat_id, row.version)
    when = timestamp_fields(row.created_at, tz)
    return {"type": "memory", "title": f"memory version {row.version} of {chat_name(chat, r.names())}, saved {when['date']}",
            "content": row.text, "relations": _relations(chat.id, versions=others, cites=list(row.cites or []))}


READERS = (("mem_", _memory), ("c_", _call), ("a_", _attachment), ("", _message))
KNOWN_PREFIXES = ("mem_", "c_", "a_", "m_", "t_")


def read_raw_data(store: Store, seat: Seat, record_id: str, max_chars: int = 0) -> RawResult:
    """The whole original record (or its first `max_chars` characters)."""
    if not isinstance(record_id, str) or not record_id.strip() or len(record_id) > 80:
        raise ArgumentError("record_id must be an id string of 1 to 80 characters, as search_memory gives it")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or not 0 <= max_chars <= MAX_CHARS:
        raise ArgumentError(f"max_chars must be a whole number from 0 to {MAX_CHARS} (0 = everything); "
                            f"got {max_chars!r}")
    record_id = record_id.strip()
    tz = store.config.timezone
    found = None
    with store.reader() as r:
        for prefix, reader in READERS:
            if record_id.startswith(prefix):
                found = reader(r, seat, record_id, tz)
                break
        if found is None and not record_id.startswith(KNOWN_PREFIXES):
            found = _call(r, seat, record_id, tz)  # a JSON Lines call keeps the id its file gave
    if found is None:
        return {"ok": False, "id": record_id,
                "error": f"no record with id {record_id!r} (use an id from search_memory or get_context)"}
    mask = masker(seat)
    content = mask(found["content"])
    truncated = 0 < max_chars < len(content)
    return {
        "ok": True, "id": record_id, "type": found["type"], "title": mask(found["title"]),
        "content": content[:max_chars] if truncated else content,
        "size_bytes": len(content.encode("utf-8")), "truncated": truncated,
        "relations": found["relations"],
    }
