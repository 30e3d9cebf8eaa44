"""Writes that do not come from an import: agent sessions and their turns, saved memories,
memory pauses, and people administration (merge, split, rename).

`with store.writer() as w:` gives a `Writer` (a `Reader` too, so checks read inside the same
transaction). Rows are built and digested as the ingest path builds them, and every change the
index shows is stamped with one new ingest `seq` for the transaction; when the transaction has
committed, the index catches up, exactly as after an import.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from chatmem import records as rec

from . import models as m
from .db import next_seq
from .ingest import message_digest, message_row, to_utc_naive
from .people import People, merge, rename, split
from .reads import Reader
from .windows import MonthCounts

if TYPE_CHECKING:
    from .store import Store

AGENT = "agent"


class Writer(Reader):
    """Writes inside one transaction; obtained from `Store.writer()`."""

    def __init__(self, store: Store, conn: Connection):
        super().__init__(store, conn)
        self._seq: int | None = None
        self._people: People | None = None

    @property
    def seq(self) -> int:
        """This transaction's ingest sequence number, taken on first use."""
        if self._seq is None:
            self._seq = next_seq(self.conn)
        return self._seq

    @property
    def changed_index(self) -> bool:
        return self._seq is not None

    # ------------------------------------------------------------------ agent sessions
    def add_session(self, chat: rec.Chat) -> None:
        """A new agent session (a chat of platform `agent` with no messages yet)."""
        self.conn.execute(m.Chat.__table__.insert().values(
            id=chat.id, platform=chat.platform, key=chat.key, name=chat.name, is_group=chat.group,
            participants=list(chat.participants), handles=list(chat.handles), message_count=0,
            memory_paused=bool(chat.memory_paused), created_at=to_utc_naive(chat.created_at),
            seq=self.seq))

    def next_turn_number(self, chat_id: str) -> int:
        mt = m.Message.__table__
        return (self.conn.execute(select(func.max(mt.c.ordinal)).where(mt.c.chat_id == chat_id)).scalar() or 0) + 1

    def add_turn(self, turn: rec.Message, number: int) -> None:
        """One logged turn (a message of an agent session, at position `number`)."""
        mt, t = m.Message.__table__, m.Chat.__table__
        self.conn.execute(mt.insert().values(
            message_row(turn, message_digest(turn), self.seq, number, None, None)))
        sent = to_utc_naive(turn.sent_at)
        assert sent is not None  # (a turn always has its time)
        months = MonthCounts()
        months.add(turn.chat_id, sent)
        months.write(self.conn)
        self.conn.execute(t.update().where(t.c.id == turn.chat_id).values(
            message_count=t.c.message_count + 1, first_at=func.coalesce(t.c.first_at, sent), last_at=sent))

    # ------------------------------------------------------------------ memories
    def add_memory(self, memory: rec.SavedMemory) -> None:
        """A new memory version (memories are not in the index: no seq)."""
        self.conn.execute(m.Memory.__table__.insert().values(
            id=memory.id, chat_id=memory.chat_id, version=memory.version, text=memory.text,
            cites=list(memory.cites), created_at=to_utc_naive(memory.created_at),
            newest_cited_at=to_utc_naive(memory.newest_cited_at), seat=memory.seat))

    def next_memory_version(self, chat_id: str) -> int:
        t = m.Memory.__table__
        return (self.conn.execute(select(func.max(t.c.version)).where(t.c.chat_id == chat_id)).scalar() or 0) + 1

    def set_memory_paused(self, chat_id: str, paused: bool) -> None:
        t = m.Chat.__table__
        self.conn.execute(t.update().where(t.c.id == chat_id).values(memory_paused=paused))

    # ------------------------------------------------------------------ people
    def _people_resolver(self) -> People:
        if self._people is None:
            cfg = self.store.config
            self._people = People(self.conn, self.seq, cfg.region, cfg.owner_names, cfg.owner_handles)
        return self._people

    def merge_people(self, person: str, other: str) -> str:
        """`other` becomes part of `person` (names, handles or ids); returns the person id."""
        return merge(self.conn, self._people_resolver(), person, other)

    def split_person(self, person: str, handle: str, name: str | None = None) -> str:
        """One handle of `person` becomes a person of its own; returns the new person's id."""
        return split(self.conn, self._people_resolver(), person, handle, name)

    def rename_person(self, person: str, name: str) -> str:
        return rename(self.conn, self._people_resolver(), person, name)


def turn_raw(chat_id: str, number: int, role: str, content: str, refs: list[str], when: datetime) -> str:
    """A logged turn's raw record, as read_raw_data shows it."""
    return json.dumps({"conversation_id": chat_id, "turnNumber": number, "role": role, "content": content,
                       "refs": refs, "timestamp": when.isoformat() + "Z"}, ensure_ascii=False, indent=1)


__all__ = ["AGENT", "Writer", "turn_raw"]
