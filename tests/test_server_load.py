"""Reads under load: the search index's files stay open in proportion to the calls running at
once, not to the threads that ever ran one (a server's worker threads come and go), and a query
has a time bound. benchmarks/server_load.py measures the same against a 100k store.
"""

from __future__ import annotations

import gc
import json
import os
import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client
from server_helpers import ASSISTANT_TOKEN, FIXTURE_CONFIG, chatmem, http_server, http_session

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.store.index import MAX_IDLE_SEARCHERS
from chatmem.store.search import SearchTooLong
from chatmem.tools.mcp.server import build_server
from chatmem.tools.search import search_memory

WORDS = ("coffee garden trail picnic harbour invoice ticket dinner train concert rain umbrella "
         "bicycle plumber landlord birthday museum recipe").split()
QUERIES = ["coffee", "garden trail", "dinner OR concert", "rain -umbrella", "bic*", '"plumber came"',
           "invoice ticket", "museum"]


def write_chunk(path: Path, chunk: int, n: int = 300) -> Path:
    lines = [{"type": "chat", "platform": "telegram", "chat": f"Group {chunk}", "group": True}]
    for i in range(n):
        words = " ".join(WORDS[(i * k + chunk) % len(WORDS)] for k in (1, 3, 7, 11))
        lines.append({"platform": "telegram", "chat": f"Group {chunk}", "sender": f"Friend {i % 9}",
                      "timestamp": f"2024-0{1 + chunk % 9}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+01:00",
                      "text": f"the plumber came, {words} number {i}"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def open_files_under(folder: Path, pid: int | str = "self") -> int:
    """How many of process `pid`'s open files are in `folder`. In this process, garbage is
    collected first: Whoosh maps a compound segment file into memory, and when a closed
    searcher's buffers are still referenced from a reference cycle, the mapping (and the file
    descriptor it holds) goes only when the collector runs; counting before it would measure
    the collector's timing, which differs between one test alone and the whole suite."""
    if pid == "self":
        gc.collect()
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        n += target.startswith(str(folder) + os.sep)  # (not home/index.lock beside it)
    return n


@pytest.fixture()
def store(tmp_path):
    config = load_config(FIXTURE_CONFIG)
    store = Store.open(tmp_path / "home", config)
    for chunk in range(3):  # three imports: an index of several segments
        store.import_sources(find_sources(write_chunk(tmp_path / f"chunk{chunk}.jsonl", chunk), "jsonl"))
    yield store
    store.close()


def test_open_index_files_stay_flat_over_many_calls_from_threads_that_come_and_go(store, tmp_path):
    seat = store.config.seat(None)
    folder = store.index.folder
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for i in range(6):
                r = search_memory(store, seat, QUERIES[(k + i) % len(QUERIES)], mode="keyword")
                assert r["results"] or r["total"] == 0
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    counts = []
    for round_ in range(12):
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]  # new threads each round
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if round_ == 6:  # the index moves on meanwhile: older searchers must not linger
            store.import_sources(find_sources(write_chunk(tmp_path / "late.jsonl", 7, 50), "jsonl"))
        counts.append(open_files_under(folder))
    assert not errors, errors[0]
    # bounded by the searchers kept for the next call (MAX_IDLE_SEARCHERS), not by the 96
    # threads that ran one: flat before the late import, and flat again after it
    before, after = counts[:6], counts[6:]
    assert 0 < max(before) <= min(before) + 2, counts
    # after it, stale searchers are closed as they come back: more segments, not more searchers
    assert max(after) <= 2 * max(before), counts
    store.close()
    assert open_files_under(folder) == 0  # closing the store closes every searcher


def test_a_query_past_its_time_bound_stops_with_a_clear_error(store, monkeypatch):
    seat = store.config.seat(None)
    monkeypatch.setenv("CHATMEM_SEARCH_SECONDS", "1e-9")  # any query is past it at its first look
    with pytest.raises(SearchTooLong, match="took longer than .* narrow it"):
        search_memory(store, seat, "coffee OR garden OR trail OR dinner", mode="keyword")

    async def over_mcp():
        async with Client(build_server(store, seat)) as client:
            slow = await client.call_tool("search_memory", {"query": "coffee OR garden", "mode": "keyword"})
            monkeypatch.setenv("CHATMEM_SEARCH_SECONDS", "10")
            fine = await client.call_tool("search_memory", {"query": "coffee OR garden", "mode": "keyword"})
            return slow, fine

    slow, fine = anyio.run(over_mcp)
    assert slow.is_error and "narrow it" in slow.content[0].text
    assert "Traceback" not in slow.content[0].text
    assert not fine.is_error and fine.structured_content["total"] > 0  # the server goes on serving
    monkeypatch.setenv("CHATMEM_SEARCH_SECONDS", "0")  # 0: no bound
    assert search_memory(store, seat, "coffee OR garden", mode="keyword")["total"] > 0


def test_the_http_server_keeps_open_files_flat_under_concurrent_clients(tmp_path):
    home = tmp_path / "home"
    for chunk in range(3):
        chatmem(home, "import", str(write_chunk(tmp_path / f"chunk{chunk}.jsonl", chunk)))
    index = home / "index"
    assert index.is_dir()

    def client_calls(url: str, k: int) -> None:
        with http_session(url, ASSISTANT_TOKEN) as client:
            for i in range(8):
                q = QUERIES[(k + i) % len(QUERIES)]
                assert not client.call("search_memory", query=q, mode="keyword").is_error
            assert not client.call("list_chats").is_error

    with http_server(home, tmp_path / "server.log") as srv:
        counts = []
        errors: list[BaseException] = []

        def run(k: int) -> None:
            try:
                client_calls(srv.url, k)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        for _ in range(6):
            threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, errors[0]
            counts.append(open_files_under(index, srv.proc.pid))
        # bounded by the searchers of the calls that run at once (6 clients) plus the idle ones
        # kept, each holding its segment files (a descriptor and a mapping each), not growing
        # with the rounds; the server's own collector decides when a closed searcher's mapped
        # file goes, so one round may end a searcher or two above another
        per_searcher = 2 * len(list(index.glob("*.seg")))
        assert max(counts) <= (6 + MAX_IDLE_SEARCHERS) * per_searcher, counts
