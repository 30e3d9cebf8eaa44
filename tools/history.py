"""Conversation history as turns, and agent sessions (logged turns).

For an imported chat, people's messages are `user` turns with content `sender: text`, group
events and calls are `system` turns. An agent session is a chat with platform `agent`; its
turns are messages with a `role`, `t_` ids and their refs in `extra`, written in one
transaction with a new ingest `seq` so the index picks them up: searchable like any message.
"""

from __future__ import annotations

import heapq
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, Literal

from chatmem import records as rec
from chatmem.config import Seat
from chatmem.errors import ArgumentError, NotFound, PermissionDenied
from chatmem.store import Store
from chatmem.store.writes import AGENT, turn_raw

from .lookup import call_record, check_id, check_int, check_text
from .memory import require_write
from .records import message_record, shown_sender, timestamp_fields
from .secrets import masker
from .types import HistoryResult, LogTurnResult, StartConversationResult, Turn

Role = Literal["user", "assistant", "system"]
ROLES: tuple[Role, ...] = ("user", "assistant", "system")
MAX_TURN_CHARS = 100_000
MAX_SUBJECT_CHARS = 200
MAX_REFS = 50


def _utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def is_expired(chat: Any, retention_days: int, now: datetime | None = None) -> bool:
    """An agent session expires `retention_days` after it started; imported chats never do."""
    if chat.platform != AGENT or chat.created_at is None:
        return False
    return (now or _utcnow()) - chat.created_at > timedelta(days=retention_days)


MAX_OFFSET = 100_000


def get_conversation_history(store: Store, seat: Seat, conversation_id: str, max_turns: int = 10,
                             offset: int = 0) -> HistoryResult:
    """The most recent `max_turns` turns after skipping the `offset` newest, oldest first;
    unknown ids give no turns."""
    conversation_id = check_id(conversation_id, "conversation_id")
    max_turns = check_int(max_turns, "max_turns", 1, 50)
    offset = check_int(offset, "offset", 0, MAX_OFFSET)
    tz = store.config.timezone
    with store.reader() as r:
        names = r.names()
        chat = r.chat(seat, conversation_id, include_expired=True)
        if chat is None:
            return {"turns": [], "totalTurns": 0, "subject": None, "isExpired": False}
        n_messages, n_calls = r.count_messages(chat), r.count_calls(chat.id)
        total = n_messages + n_calls
        if is_expired(chat, store.config.retention_days):
            return {"turns": [], "totalTurns": total, "subject": chat.name, "isExpired": True}
        # calls and messages interleave: how many of the `offset` newest turns are calls says
        # where the window starts in each, and each is read from there along its index
        skipped_calls = r.calls_among_newest(chat.id, offset) if n_calls and offset else 0
        messages = r.latest_messages(chat.id, max_turns, offset - skipped_calls)
        calls = r.latest_calls(chat.id, max_turns, skipped_calls) if n_calls else []
        extras = r.message_extras(messages) if chat.platform != AGENT else {}
    newest = heapq.merge(((r.sent_at, 1, r.ordinal, r.id, "message", r) for r in messages),
                         ((r.started_at, 0, 0, r.id, "call", r) for r in calls),
                         key=lambda e: e[:4], reverse=True)
    picked = [e for _, e in zip(range(max_turns), newest)]
    mask = masker(seat)
    turns = []
    for position, (_, _, _, _, kind, row) in enumerate(reversed(picked)):
        turn = _call_turn(row, chat, tz, names) if kind == "call" else _message_turn(row, chat, tz, names, extras.get(row.id))
        turn["turnNumber"] = total - offset - len(picked) + position + 1
        turn["content"] = mask(turn["content"])
        turns.append(turn)
    return {"turns": turns, "totalTurns": total, "subject": chat.name, "isExpired": False}


def _message_turn(row: Any, chat: Any, tz: tzinfo, names: Mapping[str, str] | None = None,
                  extras: Any = None) -> Turn:
    extra = row.extra or {}
    if chat.platform == AGENT:
        role: Role = row.role if row.role in ROLES else "user"
        content = row.text or ""
        refs = [str(r) for r in extra.get("refs", [])]
    else:
        role = "system" if row.kind == "system" else "user"
        # deleted, media and replies say so, as in every other tool
        content = message_record(row, chat, tz, names, extras)["content"]
        refs = [row.id] + ([row.reply_to] if row.reply_to else [])
    return {"turnNumber": 0, "role": role, "content": content,
            "timestamp": timestamp_fields(row.sent_at, tz)["timestamp"], "sender": shown_sender(row, names),
            "refs": refs}


def _call_turn(row: Any, chat: Any, tz: tzinfo, names: Mapping[str, str] | None = None) -> Turn:
    record = call_record(row, chat, tz, names)
    return {"turnNumber": 0, "role": "system", "content": record["content"], "timestamp": record["timestamp"],
            "sender": row.peer or "", "refs": [row.id]}


def history_to_messages(turns: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Turns as `{role, content}` messages for a model call, system turns dropped.

    [{"role": "system", ...}, {"role": "user", "content": "hi", ...}] -> [{"role": "user", "content": "hi"}]
    """
    return [{"role": t["role"], "content": t["content"]} for t in turns if t.get("role") != "system"]


# ---------------------------------------------------------------------- agent sessions (writes)


def _check_seat_sees_sessions(seat: Seat) -> None:
    if (seat.platforms and AGENT not in seat.platforms) or seat.include_chats:
        raise PermissionDenied(f"seat {seat.name!r} cannot read agent sessions (its scope leaves out "
                               f"platform {AGENT!r}), so it may not start one")


def start_conversation(store: Store, seat: Seat, subject: str | None = None) -> StartConversationResult:
    """A new agent session; returns its `conversation_id`."""
    require_write(seat, "start_conversation")
    _check_seat_sees_sessions(seat)
    subject = check_text(subject, "subject", MAX_SUBJECT_CHARS, optional=True)
    subject = subject.strip() if subject and subject.strip() else None
    now = _utcnow()
    key = uuid.uuid4().hex
    session = rec.Chat(platform=AGENT, key=key, name=subject or f"Agent session {now:%Y-%m-%d %H:%M} UTC",
                       created_at=now)
    conversation_id = session.id
    with store.writer() as w:
        w.add_session(session)
    return {"conversation_id": conversation_id, "subject": subject}


def _check_refs(refs: Any) -> list[str]:
    if refs is None:
        return []
    if not isinstance(refs, list) or not all(isinstance(r, str) and 0 < len(r) <= 64 for r in refs):
        raise ArgumentError(f"refs must be a list of up to {MAX_REFS} ids (strings of 1 to 64 characters)")
    if len(refs) > MAX_REFS:
        raise ArgumentError(f"refs must have at most {MAX_REFS} ids; got {len(refs)}")
    return list(refs)


def log_conversation_turn(store: Store, seat: Seat, conversation_id: str, role: str, content: str,
                          refs: list[str] | None = None) -> LogTurnResult:
    """Append one turn to an agent session; returns its `turnNumber` and `t_` id."""
    require_write(seat, "log_conversation_turn")
    conversation_id = check_id(conversation_id, "conversation_id")
    if role not in ROLES:
        raise ArgumentError(f"role must be one of {', '.join(ROLES)}; got {role!r}")
    content = check_text(content, "content", MAX_TURN_CHARS)
    refs = _check_refs(refs)
    if refs:
        with store.reader() as r:
            unknown = r.unknown_ids(seat, refs)
        if unknown:
            raise ArgumentError(f"refs must be ids of records this seat can read (from search_memory, "
                                f"list_chats or read_raw_data); unknown: {', '.join(unknown[:10])}")
    with store.writer() as w:
        chat = w.chat(seat, conversation_id, include_expired=True)
        if chat is None or chat.platform != AGENT:
            raise NotFound(f"no agent session with id {conversation_id!r} (start_conversation gives one)")
        if is_expired(chat, store.config.retention_days):
            raise ArgumentError(f"conversation_id {conversation_id!r} expired after "
                                f"{store.config.retention_days} days; start a new session")
        turn = w.next_turn_number(chat.id)
        now = _utcnow()
        turn_id = rec.stable_id("t", chat.id, turn)
        w.add_turn(rec.Message(
            id=turn_id, platform=AGENT, chat_id=chat.id, sent_at=now, sender=role, text=content,
            kind="system" if role == "system" else "text", extra={"refs": refs, "role": role},
            raw=turn_raw(chat.id, turn, role, content, refs, now)), turn)
    return {"conversation_id": chat.id, "turnNumber": turn, "id": turn_id}
