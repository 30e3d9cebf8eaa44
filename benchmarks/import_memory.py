"""Where an import's memory goes, phase by phase, inside one process (issue 17).

    python benchmarks/import_memory.py HOME CONFIG SOURCE [--tracemalloc N] [--json OUT]

Imports SOURCE into the store at HOME (made when missing) in this process, as `chatmem import`
does, with a thread reading the process's RSS every 0.05 s. Prints, for each phase (the
importer's read with the ingest, `Ingest.flush_messages` inside it, the index catch-up and its
segment writes, with the semantic extra the vectors' catch-up, its model load and its segment
writes, the rest), the peak RSS seen while it ran, and the RSS at its start and end;
then the process's high-water mark (VmHWM, what `/usr/bin/time` reports). With `--tracemalloc N`
(slow: about three times the CPU), Python's own allocations are traced and the N biggest
allocation sites are printed as the largest segment write starts (where the index builder holds
most; the ingest's own memory is flat), with the traced peak while it writes. The import is one process (no workers), so its RSS is the tree's.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.store import index as index_mod
from chatmem.store import ingest as ingest_mod
from chatmem.store import store as store_mod


def status_kb(field: str) -> int:
    """A line of /proc/self/status in kB: VmRSS (now) or VmHWM (the high-water mark)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss_kb() -> int:
    return status_kb("VmRSS")


class Phases:
    """The phase running now (innermost wrapped call) and each phase's peak RSS."""

    def __init__(self) -> None:
        self.stack: list[str] = ["start"]
        self.peak: dict[str, int] = {}
        self.edges: dict[str, list[int]] = {}
        self.cpu: dict[str, float] = {}
        self.stop = False
        self.snapshots: dict[str, Any] = {}
        self.snap_at: dict[str, int] = {}
        self.traced_peak: dict[str, int] = {}

    def sample(self) -> None:
        while not self.stop:
            rss = rss_kb()
            for name in self.stack:
                if rss > self.peak.get(name, 0):
                    self.peak[name] = rss
            time.sleep(0.05)

    def wrap(self, owner: Any, attr: str, name: str, snapshot: bool = False) -> None:
        inner = getattr(owner, attr)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.stack.append(name)
            before = rss_kb()
            start = time.process_time()
            self.edges.setdefault(name, [before, 0])
            if snapshot and tracemalloc.is_tracing():
                traced = tracemalloc.get_traced_memory()[0]
                if traced > self.snap_at.get(name, -1):
                    self.snap_at[name] = traced
                    self.snapshots[name] = tracemalloc.take_snapshot()
                tracemalloc.reset_peak()
            try:
                return inner(*args, **kwargs)
            finally:
                after = rss_kb()
                self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - start
                self.edges[name][1] = after
                if snapshot and tracemalloc.is_tracing():
                    peak = tracemalloc.get_traced_memory()[1]
                    self.traced_peak[name] = max(self.traced_peak.get(name, 0), peak)
                self.stack.pop()

        setattr(owner, attr, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("config", type=Path)
    ap.add_argument("source", type=Path)
    ap.add_argument("--tracemalloc", type=int, default=0, metavar="N")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    phases = Phases()
    # the segment write is where the builder is fullest: snapshot just before it returns
    phases.wrap(index_mod, "_write_segment", "segment write", snapshot=True)
    phases.wrap(store_mod.Store, "catch_up_index", "index")
    phases.wrap(ingest_mod.Ingest, "feed", "feed (read + ingest)")
    phases.wrap(ingest_mod.Ingest, "flush_messages", "flush_messages")
    try:  # with the semantic extra: the vectors' catch-up, the model's load, its segment writes
        from chatmem.store import embedder as embedder_mod
        from chatmem.store import vectors as vectors_mod

        phases.wrap(store_mod.Store, "catch_up_vectors", "vectors")
        phases.wrap(embedder_mod.Embedder, "__init__", "model load")
        phases.wrap(vectors_mod.VectorStore, "_write_segment", "vector segment write", snapshot=True)
    except ImportError:
        pass
    if args.tracemalloc:
        tracemalloc.start(1)
    sampler = threading.Thread(target=phases.sample, daemon=True)
    sampler.start()
    t0, c0 = time.perf_counter(), time.process_time()
    store = Store.open(args.home, load_config(args.config))
    reports = store.import_sources(find_sources(args.source))
    store.close()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    phases.stop = True
    sampler.join()
    out = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "hwm_mb": round(status_kb("VmHWM") / 1024, 1),
           "messages": sum(r.as_dict()["messages"]["new"] for r in reports),
           "phases": {name: {"peak_mb": round(phases.peak.get(name, 0) / 1024, 1),
                             "start_mb": round(phases.edges.get(name, [0, 0])[0] / 1024, 1),
                             "end_mb": round(phases.edges.get(name, [0, 0])[1] / 1024, 1),
                             "cpu_s": round(phases.cpu.get(name, 0.0), 2)}
                      for name in ["start", *phases.edges]}}
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    for name, snap in phases.snapshots.items():
        print(f"\n== tracemalloc as the largest {name} starts: {phases.snap_at[name] / 2**20:.1f} MB "
              f"traced; its peak while writing: {phases.traced_peak[name] / 2**20:.1f} MB")
        for stat in snap.statistics("lineno")[:args.tracemalloc]:
            print(f"{stat.size / 2**20:8.1f} MB {stat.count:9d}  {stat.traceback[0]}")


if __name__ == "__main__":
    main()
