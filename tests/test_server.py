"""`chatmem serve` over stdio, through the MCP SDK's own client: the tools, their schemas,
every tool called on an imported fixture, errors the model can read, and a concurrent import.

One server process per seat serves the whole module, as an assistant's client would keep it."""

from __future__ import annotations

import anyio
import pytest
from server_helpers import (
    READ_TOOLS,
    TELEGRAM_JSONL,
    WRITE_TOOLS,
    chatmem,
    check_listing,
    import_into,
    session,
    stdio_client,
    write_jsonl,
)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("server") / "home"
    chatmem(home, "import", str(TELEGRAM_JSONL))
    return home


@pytest.fixture(scope="module")
def owner(home):
    """`chatmem serve` as the default seat: the owner, who sees everything and may write."""
    with session(stdio_client(home)) as client:
        yield client


@pytest.fixture(scope="module")
def assistant(home):
    with session(stdio_client(home, seat="assistant")) as client:
        yield client


def test_owner_sees_every_tool_with_schemas_and_annotations(owner):
    tools = check_listing(owner.tools())
    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    search = tools["search_memory"].input_schema["properties"]
    assert search["limit"]["default"] == 10
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 50)
    assert search["sort"]["enum"] == ["relevance", "newest", "oldest"]
    assert tools["search_memory"].input_schema["required"] == ["query"]
    # one naming: `mode` is the argument and, in the result, the search that answered;
    # `matching` is how the words matched; no other *_mode key says either
    out = tools["search_memory"].output_schema["properties"]
    assert {"mode", "matching"} <= set(out) and not any(k.endswith("_mode") for k in out)
    assert search["mode"]["anyOf"][0]["enum"] == out["mode"]["enum"] == ["keyword", "semantic", "hybrid"]
    said = tools["search_memory"].description
    assert "`mode`" in said and "`matching`" in said and "match_mode" not in said
    ctx = tools["get_conversation_context"].input_schema["properties"]
    assert ctx["token_budget"]["default"] == 2000 and ctx["include_memory"]["default"] is False
    assert tools["read_raw_data"].input_schema["properties"]["max_chars"]["default"] == 0
    assert tools["list_chats"].input_schema["properties"]["limit"]["default"] == 50
    assert set(tools["save_memory"].input_schema["required"]) == {"conversation_id", "text", "cites"}


def test_every_tool_on_the_imported_fixture(owner):
    """Reads and writes as the owner; each result validates against the tool's JSON Schema."""
    out = {}

    def call(name, **args):
        out[name] = owner.result(name, **args)
        return out[name]

    source = call("list_chats", query="hiking")["chats"][0]["source"]
    hit = call("search_memory", query="thermos coffee", limit=5)["results"][0]
    call("get_context", memory_id=hit["id"], before=2, after=2)
    newest = call("get_conversation_context", conversation_id=source, token_budget=500)["items"][0]
    newest_id = newest.get("id") or newest["call_id"]  # newest first
    call("get_conversation_history", conversation_id=source, max_turns=3)
    call("read_raw_data", record_id=hit["id"])
    assert call("read_attachment", attachment_id="a_0000000000000000")["ok"] is False
    cid = call("start_conversation", subject="planning the Zugspitze hike")["conversation_id"]
    call("log_conversation_turn", conversation_id=cid, role="user", content="who brings coffee?",
         refs=[hit["id"]])
    call("save_memory", conversation_id=source, text="Ben brings coffee; they meet at the cable car.",
         cites=[hit["id"], newest_id])
    memory = owner.result("get_conversation_context", conversation_id=source, include_memory=True)
    logged = owner.result("get_conversation_history", conversation_id=cid)

    assert set(out) == READ_TOOLS | WRITE_TOOLS
    assert [c["chat"] for c in out["list_chats"]["chats"]] == ["Hiking club"]
    assert hit["sender"] == "Ben Ortiz" and "coffee" in hit["content"]
    assert [m["hit"] for m in out["get_context"]["messages"]].count(True) == 1
    assert out["get_conversation_context"]["approx_tokens"] <= 500
    turns = out["get_conversation_history"]["turns"]  # the last 3, oldest first
    assert [t["role"] for t in turns] == ["user", "user", "system"]  # ..., Anna's message, the call
    assert turns[1]["content"] == "Anna Berg: Running 10 minutes late, sorry!"
    assert out["read_raw_data"]["ok"] and out["read_raw_data"]["id"] == hit["id"]
    assert out["log_conversation_turn"]["turnNumber"] == 1
    # it cites the newest item, so nothing newer has arrived: fresh
    assert memory["memory"]["status"] == "ok"
    assert memory["memory"]["cites"] == [hit["id"], newest_id]
    assert [t["content"] for t in logged["turns"]] == ["who brings coffee?"]


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(owner):
    out_of_range = owner.call("search_memory", query="coffee", limit=99)
    assert out_of_range.is_error and "limit" in out_of_range.content[0].text
    bad_date = owner.call("search_memory", query="coffee", since="soon")
    assert bad_date.is_error and "since must be an ISO 8601 date" in bad_date.content[0].text
    missing_arg = owner.call("get_context")
    assert missing_arg.is_error and "memory_id" in missing_arg.content[0].text
    # an unknown id is an answer, not a failure (SPEC read_raw_data)
    unknown = owner.result("read_raw_data", record_id="m_doesnotexist")
    assert unknown["ok"] is False and unknown["error"]
    assert owner.result("search_memory", query="coffee")["results"]


def test_a_seat_that_may_not_write_sees_only_the_reads(assistant):
    assert set(check_listing(assistant.tools())) == READ_TOOLS
    # the assistant seat excludes "Dentist reminders"
    seen = [c["chat"] for c in assistant.result("list_chats")["chats"]]
    assert "Hiking club" in seen and "Dentist reminders" not in seen
    assert assistant.call("start_conversation", subject="x").is_error


def test_messages_a_concurrent_import_adds_become_visible(owner, home, tmp_path):
    new = write_jsonl(tmp_path / "later.jsonl", "Ski trip", [
        ("Dana Kim", "2024-12-01T10:00:00+01:00", "The gondola opens at eight, bring the avalanche beacon"),
    ])
    assert owner.result("search_memory", query="avalanche beacon")["total"] == 0
    import_into(home, new)  # another process, while the server runs
    after = owner.result("search_memory", query="avalanche beacon")
    assert after["total"] == 1 and after["results"][0]["chat"] == "Ski trip"
    assert "Ski trip" in [c["chat"] for c in owner.result("list_chats")["chats"]]


def test_argument_ranges_in_the_schemas_are_the_ones_the_library_checks(store):
    """The schema repeats the library's limits for clients; pin them so they cannot drift."""
    from chatmem.tools import conversation, history, memory, raw, search
    from chatmem.tools.mcp.server import build_server

    tools = {t.name: t.input_schema["properties"]
             for t in anyio.run(build_server(store, store.config.seat(None)).list_tools)}
    budget = tools["get_conversation_context"]["token_budget"]
    assert (budget["minimum"], budget["maximum"]) == (conversation.MIN_BUDGET, conversation.MAX_BUDGET)
    assert tools["search_memory"]["query"]["maxLength"] == search.MAX_QUERY_CHARS
    assert tools["read_raw_data"]["max_chars"]["maximum"] == raw.MAX_CHARS
    assert tools["save_memory"]["text"]["maxLength"] == memory.MAX_MEMORY_CHARS
    assert tools["save_memory"]["cites"]["maxItems"] == memory.MAX_CITES
    assert tools["log_conversation_turn"]["content"]["maxLength"] == history.MAX_TURN_CHARS
    assert tools["log_conversation_turn"]["refs"]["anyOf"][0]["maxItems"] == history.MAX_REFS
    assert tools["start_conversation"]["subject"]["anyOf"][0]["maxLength"] == history.MAX_SUBJECT_CHARS
