"""Rows as the tools show them: the normalized record of SPEC "The normalized record"."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone, tzinfo
from typing import Any

from chatmem.store.people import chat_name, sender_name

from .types import MessageRecord


def local(dt: datetime, tz: tzinfo) -> datetime:
    """A stored naive-UTC datetime in the owner's zone."""
    return dt.replace(tzinfo=timezone.utc).astimezone(tz)


def timestamp_fields(dt: datetime, tz: tzinfo) -> dict[str, str]:
    """`date` ("YYYY-MM-DD HH:MM", owner's zone) and `timestamp` (ISO 8601 with offset)."""
    when = local(dt, tz)
    return {"date": when.strftime("%Y-%m-%d %H:%M"), "timestamp": when.isoformat()}


def message_record(row: Any, chat: Any, tz: tzinfo, names: Mapping[str, str] | None = None) -> MessageRecord:
    """A message row (+ its chat row) as the dict every tool returns."""
    text = row.text or ""
    sender = sender_name(row, names)
    stamp = timestamp_fields(row.sent_at, tz)
    return {
        "id": row.id,
        "date": stamp["date"],
        "timestamp": stamp["timestamp"],
        "platform": row.platform,
        "chat": chat_name(chat, names),
        "group": bool(chat.is_group) if chat is not None else False,
        "sender": sender,
        "content": f"{sender}: {text}" if sender else text,
        "source": row.chat_id,
        "deleted": bool(row.deleted),
        "edited": bool(row.edited),
        "kind": row.kind,
    }
