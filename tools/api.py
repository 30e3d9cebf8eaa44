"""The tool registry: every tool of SPEC "The tools" as a plain function `tool(store, seat, **args)`.

The MCP server and the CLI wrap these; `RESULT_SCHEMAS` in `types.py` describes each result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .attachments import read_attachment
from .chats import list_chats
from .conversation import get_conversation_context
from .history import (
    get_conversation_history,
    history_to_messages,
    log_conversation_turn,
    start_conversation,
)
from .memory import get_memory, pause_memory, save_memory
from .neighbours import get_context
from .raw import read_raw_data
from .search import search_memory
from .types import RESULT_SCHEMAS, RESULT_TYPES

TOOLS: dict[str, Callable[..., Mapping[str, Any]]] = {
    "search_memory": search_memory,
    "get_context": get_context,
    "get_conversation_context": get_conversation_context,
    "get_conversation_history": get_conversation_history,
    "list_chats": list_chats,
    "read_raw_data": read_raw_data,
    "read_attachment": read_attachment,
    "start_conversation": start_conversation,
    "log_conversation_turn": log_conversation_turn,
    "save_memory": save_memory,
}

READ_TOOLS = frozenset({"search_memory", "get_context", "get_conversation_context", "get_conversation_history",
                        "list_chats", "read_raw_data", "read_attachment"})
WRITE_TOOLS = frozenset({"start_conversation", "log_conversation_turn", "save_memory"})

# Not MCP tools: the owner's memory switches, used by `chatmem memory show|pause|unpause`.
MEMORY_ADMIN: dict[str, Callable[..., Mapping[str, Any]]] = {
    "get_memory": get_memory,
    "pause_memory": pause_memory,
}

__all__ = ["MEMORY_ADMIN", "READ_TOOLS", "RESULT_SCHEMAS", "RESULT_TYPES", "TOOLS", "WRITE_TOOLS",
           "history_to_messages"]
