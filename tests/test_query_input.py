"""Query and argument input (issue 9): syntax errors, huge queries, control characters and
every argument out of range end in one clear error naming the argument — never a crash."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tool_helpers import chat_source, valid

from chatmem.errors import ArgumentError, ChatmemError
from chatmem.tools.api import TOOLS

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, seats


def some_ids(store) -> tuple[str, str]:
    source = chat_source(store, "Lena Vogel", "whatsapp")
    hit = TOOLS["search_memory"](store, store.config.seat(None), "garden", source=source)["results"][0]
    return source, hit["id"]


@pytest.mark.parametrize("tool, args, named", [
    ("search_memory", {"query": "x" * 1001}, "query"),
    ("search_memory", {"query": "coffee", "limit": -1}, "limit"),
    ("search_memory", {"query": "coffee", "limit": "10"}, "limit"),
    ("search_memory", {"query": "coffee", "since": "2024-13-45"}, "since"),
    ("search_memory", {"query": "coffee", "platform": "x" * 500}, "platform"),
    ("get_context", {"memory_id": "{hit}", "before": 51}, "before"),
    ("get_context", {"memory_id": "{hit}", "after": -1}, "after"),
    ("get_context", {"memory_id": ""}, "memory_id"),
    ("get_conversation_context", {"conversation_id": "{source}", "token_budget": 0}, "token_budget"),
    ("get_conversation_context", {"conversation_id": "{source}", "token_budget": 10**9}, "token_budget"),
    ("get_conversation_context", {"conversation_id": "{source}", "since": "last week"}, "since"),
    ("get_conversation_history", {"conversation_id": "{source}", "max_turns": 0}, "max_turns"),
    ("get_conversation_history", {"conversation_id": "{source}", "max_turns": 51}, "max_turns"),
    ("read_raw_data", {"record_id": "{hit}", "max_chars": -5}, "max_chars"),
    ("list_chats", {"limit": 0}, "limit"),
])
def test_every_argument_out_of_range_names_itself(loaded, seats, tool, args, named):
    source, hit = some_ids(loaded)
    args = {k: (v.format(source=source, hit=hit) if isinstance(v, str) and "{" in v else v)
            for k, v in args.items()}
    with pytest.raises(ArgumentError, match=named):
        TOOLS[tool](loaded, seats["owner"], **args)


@pytest.mark.parametrize("query", [
    "coffee\x00thermos", "\x1b[31mcoffee\x1b[0m", "coffee\r\n\t", "\u202ecoffee", "coffee" + "\u200b" * 50,
])
def test_control_characters_are_read_as_spaces(loaded, seats, query):
    result = valid("search_memory", TOOLS["search_memory"](loaded, seats["owner"], query))
    spaced = "".join(ch if ch.isprintable() else " " for ch in query)
    same = TOOLS["search_memory"](loaded, seats["owner"], spaced)
    assert [r["id"] for r in result["results"]] == [r["id"] for r in same["results"]]
    assert result["total"] == same["total"]
    if "coffee" in spaced.split():  # the word stands alone once the controls are spaces
        assert result["total"] > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300))
def test_any_query_gives_results_or_one_clear_error(loaded, seats, query):
    try:
        valid("search_memory", TOOLS["search_memory"](loaded, seats["owner"], query))
    except ChatmemError as e:
        assert "query" in str(e)
