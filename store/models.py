"""The normalized schema (SQLAlchemy Core tables).

Times are stored as naive UTC datetimes (the same on SQLite and PostgreSQL). Every message and
call carries `seq`, the number of the ingest that last changed it: the Whoosh index remembers the
highest `seq` it has applied, so an index behind the database is noticed and caught up.

Each class below names one table: `Message.__table__` is the table and `Message.sent_at` its
column, as SQLAlchemy's declarative classes would give them. They are plain Core tables (the
store reads and writes through Core only), so opening a store never loads SQLAlchemy's ORM: about
a tenth of a second off every command's start.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from .quick import SCHEMA_VERSION  # noqa: F401 (kept there: told without loading SQLAlchemy)


class Base:
    """What every table class has: the shared MetaData, its table and the table's name."""

    metadata: ClassVar[MetaData] = MetaData()
    __tablename__: ClassVar[str]
    __table__: ClassVar[Table]
    __table_args__: ClassVar[tuple[Any, ...]] = ()

    @classmethod
    def __clause_element__(cls) -> Table:
        """The table wherever SQLAlchemy takes one (`select_from(Message)`, `update(Chat)`)."""
        return cls.__table__


T = TypeVar("T", bound=type[Base])


def table(cls: T) -> T:
    """Make `cls.__table__` from the columns of its body, each named by its attribute (in the
    body's order), and `__table_args__` (indexes and constraints over several columns)."""
    columns = []
    for name, value in vars(cls).items():
        if isinstance(value, Column):
            value.name = value.key = name
            columns.append(value)
    cls.__table__ = Table(cls.__tablename__, Base.metadata, *columns, *cls.__table_args__)
    return cls


@table
class Meta(Base):
    """Key/value facts about the store: schema version, ingest sequence."""

    __tablename__ = "meta"
    key: Column[str] = Column(String(64), primary_key=True)
    value: Column[str] = Column(Text, nullable=False)


@table
class Person(Base):
    """One human, possibly with handles on several platforms. The owner is id `me`."""

    __tablename__ = "people"
    id = Column(String(32), primary_key=True)
    name = Column(Text, nullable=False)
    # set when a user merged/split/renamed by hand, so automatic matching never undoes it
    manual = Column(Boolean, default=False, nullable=False)
    from_contact = Column(Boolean, default=False, nullable=False)  # name from an address book


@table
class Handle(Base):
    """A way a person appears: phone number, e-mail, service id or display name, the same
    on every platform (a phone number reaches the same person on iMessage and WhatsApp)."""

    __tablename__ = "handles"
    id = Column(Integer, primary_key=True, autoincrement=True)
    kind = Column(String(8), nullable=False)  # phone | email | name | service
    value: Column[str] = Column(Text, nullable=False)  # normalized: E.164, lower-case e-mail, folded name
    display = Column(Text)  # as first seen
    person_id = Column(String(32), index=True, nullable=False)
    source = Column(String(16), default="seen", nullable=False)  # seen | contact | manual
    __table_args__ = (UniqueConstraint("kind", "value", name="uq_handle"),)


@table
class Chat(Base):
    __tablename__ = "chats"
    id = Column(String(32), primary_key=True)  # s_...
    platform = Column(String(16), index=True, nullable=False)
    key = Column(Text, nullable=False)  # natural key in the platform
    name = Column(Text, nullable=False)
    is_group = Column(Boolean, default=False, nullable=False)
    participants = Column(JSON, default=list, nullable=False)
    handles = Column(JSON, default=list, nullable=False)
    message_count = Column(Integer, default=0, nullable=False)
    first_at = Column(DateTime)
    last_at = Column(DateTime, index=True)
    memory_paused = Column(Boolean, default=False, nullable=False)
    person_id = Column(String(32), index=True)  # the other person, 1:1
    created_at = Column(DateTime)  # agent sessions
    seq = Column(Integer, default=0, nullable=False)


@table
class Message(Base):
    __tablename__ = "messages"
    id = Column(String(32), primary_key=True)  # m_... / t_...
    seq = Column(Integer, index=True, nullable=False)
    chat_id: Column[str] = Column(ForeignKey("chats.id"), nullable=False)
    platform = Column(String(16), nullable=False)
    sent_at = Column(DateTime, nullable=False)
    ordinal = Column(Integer, default=0, nullable=False)  # order within the same instant
    sender = Column(Text, nullable=False)
    sender_handle = Column(Text)
    person_id = Column(String(32), index=True)  # who `sender` is
    text = Column(Text, default="", nullable=False)
    kind = Column(String(8), default="text", nullable=False)
    guid = Column(Text)
    deleted = Column(Boolean, default=False, nullable=False)
    edited = Column(Boolean, default=False, nullable=False)
    reply_to = Column(String(32), index=True)
    extra = Column(JSON, default=dict, nullable=False)
    raw = Column(Text, default="", nullable=False)
    digest = Column(String(32), nullable=False)  # what the source said, to spot changes
    role = Column(String(16))  # agent turns: user/assistant/system
    run_id = Column(Integer)  # the import that added it
    # (chat, seq): whether anything rewrote a chat's messages since an import, a range per chat
    # (store.py: _written_since; added after schema 3, made in older stores as they open)
    __table_args__ = (Index("ix_messages_chat_time", "chat_id", "sent_at", "ordinal"),
                      Index("ix_messages_chat_seq", "chat_id", "seq"))


@table
class MessageMonth(Base):
    """How many messages a chat has per month of `sent_at` (UTC, "YYYY-MM"), kept by every
    path that adds, moves or removes messages (store/windows.py), so that a position deep in a chat is counted from
    a hundred rows and a month of the index instead of along the whole chat."""

    __tablename__ = "message_months"
    chat_id = Column(String(32), primary_key=True)
    month = Column(String(7), primary_key=True)
    n = Column(Integer, default=0, nullable=False)


@table
class MessageAlias(Base):
    """Another id that means this message (a content-keyed tombstone or edited copy that was
    reconciled onto the message an earlier import had)."""

    __tablename__ = "message_aliases"
    alias = Column(String(32), primary_key=True)
    message_id = Column(String(32), index=True, nullable=False)


@table
class ChatAlias(Base):
    """Another chat id that means this chat: the same conversation as another reader keys it
    (store/reconcile.py)."""

    __tablename__ = "chat_aliases"
    alias = Column(String(32), primary_key=True)
    chat_id = Column(String(32), index=True, nullable=False)
    key = Column(Text, default="", nullable=False)  # the alias's natural key, for people


@table
class RecordSource(Base):
    """A further source of a message or call: its id, digest and raw text there. The first
    source is the record's own import run; these rows exist only for merged records."""

    __tablename__ = "record_sources"
    record_id = Column(String(32), primary_key=True)  # the stored record
    origin = Column(Text, primary_key=True)  # the source's path
    source_id = Column(String(32), nullable=False)  # the id that source gives it
    digest = Column(String(32), nullable=False)
    raw = Column(Text, default="", nullable=False)
    run_id = Column(Integer)


@table
class MessageVersion(Base):
    """An earlier text of a message: from the source's edit history, or text an earlier import
    had before the message was edited or deleted."""

    __tablename__ = "message_versions"
    id = Column(Integer, primary_key=True, autoincrement=True)
    message_id = Column(String(32), index=True, nullable=False)
    position = Column(Integer, nullable=False)  # 0 = oldest
    text = Column(Text, nullable=False)
    timestamp = Column(DateTime)
    origin = Column(String(16), default="source", nullable=False)  # source | earlier-import


@table
class Reaction(Base):
    __tablename__ = "reactions"
    id = Column(Integer, primary_key=True, autoincrement=True)
    message_id = Column(String(32), index=True, nullable=False)
    sender = Column(Text, nullable=False)
    emoji = Column(Text, nullable=False)
    timestamp = Column(DateTime)
    removed = Column(Boolean, default=False, nullable=False)
    __table_args__ = (UniqueConstraint("message_id", "sender", "emoji", name="uq_reaction"),)


@table
class Attachment(Base):
    __tablename__ = "attachments"
    id = Column(String(32), primary_key=True)  # a_...
    message_id = Column(String(32), index=True, nullable=False)
    position = Column(Integer, default=0, nullable=False)
    name = Column(Text)
    mime_type = Column(Text)
    size = Column(Integer)
    path = Column(Text)  # locator: see chatmem.store.media
    guid = Column(Text)
    present = Column(Boolean)  # found at import time
    key = Column(Text)  # decryption key (Signal Desktop), never shown
    text = Column(Text)  # caption, transcript, title, link preview
    copied = Column(Text)  # file name in the store's media/ folder


@table
class Call(Base):
    __tablename__ = "calls"
    id = Column(String(32), primary_key=True)  # c_...
    seq = Column(Integer, index=True, nullable=False)
    chat_id: Column[str] = Column(ForeignKey("chats.id"), index=True, nullable=False)
    platform = Column(String(16), nullable=False)
    started_at = Column(DateTime, nullable=False)
    direction = Column(String(10), nullable=False)
    media = Column(String(8), default="voice", nullable=False)
    duration = Column(Integer)
    answered = Column(Boolean)
    peer = Column(Text)
    summary = Column(Text)
    transcript = Column(Text)
    raw = Column(Text, default="", nullable=False)
    digest = Column(String(32), nullable=False)
    run_id = Column(Integer)
    # a chat's calls in chat order: a window or an offset reads the few calls it needs along
    # this index (added after schema 3: `db.ensure_indexes` creates it in older stores)
    __table_args__ = (Index("ix_calls_chat_time", "chat_id", "started_at", "id"),
                      Index("ix_calls_chat_seq", "chat_id", "seq"))


@table
class Source(Base):
    """An export the user imported: `chatmem sync` re-imports the ones that changed."""

    __tablename__ = "sources"
    id = Column(Integer, primary_key=True, autoincrement=True)
    path = Column(Text, unique=True, nullable=False)
    platform = Column(String(16), nullable=False)
    options = Column(JSON, default=dict, nullable=False)
    fingerprint = Column(Text)
    state = Column(JSON, default=dict, nullable=False)  # importer's watermark etc.
    last_run_id = Column(Integer)
    imported_at = Column(DateTime)


@table
class ImportRun(Base):
    __tablename__ = "import_runs"
    id = Column(Integer, primary_key=True, autoincrement=True)
    source_id = Column(Integer, index=True)
    path = Column(Text, nullable=False)
    platform = Column(String(16), nullable=False)
    started_at = Column(DateTime, nullable=False)
    finished_at = Column(DateTime)
    status = Column(String(16), nullable=False)  # ok | skipped | failed
    report = Column(JSON, default=dict, nullable=False)


@table
class Unparsed(Base):
    """A line or row an importer could not parse, kept as raw text."""

    __tablename__ = "unparsed"
    id = Column(Integer, primary_key=True, autoincrement=True)
    run_id = Column(Integer, index=True, nullable=False)
    source_path = Column(Text, nullable=False)
    where = Column(Text, nullable=False)
    line = Column(Integer)
    reason = Column(Text, nullable=False)
    text = Column(Text, default="", nullable=False)
    chat_id = Column(String(32))


@table
class Memory(Base):
    """One version of a conversation's memory (a summary an assistant saved)."""

    __tablename__ = "memories"
    id = Column(String(40), primary_key=True)
    chat_id = Column(String(32), index=True, nullable=False)
    version = Column(Integer, nullable=False)
    text = Column(Text, nullable=False)
    cites = Column(JSON, default=list, nullable=False)
    created_at = Column(DateTime, nullable=False)
    newest_cited_at = Column(DateTime)
    seat = Column(Text)
    __table_args__ = (UniqueConstraint("chat_id", "version", name="uq_memory_version"),)
