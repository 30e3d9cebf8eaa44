"""Search over an index that many small re-imports have grown, before and after merging.

A user who imports a newer export every week adds one Whoosh segment per import of 1,000 or
more messages. This applies N such imports to a copy of a search store and measures search per
query class (`search_bench.bench`, the FTS5 reference in the same run) at chosen N:

    python benchmarks/merge_bench.py sources --count 60            # N WhatsApp exports, 2k-10k each
    python benchmarks/merge_bench.py apply --work W --upto 10      # imports 1..10 into W/home
    flock /work/wt/bench.lock python benchmarks/merge_bench.py search --work W --label n10
    python benchmarks/merge_bench.py segments --work W
    python benchmarks/merge_bench.py sources --count 1 --first 901 --messages 500   # a small update

`W` holds `home/`, `config.yaml` and `reference.sqlite` (a copy of benchmarks/out/search/<size>,
never the original: imports write into it). Each export is a new group chat of its own (its own
file name) with text from the archive generator's vocabulary, so the queries' words occur in the
new segments too. `--code DIR` runs the imports and searches with another checkout's code
(a tree whose `chatmem/` links `importers`, `store`, `tools`), e.g. main's, for the before
figures. Results go to W/merge-results.jsonl, one JSON object per import or search run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SOURCES = HERE / "out" / "merge" / "sources"
SEED = 52  # a year of weekly imports
MIN_NEW, MAX_NEW = 2_000, 10_000
START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)  # after the generated archive's ten years


def source_path(i: int) -> Path:
    return SOURCES / f"{i:03d}" / f"WhatsApp Chat with Weekly {i:03d}.txt"


def write_sources(count: int, first: int = 1, messages: int | None = None) -> list[dict[str, Any]]:
    """`count` WhatsApp exports (one group chat each) numbered from `first`, MIN_NEW..MAX_NEW
    messages each (or `messages`)."""
    import generate
    from textgen import OWNER_NAME, TextMaker, Vocabulary, person_names

    maker = TextMaker(Vocabulary(generate.SEED))
    out = []
    for i in range(first, first + count):
        rng = random.Random(SEED * 1000 + i)
        n = MIN_NEW + rng.randrange(MAX_NEW - MIN_NEW + 1)
        n = messages or n
        members = person_names(random.Random(SEED + i), 12)
        everyone = [OWNER_NAME, *members]
        local = timezone(timedelta(hours=1))
        start = START + timedelta(days=7 * (i - 1))
        lines = []
        for k in range(n):
            t = (start + timedelta(seconds=k * 60)).astimezone(local)
            author = everyone[min(int(rng.expovariate(0.2)), len(everyone) - 1)]
            lines.append(f"{t.day:02d}/{t.month:02d}/{t.year}, {t.hour:02d}:{t.minute:02d} - "
                         f"{author}: {maker.text(rng)}\n")
        path = source_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(lines), encoding="utf-8")
        out.append({"source": i, "messages": n})
    return out


def env_for(code: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = str(Path(code).resolve())
    return env


def load() -> str:
    return open("/proc/loadavg").read().split()[0]


def record(work: Path, row: dict[str, Any]) -> None:
    row = {"at": datetime.now(timezone.utc).strftime("%H:%M:%S"), **row}
    with (work / "merge-results.jsonl").open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def segments(work: Path) -> list[dict[str, int]]:
    from whoosh import index as windex

    ix = windex.open_dir(str(work / "home" / "index"))
    try:
        return [{"docs": s.doc_count_all(), "deleted": s.deleted_count()} for s in ix._segments()]
    finally:
        ix.close()


def apply(work: Path, first: int, upto: int, code: str | None) -> None:
    """Imports `first`..`upto` (each `chatmem import` in its own process, as a user runs it)."""
    from run import TIME_BIN

    for i in range(first, upto + 1):
        cmd = [sys.executable, "-m", "chatmem", "--home", str(work / "home"), "--config",
               str(work / "config.yaml"), "import", str(source_path(i)), "--json"]
        timing = work / "time.txt"
        cmd = [TIME_BIN, "-f", "%M %U %S", "-o", str(timing), *cmd]
        before = load()
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env_for(code), cwd=work)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"import {i} failed:\n{proc.stderr[-3000:]}")
        rss_kb, user, system = timing.read_text().split()[-3:]
        new = sum(r["messages"]["new"] for r in json.loads(proc.stdout))
        segs = segments(work)
        record(work, {"import": i, "new": new, "wall_s": round(wall, 2),
                      "cpu_s": round(float(user) + float(system), 2),
                      "peak_rss_mb": round(int(rss_kb) / 1024, 1), "segments": len(segs),
                      "docs": sum(s["docs"] for s in segs), "load": f"{before} -> {load()}",
                      "code": code or "worktree"})


def search(work: Path, label: str, repeat: int, seed: int) -> None:
    import search_bench

    def paths(size: str) -> dict[str, Path]:
        return {"work": work, "home": work / "home", "config": work / "config.yaml",
                "ref": work / "reference.sqlite"}

    search_bench.paths = paths
    before = load()
    result = search_bench.bench("1m", repeat, seed)
    result["label"] = label
    result["segments"] = len(segments(work))
    result["load"] = f"{before} -> {load()}"
    import chatmem.store.index as index_module

    result["code"] = str(Path(index_module.__file__).parent.parent)
    record(work, {"search": label, **result})
    print(search_bench.render(result))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    s = sub.add_parser("sources")
    s.add_argument("--count", type=int, default=60)
    s.add_argument("--first", type=int, default=1)
    s.add_argument("--messages", type=int, default=None, help="this many each (default: 2k-10k)")
    for name in ("apply", "search", "segments"):
        p = sub.add_parser(name)
        p.add_argument("--work", type=Path, required=True)
        if name == "apply":
            p.add_argument("--first", type=int, default=1)
            p.add_argument("--upto", type=int, required=True)
            p.add_argument("--code", default=None, help="run another checkout's code (PYTHONPATH)")
        if name == "search":
            p.add_argument("--label", required=True)
            p.add_argument("--repeat", type=int, default=20)
            p.add_argument("--seed", type=int, default=14)
    args = ap.parse_args(argv)
    if args.step == "sources":
        print(json.dumps(write_sources(args.count, args.first, args.messages)))
    elif args.step == "apply":
        apply(args.work.resolve(), args.first, args.upto, args.code)
    elif args.step == "search":
        search(args.work.resolve(), args.label, args.repeat, args.seed)
    else:
        print(json.dumps(segments(args.work.resolve())))


if __name__ == "__main__":
    main()
