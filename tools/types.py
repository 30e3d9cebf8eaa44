"""The result of every tool as a TypedDict, and its JSON Schema (SPEC "The tools").

The MCP server annotates its tools with these types, so the SDK publishes the output schema
and returns structured content; the tests validate every result against `RESULT_SCHEMAS`.
Every dict forbids keys the SPEC does not list (`additionalProperties: false`).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import TypedDict

STRICT = ConfigDict(extra="forbid")


Kind = Literal["text", "media", "system", "call", "deleted"]
Leg = Literal["keyword", "semantic"]  # the searches hybrid mode fuses


@with_config(STRICT)
class AttachmentRef(TypedDict):
    name: str  # file name
    type: str  # MIME type
    id: str  # the attachment id (a_…) read_attachment reads
    present: bool  # its file was found (or copied into the store)


@with_config(STRICT)
class ReplyRef(TypedDict):
    id: str  # the message replied to
    quote: str  # "sender: its first words…"


@with_config(STRICT)
class MessageRecord(TypedDict):
    """One message (or call) as the tools show it: SPEC "The normalized record"."""

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
    kind: Kind
    attachments: NotRequired[list[AttachmentRef]]
    reply_to: NotRequired[ReplyRef]


@with_config(STRICT)
class SearchHit(MessageRecord):
    score: float
    snippet: str
    legs: NotRequired[list[Leg]]  # semantic / hybrid mode: who found it
    # any-word mode: shown as the reply to a matching question in its chat (holds none of the words)
    found_as: NotRequired[Literal["reply"]]


@with_config(STRICT)
class MatchedPerson(TypedDict):
    person: str  # person id ("me" is the owner)
    name: str


@with_config(STRICT)
class SearchResult(TypedDict):
    results: list[SearchHit]
    total: int  # exactly what this seat can reach
    has_more: bool
    server_ms: float
    people_matched: NotRequired[list[MatchedPerson]]  # whom `person` / `sender` took the name to mean
    # the search that answered: the `mode` argument's value, or its default when none was given
    mode: Literal["keyword", "semantic", "hybrid"]
    legs: NotRequired[dict[str, int]]  # semantic / hybrid: results each leg contributed to this page
    # how the keyword search matched the words: every word, or (when that found fewer than a
    # handful) any word; absent in semantic mode (no keyword search ran)
    matching: NotRequired[Literal["all words", "any word"]]
    total_is_estimate: NotRequired[bool]  # only when counting exactly would cost more than the answer
    fuzzy: NotRequired[dict[str, list[str]]]  # a word with no hits -> the near spellings searched


@with_config(STRICT)
class ContextMessage(MessageRecord):
    hit: bool


@with_config(STRICT)
class ContextResult(TypedDict):
    messages: list[ContextMessage]


@with_config(STRICT)
class MessageItem(TypedDict):
    type: Literal["message"]
    id: str
    timestamp: str
    sender: str
    kind: NotRequired[Kind]  # only where it is not plain text: media, system, deleted
    text: str
    text_cut: NotRequired[bool]  # the text was shortened to fit the budget (read_raw_data has it whole)
    attachments: NotRequired[list[AttachmentRef]]
    reply_to: NotRequired[ReplyRef]


@with_config(STRICT)
class CallItem(TypedDict):
    type: Literal["call"]
    call_id: str
    timestamp: str
    direction: str
    kind: Literal["call"]
    text: str
    text_cut: NotRequired[bool]


@with_config(STRICT)
class Freshness(TypedDict):
    saved_at: str  # when this version was written (ISO 8601)
    messages_since: int  # messages and calls newer than both the saving and the newest cited item


@with_config(STRICT)
class MemoryInfo(TypedDict):
    status: Literal["ok", "off", "missing", "stale", "paused"]
    id: NotRequired[str]
    text: NotRequired[str]
    text_cut: NotRequired[bool]  # the text was shortened to fit the budget
    version: NotRequired[int]
    freshness: NotRequired[Freshness]
    token_count: NotRequired[int]
    cites: NotRequired[list[str]]


@with_config(STRICT)
class ConversationContextResult(TypedDict):
    items: list[MessageItem | CallItem]
    approx_tokens: int
    items_included: int
    items_omitted: int
    has_more_older: bool
    server_ms: float
    memory: NotRequired[MemoryInfo]


@with_config(STRICT)
class Turn(TypedDict):
    turnNumber: int
    role: Literal["user", "assistant", "system"]
    content: str
    timestamp: str
    sender: str
    refs: list[str]


@with_config(STRICT)
class HistoryResult(TypedDict):
    turns: list[Turn]
    totalTurns: int
    subject: str | None
    isExpired: bool


@with_config(STRICT)
class StartConversationResult(TypedDict):
    conversation_id: str
    subject: str | None


@with_config(STRICT)
class LogTurnResult(TypedDict):
    conversation_id: str
    turnNumber: int
    id: str  # the turn's `t_` id: searchable, readable with read_raw_data


@with_config(STRICT)
class ChatInfo(TypedDict):
    source: str
    platform: str
    chat: str
    group: bool
    participants: list[str]
    messages: int
    first: str | None
    last: str | None


@with_config(STRICT)
class ListChatsResult(TypedDict):
    chats: list[ChatInfo]
    has_more: bool


@with_config(STRICT)
class Relations(TypedDict):
    chat: str | None
    reply_to: str | None
    replies: list[str]
    reactions: list[str]  # "emoji sender" (reactions have no ids of their own)
    attachments: list[str]
    versions: list[str]  # "<message id>@v<n>", readable with read_raw_data
    message: NotRequired[str]  # an attachment's message
    refs: NotRequired[list[str]]  # a logged turn's refs
    cites: NotRequired[list[str]]  # a memory's citations


@with_config(STRICT)
class RawResult(TypedDict):
    ok: bool
    id: str
    type: NotRequired[Literal["message", "call", "attachment", "turn", "memory"]]
    title: NotRequired[str]
    content: NotRequired[str]
    size_bytes: NotRequired[int]
    truncated: NotRequired[bool]
    relations: NotRequired[Relations]
    error: NotRequired[str]


@with_config(STRICT)
class SaveMemoryResult(TypedDict):
    id: str
    conversation_id: str
    version: int
    token_count: int
    cites: list[str]


@with_config(STRICT)
class PauseMemoryResult(TypedDict):
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
