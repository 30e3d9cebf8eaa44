"""Search by meaning at scale (issue 20): embedding rate, bytes per message, and the semantic
leg's query time over a million vectors. Not part of the test suite.

    python benchmarks/vectors_bench.py                       # embed 100k, search over 1M
    python benchmarks/vectors_bench.py --embed 1000000 --rows 1000000   # all of it real (minutes)
    python benchmarks/vectors_bench.py --store benchmarks/out/search/1m  # search_memory per mode

`--store` takes a folder prepared by `search_bench.py --prepare` (a store of the generated
chat.db, with vectors when the extra was installed, and its FTS5 reference) and times the whole
`search_memory` call (server_ms, wall and CPU of this process) in keyword, semantic and hybrid
mode for search_bench's query classes that have no operators, the same queries in every mode.

Texts come from the benchmark's generator (textgen.py, the same Zipf chat text as run.py). The
`--embed` texts are embedded for real (messages/s of `Embedder.embed` in batches, as an import
does); the vector store then holds `--rows` rows: the embedded vectors repeated with fresh ids,
chats, people and times when rows > embed (the scan's cost depends on the row count, not on
what the vectors say). Queries are generated texts too, each searched plain, in one busy chat,
in a one-year window, and from one person; p50/p95 of the whole semantic leg (query embedding
+ filters + Hamming pass + int8 re-scoring).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from textgen import TextMaker, Vocabulary  # noqa: E402

RESULTS = HERE / "results"
CHATS, PEOPLE = 300, 400
START = datetime(2015, 1, 1, tzinfo=timezone.utc)


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2)


def main(argv: list[str] | None = None) -> None:
    import numpy as np

    from chatmem.store.embedder import load_embedder
    from chatmem.store.vectors import EMBED_BATCH, VectorRow, VectorStore

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embed", type=int, default=100_000, help="texts embedded for real")
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows in the vector store")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--store", type=Path, default=None, help="a search_bench.py folder: time search_memory")
    ap.add_argument("--catch-up", action="store_true", help="with --store: embed its messages anew first (timed)")
    ap.add_argument("--scan", action="store_true",
                    help="with --store: the scan's top 10 against the exact nearest, per shortlist size")
    args = ap.parse_args(argv)
    if args.store is not None and args.catch_up:
        catch_up_bench(args.store)
    if args.store is not None and args.scan:
        return scan_bench(args.store, args.queries)
    if args.store is not None:
        return modes_bench(args.store, args.queries)
    rng = random.Random(20)
    maker = TextMaker(Vocabulary(8))
    texts = [maker.text(rng) for _ in range(args.embed)]
    e = load_embedder()
    e.embed(texts[:100])
    t0, c0 = time.perf_counter(), time.process_time()
    vecs = np.concatenate([e.embed(texts[i:i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)])
    embed_s, embed_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"embedded {len(texts):,} messages in {embed_s:.1f} s wall, {embed_cpu:.1f} s CPU: "
          f"{len(texts) / embed_s:,.0f}/s", file=sys.stderr)
    span = 3650 * 86400 / args.rows
    with tempfile.TemporaryDirectory(prefix="chatmem-vectors-") as tmp:
        vs = VectorStore(Path(tmp) / "vectors")
        rows = (VectorRow(f"m_{i:016x}", "", f"s_{rng.randrange(CHATS):016x}", f"p_{rng.randrange(PEOPLE):016x}",
                          int(START.timestamp() + i * span)) for i in range(args.rows))
        t0 = time.perf_counter()
        vs.add(rows, 1, lambda batch: _cycle(vecs, batch), "bench")  # noqa: B023
        write_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        n = vs.count()
        load_s = time.perf_counter() - t0
        per_message = vs.nbytes() / n
        print(f"{n:,} rows written in {write_s:.1f} s, loaded in {load_s:.1f} s, "
              f"{per_message:.0f} bytes per message", file=sys.stderr)
        queries = [maker.text(rng) for _ in range(args.queries)]
        cases = {
            "plain": {},
            "chat": {"chats": [f"s_{0:016x}"]},
            "one year": {"since": datetime(2020, 1, 1), "until": datetime(2020, 12, 31)},
            "person": {"people": [f"p_{7:016x}"]},
        }
        latency = {}
        for name, kw in cases.items():
            ms = []
            for q in queries:
                t0 = time.perf_counter()
                vs.search(e.embed([q])[0], 100, **kw)
                ms.append((time.perf_counter() - t0) * 1000)
            latency[name] = {"p50": percentile(ms, 50), "p95": percentile(ms, 95)}
            print(f"semantic leg, {name}: p50 {latency[name]['p50']} ms, p95 {latency[name]['p95']} ms",
                  file=sys.stderr)
    result = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "embedded": args.embed,
              "embed_per_s": round(args.embed / embed_s),
              "embed_cpu_s": round(embed_cpu, 2), "model": e.name, "rows": n, "bytes_per_message": round(per_message, 1),
              "mb_total": round(per_message * n / 2**20, 1), "write_s": round(write_s, 1),
              "load_s": round(load_s, 1), "semantic_leg_ms": latency}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"vectors-{n}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


MODE_CLASSES = ("word", "two_words", "sender", "date", "sender_platform_date", "any_word", "fuzzy")


def modes_bench(folder: Path, n: int, seed: int = 20) -> None:
    """search_memory in each mode over a prepared store: p50/p95 wall and CPU per query class."""
    import os
    import sqlite3

    from search_bench import Sampler, make_queries, stats, timed

    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.search import search_memory

    rconn = sqlite3.connect(folder / "reference.sqlite")
    queries = make_queries(Sampler(rconn, random.Random(seed)), n)
    store = Store.open(folder / "home", config=load_config(str(folder / "config.yaml")))
    seat = store.config.seat(None)
    modes = ("keyword", "semantic", "hybrid")
    t0 = time.perf_counter()
    for mode in modes:  # warm-up: searchers, the vectors loaded, caches
        for ours, _ in queries["word"][:3]:
            search_memory(store, seat, mode=mode, **ours)
    warm_s = time.perf_counter() - t0
    result: dict = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                    "messages": store.index.doc_count(), "vectors": store.vectors.count(),
                    "queries_per_class": n, "warm_up_s": round(warm_s, 1), "load_before": os.getloadavg(),
                    "classes": {}}
    for cls in MODE_CLASSES:
        row = {}
        for mode in modes:
            walls, cpus, server = [], [], []
            for ours, _ in queries[cls]:
                w, c, res = timed(search_memory, store, seat, mode=mode, **ours)
                walls.append(w)
                cpus.append(c)
                server.append(res["server_ms"])
            row[mode] = {"wall": stats(walls), "cpu": stats(cpus), "server_ms": stats(server)}
            print(f"{cls} {mode}: wall p50 {row[mode]['wall']['p50']} p95 {row[mode]['wall']['p95']} ms, "
                  f"CPU p50 {row[mode]['cpu']['p50']} p95 {row[mode]['cpu']['p95']} ms", file=sys.stderr)
        result["classes"][cls] = row
    result["load_after"] = os.getloadavg()
    store.close()
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"search-modes-{result['messages']}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


def _open(folder: Path):
    from chatmem.config import load_config
    from chatmem.store import Store

    return Store.open(folder / "home", config=load_config(str(folder / "config.yaml")))


def catch_up_bench(folder: Path) -> None:
    """Every message of the store embedded anew, as `reindex` or an upgrade does: CPU, wall, RSS."""
    import os
    import resource

    store = _open(folder)
    store.vectors.clear()
    load0 = os.getloadavg()
    t0, c0 = time.perf_counter(), time.process_time()
    n = store.catch_up_vectors()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    result = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "embedded": n,
              "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cpu_s_per_100k": round(cpu / n * 1e5, 2),
              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
              "bytes_per_message": round(store.vectors.nbytes() / store.vectors.count(), 1),
              "mb_total": round(store.vectors.nbytes() / 2**20, 1), "load": [load0, os.getloadavg()]}
    store.close()
    print(json.dumps(result), file=sys.stderr)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"vectors-catch-up-{n}.json").write_text(json.dumps(result, indent=1) + "\n")


def scan_bench(folder: Path, n: int, shortlists: tuple[int, ...] = (1000, 4000, 16000)) -> None:
    """How many of the exact 10 nearest (int8 cosine over every row) the two-step scan returns,
    for English questions (the labelled set's) and generated any-word queries, per shortlist."""
    import os

    import numpy as np
    from eval_queries import load_queries

    from chatmem.store.embedder import load_embedder

    store = _open(folder)
    e = load_embedder()
    data = store.vectors._load()
    vec = data.vec_rows(np.arange(data.n)).astype(np.float32)
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-9)
    texts = [q.query for q in load_queries()][:n]
    rng = random.Random(20)
    maker = TextMaker(Vocabulary(8))
    texts += ["what did they say about " + maker.text(rng) for _ in range(n)]
    result: dict = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "rows": int(data.n),
                    "queries": len(texts), "model": e.name, "load_before": os.getloadavg(), "shortlists": {}}
    exact = []
    for t in texts:
        sims = vec @ e.embed([t])[0]
        exact.append(set(np.argpartition(-sims, 10)[:10].tolist()))
    for size in shortlists:
        overlap, cpus = [], []
        for t, want in zip(texts, exact):
            q = e.embed([t])[0]
            c0 = time.process_time()
            got = store.vectors.search(q, 10, shortlist=size)
            cpus.append((time.process_time() - c0) * 1000)
            ids = {data.ids[i] for i in want}
            overlap.append(sum(g.encode() in ids for g, _ in got) / 10)
        result["shortlists"][size] = {"overlap_at_10": round(float(np.mean(overlap)), 3),
                                      "cpu_ms_p50": percentile(cpus, 50), "cpu_ms_p95": percentile(cpus, 95)}
        print(size, result["shortlists"][size], file=sys.stderr)
    result["load_after"] = os.getloadavg()
    store.close()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"vectors-scan-{data.n}.json").write_text(json.dumps(result, indent=1) + "\n")


_position = [0]


def _cycle(vecs, batch: list[str]):
    """The next len(batch) embedded vectors, wrapping around."""
    import numpy as np

    start = _position[0]
    idx = (np.arange(start, start + len(batch)) % len(vecs))
    _position[0] = start + len(batch)
    return vecs[idx]


if __name__ == "__main__":
    main()
