"""The argument checks every tool shares, and calls shown as records."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from datetime import datetime, timezone, tzinfo
from typing import Any, overload

from chatmem.errors import ArgumentError

from .records import chat_name, timestamp_fields
from .types import MessageRecord

MAX_ID_CHARS = 64


class Timer:
    """`server_ms`: milliseconds since the tool was called."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 2)


# ---------------------------------------------------------------------- arguments


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{name} must be a whole number from {lo} to {hi}; got {value!r}")
    if not lo <= value <= hi:
        raise ArgumentError(f"{name} must be from {lo} to {hi}; got {value}")
    return value


def check_id(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ArgumentError(f"{name} must be a non-empty id string, as a search result or list_chats gives it")
    if len(value) > MAX_ID_CHARS:
        raise ArgumentError(f"{name} must be at most {MAX_ID_CHARS} characters; got {len(value)}")
    return value.strip()


@overload
def check_text(value: Any, name: str, max_chars: int) -> str: ...
@overload
def check_text(value: Any, name: str, max_chars: int, *, optional: bool) -> str | None: ...
def check_text(value: Any, name: str, max_chars: int, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not optional and not value.strip()):
        raise ArgumentError(f"{name} must be a non-empty string of at most {max_chars} characters")
    if len(value) > max_chars:
        raise ArgumentError(f"{name} must be at most {max_chars} characters; got {len(value)}")
    return value


def check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} must be true or false; got {value!r}")
    return value


def parse_time(value: Any, name: str, tz: tzinfo) -> datetime | None:
    """An ISO 8601 date or time as naive UTC (a date alone is its midnight in the owner's zone).

    "2024-05-01" in Europe/Berlin -> datetime(2024, 4, 30, 22, 0)
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be an ISO 8601 date or time, e.g. 2024-05-01")
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ArgumentError(f"{name} must be an ISO 8601 date or time, e.g. 2024-05-01 or "
                            f"2024-05-01T18:30:00+02:00; got {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(timezone.utc).replace(tzinfo=None)


def known_platforms(store: Any) -> list[str]:
    """The platforms a `platform` argument may name: the built-in ones and any the store holds."""
    from chatmem.records import PLATFORMS

    with store.reader() as r:
        return sorted(set(PLATFORMS) | set(r.platforms()))


def check_platform(value: Any, known: list[str]) -> str | None:
    """A platform name, any case ("iMessage" -> "imessage"); a typo is refused, naming the
    platforms there are and the closest one."""
    import difflib

    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"platform must be one of {', '.join(known)}; got {value!r}")
    word = value.strip().lower()
    if word not in known:
        near = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise ArgumentError(f"platform must be one of {', '.join(known)}; got {value!r}{hint}")
    return word


def approx_tokens(chars: int) -> int:
    """Characters / 4, rounded up: the estimate every token figure uses."""
    return math.ceil(chars / 4)


# ---------------------------------------------------------------------- calls


def call_text(row: Any, excerpt_chars: int = 600) -> str:
    """What a call says: its stored summary, else a transcript excerpt, else what it was.

    A 95-second answered voice call without summary -> "incoming voice call, 1:35"
    """
    if row.summary:
        return row.summary
    if row.transcript:
        t = row.transcript.strip()
        return t if len(t) <= excerpt_chars else t[: excerpt_chars - 1].rstrip() + "…"
    what = f"{row.direction} {row.media} call"
    if row.duration:
        what += f", {row.duration // 60}:{row.duration % 60:02d}"
    return what


def call_record(row: Any, chat: Any, tz: tzinfo, names: Mapping[str, str] | None = None) -> MessageRecord:
    """A call in the shape of a message record (kind `call`)."""
    text = call_text(row)
    if row.summary or row.transcript:
        text = f"{row.direction} {row.media} call: {text}"
    sender = row.peer or ""
    stamp = timestamp_fields(row.started_at, tz)
    return {
        "id": row.id, "date": stamp["date"], "timestamp": stamp["timestamp"], "platform": row.platform,
        "chat": chat_name(chat, names),
        "group": bool(chat.is_group) if chat is not None else False,
        "sender": sender, "content": text,
        "source": row.chat_id, "deleted": False, "edited": False, "kind": "call",
    }
