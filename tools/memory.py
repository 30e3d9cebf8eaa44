"""Conversation memory: versioned summaries an assistant saves, grounded in cited ids.

Every version is kept. A memory is `stale` once messages or calls arrive that are newer than
both its saving and its newest cited item (a memory just saved is fresh); memory can be paused per conversation and switched off per seat. Reading memory
never fails a read tool: its `status` says why there is none.
"""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import Any

from chatmem.config import Seat
from chatmem.errors import ArgumentError, NotFound, PermissionDenied
from chatmem.records import SavedMemory, stable_id
from chatmem.store import Store
from chatmem.store.reads import Reader

from .lookup import check_bool, check_id, check_text
from .records import timestamp_fields
from .secrets import masker
from .tokens import approx_tokens
from .types import MemoryInfo, PauseMemoryResult, SaveMemoryResult

MAX_MEMORY_CHARS = 20_000
MAX_CITES = 200


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def require_write(seat: Seat, what: str) -> None:
    if not seat.write:
        raise PermissionDenied(f"seat {seat.name!r} may not write ({what}); set write: true for it in the config")


def no_conversation(conversation_id: str) -> NotFound:
    return NotFound(f"no conversation with id {conversation_id!r} (list_chats gives the ids)")


def memory_info(r: Reader, seat: Seat, chat: Any, tz: tzinfo) -> MemoryInfo:
    """The `memory` object of get_conversation_context for a chat the seat may read."""
    if not seat.memory:
        return {"status": "off"}
    if chat.memory_paused:
        return {"status": "paused"}
    row = r.latest_memory(chat.id)
    if row is None:
        return {"status": "missing"}
    # newer than both the saving and the newest cited item: a memory just saved is fresh
    edge = max(d for d in (row.created_at, row.newest_cited_at) if d is not None)
    since = r.count_newer(chat, edge)
    text = masker(seat)(row.text)
    return {
        "status": "stale" if since else "ok",
        "id": row.id,
        "text": text,
        "version": row.version,
        "freshness": {"saved_at": timestamp_fields(row.created_at, tz)["timestamp"], "messages_since": since},
        "token_count": approx_tokens(text),
        "cites": list(row.cites or []),
    }


def get_memory(store: Store, seat: Seat, conversation_id: str) -> MemoryInfo:
    """A conversation's current memory and its status (`chatmem memory show`)."""
    conversation_id = check_id(conversation_id, "conversation_id")
    with store.reader() as r:
        chat = r.chat(seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        return memory_info(r, seat, chat, store.config.timezone)


def _check_cites(cites: Any) -> list[str]:
    if not isinstance(cites, list) or not cites or not all(isinstance(c, str) and c for c in cites):
        raise ArgumentError(f"cites must be a list of 1 to {MAX_CITES} message or call ids "
                            "from this conversation")
    if len(cites) > MAX_CITES:
        raise ArgumentError(f"cites must have at most {MAX_CITES} ids; got {len(cites)}")
    return list(dict.fromkeys(c.strip() for c in cites))


def save_memory(store: Store, seat: Seat, conversation_id: str, text: str, cites: list[str]) -> SaveMemoryResult:
    """Store a new version of a conversation's memory; every cited id must be in it."""
    require_write(seat, "save_memory")
    if not seat.memory:
        raise PermissionDenied(f"memory is switched off for seat {seat.name!r}")
    conversation_id = check_id(conversation_id, "conversation_id")
    text = check_text(text, "text", MAX_MEMORY_CHARS)
    cites = _check_cites(cites)
    with store.writer() as w:
        chat = w.chat(seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        times = w.item_times(chat.id, cites)
        unknown = [c for c in cites if c not in times]
        if unknown:
            raise ArgumentError(f"cites must be ids of messages or calls in conversation {conversation_id}; "
                                f"not in it: {', '.join(unknown[:10])}")
        version = w.next_memory_version(chat.id)
        memory_id = stable_id("mem", chat.id, version)
        w.add_memory(SavedMemory(id=memory_id, chat_id=chat.id, version=version, text=text, cites=cites,
                                 created_at=_utcnow(), newest_cited_at=max(times.values()), seat=seat.name))
    return {"id": memory_id, "conversation_id": chat.id, "version": version,
            "token_count": approx_tokens(masker(seat)(text)), "cites": cites}


def pause_memory(store: Store, seat: Seat, conversation_id: str, paused: bool = True) -> PauseMemoryResult:
    """Pause (or resume) memory for one conversation: context calls then report `paused`."""
    require_write(seat, "pause memory")
    conversation_id = check_id(conversation_id, "conversation_id")
    paused = check_bool(paused, "paused")
    with store.writer() as w:
        chat = w.chat(seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        w.set_memory_paused(chat.id, paused)
    return {"conversation_id": chat.id, "paused": paused}
