"""get_context: the messages around one message, by position in its chat (not a time window).

Position is the chat's order `(sent_at, ordinal, id)`; the store's `Reader.neighbours` fetches
the messages before and after the hit with two bounded queries.
"""

from __future__ import annotations

from chatmem.config import Seat
from chatmem.errors import NotFound
from chatmem.store import Store

from .lookup import call_record, check_id, check_int
from .records import message_record
from .secrets import masker
from .types import ContextMessage, ContextResult


def get_context(store: Store, seat: Seat, memory_id: str, before: int = 5, after: int = 5) -> ContextResult:
    """The hit and up to `before` / `after` messages around it in its chat, oldest first.

    A call id works too: the call is the hit, placed among the messages by its start time.
    """
    memory_id = check_id(memory_id, "memory_id")
    before = check_int(before, "before", 0, 50)
    after = check_int(after, "after", 0, 50)
    tz = store.config.timezone
    with store.reader() as r:
        names = r.names()
        mask = masker(seat)
        found = r.message(seat, memory_id)
        if found is not None:
            row, chat = found
            hit = message_record(row, chat, tz, names, r.message_extras([row])[row.id], mask)
            # calls sort before messages of the same instant: (sent_at, ordinal, id) of the hit
            key = (row.sent_at, row.ordinal, row.id)
        else:
            found_call = r.call(seat, memory_id)
            if found_call is None:
                raise NotFound(f"no message with id {memory_id!r} (use an id from search_memory)")
            row, chat = found_call
            hit = call_record(row, chat, tz, names)
            key = (row.started_at, -1, "")
        older, newer = r.neighbours(row.chat_id, *key, before=before, after=after)
        extras = r.message_extras([*older, *newer])
    messages: list[ContextMessage] = []
    for other in reversed(older):
        messages.append({**message_record(other, chat, tz, names, extras[other.id], mask), "hit": False})
    messages.append({**hit, "hit": True})
    for other in newer:
        messages.append({**message_record(other, chat, tz, names, extras[other.id], mask), "hit": False})
    for m in messages:
        m["content"] = mask(m["content"])
    return {"messages": messages}
