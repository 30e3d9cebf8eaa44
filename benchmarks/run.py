"""chatmem's benchmark (issue 8): one command, not part of the test suite.

    python benchmarks/run.py --size 100k            # all three formats at 100k messages
    python benchmarks/run.py --size 1m              # all three at 1M; --formats to choose
    python benchmarks/run.py --size all

For each size: generate the archives (cached in benchmarks/data/), import each with
`python -m chatmem --home <tmp> import <file> --json` in a subprocess (wall time, peak RSS via
/usr/bin/time, store and index size), import the unchanged source again, then the same source
with 1% newer messages; build the FTS5 reference from the same files; then open the chat.db
store in this process and time the read tools (`server_ms` p50/p95 per query class) next to the
same searches on the reference. Writes benchmarks/results/<size>.json and renders every size's
JSON into benchmarks/results/latest.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fts5_reference as ref  # noqa: E402
import generate  # noqa: E402
from report import render  # noqa: E402
from textgen import COMMON, OWNER_NAME, Vocabulary  # noqa: E402

OUT = HERE / "out"
RESULTS = HERE / "results"
TIME_BIN = "/usr/bin/time"
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
RSS_SAMPLE_S = 0.2
DEFAULT_FORMATS = {"10k": generate.FORMATS, "100k": generate.FORMATS, "1m": generate.FORMATS}
CONFIG = f"""owner:
  names: ["{OWNER_NAME}"]
timezone: Europe/Berlin
region: US
"""
SEARCH_KINDS = ("word", "two_words", "phrase", "prefix")
SEARCH_VARIANTS = ("plain", "chat", "date", "newest")
READ_TOOLS = ("get_context", "get_conversation_context", "get_conversation_history", "read_raw_data")


def log(msg: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ machine

def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) // 1024
    except (OSError, AttributeError):
        mem = 0
    try:
        commit = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return {"cpu": cpu, "cores": len(os.sched_getaffinity(0)), "ram_mb": mem,
            "python": platform.python_version(), "os": platform.platform(terse=True),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit,
            "load_at_start": round(os.getloadavg()[0], 2)}


# ------------------------------------------------------------------ imports

def dir_bytes(p: Path) -> int:
    if p.is_file():
        return p.stat().st_size
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.exists() else 0


def tree_rss_kb(root: int) -> int:
    """Resident KB of a process and all its descendants (Whoosh's procs=2 writer forks)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            rss[int(d.name)] = int((d / "statm").read_text().split()[1]) * PAGE_KB
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total


def run_import(home: Path, config: Path, src: Path) -> dict[str, Any]:
    """One `chatmem import` in a subprocess: wall seconds, peak RSS, the report."""
    cmd = [sys.executable, "-m", "chatmem", "--home", str(home), "--config", str(config),
           "import", str(src), "--json"]
    rss_file = home.parent / "rss.txt"
    if Path(TIME_BIN).exists():
        cmd = [TIME_BIN, "-f", "%M %U %S", "-o", str(rss_file), *cmd]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        tree_peak = 0
        while proc.poll() is None:
            tree_peak = max(tree_peak, tree_rss_kb(proc.pid))
            time.sleep(RSS_SAMPLE_S)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise SystemExit(f"chatmem import failed ({proc.returncode}):\n{stderr[-3000:]}")
    reports = json.loads(stdout)
    # peak RSS of the largest process; user + system CPU seconds of the whole tree (the
    # index writer's forked workers are waited for, so they count)
    timed = rss_file.read_text().split()[-3:] if rss_file.exists() else ["0", "0", "0"]
    rss_kb, cpu_s = int(timed[0]), float(timed[1]) + float(timed[2])
    new = sum(r["messages"]["new"] for r in reports)
    return {"seconds": round(wall, 3), "cpu_s": round(cpu_s, 2), "peak_rss_mb": round(rss_kb / 1024, 1),
            "peak_tree_rss_mb": round(tree_peak / 1024, 1), "new_messages": new,
            "statuses": [r["status"] for r in reports],
            "report_seconds": round(sum(r.get("seconds") or 0 for r in reports), 3),
            "reactions": sum(r.get("reactions", 0) for r in reports),
            "unparsed": sum(r.get("unparsed", 0) for r in reports)}


def bench_import(size: str, fmt: str, base: Path, ext: Path) -> dict[str, Any]:
    work = OUT / size / fmt
    shutil.rmtree(work, ignore_errors=True)
    (work / "src").mkdir(parents=True)
    config = work / "config.yaml"
    config.write_text(CONFIG)
    home = work / "home"
    src = work / "src" / base.name
    shutil.copyfile(base, src)
    log(f"{size} {fmt}: importing {src.name}")
    first = run_import(home, config, src)
    first["store_mb"] = round(sum(dir_bytes(p) for p in home.glob("chatmem.db*")) / 2**20, 1)
    first["index_mb"] = round(dir_bytes(home / "index") / 2**20, 1)
    first["source_mb"] = round(base.stat().st_size / 2**20, 1)
    first["messages_per_s"] = round(first["new_messages"] / first["seconds"])
    log(f"{size} {fmt}: {first['new_messages']} new in {first['seconds']} s, peak {first['peak_rss_mb']} MB")
    again = run_import(home, config, src)
    log(f"{size} {fmt}: unchanged re-import {again['seconds']} s ({again['statuses']})")
    later = time.time() + 60
    os.utime(src, (later, later))  # a re-export: the same bytes with a new modification time
    touched = run_import(home, config, src)
    log(f"{size} {fmt}: re-exported (new time only) {touched['seconds']} s ({touched['statuses']})")
    shutil.copyfile(ext, src)  # a newer export of the same source, in the same place
    plus = run_import(home, config, src)
    log(f"{size} {fmt}: +1% import {plus['seconds']} s, {plus['new_messages']} new")
    return {"first": first, "unchanged": again, "touched": touched, "plus1pct": plus, "home": str(home),
            "config": str(config)}


def bench_reference(size: str, fmt: str, base: Path) -> dict[str, Any]:
    db = OUT / size / fmt / "fts5" / "reference.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    r = ref.build(fmt, base, db)
    log(f"{size} {fmt}: FTS5 reference {r['messages']} in {r['seconds']:.2f} s")
    return {"seconds": round(r["seconds"], 3), "messages": r["messages"], "mb": round(r["bytes"] / 2**20, 1),
            "path": str(db)}


# ------------------------------------------------------------------ reads

def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2) if s else float("nan")


def stats(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
            "max": round(max(values), 2) if values else None}


def query_words(ref_db: Path, rng: random.Random, n: int) -> dict[str, list[list[str]]]:
    """Words per search kind: Zipf ranks past the stop-word head, phrases seen in real texts."""
    vocab = Vocabulary(generate.SEED)
    head = len(set(COMMON))
    conn = sqlite3.connect(ref_db)
    texts = [t for (t,) in conn.execute("SELECT text FROM messages WHERE length(text) > 30 "
                                        "ORDER BY id LIMIT 20000")]
    conn.close()
    common = set(COMMON)
    phrases: list[list[str]] = []
    while len(phrases) < n:
        words = re.findall(r"[a-z]+", rng.choice(texts).lower())
        pairs = [(a, b) for a, b in zip(words, words[1:]) if a not in common and b not in common]
        if pairs:
            phrases.append(list(rng.choice(pairs)))

    def rank(lo: int, hi: int) -> str:  # log-uniform between two ranks
        return vocab.words[int(lo * (hi / lo) ** rng.random())]

    return {
        "word": [[rank(head, len(vocab.words) - 1)] for _ in range(n)],
        "two_words": [[rank(head, 1000), rank(head, 1000)] for _ in range(n)],
        "phrase": phrases,
        "prefix": [[rank(head, 1000)[:3]] for _ in range(n)],
    }


def whoosh_query(kind: str, words: list[str]) -> str:
    if kind == "phrase":
        return '"' + " ".join(words) + '"'
    if kind == "prefix":
        return words[0] + "*"
    return " ".join(words)


def date_window(rng: random.Random) -> tuple[str, str]:
    start = date(2015 + rng.randrange(9), 1 + rng.randrange(12), 1)
    return start.isoformat(), start.replace(year=start.year + 1).isoformat()


def call(fn, store, seat, kwargs: dict) -> tuple[float, float, dict]:
    t0 = time.perf_counter()
    res = fn(store, seat, **kwargs)
    wall = (time.perf_counter() - t0) * 1000
    return float(res.get("server_ms", wall)), wall, res


def bench_reads(home: Path, config: Path, ref_db: Path, repeat: int) -> dict[str, Any]:
    from chatmem.config import load_config
    from chatmem.store import Store

    try:
        from chatmem.tools.api import TOOLS
    except ImportError:
        from chatmem.tools.search import search_memory
        TOOLS = {"search_memory": search_memory}

    rng = random.Random(generate.SEED)
    t0 = time.perf_counter()
    store = Store.open(home, config=load_config(str(config)))
    open_ms = (time.perf_counter() - t0) * 1000
    seat = store.config.seat(None)
    with store.engine.connect() as conn:
        busy = [r[0] for r in conn.exec_driver_sql(
            "SELECT chat_id FROM messages GROUP BY chat_id ORDER BY count(*) DESC LIMIT 20")]
        all_chats = [r[0] for r in conn.exec_driver_sql("SELECT id FROM chats")]
        msg_ids = [r[0] for r in conn.exec_driver_sql(
            f"SELECT id FROM messages ORDER BY random() LIMIT {repeat * 2}")]
    rconn = sqlite3.connect(ref_db)
    ref_busy = [r[0] for r in rconn.execute(
        "SELECT chat FROM messages GROUP BY chat ORDER BY count(*) DESC LIMIT 20")]
    words = query_words(ref_db, rng, repeat)
    search = TOOLS["search_memory"]
    for _ in range(2):  # warm-up: the first search opens the index readers
        search(store, seat, query=words["word"][0][0])
    out: dict[str, Any] = {"store_open_ms": round(open_ms, 1), "search": {}, "tools": {}}
    for kind in SEARCH_KINDS:
        for variant in SEARCH_VARIANTS:
            ours, walls, theirs, totals, ref_totals = [], [], [], [], []
            for k, ws in enumerate(words[kind]):
                kw: dict[str, Any] = {"query": whoosh_query(kind, ws)}
                rk: dict[str, Any] = {}
                if variant == "chat":
                    kw["source"] = busy[k % len(busy)]
                    rk["chat"] = ref_busy[k % len(ref_busy)]
                elif variant == "date":
                    since, until = date_window(rng)
                    kw["since"], kw["until"] = since, until
                    rk["since"] = int(datetime.fromisoformat(since).replace(tzinfo=timezone.utc).timestamp())
                    rk["until"] = int(datetime.fromisoformat(until).replace(tzinfo=timezone.utc).timestamp())
                elif variant == "newest":
                    kw["sort"] = "newest"
                    rk["newest"] = True
                ms, wall, res = call(search, store, seat, kw)
                ours.append(ms)
                walls.append(wall)
                totals.append(res.get("total", 0))
                r = ref.search(rconn, ref.fts_query(kind, ws), **rk)
                theirs.append(r["server_ms"])
                ref_totals.append(r["total"])
            name = kind if variant == "plain" else f"{kind}+{variant}"
            out["search"][name] = {"chatmem": stats(ours), "wall": stats(walls), "reference": stats(theirs),
                                   "mean_hits": round(sum(totals) / len(totals), 1),
                                   "ref_mean_hits": round(sum(ref_totals) / len(ref_totals), 1)}
            log(f"search {name}: p50 {out['search'][name]['chatmem']['p50']} ms, "
                f"p95 {out['search'][name]['chatmem']['p95']} ms (ref p95 {out['search'][name]['reference']['p95']})")
    rconn.close()
    convs = busy + rng.sample(all_chats, min(len(all_chats), repeat))
    cases = {
        "get_context": [{"memory_id": i} for i in msg_ids[:repeat]],
        "read_raw_data": [{"record_id": i} for i in msg_ids[repeat:repeat * 2]],
        "get_conversation_history": [{"conversation_id": c} for c in convs[:repeat]],
        "get_conversation_context": [{"conversation_id": c} for c in convs[:repeat]],
    }
    for name, args in cases.items():
        fn = TOOLS.get(name)
        if fn is None:
            out["tools"][name] = None
            log(f"{name}: not implemented yet")
            continue
        ms, walls = [], []
        for kw in args:
            m, w, _ = call(fn, store, seat, kw)
            ms.append(m)
            walls.append(w)
        out["tools"][name] = {"chatmem": stats(ms), "wall": stats(walls)}
        log(f"{name}: p50 {out['tools'][name]['chatmem']['p50']} ms, p95 {out['tools'][name]['chatmem']['p95']} ms")
    store.close()
    return out


def bench_conversation_reads(home: Path, config: Path, repeat: int) -> dict[str, Any]:
    """The conversation tools on the WhatsApp store, whose one chat holds every message: what
    a read costs when the chat is as big as the archive."""
    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.api import TOOLS

    rng = random.Random(generate.SEED)
    store = Store.open(home, config=load_config(str(config)))
    seat = store.config.seat(None)
    with store.engine.connect() as conn:
        chat = conn.exec_driver_sql("SELECT chat_id FROM messages GROUP BY chat_id ORDER BY count(*) DESC "
                                    "LIMIT 1").scalar()
        msg_ids = [r[0] for r in conn.exec_driver_sql(
            f"SELECT id FROM messages ORDER BY random() LIMIT {repeat * 2}")]
    cases = {
        "get_context": [{"memory_id": i} for i in msg_ids[:repeat]],
        "read_raw_data": [{"record_id": i} for i in msg_ids[repeat:]],
        "get_conversation_history": [{"conversation_id": chat, "max_turns": rng.choice((10, 50))}
                                     for _ in range(repeat)],
        "get_conversation_context": [{"conversation_id": chat, "token_budget": rng.choice((2000, 8000))}
                                     for _ in range(repeat)],
    }
    out: dict[str, Any] = {}
    for name, args in cases.items():
        ms, walls = [], []
        for kw in args:
            m, w, _ = call(TOOLS[name], store, seat, kw)
            ms.append(m)
            walls.append(w)
        out[name] = {"chatmem": stats(ms), "wall": stats(walls)}
        log(f"{name} (one big chat): p50 {out[name]['chatmem']['p50']} ms, p95 {out[name]['chatmem']['p95']} ms")
    store.close()
    return out


# ------------------------------------------------------------------ driver

def bench_size(size: str, formats: list[str], repeat: int) -> dict[str, Any]:
    result: dict[str, Any] = {"size": size, "n": generate.SIZES[size], "machine": machine(),
                              "imports": {}, "reference": {}, "reads": None}
    for fmt in formats:
        base, ext = generate.ensure(size, fmt, log)
        result["imports"][fmt] = bench_import(size, fmt, base, ext)
        result["reference"][fmt] = bench_reference(size, fmt, base)
    read_fmt = "chatdb" if "chatdb" in formats else formats[0]
    imp = result["imports"][read_fmt]
    result["reads_format"] = read_fmt
    result["reads"] = bench_reads(Path(imp["home"]), Path(imp["config"]),
                                  Path(result["reference"][read_fmt]["path"]), repeat)
    if "whatsapp" in formats:
        wa = result["imports"]["whatsapp"]
        result["big_chat_reads"] = bench_conversation_reads(Path(wa["home"]), Path(wa["config"]), repeat)
    return result


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="chatmem benchmark (issue 8)")
    ap.add_argument("--size", choices=[*generate.SIZES, "all"], default="100k")
    ap.add_argument("--formats", default=None,
                    help="comma-separated: whatsapp,chatdb,signal (default: all at 100k, chatdb at 1m)")
    ap.add_argument("--repeat", type=int, default=30, help="queries per search class and per tool")
    ap.add_argument("--keep", action="store_true", help="keep benchmarks/out/ (stores, references)")
    args = ap.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    for size in (["100k", "1m"] if args.size == "all" else [args.size]):
        formats = args.formats.split(",") if args.formats else list(DEFAULT_FORMATS[size])
        result = bench_size(size, formats, args.repeat)
        (RESULTS / f"{size}.json").write_text(json.dumps(result, indent=1) + "\n")
        if not args.keep:
            shutil.rmtree(OUT / size, ignore_errors=True)
    sizes = [json.loads(p.read_text()) for p in sorted(RESULTS.glob("*.json"), key=lambda p: generate.SIZES.get(p.stem, 0))
             if p.stem in generate.SIZES]
    (RESULTS / "latest.md").write_text(render(sizes))
    print((RESULTS / "latest.md").read_text())


if __name__ == "__main__":
    main()
