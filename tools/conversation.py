"""get_conversation_context: one conversation assembled for a smaller model, inside a budget.

Items (messages and calls) are taken newest first while they fit `token_budget`. When older
items also deserve a place (messages matching `query`, and the conversation's older calls)
up to half the budget is kept for them. Every item is counted as ceil(len(json.dumps(item)) / 4)
tokens, the widest ordinary JSON serialization, so `approx_tokens` is never above the budget
however a client serializes the items.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from chatmem.config import Seat
from chatmem.store import Store

from .lookup import (
    Timer,
    approx_tokens,
    call_text,
    check_bool,
    check_id,
    check_int,
    check_text,
    parse_time,
)
from .memory import memory_info, no_conversation
from .records import sender_name, timestamp_fields
from .search import chat_matches
from .secrets import masker
from .types import CallItem, ConversationContextResult, MessageItem

PAGE = 200
MAX_QUERY_MATCHES = 50
MIN_BUDGET, MAX_BUDGET = 50, 100_000


def item_tokens(item: Mapping[str, Any]) -> int:
    """Tokens of one item: its `json.dumps` length / 4, rounded up."""
    return approx_tokens(len(json.dumps(item)))


Item = MessageItem | CallItem


class _Items:
    """Turns rows into masked items, remembering each item's tokens."""

    def __init__(self, seat: Seat, tz: tzinfo, names: Mapping[str, str] | None = None):
        self.mask = masker(seat)
        self.tz = tz
        self.names = names

    def message(self, row: Any) -> MessageItem:
        text = row.text or ("[media]" if row.kind == "media" else "")
        return {"type": "message", "id": row.id,
                "timestamp": timestamp_fields(row.sent_at, self.tz)["timestamp"],
                "sender": sender_name(row, self.names), "text": self.mask(text)}

    def call(self, row: Any) -> CallItem:
        return {"type": "call", "call_id": row.id,
                "timestamp": timestamp_fields(row.started_at, self.tz)["timestamp"],
                "direction": row.direction, "text": self.mask(call_text(row))}


def get_conversation_context(store: Store, seat: Seat, conversation_id: str, token_budget: int = 2000,
                             query: str | None = None, since: str | None = None,
                             include_memory: bool = False) -> ConversationContextResult:
    """The most recent items of a conversation that fit `token_budget`, newest first."""
    timer = Timer()
    conversation_id = check_id(conversation_id, "conversation_id")
    token_budget = check_int(token_budget, "token_budget", MIN_BUDGET, MAX_BUDGET)
    query = check_text(query, "query", 1000, optional=True)
    include_memory = check_bool(include_memory, "include_memory")
    tz = store.config.timezone
    t_since = parse_time(since, "since", tz)
    make = _Items(seat, tz)
    with store.reader() as r:
        make.names = r.names()
        chat = r.chat(seat, conversation_id)
        if chat is None:
            raise no_conversation(conversation_id)
        matches = chat_matches(store, chat.id, query, t_since, MAX_QUERY_MATCHES) if query and query.strip() else []

        # the newest items, messages and calls merged, until the whole budget is spent
        calls = r.calls_newest_first(chat.id, t_since)
        stream = heapq.merge(
            ((m.sent_at, 1, m.ordinal, m.id, "message", m) for m in r.messages_newest_first(chat.id, t_since)),
            ((c.started_at, 0, 0, c.id, "call", c) for c in calls),
            key=lambda e: e[:4], reverse=True)
        window: list[tuple[tuple, Item, int]] = []  # (order key, item, tokens), newest first
        used = 0
        for entry in stream:
            kind, row = entry[4], entry[5]
            item = make.message(row) if kind == "message" else make.call(row)
            cost = item_tokens(item)
            if used + cost > token_budget:
                break
            window.append((entry[:4], item, cost))
            used += cost

        # older items that also deserve a place: query matches (best first), then older calls
        in_window = {e[3] for e, _, _ in window}
        extras: list[tuple[tuple, Item]] = []
        if matches:
            wanted = [i for i in matches if i not in in_window]
            rows = r.chat_messages_by_id(chat.id, wanted)
            extras += [((m.sent_at, 1, m.ordinal, m.id), make.message(m))
                       for m in (rows[i] for i in wanted if i in rows)]
        extras += [((c.started_at, 0, 0, c.id), make.call(c)) for c in calls if c.id not in in_window]

        if extras:
            costs = [item_tokens(item) for _, item in extras]
            reserve = min(token_budget // 2, sum(costs))
            given_back = []
            while window and used > token_budget - reserve:
                oldest = window.pop()  # the oldest of the window makes room for the extras
                given_back.append(oldest)
                used -= oldest[2]
            for (key, item), cost in zip(extras, costs):
                if used + cost <= token_budget:
                    window.append((key, item, cost))
                    used += cost
            for kept in reversed(given_back):  # room the extras did not need goes back to recency
                if used + kept[2] > token_budget:
                    break
                window.append(kept)
                used += kept[2]

        total = r.count_messages(chat, t_since) + len(calls)
        memory = memory_info(r, seat, chat, tz) if include_memory else None

    items = [item for _, item, _ in sorted(window, key=lambda e: e[0], reverse=True)]
    result: ConversationContextResult = {
        "items": items,
        "approx_tokens": used,
        "items_included": len(items),
        "items_omitted": total - len(items),
        "has_more_older": total > len(items),  # the window is the newest run: what's left is older
        "server_ms": 0.0,
    }
    if memory is not None:
        result["memory"] = memory
    result["server_ms"] = timer.ms()
    return result
