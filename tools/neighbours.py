"""get_context: the messages around one message, by position in its chat (not a time window).

Position is the chat's order `(sent_at, ordinal, id)`; two bounded queries on the
`(chat_id, sent_at, ordinal)` index fetch the neighbours before and after the hit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_, select

from chatmem.config import Seat
from chatmem.errors import NotFound
from chatmem.store import Store
from chatmem.store.models import Message

from .lookup import call_record, check_id, check_int, readable_call, readable_message
from .records import message_record
from .secrets import masker


def _before(mt, sent_at, ordinal, msg_id):
    """Rows strictly before (sent_at, ordinal, id) in chat order."""
    # the plain range on sent_at lets the index bound the scan; the OR breaks ties
    return and_(mt.c.sent_at <= sent_at,
                or_(mt.c.sent_at < sent_at,
                    and_(mt.c.sent_at == sent_at, or_(mt.c.ordinal < ordinal,
                                                       and_(mt.c.ordinal == ordinal, mt.c.id < msg_id)))))


def _after(mt, sent_at, ordinal, msg_id):
    return and_(mt.c.sent_at >= sent_at,
                or_(mt.c.sent_at > sent_at,
                    and_(mt.c.sent_at == sent_at, or_(mt.c.ordinal > ordinal,
                                                       and_(mt.c.ordinal == ordinal, mt.c.id > msg_id)))))


def get_context(store: Store, seat: Seat, memory_id: str, before: int = 5, after: int = 5) -> dict[str, Any]:
    """The hit and up to `before` / `after` messages around it in its chat, oldest first.

    A call id works too: the call is the hit, placed among the messages by its start time.
    """
    memory_id = check_id(memory_id, "memory_id")
    before = check_int(before, "before", 0, 50)
    after = check_int(after, "after", 0, 50)
    tz = store.config.timezone
    mt = Message.__table__
    with store.read() as conn:
        names = store.display_names(conn)
        found = readable_message(conn, seat, memory_id)
        if found is not None:
            row, chat = found
            hit = message_record(row, chat, tz, names)
            # calls sort before messages of the same instant: (sent_at, ordinal, id) of the hit
            key = (row.sent_at, row.ordinal, row.id)
        else:
            found_call = readable_call(conn, seat, memory_id)
            if found_call is None:
                raise NotFound(f"no message with id {memory_id!r} (use an id from search_memory)")
            row, chat = found_call
            hit = call_record(row, chat, tz, names)
            key = (row.started_at, -1, "")
        chat_id = row.chat_id
        older = conn.execute(select(mt).where(mt.c.chat_id == chat_id, _before(mt, *key))
                             .order_by(mt.c.sent_at.desc(), mt.c.ordinal.desc(), mt.c.id.desc())
                             .limit(before)).all() if before else []
        newer = conn.execute(select(mt).where(mt.c.chat_id == chat_id, _after(mt, *key))
                             .order_by(mt.c.sent_at, mt.c.ordinal, mt.c.id)
                             .limit(after)).all() if after else []
    mask = masker(seat)
    messages = []
    for r in reversed(older):
        messages.append({**message_record(r, chat, tz, names), "hit": False})
    messages.append({**hit, "hit": True})
    for r in newer:
        messages.append({**message_record(r, chat, tz, names), "hit": False})
    for m in messages:
        m["content"] = mask(m["content"])
    return {"messages": messages}
