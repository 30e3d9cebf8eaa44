"""The result of every tool as a TypedDict, and its JSON Schema (SPEC "The tools").

The MCP server annotates its tools with these types, so the SDK publishes the output schema
and returns structured content; the tests validate every result against `RESULT_SCHEMAS`.
Every dict forbids keys the SPEC does not list (`additionalProperties: false`).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, TypeAdapter
from typing_extensions import TypedDict

STRICT = ConfigDict(extra="forbid")


class MessageRecord(TypedDict):
    """One message (or call) as the tools show it: SPEC "The normalized record"."""

    __pydantic_config__ = STRICT  # type: ignore[misc]
    id: str
    date: str
    timestamp: str
    platform: str
    chat: str
    group: bool
    sender: str
    content: str
    source: str
    deleted: bool
    edited: bool
    kind: Literal["text", "media", "system", "call"]


class SearchHit(MessageRecord):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    score: float
    snippet: str


class SearchResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    results: list[SearchHit]
    total: int
    has_more: bool
    server_ms: float


class ContextMessage(MessageRecord):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    hit: bool


class ContextResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    messages: list[ContextMessage]


class MessageItem(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    type: Literal["message"]
    id: str
    timestamp: str
    sender: str
    text: str


class CallItem(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    type: Literal["call"]
    call_id: str
    timestamp: str
    direction: str
    text: str


class Freshness(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    saved_at: str  # when this version was written (ISO 8601)
    messages_since: int  # messages and calls newer than both the saving and the newest cited item


class MemoryInfo(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    status: Literal["ok", "off", "missing", "stale", "paused"]
    id: NotRequired[str]
    text: NotRequired[str]
    version: NotRequired[int]
    freshness: NotRequired[Freshness]
    token_count: NotRequired[int]
    cites: NotRequired[list[str]]


class ConversationContextResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    items: list[MessageItem | CallItem]
    approx_tokens: int
    items_included: int
    items_omitted: int
    has_more_older: bool
    server_ms: float
    memory: NotRequired[MemoryInfo]


class Turn(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    turnNumber: int
    role: Literal["user", "assistant", "system"]
    content: str
    timestamp: str
    sender: str
    refs: list[str]


class HistoryResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    turns: list[Turn]
    totalTurns: int
    subject: str | None
    isExpired: bool


class StartConversationResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    conversation_id: str
    subject: str | None


class LogTurnResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    conversation_id: str
    turnNumber: int
    id: str  # the turn's `t_` id: searchable, readable with read_raw_data


class ChatInfo(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    source: str
    platform: str
    chat: str
    group: bool
    participants: list[str]
    messages: int
    first: str | None
    last: str | None


class ListChatsResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    chats: list[ChatInfo]
    has_more: bool


class Relations(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    chat: str | None
    reply_to: str | None
    replies: list[str]
    reactions: list[str]  # "emoji sender" (reactions have no ids of their own)
    attachments: list[str]
    versions: list[str]  # "<message id>@v<n>", readable with read_raw_data
    message: NotRequired[str]  # an attachment's message
    refs: NotRequired[list[str]]  # a logged turn's refs
    cites: NotRequired[list[str]]  # a memory's citations


class RawResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    ok: bool
    id: str
    type: NotRequired[Literal["message", "call", "attachment", "turn", "memory"]]
    title: NotRequired[str]
    content: NotRequired[str]
    size_bytes: NotRequired[int]
    truncated: NotRequired[bool]
    relations: NotRequired[Relations]
    error: NotRequired[str]


class SaveMemoryResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    id: str
    conversation_id: str
    version: int
    token_count: int
    cites: list[str]


class PauseMemoryResult(TypedDict):
    __pydantic_config__ = STRICT  # type: ignore[misc]
    conversation_id: str
    paused: bool


from .attachments import ReadAttachmentResult  # noqa: E402  (its module defines it)

RESULT_TYPES: dict[str, Any] = {
    "search_memory": SearchResult,
    "get_context": ContextResult,
    "get_conversation_context": ConversationContextResult,
    "get_conversation_history": HistoryResult,
    "start_conversation": StartConversationResult,
    "log_conversation_turn": LogTurnResult,
    "list_chats": ListChatsResult,
    "read_raw_data": RawResult,
    "read_attachment": ReadAttachmentResult,
    "save_memory": SaveMemoryResult,
    "pause_memory": PauseMemoryResult,
    "get_memory": MemoryInfo,
}

RESULT_SCHEMAS: dict[str, dict[str, Any]] = {
    name: TypeAdapter(t).json_schema() for name, t in RESULT_TYPES.items()
}
