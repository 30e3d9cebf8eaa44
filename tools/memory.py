"""Conversation memory: versioned summaries an assistant saves, grounded in cited ids.

Every version is kept. A memory is `stale` once messages or calls newer than its newest cited
item exist; memory can be paused per conversation and switched off per seat. Reading memory
never fails a read tool: its `status` says why there is none.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from chatmem.config import Seat
from chatmem.errors import ArgumentError, NotFound, PermissionDenied
from chatmem.records import stable_id
from chatmem.store import Store
from chatmem.store.models import Call, Chat, Memory, Message, MessageAlias

from .lookup import approx_tokens, check_bool, check_id, check_text, readable_chat
from .records import timestamp_fields
from .secrets import masker

MAX_MEMORY_CHARS = 20_000
MAX_CITES = 200


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def require_write(seat: Seat, what: str) -> None:
    if not seat.write:
        raise PermissionDenied(f"seat {seat.name!r} may not write ({what}); set write: true for it in the config")


def no_conversation(conversation_id: str) -> NotFound:
    return NotFound(f"no conversation with id {conversation_id!r} (list_chats gives the ids)")


def latest_memory(conn: Connection, chat_id: str):
    t = Memory.__table__
    return conn.execute(select(t).where(t.c.chat_id == chat_id)
                        .order_by(t.c.version.desc()).limit(1)).first()


def newer_than(conn: Connection, chat_id: str, when: datetime | None) -> int:
    """Messages and calls in the chat after `when` (all of them when `when` is None)."""
    mt, ct = Message.__table__, Call.__table__
    m_cond = mt.c.chat_id == chat_id
    c_cond = ct.c.chat_id == chat_id
    if when is not None:
        m_cond = m_cond & (mt.c.sent_at > when)
        c_cond = c_cond & (ct.c.started_at > when)
    return (conn.execute(select(func.count()).select_from(mt).where(m_cond)).scalar_one()
            + conn.execute(select(func.count()).select_from(ct).where(c_cond)).scalar_one())


def memory_info(conn: Connection, seat: Seat, chat: Any, tz) -> dict[str, Any]:
    """The `memory` object of get_conversation_context for a chat the seat may read."""
    if not seat.memory:
        return {"status": "off"}
    if chat.memory_paused:
        return {"status": "paused"}
    row = latest_memory(conn, chat.id)
    if row is None:
        return {"status": "missing"}
    since = newer_than(conn, chat.id, row.newest_cited_at)
    text = masker(seat)(row.text)
    return {
        "status": "stale" if since else "ok",
        "id": row.id,
        "text": text,
        "version": row.version,
        "freshness": {"saved_at": timestamp_fields(row.created_at, tz)["timestamp"], "messages_since": since},
        "token_count": approx_tokens(len(text)),
        "cites": list(row.cites or []),
    }


def get_memory(store: Store, seat: Seat, conversation_id: str) -> dict[str, Any]:
    """A conversation's current memory and its status (`chatmem memory show`)."""
    conversation_id = check_id(conversation_id, "conversation_id")
    with store.read() as conn:
        chat = readable_chat(conn, seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        return memory_info(conn, seat, chat, store.config.timezone)


def _check_cites(cites: Any) -> list[str]:
    if not isinstance(cites, list) or not cites or not all(isinstance(c, str) and c for c in cites):
        raise ArgumentError(f"cites must be a list of 1 to {MAX_CITES} message or call ids "
                            "from this conversation")
    if len(cites) > MAX_CITES:
        raise ArgumentError(f"cites must have at most {MAX_CITES} ids; got {len(cites)}")
    return list(dict.fromkeys(c.strip() for c in cites))


def save_memory(store: Store, seat: Seat, conversation_id: str, text: str, cites: list[str]) -> dict[str, Any]:
    """Store a new version of a conversation's memory; every cited id must be in it."""
    require_write(seat, "save_memory")
    if not seat.memory:
        raise PermissionDenied(f"memory is switched off for seat {seat.name!r}")
    conversation_id = check_id(conversation_id, "conversation_id")
    text = check_text(text, "text", MAX_MEMORY_CHARS)
    cites = _check_cites(cites)
    mt, ct, at, t = Message.__table__, Call.__table__, MessageAlias.__table__, Memory.__table__
    with store.write() as conn:
        chat = readable_chat(conn, seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        aliases = dict(conn.execute(select(at.c.alias, at.c.message_id).where(at.c.alias.in_(cites))).all())
        wanted = {aliases.get(c, c) for c in cites}
        times = dict(conn.execute(select(mt.c.id, mt.c.sent_at)
                                  .where(mt.c.id.in_(wanted), mt.c.chat_id == chat.id)).all())
        times.update(conn.execute(select(ct.c.id, ct.c.started_at)
                                  .where(ct.c.id.in_(wanted), ct.c.chat_id == chat.id)).all())
        unknown = [c for c in cites if aliases.get(c, c) not in times]
        if unknown:
            raise ArgumentError(f"cites must be ids of messages or calls in conversation {conversation_id}; "
                                f"not in it: {', '.join(unknown[:10])}")
        version = (conn.execute(select(func.max(t.c.version)).where(t.c.chat_id == chat.id)).scalar() or 0) + 1
        memory_id = stable_id("mem", chat.id, version)
        conn.execute(t.insert().values(id=memory_id, chat_id=chat.id, version=version, text=text,
                                       cites=cites, created_at=_utcnow(),
                                       newest_cited_at=max(times.values()), seat=seat.name))
    return {"id": memory_id, "conversation_id": chat.id, "version": version,
            "token_count": approx_tokens(len(masker(seat)(text))), "cites": cites}


def pause_memory(store: Store, seat: Seat, conversation_id: str, paused: bool = True) -> dict[str, Any]:
    """Pause (or resume) memory for one conversation: context calls then report `paused`."""
    require_write(seat, "pause memory")
    conversation_id = check_id(conversation_id, "conversation_id")
    paused = check_bool(paused, "paused")
    t = Chat.__table__
    with store.write() as conn:
        chat = readable_chat(conn, seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        conn.execute(t.update().where(t.c.id == chat.id).values(memory_paused=paused))
    return {"conversation_id": chat.id, "paused": paused}
