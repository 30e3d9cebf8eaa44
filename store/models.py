"""The normalized schema (SQLAlchemy 2.x declarative).

Times are stored as naive UTC datetimes (the same on SQLite and PostgreSQL). Every message and
call carries `seq`, the number of the ingest that last changed it: the Whoosh index remembers the
highest `seq` it has applied, so an index behind the database is noticed and caught up.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .quick import SCHEMA_VERSION  # noqa: F401 (kept there: told without loading SQLAlchemy)


class Base(DeclarativeBase):
    if TYPE_CHECKING:  # every model here is mapped to a table (not a join or a select)
        __table__: ClassVar[Table]


class Meta(Base):
    """Key/value facts about the store: schema version, ingest sequence."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class Person(Base):
    """One human, possibly with handles on several platforms. The owner is id `me`."""

    __tablename__ = "people"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    # set when a user merged/split/renamed by hand, so automatic matching never undoes it
    manual: Mapped[bool] = mapped_column(Boolean, default=False)
    from_contact: Mapped[bool] = mapped_column(Boolean, default=False)  # name from an address book


class Handle(Base):
    """A way a person appears: phone number, e-mail, service id or display name, the same
    on every platform (a phone number reaches the same person on iMessage and WhatsApp)."""

    __tablename__ = "handles"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))  # phone | email | name | service
    value: Mapped[str] = mapped_column(Text)  # normalized: E.164, lower-case e-mail, folded name
    display: Mapped[str | None] = mapped_column(Text)  # as first seen
    person_id: Mapped[str] = mapped_column(String(32), index=True)
    source: Mapped[str] = mapped_column(String(16), default="seen")  # seen | contact | manual
    __table_args__ = (UniqueConstraint("kind", "value", name="uq_handle"),)


class Chat(Base):
    __tablename__ = "chats"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # s_...
    platform: Mapped[str] = mapped_column(String(16), index=True)
    key: Mapped[str] = mapped_column(Text)  # natural key in the platform
    name: Mapped[str] = mapped_column(Text)
    is_group: Mapped[bool] = mapped_column(Boolean, default=False)
    participants: Mapped[list] = mapped_column(JSON, default=list)
    handles: Mapped[list] = mapped_column(JSON, default=list)
    message_count: Mapped[int] = mapped_column(Integer, default=0)
    first_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    memory_paused: Mapped[bool] = mapped_column(Boolean, default=False)
    person_id: Mapped[str | None] = mapped_column(String(32), index=True)  # the other person, 1:1
    created_at: Mapped[datetime | None] = mapped_column(DateTime)  # agent sessions
    seq: Mapped[int] = mapped_column(Integer, default=0)


class Message(Base):
    __tablename__ = "messages"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # m_... / t_...
    seq: Mapped[int] = mapped_column(Integer, index=True)
    chat_id: Mapped[str] = mapped_column(ForeignKey("chats.id"))
    platform: Mapped[str] = mapped_column(String(16))
    sent_at: Mapped[datetime] = mapped_column(DateTime)
    ordinal: Mapped[int] = mapped_column(Integer, default=0)  # order within the same instant
    sender: Mapped[str] = mapped_column(Text)
    sender_handle: Mapped[str | None] = mapped_column(Text)
    person_id: Mapped[str | None] = mapped_column(String(32), index=True)  # who `sender` is
    text: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(8), default="text")
    guid: Mapped[str | None] = mapped_column(Text)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    edited: Mapped[bool] = mapped_column(Boolean, default=False)
    reply_to: Mapped[str | None] = mapped_column(String(32), index=True)
    extra: Mapped[dict] = mapped_column(JSON, default=dict)
    raw: Mapped[str] = mapped_column(Text, default="")
    digest: Mapped[str] = mapped_column(String(32))  # what the source said, to spot changes
    role: Mapped[str | None] = mapped_column(String(16))  # agent turns: user/assistant/system
    run_id: Mapped[int | None] = mapped_column(Integer)  # the import that added it
    __table_args__ = (Index("ix_messages_chat_time", "chat_id", "sent_at", "ordinal"),)


class MessageMonth(Base):
    """How many messages a chat has per month of `sent_at` (UTC, "YYYY-MM"), kept by every
    path that adds, moves or removes messages (store/windows.py), so that a position deep in a chat is counted from
    a hundred rows and a month of the index instead of along the whole chat."""

    __tablename__ = "message_months"
    chat_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, default=0)


class MessageAlias(Base):
    """Another id that means this message (a content-keyed tombstone or edited copy that was
    reconciled onto the message an earlier import had)."""

    __tablename__ = "message_aliases"
    alias: Mapped[str] = mapped_column(String(32), primary_key=True)
    message_id: Mapped[str] = mapped_column(String(32), index=True)


class ChatAlias(Base):
    """Another chat id that means this chat: the same conversation as another reader keys it
    (store/reconcile.py)."""

    __tablename__ = "chat_aliases"
    alias: Mapped[str] = mapped_column(String(32), primary_key=True)
    chat_id: Mapped[str] = mapped_column(String(32), index=True)
    key: Mapped[str] = mapped_column(Text, default="")  # the alias's natural key, for people


class RecordSource(Base):
    """A further source of a message or call: its id, digest and raw text there. The first
    source is the record's own import run; these rows exist only for merged records."""

    __tablename__ = "record_sources"
    record_id: Mapped[str] = mapped_column(String(32), primary_key=True)  # the stored record
    origin: Mapped[str] = mapped_column(Text, primary_key=True)  # the source's path
    source_id: Mapped[str] = mapped_column(String(32))  # the id that source gives it
    digest: Mapped[str] = mapped_column(String(32))
    raw: Mapped[str] = mapped_column(Text, default="")
    run_id: Mapped[int | None] = mapped_column(Integer)


class MessageVersion(Base):
    """An earlier text of a message: from the source's edit history, or text an earlier import
    had before the message was edited or deleted."""

    __tablename__ = "message_versions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(32), index=True)
    position: Mapped[int] = mapped_column(Integer)  # 0 = oldest
    text: Mapped[str] = mapped_column(Text)
    timestamp: Mapped[datetime | None] = mapped_column(DateTime)
    origin: Mapped[str] = mapped_column(String(16), default="source")  # source | earlier-import


class Reaction(Base):
    __tablename__ = "reactions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(32), index=True)
    sender: Mapped[str] = mapped_column(Text)
    emoji: Mapped[str] = mapped_column(Text)
    timestamp: Mapped[datetime | None] = mapped_column(DateTime)
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    __table_args__ = (UniqueConstraint("message_id", "sender", "emoji", name="uq_reaction"),)


class Attachment(Base):
    __tablename__ = "attachments"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # a_...
    message_id: Mapped[str] = mapped_column(String(32), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    name: Mapped[str | None] = mapped_column(Text)
    mime_type: Mapped[str | None] = mapped_column(Text)
    size: Mapped[int | None] = mapped_column(Integer)
    path: Mapped[str | None] = mapped_column(Text)  # locator: see chatmem.store.media
    guid: Mapped[str | None] = mapped_column(Text)
    present: Mapped[bool | None] = mapped_column(Boolean)  # found at import time
    key: Mapped[str | None] = mapped_column(Text)  # decryption key (Signal Desktop), never shown
    text: Mapped[str | None] = mapped_column(Text)  # caption, transcript, title, link preview
    copied: Mapped[str | None] = mapped_column(Text)  # file name in the store's media/ folder


class Call(Base):
    __tablename__ = "calls"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # c_...
    seq: Mapped[int] = mapped_column(Integer, index=True)
    chat_id: Mapped[str] = mapped_column(ForeignKey("chats.id"), index=True)
    platform: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(DateTime)
    direction: Mapped[str] = mapped_column(String(10))
    media: Mapped[str] = mapped_column(String(8), default="voice")
    duration: Mapped[int | None] = mapped_column(Integer)
    answered: Mapped[bool | None] = mapped_column(Boolean)
    peer: Mapped[str | None] = mapped_column(Text)
    summary: Mapped[str | None] = mapped_column(Text)
    transcript: Mapped[str | None] = mapped_column(Text)
    raw: Mapped[str] = mapped_column(Text, default="")
    digest: Mapped[str] = mapped_column(String(32))
    run_id: Mapped[int | None] = mapped_column(Integer)
    # a chat's calls in chat order: a window or an offset reads the few calls it needs along
    # this index (added after schema 3: `db.ensure_indexes` creates it in older stores)
    __table_args__ = (Index("ix_calls_chat_time", "chat_id", "started_at", "id"),)


class Source(Base):
    """An export the user imported: `chatmem sync` re-imports the ones that changed."""

    __tablename__ = "sources"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    path: Mapped[str] = mapped_column(Text, unique=True)
    platform: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    fingerprint: Mapped[str | None] = mapped_column(Text)
    state: Mapped[dict] = mapped_column(JSON, default=dict)  # importer's watermark etc.
    last_run_id: Mapped[int | None] = mapped_column(Integer)
    imported_at: Mapped[datetime | None] = mapped_column(DateTime)


class ImportRun(Base):
    __tablename__ = "import_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source_id: Mapped[int | None] = mapped_column(Integer, index=True)
    path: Mapped[str] = mapped_column(Text)
    platform: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16))  # ok | skipped | failed
    report: Mapped[dict] = mapped_column(JSON, default=dict)


class Unparsed(Base):
    """A line or row an importer could not parse, kept as raw text."""

    __tablename__ = "unparsed"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(Integer, index=True)
    source_path: Mapped[str] = mapped_column(Text)
    where: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text, default="")
    chat_id: Mapped[str | None] = mapped_column(String(32))


class Memory(Base):
    """One version of a conversation's memory (a summary an assistant saved)."""

    __tablename__ = "memories"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    chat_id: Mapped[str] = mapped_column(String(32), index=True)
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    cites: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    newest_cited_at: Mapped[datetime | None] = mapped_column(DateTime)
    seat: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (UniqueConstraint("chat_id", "version", name="uq_memory_version"),)
