"""Forgetting: a chat, or everything one source brought, removed from the database and the
index in one transaction.

What is forgotten stays gone on `chatmem sync`: a forgotten chat's id is kept in the meta
table and `sync` leaves that chat out when it reads its source again; `chatmem import` of the
source (on purpose) brings it back. A forgotten source is no longer known, so `sync` never
reads it; importing it again brings it back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import delete, func, select, update
from sqlalchemy.engine import Connection

from . import models as m
from .windows import recount_months

FORGOTTEN_KEY = "forgotten_chats"


@dataclass
class Forgotten:
    chats: list[str] = field(default_factory=list)
    messages: int = 0
    calls: int = 0
    record_ids: list[str] = field(default_factory=list)  # for the index


def forgotten_chats(conn: Connection) -> set[str]:
    t = m.Meta.__table__
    value = conn.execute(select(t.c.value).where(t.c.key == FORGOTTEN_KEY)).scalar()
    return set(json.loads(value)) if value else set()


def _save_forgotten(conn: Connection, chats: set[str]) -> None:
    t = m.Meta.__table__
    conn.execute(delete(t).where(t.c.key == FORGOTTEN_KEY))
    if chats:
        conn.execute(t.insert().values(key=FORGOTTEN_KEY, value=json.dumps(sorted(chats))))


def remember_again(conn: Connection, chat_ids: Iterable[str]) -> None:
    """An import on purpose brought these chats back: `sync` keeps them from now on."""
    known = forgotten_chats(conn)
    left = known - set(chat_ids)
    if left != known:
        _save_forgotten(conn, left)


def _delete_messages(conn: Connection, where, out: Forgotten) -> None:
    mt = m.Message.__table__
    rows = conn.execute(select(mt.c.id, mt.c.chat_id).where(where)).all()
    ids = [r.id for r in rows]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for table, column in ((m.MessageVersion, "message_id"), (m.Reaction, "message_id"),
                              (m.Attachment, "message_id"), (m.MessageAlias, "message_id"),
                              (m.RecordSource, "record_id")):
            t = table.__table__
            conn.execute(delete(t).where(t.c[column].in_(chunk)))
        conn.execute(delete(mt).where(mt.c.id.in_(chunk)))
    recount_months(conn, {r.chat_id for r in rows})  # what is left of each chat, per month
    out.messages += len(ids)
    out.record_ids += ids


def _delete_calls(conn: Connection, where, out: Forgotten) -> None:
    ct = m.Call.__table__
    ids = list(conn.execute(select(ct.c.id).where(where)).scalars())
    for start in range(0, len(ids), 500):  # a call's aliases and other sources (store/reconcile.py)
        chunk = ids[start:start + 500]
        for table, column in ((m.MessageAlias, "message_id"), (m.RecordSource, "record_id")):
            t = table.__table__
            conn.execute(delete(t).where(t.c[column].in_(chunk)))
    conn.execute(delete(ct).where(ct.c.id.in_(ids)))
    out.calls += len(ids)
    out.record_ids += ids


def _delete_chat(conn: Connection, chat_id: str, out: Forgotten) -> None:
    for table in (m.Memory, m.Unparsed, m.ChatAlias):
        t = table.__table__
        conn.execute(delete(t).where(t.c.chat_id == chat_id))
    ch = m.Chat.__table__
    conn.execute(delete(ch).where(ch.c.id == chat_id))
    out.chats.append(chat_id)


def forget_chat(conn: Connection, chat_id: str) -> Forgotten:
    """Remove one chat with everything in it; `sync` leaves it out from now on."""
    out = Forgotten()
    mt, ct, rt, st = (m.Message.__table__, m.Call.__table__, m.ImportRun.__table__,
                      m.Source.__table__)
    # the sources that brought it are read again by the next import on purpose
    runs = select(mt.c.run_id).where(mt.c.chat_id == chat_id).union(
        select(ct.c.run_id).where(ct.c.chat_id == chat_id))
    sources = select(rt.c.source_id).where(rt.c.id.in_(runs))
    conn.execute(update(st).where(st.c.id.in_(sources)).values(fingerprint=None))
    _delete_messages(conn, mt.c.chat_id == chat_id, out)
    _delete_calls(conn, ct.c.chat_id == chat_id, out)
    _delete_chat(conn, chat_id, out)
    _save_forgotten(conn, forgotten_chats(conn) | {chat_id})
    return out


def forget_source(conn: Connection, source_id: int) -> Forgotten:
    """Remove what one source brought (messages and calls its imports added, and the chats
    left empty), and the source itself: `sync` no longer knows it."""
    out = Forgotten()
    mt, ct, rt, st, ch = (m.Message.__table__, m.Call.__table__, m.ImportRun.__table__,
                          m.Source.__table__, m.Chat.__table__)
    runs = select(rt.c.id).where(rt.c.source_id == source_id)
    chats = set(conn.execute(select(mt.c.chat_id).where(mt.c.run_id.in_(runs))).scalars())
    chats |= set(conn.execute(select(ct.c.chat_id).where(ct.c.run_id.in_(runs))).scalars())
    _delete_messages(conn, mt.c.run_id.in_(runs), out)
    _delete_calls(conn, ct.c.run_id.in_(runs), out)
    for chat_id in sorted(chats):
        left = conn.execute(select(func.count()).select_from(mt).where(mt.c.chat_id == chat_id)).scalar()
        calls = conn.execute(select(func.count()).select_from(ct).where(ct.c.chat_id == chat_id)).scalar()
        if not left and not calls:
            _delete_chat(conn, chat_id, out)
        else:  # a chat other sources share keeps their messages: its count follows
            conn.execute(update(ch).where(ch.c.id == chat_id).values(message_count=left))
    conn.execute(delete(st).where(st.c.id == source_id))
    return out
