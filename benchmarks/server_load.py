"""The HTTP server under load: 8 clients make 10,000 calls in all (mixed read tools) through the
MCP SDK's own client over streamable HTTP, against a 100k store, while imports run into the same
store from another process. Reports errors, the server's open files and RSS over time, and the
p50/p95/max wall time per tool as the client sees it.

    python benchmarks/server_load.py                      # 100k iMessage chat.db, 8 clients, 10,000 calls
    python benchmarks/server_load.py --clients 8 --calls 10000 --size 100k
    python benchmarks/server_load.py --size 1m            # the same against a million messages

The store is imported first (benchmarks/generate.py makes the archives, once). During the run a
second process imports the 100k WhatsApp export, then the 1%-newer iMessage archive, into the
same store (the server catches its index up as they commit). A sampler reads the server's
/proc status every second. Writes benchmarks/results/server-load-<size>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
TOKEN = "bench-load-token-3f9a1c7e5b2d4086a1e9"
CONFIG = f"""owner:
  names: ["Sam Rivera"]
timezone: Europe/Berlin
seats:
  bench:
    token: "{TOKEN}"
    write: false
    memory: true
"""
WORDS = ["dinner", "coffee", "tomorrow", "birthday", "train", "photo", "weekend", "meeting",
         "thanks", "call", "home", "work", "late", "movie", "beach"]
# a query that reads most of the index: every common word, any of them, ranked
PATHOLOGICAL = " OR ".join(["the", "a", "to", "and", "you", "i", "is", "it", "of", "in", "on",
                            "that", "for", "me", "we", "my", "be", "at", "so", "ok"] + WORDS)


def chatmem(home: Path, config: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config",
                           str(config), *args], capture_output=True, text=True, **kw)


def proc_status(pid: int, index: Path) -> dict:
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    fds = index_files = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        fds += 1
        try:
            index_files += os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(index) + os.sep)
        except OSError:
            pass
    return {"rss_mb": rss, "open_files": fds, "index_files": index_files}


class Load:
    def __init__(self, url: str, calls: int, clients: int, seed: int = 7):
        self.url = url
        self.calls = calls
        self.clients = clients
        self.seed = seed
        self.lock = threading.Lock()
        self.done = 0
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.bounded: list[str] = []  # searches stopped at their time bound (said, not failed)

    def take(self) -> bool:
        with self.lock:
            if self.done >= self.calls:
                return False
            self.done += 1
            return True

    def client(self, k: int) -> None:
        import anyio

        anyio.run(self._client, k)

    async def _client(self, k: int) -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        rnd = random.Random(self.seed + k)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with Client(streamable_http_client(self.url, http_client=http)) as client:
                chats = (await client.call_tool("list_chats", {"limit": 50})).structured_content["chats"]
                sources = [c["source"] for c in chats]
                ids: list[str] = []
                while self.take():
                    tool, args = self.pick(rnd, sources, ids)
                    t0 = time.perf_counter()
                    try:
                        r = await client.call_tool(tool, args)
                    except Exception as e:  # noqa: BLE001 - counted as an error
                        self.record(tool, time.perf_counter() - t0, f"{tool}: {e!r}")
                        continue
                    wall = time.perf_counter() - t0
                    text = r.content[0].text if r.content else ""
                    if r.is_error and "took longer than" in text:
                        self.bounded.append(tool)
                        self.record(tool, wall, None)
                    else:
                        self.record(tool, wall, f"{tool} {args}: {text[:200]}" if r.is_error else None)
                    data = r.structured_content or {}
                    if tool == "search_memory" and data.get("results"):
                        ids[:] = [x["id"] for x in data["results"]][:10]

    def pick(self, rnd: random.Random, sources: list[str], ids: list[str]) -> tuple[str, dict]:
        roll = rnd.random()
        if roll < 0.40 or not ids:
            query = " ".join(rnd.sample(WORDS, rnd.choice([1, 1, 2])))
            args: dict = {"query": query, "limit": 10}
            if rnd.random() < 0.3:
                args["source"] = rnd.choice(sources)
            if rnd.random() < 0.2:
                args["sort"] = "newest"
            return "search_memory", args
        if roll < 0.55:
            return "get_context", {"memory_id": rnd.choice(ids)}
        if roll < 0.70:
            return "get_conversation_context", {"conversation_id": rnd.choice(sources),
                                                "token_budget": rnd.choice([500, 2000])}
        if roll < 0.82:
            return "get_conversation_history", {"conversation_id": rnd.choice(sources), "max_turns": 10}
        if roll < 0.92:
            return "read_raw_data", {"record_id": rnd.choice(ids)}
        return "list_chats", {"limit": 20}

    def record(self, tool: str, wall: float, error: str | None) -> None:
        with self.lock:
            self.latency[tool].append(wall * 1000)
            if error:
                self.errors.append(error)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="100k", choices=["10k", "100k", "1m"])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--no-import", action="store_true", help="no import during the run")
    args = ap.parse_args()
    from generate import ensure

    chatdb, chatdb_new = ensure(args.size, "chatdb")
    whatsapp, _ = ensure(args.size, "whatsapp")
    work = Path(tempfile.mkdtemp(prefix="chatmem-load-"))
    home, config = work / "home", work / "config.yaml"
    config.write_text(CONFIG)
    t0 = time.perf_counter()
    done = chatmem(home, config, "import", str(chatdb), "--json")
    if done.returncode:
        raise SystemExit(done.stderr)
    print(f"imported {args.size} chat.db in {time.perf_counter() - t0:.0f} s into {home}", flush=True)

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (work / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "chatmem", "--home", str(home), "--config",
                               str(config), "serve", "--http", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    url = f"http://127.0.0.1:{port}/mcp"
    index = home / "index"
    samples: list[dict] = []
    stop = threading.Event()
    started = time.perf_counter()

    def sample() -> None:
        while not stop.is_set():
            try:
                samples.append({"t": round(time.perf_counter() - started, 1), **proc_status(server.pid, index)})
            except OSError:
                return
            stop.wait(1.0)

    imports: list[dict] = []

    def run_imports() -> None:
        for path in (whatsapp, chatdb_new):
            if stop.is_set():
                return
            t = time.perf_counter() - started
            r = chatmem(home, config, "import", str(path), "--json")
            imports.append({"source": path.name, "start_s": round(t, 1),
                            "end_s": round(time.perf_counter() - started, 1), "exit": r.returncode})

    load = Load(url, args.calls, args.clients)
    threads = [threading.Thread(target=sample, daemon=True)]
    if not args.no_import:
        threads.append(threading.Thread(target=run_imports, daemon=True))
    for t in threads:
        t.start()
    clients = [threading.Thread(target=load.client, args=(k,)) for k in range(args.clients)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    elapsed = time.perf_counter() - started

    # one pathological query, alone, against its time bound
    import anyio

    async def one() -> tuple[float, bool, str]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                t = time.perf_counter()
                r = await client.call_tool("search_memory", {"query": PATHOLOGICAL, "limit": 10})
                return (time.perf_counter() - t) * 1000, r.is_error, (r.content[0].text[:160] if r.content else "")

    path_ms, path_error, path_text = anyio.run(one)
    for t in threads[1:]:
        t.join()
    stop.set()
    threads[0].join()
    server.terminate()
    server.wait(timeout=30)

    per_tool = {tool: {"calls": len(v), "p50_ms": round(pct(v, 50), 1), "p95_ms": round(pct(v, 95), 1),
                       "max_ms": round(max(v), 1)} for tool, v in sorted(load.latency.items())}
    rss = [s["rss_mb"] for s in samples]
    files = [s["open_files"] for s in samples]
    ixf = [s["index_files"] for s in samples]
    calls = sum(len(v) for v in load.latency.values())
    report = {
        "size": args.size, "clients": args.clients, "calls": calls, "errors": len(load.errors),
        "error_examples": load.errors[:5], "stopped_at_time_bound": len(load.bounded),
        "wall_s": round(elapsed, 1), "calls_per_s": round(calls / elapsed, 1),
        "per_tool": per_tool, "imports": imports,
        "rss_mb": {"first": rss[0], "min": min(rss), "max": max(rss), "last": rss[-1]},
        "open_files": {"first": files[0], "min": min(files), "max": max(files), "last": files[-1]},
        "index_files": {"first": ixf[0], "min": min(ixf), "max": max(ixf), "last": ixf[-1]},
        "pathological_query": {"wall_ms": round(path_ms, 1), "error": path_error, "says": path_text},
        "samples": samples[:: max(1, len(samples) // 40)],
        "load_average_at_end": os.getloadavg(),
    }
    out = HERE / "results" / f"server-load-{args.size}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{calls} calls by {args.clients} clients in {elapsed:.0f} s ({calls / elapsed:.0f}/s), "
          f"errors {len(load.errors)}, stopped at the time bound {len(load.bounded)}")
    print(f"imports during the run: {imports}")
    print("| tool | calls | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    for tool, v in per_tool.items():
        print(f"| {tool} | {v['calls']} | {v['p50_ms']} | {v['p95_ms']} | {v['max_ms']} |")
    print(f"server RSS MB first/max/last: {rss[0]}/{max(rss)}/{rss[-1]}; open files "
          f"{files[0]}/{max(files)}/{files[-1]}; index files {ixf[0]}/{max(ixf)}/{ixf[-1]}")
    print(f"pathological query: {path_ms:.0f} ms, error={path_error}: {path_text}")
    print(f"wrote {out}; store left in {work}")
    for e in load.errors[:5]:
        print("error:", e)
    return 0 if not load.errors else 1


if __name__ == "__main__":
    sys.exit(main())
