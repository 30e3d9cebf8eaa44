"""Results cut to fit the 25k-token response cap of MCP clients, still valid for their schema."""

from __future__ import annotations

import jsonschema
import pytest

from chatmem.tools.mcp.fit import CUT_MARK, MAX_RESULT_CHARS, dumps, fit_result

types = pytest.importorskip("chatmem.tools.types")
SCHEMAS = types.RESULT_SCHEMAS


def message(i: int, text: str, **extra) -> dict:
    return {"id": f"m_{i:016x}", "date": "2024-05-03 18:02", "timestamp": "2024-05-03T18:02:11+02:00",
            "platform": "whatsapp", "chat": "Hiking club", "group": True, "sender": "Anna Berg",
            "content": f"Anna Berg: {text}", "source": "s_19fecfb0d86fabfd", "deleted": False,
            "edited": False, "kind": "text", **extra}


def fits(name: str, result: dict) -> dict:
    cut = fit_result(name, result, schema=SCHEMAS[name])
    assert len(dumps(cut)) <= MAX_RESULT_CHARS
    jsonschema.validate(cut, SCHEMAS[name])
    return cut


def test_a_small_result_is_returned_untouched():
    result = {"chats": [], "has_more": False}
    assert fit_result("list_chats", result, schema=SCHEMAS["list_chats"]) is result


def test_search_drops_the_weakest_results_and_says_there_are_more():
    results = [message(i, f"hit {i} " + "x" * 20_000, score=10.0 - i, snippet="x") for i in range(10)]
    cut = fits("search_memory", {"results": results, "total": 10, "has_more": False, "server_ms": 1.0,
                                "mode": "keyword"})
    kept = [r["id"] for r in cut["results"]]
    assert 1 <= len(kept) < 10
    assert kept == [r["id"] for r in results[: len(kept)]]  # best first, tail dropped
    assert cut["has_more"] is True and cut["total"] == 10


def test_context_keeps_the_hit_and_its_nearest_neighbours():
    messages = [message(i, "y" * 15_000, hit=(i == 6)) for i in range(11)]
    cut = fits("get_context", {"messages": messages})
    kept = [int(m["id"][2:], 16) for m in cut["messages"]]
    assert 6 in kept and kept == sorted(kept)
    assert max(kept) - min(kept) + 1 == len(kept)  # a contiguous window around the hit


def test_conversation_context_counts_what_it_left_out():
    items = [{"type": "message", "id": f"m_{i}", "timestamp": "2024-05-03T18:02:11+02:00",
              "sender": "Anna Berg", "text": "z" * 10_000} for i in range(20)]
    result = {"items": items, "approx_tokens": 50_000, "items_included": 20, "items_omitted": 3,
              "has_more_older": False, "server_ms": 2.0}
    cut = fits("get_conversation_context", result)
    n = len(cut["items"])
    assert cut["items"] == items[:n]  # newest first: the oldest went
    assert cut["items_included"] == n and cut["items_omitted"] == 3 + 20 - n
    assert cut["has_more_older"] is True and cut["approx_tokens"] < 25_000


def test_conversation_context_texts_shortened_to_fit_say_so_and_are_counted():
    """One item and the memory alone are over the response limit: their texts are shortened,
    marked text_cut, and approx_tokens counts what the client now gets."""
    items = [{"type": "message", "id": "m_1", "timestamp": "2024-05-03T18:02+02:00",
              "sender": "Anna Berg", "text": "z" * 150_000},
             {"type": "message", "id": "m_0", "timestamp": "2024-05-03T18:01+02:00",
              "sender": "Anna Berg", "text": "short"}]
    memory = {"status": "ok", "id": "mem_1", "text": "m" * 15_000, "version": 1,
              "freshness": {"saved_at": "2024-05-03T18:05+02:00", "messages_since": 0},
              "token_count": 3750, "cites": ["m_1"]}
    result = {"items": items, "approx_tokens": 41_300, "items_included": 2, "items_omitted": 0,
              "has_more_older": False, "server_ms": 2.0, "memory": memory}
    cut = fits("get_conversation_context", result)
    n = len(cut["items"])  # the counts say what was cut: items left out, texts shortened
    assert cut["items_included"] == n and cut["items_omitted"] == 2 - n and cut["has_more_older"] is (n < 2)
    assert cut["items"][0]["text_cut"] is True and cut["items"][0]["text"].endswith(CUT_MARK)
    assert cut["approx_tokens"] == sum(-(-len(dumps(p).encode()) // 4) for p in [*cut["items"], cut["memory"]])
    assert cut["approx_tokens"] < 25_000


def test_history_keeps_the_latest_turns():
    turns = [{"turnNumber": i, "role": "user", "content": "w" * 12_000, "timestamp": "2024-05-03T18:02",
              "sender": "Anna Berg", "refs": []} for i in range(1, 16)]
    cut = fits("get_conversation_history", {"turns": turns, "totalTurns": 15, "subject": None,
                                            "isExpired": False})
    assert [t["turnNumber"] for t in cut["turns"]][-1] == 15
    assert cut["turns"][0]["turnNumber"] > 1


def test_one_huge_record_is_shortened_and_marked_truncated():
    raw = {"ok": True, "id": "m_1", "type": "message", "title": "Anna Berg in Hiking club",
           "content": "v" * 400_000, "size_bytes": 400_000, "truncated": False,
           "relations": {"chat": "s_1", "reply_to": None, "replies": [], "reactions": [],
                         "attachments": [], "versions": []}}
    cut = fits("read_raw_data", raw)
    assert cut["truncated"] is True and cut["size_bytes"] == 400_000
    assert cut["content"].endswith(CUT_MARK) and len(cut["content"]) > 50_000
    assert cut["id"] == "m_1" and cut["title"] == raw["title"]


def test_one_huge_message_in_a_list_is_shortened_too():
    results = [message(1, "u" * 300_000, score=1.0, snippet="u")]
    cut = fits("search_memory", {"results": results, "total": 1, "has_more": False, "server_ms": 1.0,
                                "mode": "keyword"})
    assert len(cut["results"]) == 1 and cut["results"][0]["content"].endswith(CUT_MARK)
    assert cut["results"][0]["id"] == "m_0000000000000001"  # short fields are never cut


def test_a_search_too_large_for_one_response_arrives_cut_through_the_server(cli, home, tmp_path):
    """End to end through the SDK's in-memory client: fewer results, has_more, schema-valid."""
    import anyio
    from mcp import Client
    from server_helpers import FIXTURE_CONFIG, check_result, write_jsonl

    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.mcp.server import build_server

    long = "boulder problem beta " * 1_000  # ~21k characters each
    export = write_jsonl(tmp_path / "long.jsonl", "Climbing", [
        ("Anna Berg", f"2024-05-{day:02d}T18:00:00+02:00", f"day {day}: {long}") for day in range(1, 13)])
    cli("--config", str(FIXTURE_CONFIG), "import", str(export))
    config = load_config(FIXTURE_CONFIG)
    store = Store.open(home, config)

    async def main():
        async with Client(build_server(store, config.seat(None))) as client:
            return await client.call_tool("search_memory", {"query": "boulder", "limit": 50})

    try:
        result = check_result("search_memory", anyio.run(main))
    finally:
        store.close()
    assert result["total"] == 12 and result["has_more"] is True
    assert 1 <= len(result["results"]) < 12
    assert len(dumps(result)) <= MAX_RESULT_CHARS


def test_a_tool_call_does_not_wait_for_another_process_indexing(cli, home):
    """An import indexing in another process holds the index lock; the server answers anyway."""
    import threading

    import anyio
    from server_helpers import FIXTURE_CONFIG, TELEGRAM_JSONL, check_result

    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.store.db import current_seq
    from chatmem.store.store import INDEX_LOCK, FileLock

    cli("--config", str(FIXTURE_CONFIG), "import", str(TELEGRAM_JSONL))
    config = load_config(FIXTURE_CONFIG)
    store = Store.open(home, config)
    hit = check_result("search_memory", anyio.run(_call, store, config, "thermos"))["results"][0]
    with store.write() as conn:  # the database is now ahead of the index
        store.mark_changed(conn, [hit["id"]])
    other = FileLock(home / INDEX_LOCK)
    assert other.acquire(wait=False)
    # a safety net, so that a server that does wait finishes the test instead of hanging it
    release = threading.Timer(30, other.release)
    release.start()
    during = anyio.run(_call, store, config, "thermos")
    answered_while_locked = release.is_alive()
    release.cancel()
    if answered_while_locked:
        other.release()
    assert answered_while_locked
    try:
        assert check_result("search_memory", during)["total"] == 1
        after = anyio.run(_call, store, config, "thermos")
        assert check_result("search_memory", after)["total"] == 1
        # and now it catches up, in a thread of its own that no call waits for
        import time

        deadline = time.monotonic() + 60
        with store.read() as conn:
            while store.index.seq != current_seq(conn) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert store.index.seq == current_seq(conn)
    finally:
        store.close()


async def _call(store, config, query):
    from mcp import Client

    from chatmem.tools.mcp.server import build_server

    async with Client(build_server(store, config.seat(None))) as client:
        return await client.call_tool("search_memory", {"query": query})
