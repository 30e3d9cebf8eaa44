"""`chatmem serve` over stdio, through the MCP SDK's own client: the tools, their schemas,
every tool called on an imported fixture, errors the model can read, and a concurrent import."""

from __future__ import annotations

import anyio
import pytest
from server_helpers import (
    READ_TOOLS,
    TELEGRAM_JSONL,
    WRITE_TOOLS,
    chatmem,
    check_listing,
    check_result,
    import_into,
    stdio_client,
    write_jsonl,
)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("server") / "home"
    chatmem(home, "import", str(TELEGRAM_JSONL))
    return home


def test_owner_sees_every_tool_with_schemas_and_annotations(home):
    async def main():
        async with stdio_client(home) as client:
            return (await client.list_tools()).tools

    tools = check_listing(anyio.run(main))
    assert set(tools) == READ_TOOLS | WRITE_TOOLS
    search = tools["search_memory"].input_schema["properties"]
    assert search["limit"]["default"] == 10
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 50)
    assert search["sort"]["enum"] == ["relevance", "newest"]
    assert tools["search_memory"].input_schema["required"] == ["query"]
    ctx = tools["get_conversation_context"].input_schema["properties"]
    assert ctx["token_budget"]["default"] == 2000 and ctx["include_memory"]["default"] is False
    assert tools["read_raw_data"].input_schema["properties"]["max_chars"]["default"] == 0
    assert tools["list_chats"].input_schema["properties"]["limit"]["default"] == 50
    assert set(tools["save_memory"].input_schema["required"]) == {"conversation_id", "text", "cites"}


def test_every_tool_on_the_imported_fixture(home):
    """Reads and writes as the owner; each result validates against the tool's JSON Schema."""

    async def main():
        out = {}
        async with stdio_client(home) as client:
            async def call(name, **args):
                out[name] = check_result(name, await client.call_tool(name, args))
                return out[name]

            chats = await call("list_chats", query="hiking")
            source = chats["chats"][0]["source"]
            hits = await call("search_memory", query="thermos coffee", limit=5)
            hit = hits["results"][0]
            await call("get_context", memory_id=hit["id"], before=2, after=2)
            digest = await call("get_conversation_context", conversation_id=source, token_budget=500)
            newest = digest["items"][0]  # newest first
            newest_id = newest.get("id") or newest["call_id"]
            await call("get_conversation_history", conversation_id=source, max_turns=3)
            await call("read_raw_data", record_id=hit["id"])
            session = await call("start_conversation", subject="planning the Zugspitze hike")
            cid = session["conversation_id"]
            await call("log_conversation_turn", conversation_id=cid, role="user",
                       content="who brings coffee?", refs=[hit["id"]])
            await call("save_memory", conversation_id=source,
                       text="Ben brings coffee; they meet at the cable car.",
                       cites=[hit["id"], newest_id])
            out["memory"] = check_result("get_conversation_context", await client.call_tool(
                "get_conversation_context", {"conversation_id": source, "include_memory": True}))
            out["session"] = check_result("get_conversation_history", await client.call_tool(
                "get_conversation_history", {"conversation_id": cid}))
        return out, hit, newest_id

    out, hit, newest_id = anyio.run(main)
    assert set(out) >= READ_TOOLS | WRITE_TOOLS
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
    assert out["memory"]["memory"]["status"] == "ok"
    assert out["memory"]["memory"]["cites"] == [hit["id"], newest_id]
    assert [t["content"] for t in out["session"]["turns"]] == ["who brings coffee?"]


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(home):
    async def main():
        async with stdio_client(home) as client:
            out_of_range = await client.call_tool("search_memory", {"query": "coffee", "limit": 99})
            bad_date = await client.call_tool("search_memory", {"query": "coffee", "since": "soon"})
            unknown = await client.call_tool("read_raw_data", {"record_id": "m_doesnotexist"})
            still = await client.call_tool("search_memory", {"query": "coffee"})
            return out_of_range, bad_date, unknown, still

    out_of_range, bad_date, unknown, still = anyio.run(main)
    assert out_of_range.is_error and "limit" in out_of_range.content[0].text
    assert bad_date.is_error and "since must be an ISO 8601 date" in bad_date.content[0].text
    # an unknown id is an answer, not a failure (SPEC read_raw_data)
    missing = check_result("read_raw_data", unknown)
    assert missing["ok"] is False and missing["error"]
    assert check_result("search_memory", still)["results"]


def test_a_seat_that_may_not_write_sees_only_the_reads(home):
    async def main():
        async with stdio_client(home, seat="assistant") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            chats = await client.call_tool("list_chats", {})
            write = await client.call_tool("start_conversation", {"subject": "x"})
            return names, chats, write

    names, chats, write = anyio.run(main)
    assert names == READ_TOOLS
    # the assistant seat excludes "Dentist reminders"
    seen = [c["chat"] for c in check_result("list_chats", chats)["chats"]]
    assert "Hiking club" in seen and "Dentist reminders" not in seen
    assert write.is_error


def test_messages_a_concurrent_import_adds_become_visible(home, tmp_path):
    new = write_jsonl(tmp_path / "later.jsonl", "Ski trip", [
        ("Dana Kim", "2024-12-01T10:00:00+01:00", "The gondola opens at eight, bring the avalanche beacon"),
    ])

    async def main():
        async with stdio_client(home) as client:
            before = check_result("search_memory", await client.call_tool(
                "search_memory", {"query": "avalanche beacon"}))
            await anyio.to_thread.run_sync(import_into, home, new)
            after = check_result("search_memory", await client.call_tool(
                "search_memory", {"query": "avalanche beacon"}))
            chats = check_result("list_chats", await client.call_tool("list_chats", {}))
            return before, after, chats

    before, after, chats = anyio.run(main)
    assert before["total"] == 0
    assert after["total"] == 1 and after["results"][0]["chat"] == "Ski trip"
    assert "Ski trip" in [c["chat"] for c in chats["chats"]]


def test_argument_ranges_in_the_schemas_are_the_ones_the_library_checks(store):
    """The schema repeats the library's limits for clients; pin them so they cannot drift."""
    from chatmem.tools import conversation, history, memory, raw, search
    from chatmem.tools.server import build_server

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
