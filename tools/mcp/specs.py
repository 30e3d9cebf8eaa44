"""The MCP face of each chatmem tool: its arguments (with descriptions, defaults and ranges),
a description an assistant can route on, and its annotations.

Each function here only names its arguments and hands them, unchanged, to `run(name, ...)`,
which calls the library function the CLI calls (see `server.ToolRunner`). Its return annotation
is that function's result type (a test holds them equal): the SDK publishes it as the tool's
output schema and checks the structured content `run` returns against it. Defaults are the
SPEC's; ranges are repeated in the schema so a client can check them before calling, and the
library checks them again for every other caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from chatmem.records import PLATFORMS

from ..types import (
    ContextResult,
    ConversationContextResult,
    HistoryResult,
    ListChatsResult,
    LogTurnResult,
    RawResult,
    ReadAttachmentResult,
    SaveMemoryResult,
    SearchResult,
    StartConversationResult,
)

# reads change nothing, and asking twice gives the same answer (until an import adds more)
READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False,
                       open_world_hint=False)
# writes only add (a session, a turn, a memory version): never destructive, never idempotent
WRITE = ToolAnnotations(read_only_hint=False, idempotent_hint=False, destructive_hint=False,
                        open_world_hint=False)

Run = Callable[..., Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    make: Callable[[Run], Callable[..., Any]]  # run -> the function the SDK registers


# ------------------------------------------------------------------ argument types
# One definition per argument idea, so the same argument reads the same in every tool.
ConversationId = Annotated[str, Field(
    description="The conversation: a chat's `source` id (s_…, from list_chats or any search result) "
                "or the conversation_id of a logged agent session.", min_length=1)]
Since = Annotated[str | None, Field(
    description="Leave out anything older than this ISO 8601 date or time, e.g. 2024-05-01 or "
                "2024-05-01T18:30:00+02:00 (a date alone is midnight in the owner's time zone). "
                "Default: no lower bound.")]
Platform = Annotated[str | None, Field(
    description=f"Only this platform: {', '.join(p for p in PLATFORMS if p != 'agent')}, "
                "or agent (logged agent sessions). Default: all.")]


def _search_memory(run: Run):
    def search_memory(
        query: Annotated[str, Field(
            description='Words to find (all must match, ranked by relevance). Also: "exact phrase", '
                        "a OR b, -excluded, prefix*. At most 1000 characters.",
            min_length=1, max_length=1000)],
        platform: Platform = None,
        source: Annotated[str | None, Field(
            description="Only this chat: its source id (s_…) from list_chats or an earlier result. "
                        "Default: every chat.")] = None,
        sender: Annotated[str | None, Field(
            description="Only messages from this sender, by name or handle (phone, e-mail); `me` "
                        "is the owner. Default: anyone.")] = None,
        group: Annotated[bool | None, Field(
            description="true: only group chats; false: only one-to-one chats. Default: both.")] = None,
        since: Since = None,
        until: Annotated[str | None, Field(
            description="Leave out anything newer than this ISO 8601 date or time. "
                        "Default: no upper bound.")] = None,
        limit: Annotated[int, Field(description="How many results to return, 1–50. Default 10.",
                                    ge=1, le=50)] = 10,
        sort: Annotated[Literal["relevance", "newest", "oldest"], Field(
            description="`relevance` (best match first, the default), `newest` (latest first) or "
                        "`oldest` (earliest first: who mentioned it first).")]
        = "relevance",
        person: Annotated[str | None, Field(
            description="Only messages from this person on every platform (a name, phone number, "
                        "e-mail or person id), however each app names them. Default: anyone.",
            max_length=200)] = None,
        offset: Annotated[int, Field(
            description="Skip this many results: the next page is offset + limit while has_more "
                        "is true. 0–10000. Default 0.", ge=0, le=10_000)] = 0,
        mode: Annotated[Literal["keyword", "semantic", "hybrid"] | None, Field(
            description="`keyword` (the words as written), `semantic` (messages close in meaning, "
                        "other words or languages), or `hybrid` (both, fused; each result's `legs` "
                        "says which found it). Default: hybrid where search by meaning is installed, "
                        "else keyword. A query with operators (in:, from:, has:, ...) is answered "
                        "by keyword search (an error with `semantic`). The result's `mode` says "
                        "which answered.")] = None,
        attachment_type: Annotated[Literal["image", "video", "audio", "document", "other"] | None,
                                   Field(description="Only messages with a file of this type "
                                         "(photos are `image`, voice notes `audio`, PDFs and other "
                                         "documents `document`); `query` may then be just "
                                         "has:TYPE to list them all. A keyword search. Default: "
                                         "any message.")]
        = None,
    ) -> SearchResult:
        return run("search_memory", query=query, platform=platform, source=source, sender=sender,
                   group=group, since=since, until=until, limit=limit, sort=sort, person=person,
                   offset=offset, mode=mode, attachment_type=attachment_type)

    return search_memory


def _get_context(run: Run):
    def get_context(
        memory_id: Annotated[str, Field(
            description="The id of one message (m_…) or call (c_…), as search_memory returns it.",
            min_length=1)],
        before: Annotated[int, Field(description="Messages to show before it, 0–50. Default 5.",
                                     ge=0, le=50)] = 5,
        after: Annotated[int, Field(description="Messages to show after it, 0–50. Default 5.",
                                    ge=0, le=50)] = 5,
    ) -> ContextResult:
        return run("get_context", memory_id=memory_id, before=before, after=after)

    return get_context


def _get_conversation_context(run: Run):
    def get_conversation_context(
        conversation_id: ConversationId,
        token_budget: Annotated[int, Field(
            description="Upper bound on approx_tokens: each item (and the memory) counts "
                        "ceil(UTF-8 bytes / 4) of its compact JSON; filled so that real tokens stay "
                        "near the budget in any language. 50–100000. Default 2000.",
            ge=50, le=100_000)] = 2000,
        query: Annotated[str | None, Field(
            description="Also pull in older messages of this conversation that match these words, "
                        "still inside the budget. Default: only the most recent.",
            max_length=1000)] = None,
        since: Since = None,
        include_memory: Annotated[bool, Field(
            description="Also return the conversation's saved memory (summary with citations) and "
                        "its status: ok, off, missing, stale or paused; its text counts in the "
                        "budget. Default false.")] = False,
        before: Annotated[str | None, Field(
            description="Only items older than this: an item id (pass the oldest item's id for the "
                        "next older window) or an ISO 8601 time; with since, a date range (e.g. "
                        "since 2023-09-01, before 2023-10-01). Default: the newest items.",
            max_length=64)] = None,
    ) -> ConversationContextResult:
        return run("get_conversation_context", conversation_id=conversation_id,
                   token_budget=token_budget, query=query, since=since, include_memory=include_memory,
                   before=before)

    return get_conversation_context


def _get_conversation_history(run: Run):
    def get_conversation_history(
        conversation_id: ConversationId,
        max_turns: Annotated[int, Field(description="How many of the latest turns to return, 1–50. "
                                                    "Default 10.", ge=1, le=50)] = 10,
        offset: Annotated[int, Field(
            description="Skip this many of the newest turns, to page back: offset 10 with max_turns "
                        "10 gives the ten turns before the latest ten. 0–100000. Default 0.",
            ge=0, le=100_000)] = 0,
    ) -> HistoryResult:
        return run("get_conversation_history", conversation_id=conversation_id, max_turns=max_turns,
                   offset=offset)

    return get_conversation_history


def _read_raw_data(run: Run):
    def read_raw_data(
        record_id: Annotated[str, Field(
            description="The id of a message (m_…), call (c_…), attachment (a_…), logged turn (t_…) "
                        "or memory, from any other tool's result.", min_length=1)],
        max_chars: Annotated[int, Field(
            description="Return only the first N characters of the content; 0 (the default) "
                        "returns all of it (very long records are still cut to fit the response "
                        "limit, and say so). At most 1000000.", ge=0, le=1_000_000)] = 0,
    ) -> RawResult:
        return run("read_raw_data", record_id=record_id, max_chars=max_chars)

    return read_raw_data


def _read_attachment(run: Run):
    def read_attachment(
        attachment_id: Annotated[str, Field(
            description="The attachment's id (a_…): from read_raw_data's relations.attachments, "
                        "or a message item's attachments.", min_length=3, max_length=80)],
        max_bytes: Annotated[int, Field(
            description="Upper bound on what comes back: an image is scaled down until its "
                        "encoded form fits; a page of text is at most this long. 1000–4000000, "
                        "default 400000.", ge=1_000, le=4_000_000)] = 400_000,
        page: Annotated[int, Field(
            description="Which page of a text document or PDF, from 1. Default 1.", ge=1)] = 1,
    ) -> ReadAttachmentResult:
        return run("read_attachment", attachment_id=attachment_id, max_bytes=max_bytes, page=page)

    return read_attachment


def _list_chats(run: Run):
    def list_chats(
        platform: Platform = None,
        query: Annotated[str | None, Field(
            description="Only chats whose name or a participant's name contains this text "
                        "(case-insensitive). Default: all chats.")] = None,
        limit: Annotated[int, Field(description="How many chats to return, 1–500. Default 50.",
                                    ge=1, le=500)] = 50,
    ) -> ListChatsResult:
        return run("list_chats", platform=platform, query=query, limit=limit)

    return list_chats


def _start_conversation(run: Run):
    def start_conversation(
        subject: Annotated[str | None, Field(
            description="What the session is about, shown by get_conversation_history even after "
                        "the session expires; at most 200 characters. Default: none.",
            max_length=200)] = None,
    ) -> StartConversationResult:
        return run("start_conversation", subject=subject)

    return start_conversation


def _log_conversation_turn(run: Run):
    def log_conversation_turn(
        conversation_id: Annotated[str, Field(
            description="The conversation_id start_conversation returned.", min_length=1)],
        role: Annotated[Literal["user", "assistant", "system"], Field(
            description="Who spoke: user, assistant or system.")],
        content: Annotated[str, Field(description="What was said, as plain text; at most 100000 "
                                                  "characters.", min_length=1, max_length=100_000)],
        refs: Annotated[list[str] | None, Field(
            description="Ids this turn relates to (messages, calls, chats it used), at most 50. "
                        "Default: none.", max_length=50)] = None,
    ) -> LogTurnResult:
        return run("log_conversation_turn", conversation_id=conversation_id, role=role,
                   content=content, refs=refs)

    return log_conversation_turn


def _save_memory(run: Run):
    def save_memory(
        conversation_id: ConversationId,
        text: Annotated[str, Field(
            description="The memory: what to remember about this conversation, as plain text, "
                        "at most 20000 characters.", min_length=1, max_length=20_000)],
        cites: Annotated[list[str], Field(
            description="Ids of the messages and calls of this conversation the memory rests on; "
                        "each must exist in this conversation. Its newest cited item decides when "
                        "the memory becomes stale. 1–200 ids.", min_length=1, max_length=200)],
    ) -> SaveMemoryResult:
        return run("save_memory", conversation_id=conversation_id, text=text, cites=cites)

    return save_memory


TOOL_SPECS: list[ToolSpec] = [
    ToolSpec("search_memory", "Search chat memory", (
        "Full-text search over every message the user's chat archives hold (iMessage, WhatsApp, "
        "Signal, logged agent sessions) and over call summaries and transcripts. Returns `results` "
        "(each message with id, date, timestamp, platform, chat, group, sender, content, source, "
        "deleted, edited, kind, plus score and a short highlighted snippet), `total` and `has_more`, "
        "`mode` (the search that answered: keyword, semantic or hybrid, as the `mode` argument "
        "names them) and `matching` (how the keyword search matched the words: `all words` first, "
        "in any form of a word: stems, accents, transliterations; when that finds fewer than a "
        "handful, `any word`, ranked). "
        "A word with no hits is tried with near spellings (`fuzzy` says which). Query syntax: "
        "\"exact phrase\", OR, -exclude, prefix*, and operators from:NAME, in:CHAT, with:PERSON, "
        "after:YYYY-MM-DD, before:YYYY-MM-DD, has:attachment, has:image (also has:video, "
        "has:audio, has:document), is:deleted, platform:NAME. Attachments found have an `id` "
        "that read_attachment reads. "
        "Use it first to find what was said about something; then get_context for the messages "
        "around a hit, get_conversation_context for the whole conversation, or read_raw_data for "
        "one record in full. To find a chat by a person's or group's name use list_chats instead."),
        _search_memory),
    ToolSpec("get_context", "Messages around a message", (
        "The messages just before and after one message, in its chat, oldest first; the message "
        "asked about has `hit: true`. Returns `messages`. Use it after search_memory to read a "
        "hit in context. For a digest of a whole conversation use get_conversation_context; for "
        "one record's complete original text use read_raw_data."),
        _get_context),
    ToolSpec("get_conversation_context", "Conversation digest", (
        "One conversation assembled to fit a token budget, newest first: its most recent messages "
        "and calls (call summary, or a transcript excerpt), plus older messages matching `query`. "
        "Each item has type (message or call), id, timestamp, sender or direction, and text "
        "(`text_cut: true` when a message longer than the budget was shortened). Also "
        "returns approx_tokens (never above token_budget; the memory counts in it), items_included, items_omitted, "
        "has_more_older, and with include_memory the saved memory. Use it to catch up on a "
        "conversation found with list_chats or search_memory. For the turns of a conversation in "
        "order, as chat roles, use get_conversation_history."),
        _get_conversation_context),
    ToolSpec("get_conversation_history", "Conversation turns", (
        "The latest turns of a conversation in chronological order, as chat roles: people's "
        "messages are `user` turns with content `sender: text`; group events and calls are `system` "
        "turns. Each turn: turnNumber, role, content, timestamp, sender, refs. Also totalTurns, "
        "subject and isExpired (logged agent sessions expire after the retention period; then "
        "turns is empty and subject is still given). An unknown conversation gives empty turns, "
        "not an error. Use it to resume a logged agent session or replay a chat as a transcript; "
        "for a budgeted digest use get_conversation_context."),
        _get_conversation_history),
    ToolSpec("read_raw_data", "Read a record in full", (
        "The complete original text of one record by id: a message, call, attachment, logged turn "
        "or memory. Returns ok, id, type, title, content, size_bytes, truncated and relations (ids "
        "of its chat, the message it replies to, replies, reactions, attachments, earlier versions "
        "of an edited message). Use it when a snippet or context line is not enough, or to see what "
        "a message said before it was edited. An unknown id gives ok: false and an error."),
        _read_raw_data),
    ToolSpec("read_attachment", "Read an attachment", (
        "The content of one attachment (photo, document, voice note, video) within bounds: an "
        "image comes back as image content scaled to fit max_bytes (location data removed unless "
        "this assistant may see secrets); a text document or PDF as text, one page at a time "
        "(page, pages, has_more); audio and video as name, type, size and any transcript. "
        "present: false with a note when the file is not on this machine. Returns ok, id, name, "
        "mime_type, size, kind, present, message, source, and text/image/note as they apply. An "
        "unknown id gives ok: false and an error. Find attachment ids with read_raw_data."),
        _read_attachment),
    ToolSpec("list_chats", "List chats", (
        "The chats this assistant may read, newest activity first: source (the conversation_id "
        "the other tools take), platform, chat name, group, participants, messages (count), first "
        "and last message time; has_more when there are more. Use it to find a conversation by a "
        "person's or group's name (query), or to see what the archive holds. To find messages by "
        "what they say use search_memory."),
        _list_chats),
    ToolSpec("start_conversation", "Start a logged session", (
        "Start a new logged agent session (platform `agent`) and return its conversation_id. Use it "
        "once at the start of a session you want to keep, then log_conversation_turn for each turn; "
        "logged turns become searchable with search_memory and readable with "
        "get_conversation_history like any chat."),
        _start_conversation),
    ToolSpec("log_conversation_turn", "Log a turn", (
        "Append one turn (role and content, optionally the ids it relates to) to a logged agent "
        "session started with start_conversation. Returns the turn's turnNumber. Every call adds a "
        "turn: do not repeat a call to retry one that succeeded."),
        _log_conversation_turn),
    ToolSpec("save_memory", "Save a conversation memory", (
        "Store a new version of a conversation's memory: a short text of what to remember, with "
        "the ids of the messages and calls it rests on (cites; each must belong to that "
        "conversation). Earlier versions are kept. get_conversation_context with include_memory "
        "returns it, marked stale once newer messages arrive than its newest cited item. Write it "
        "after reading the conversation with get_conversation_context."),
        _save_memory),
]
