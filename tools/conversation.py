"""get_conversation_context: one conversation assembled for a smaller model, inside a budget.

Items (messages and calls) are taken newest first while they fit `token_budget`. When older
items also deserve a place (messages matching `query`, and the conversation's older calls)
up to half the budget is kept for them. `before` (an item id or an ISO time) starts the window
further back, so `has_more_older` always leads somewhere: pass the oldest item's id as `before`
for the next older window; `since` with `before` reads a date range.

Counting (tools/tokens.py): each item's reported cost is ceil(UTF-8 bytes / 4) of its compact
JSON, as the client receives it, and `approx_tokens` (memory included) never exceeds the budget.
The budget is filled by a closer per-character estimate, so that real BPE tokens stay near the
budget for any language (benchmarks/token_budget.py measures it).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store

from .lookup import (
    Timer,
    call_text,
    check_bool,
    check_id,
    check_int,
    check_text,
    parse_time,
)
from .memory import memory_info, no_conversation
from .records import attachment_refs, describe, reply_ref, shown_kind, shown_sender, shown_text
from .search import chat_matches
from .secrets import masker
from .tokens import approx_tokens, compact, item_cost
from .types import CallItem, ConversationContextResult, MemoryInfo, MessageItem

PAGE = 200
MIN_ITEM_TOKENS = 32  # about the least a message item costs: the first page is sized by the budget
MAX_QUERY_MATCHES = 50
MIN_BUDGET, MAX_BUDGET = 50, 100_000
ITEM_TIME = "%Y-%m-%dT%H:%M%z"  # minutes: a chat's time to the second costs tokens and says little


def _short_time(dt: datetime, tz) -> str:
    """ISO 8601 to the minute with the owner's offset: 2024-05-03T18:02+02:00."""
    from .records import local

    text = local(dt, tz).strftime(ITEM_TIME)
    return f"{text[:-2]}:{text[-2:]}"


class _Clock:
    """`_short_time` for many items: the zone's offset is looked up once per UTC day (a day
    with a change of offset inside it, or an offset in seconds, goes the long way)."""

    def __init__(self, tz) -> None:
        self.tz = tz
        self.days: dict[tuple[int, int, int], tuple[timedelta, str] | None] = {}

    def __call__(self, dt: datetime) -> str:
        key = (dt.year, dt.month, dt.day)
        try:
            known = self.days[key]
        except KeyError:
            known = self.days[key] = self._day(datetime(*key))
        if known is None:
            return _short_time(dt, self.tz)
        return (dt + known[0]).isoformat(timespec="minutes") + known[1]

    def _day(self, start: datetime) -> tuple[timedelta, str] | None:
        if not 1000 <= start.year <= 9998:
            return None
        at = start.replace(tzinfo=timezone.utc)
        offset = at.astimezone(self.tz).utcoffset()
        end = (at + timedelta(days=1, microseconds=-1)).astimezone(self.tz).utcoffset()
        if offset is None or offset != end or offset % timedelta(minutes=1):
            return None
        return offset, _short_time(start, self.tz)[16:]


class _Items:
    """Turns rows into lean, masked items: keys only where they say something."""

    def __init__(self, seat: Seat, tz, names: Any = None):
        self.mask = masker(seat)
        self.tz = tz
        self.clock = _Clock(tz)
        self.names = names
        self.extras: dict[str, dict[str, Any]] = {}

    def with_extras(self, reader: Any, pages: Iterator[list[Any]]) -> Iterator[Any]:
        """The rows of `pages`, looking up attachments, replies and earlier texts a page at a time."""
        for page in pages:
            self.extras.update(reader.message_extras(page))
            yield from page

    def message(self, row: Any) -> MessageItem:
        extra = self.extras.get(row.id)
        kind = shown_kind(row)
        files = attachment_refs(extra)
        item: MessageItem = {"type": "message", "id": row.id, "timestamp": self.clock(row.sent_at),
                             "sender": shown_sender(row, self.names),
                             "text": describe(kind, shown_text(row, extra, self.mask), [])}
        if kind != "text":
            item["kind"] = kind
        if files:
            item["attachments"] = files
        reply = reply_ref(extra, self.names, self.mask)
        if reply is not None:
            item["reply_to"] = reply
        return item

    def call(self, row: Any) -> CallItem:
        return {"type": "call", "call_id": row.id, "timestamp": self.clock(row.started_at),
                "direction": row.direction, "kind": "call", "text": self.mask(call_text(row))}


def _start(reader: Any, seat: Seat, chat_id: str, before: str | None, tz) -> tuple[datetime, int, str] | None:
    """The position `before` names: a message or call of this chat, or an ISO time. An m_/t_ id
    is a message's, a c_ one a call's; any other may be an id a JSON Lines file gave its message
    or call, else a time."""
    if before is None or not before.strip():
        return None
    before = before.strip()
    kinds = (("message",) if before.startswith(("m_", "t_")) else ("call",) if before.startswith("c_")
             else ("message", "call"))
    for kind in kinds:
        place = _place_of(reader, seat, chat_id, before, kind)
        if place is not None:
            return place
    if len(kinds) == 1:
        raise ArgumentError(f"before must be the id of an item of this conversation or an ISO time; "
                            f"{before!r} is not in it")
    try:
        when = parse_time(before, "before", tz)
    except ArgumentError:
        raise ArgumentError(f"before must be the id of an item of this conversation or an ISO time "
                            f"(e.g. 2024-05-01); {before!r} is neither") from None
    assert when is not None
    return (when, -1, "")


def _place_of(reader: Any, seat: Seat, chat_id: str, item_id: str, kind: str) -> tuple[datetime, int, str] | None:
    """Where the message (or call) `item_id` sits in the chat `chat_id`, None if it is not one of its."""
    if kind == "message":
        found = reader.message(seat, item_id)
        return None if found is None or found[0].chat_id != chat_id else (found[0].sent_at, found[0].ordinal, found[0].id)
    call = reader.call(seat, item_id)
    return None if call is None or call[0].chat_id != chat_id else (call[0].started_at, -1, call[0].id)


def _within(obj: Mapping[str, Any], budget: int) -> tuple[dict[str, Any], int, int] | None:
    """`obj` (the memory, or an item), its text shortened to the longest prefix that fits
    `budget` and marked `text_cut` when it alone would not fit; (obj, reported, fill), or None
    when not even its other fields fit."""
    reported, fill = item_cost(obj)
    if fill <= budget or "text" not in obj:
        return (dict(obj), reported, fill) if fill <= budget else None
    text = obj["text"]
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits
        mid = (lo + hi + 1) // 2
        if item_cost({**obj, "text": text[:mid] + "…", "text_cut": True})[1] <= budget:
            lo = mid
        else:
            hi = mid - 1
    obj = {**obj, "text": text[:lo] + "…", "text_cut": True}
    reported, fill = item_cost(obj)
    return (obj, reported, fill) if fill <= budget else None


def get_conversation_context(store: Store, seat: Seat, conversation_id: str, token_budget: int = 2000,
                             query: str | None = None, since: str | None = None,
                             include_memory: bool = False, before: str | None = None) -> ConversationContextResult:
    """The most recent items of a conversation (or those before `before`) that fit
    `token_budget`, newest first."""
    timer = Timer()
    conversation_id = check_id(conversation_id, "conversation_id")
    token_budget = check_int(token_budget, "token_budget", MIN_BUDGET, MAX_BUDGET)
    query = check_text(query, "query", 1000, optional=True)
    before = check_text(before, "before", 64, optional=True)
    include_memory = check_bool(include_memory, "include_memory")
    tz = store.config.timezone
    t_since = parse_time(since, "since", tz)
    make = _Items(seat, tz)
    with store.reader() as r:
        make.names = r.names()
        chat = r.chat(seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        start = _start(r, seat, chat.id, before, tz)
        if start is not None and t_since is not None and start[0] <= t_since:
            raise ArgumentError(f"before ({before}) must be after since ({since})")
        matches = chat_matches(store, chat.id, query, t_since, MAX_QUERY_MATCHES) if query and query.strip() else []

        # the memory comes first: its text counts in the budget
        info = memory_info(r, seat, chat, tz) if include_memory else None
        memory: dict[str, Any] | None = None  # its fields, the text cut to fit
        used = reported_used = 0
        if info is not None:
            fitted = _within(info, token_budget)
            if fitted is None:  # its citations alone are over the budget: what it is, without them
                bare = {k: v for k, v in info.items() if k in ("status", "id", "version")}
                bare["text_cut"] = True
                fitted = (bare, *item_cost(bare))
            memory, reported_used, used = fitted

        # the newest items, messages and calls merged, until the whole budget is spent
        calls_read: list[Any] = []  # calls the merge has read, newest first

        def calls_newest() -> Iterator[Any]:
            for c in r.calls_newest_first(chat.id, t_since, start):
                calls_read.append(c)
                yield c

        calls = calls_newest()
        first_page = min(PAGE, token_budget // MIN_ITEM_TOKENS + 8)  # most windows fit in one read
        messages = make.with_extras(r, r.message_pages(chat.id, t_since, start, first_page))
        stream = heapq.merge(
            ((m.sent_at, 1, m.ordinal, m.id, "message", m) for m in messages),
            ((c.started_at, 0, 0, c.id, "call", c) for c in calls),
            key=lambda e: e[:4], reverse=True)
        window: list[tuple[tuple, Any, int, int]] = []  # (order key, item, reported, fill), newest first
        for entry in stream:
            kind, row = entry[4], entry[5]
            item = make.message(row) if kind == "message" else make.call(row)
            reported, fill = item_cost(item)
            if used + fill > token_budget:
                # not even the newest item fits: its text, shortened, rather than nothing
                fitted = None if window else _within(dict(item), token_budget - used)
                if fitted is not None:
                    window.append((entry[:4], fitted[0], fitted[1], fitted[2]))
                    used += fitted[2]
                    reported_used += fitted[1]
                break
            window.append((entry[:4], item, reported, fill))
            used += fill
            reported_used += reported

        # older items that also deserve a place: query matches (best first), then older calls
        in_window = {e[3] for e, _, _, _ in window}
        extras: list[tuple[tuple, Any]] = []
        if matches:
            wanted = [i for i in matches if i not in in_window]
            rows = r.chat_messages_by_id(chat.id, wanted)
            if start is not None:
                rows = {k: v for k, v in rows.items() if (v.sent_at, v.ordinal, v.id) < start}
            found = [rows[i] for i in wanted if i in rows]
            make.extras.update(r.message_extras(found))
            extras += [((m.sent_at, 1, m.ordinal, m.id), make.message(m)) for m in found]
        costs = [item_cost(item) for _, item in extras]
        # then the older calls, newest first, as many as could take the budget (the rest of a
        # chat's thousands of calls could not fit: they are not read)
        room = token_budget
        for c in itertools.chain(list(calls_read), calls):
            if room < 0:
                break
            if c.id not in in_window:
                item = make.call(c)
                extras.append(((c.started_at, 0, 0, c.id), item))
                costs.append(item_cost(item))
                room -= costs[-1][1]

        if extras:
            reserve = min(token_budget // 2, sum(f for _, f in costs))
            given_back = []
            while window and used > token_budget - reserve:
                oldest = window.pop()  # the oldest of the window makes room for the extras
                given_back.append(oldest)
                used -= oldest[3]
                reported_used -= oldest[2]
            for (key, item), (reported, fill) in zip(extras, costs):
                if used + fill <= token_budget:
                    window.append((key, item, reported, fill))
                    used += fill
                    reported_used += reported
            for kept in reversed(given_back):  # room the extras did not need goes back to recency
                if used + kept[3] > token_budget:
                    break
                window.append(kept)
                used += kept[3]
                reported_used += kept[2]

        n_calls = r.count_calls(chat.id, t_since, start)
        if start is None:
            total = r.count_messages(chat, t_since) + n_calls
        else:
            total = r.count_messages_before(chat.id, start, t_since) + n_calls

    items = [item for _, item, _, _ in sorted(window, key=lambda e: e[0], reverse=True)]
    result: ConversationContextResult = {
        "items": items,
        "approx_tokens": reported_used,
        "items_included": len(items),
        "items_omitted": max(0, total - len(items)),
        "has_more_older": total > len(items),  # the window is the newest run: what's left is older
        "server_ms": 0.0,
    }
    if memory is not None:
        result["memory"] = cast(MemoryInfo, memory)  # memory_info's fields, the text maybe cut
    result["server_ms"] = timer.ms()
    return result


__all__ = ["approx_tokens", "compact", "get_conversation_context"]
