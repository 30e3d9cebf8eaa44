"""Rows as the tools show them: the normalized record of SPEC "The normalized record"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone, tzinfo
from typing import Any

from chatmem.store.people import chat_name, sender_name

from .types import AttachmentRef, Kind, MessageRecord, ReplyRef


def local(dt: datetime, tz: tzinfo) -> datetime:
    """A stored naive-UTC datetime in the owner's zone."""
    return dt.replace(tzinfo=timezone.utc).astimezone(tz)


def timestamp_fields(dt: datetime, tz: tzinfo) -> dict[str, str]:
    """`date` ("YYYY-MM-DD HH:MM", owner's zone) and `timestamp` (ISO 8601 with offset)."""
    when = local(dt, tz)
    return {"date": when.strftime("%Y-%m-%d %H:%M"), "timestamp": when.isoformat()}


SYSTEM_SENDER = "system"  # who a group event or security notice is from when the source names nobody
QUOTE_CHARS = 80  # how much of a replied-to message a reply shows


def shown_kind(row: Any) -> Kind:
    """text, media, system, call, or deleted (deleted for everyone)."""
    return "deleted" if getattr(row, "deleted", False) else row.kind


def shown_sender(row: Any, names: Mapping[str, str] | None) -> str:
    sender = sender_name(row, names)
    return sender or (SYSTEM_SENDER if row.kind == "system" else "")


def shown_text(row: Any, extra: Mapping[str, Any] | None, mask: Callable[[str], str]) -> str:
    """The message text; a deleted message's earlier text where an import kept it."""
    text = row.text or ""
    if getattr(row, "deleted", False) and not text:
        text = (extra or {}).get("earlier") or ""
    return mask(text)


def attachment_refs(extra: Mapping[str, Any] | None) -> list[AttachmentRef]:
    """[{"name": "trail.jpg", "type": "image/jpeg", "id": "a_…", "present": true}] for a
    message's attachments (read_attachment takes the id)."""
    return [{"name": name or "(no name)", "type": mime or "unknown", "id": aid, "present": present}
            for name, mime, aid, present in (extra or {}).get("attachments", [])]


def reply_ref(extra: Mapping[str, Any] | None, names: Mapping[str, str] | None,
              mask: Callable[[str], str]) -> ReplyRef | None:
    """{"id": …, "quote": "Anna Berg: the first words…"} of the message a reply answers."""
    target = (extra or {}).get("reply_to")
    if target is None:
        return None
    if isinstance(target, str):  # the replied-to message is not in the store
        return {"id": target, "quote": ""}
    text = "(deleted)" if target.deleted and not target.text else (target.text or "")
    text = text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1].rstrip() + "…"
    sender = sender_name(target, names)
    return {"id": target.id, "quote": mask(f"{sender}: {text}" if sender else text)}


def describe(kind: str, text: str, attachments: Sequence[AttachmentRef]) -> str:
    """The text as a line that says something: "(deleted)", "[photo.jpg, image/jpeg]"."""
    files = ", ".join(f"{a['name']}, {a['type']}" for a in attachments)
    parts = [text] if text else []
    if files:
        parts.append(f"[{files}]")
    if kind == "deleted" and not text:
        parts.insert(0, "(deleted)")
    elif kind == "media" and not parts:
        parts.append("[media]")
    return " ".join(parts)


def message_record(row: Any, chat: Any, tz: tzinfo, names: Mapping[str, str] | None = None,
                   extra: Mapping[str, Any] | None = None,
                   mask: Callable[[str], str] = lambda s: s) -> MessageRecord:
    """A message row (+ its chat row, + `Reader.message_extras` for it) as the dict every
    tool returns, text masked with `mask`."""
    kind = shown_kind(row)
    sender = shown_sender(row, names)
    files = attachment_refs(extra)
    text = describe(kind, shown_text(row, extra, mask), files)
    stamp = timestamp_fields(row.sent_at, tz)
    record: MessageRecord = {
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
        "kind": kind,
    }
    if files:
        record["attachments"] = files
    reply = reply_ref(extra, names, mask)
    if reply is not None:
        record["reply_to"] = reply
    return record
