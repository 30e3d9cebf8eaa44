"""Import without the search index: parse + database only, at any size (issue 17).

    python benchmarks/ingest_only.py --size 1m --formats whatsapp,chatdb
    python benchmarks/ingest_only.py --size 100k --formats whatsapp,chatdb,signal,signal-export,telegram,sms

For each archive, in a fresh store: the import (the index catch-up skipped), the same file
again with only a new modification time (a re-export), then its +1% version at the same path;
each in a subprocess under /usr/bin/time (wall, CPU, peak RSS). Then the conversation reads on
the store's biggest chat (`server_ms` p50/p95). Writes results/ingest-<size>.json and prints a
Markdown table. The index phase belongs to `run.py`; this isolates what the importers and the
ingest cost, and shows whether their memory stays flat as the archive grows.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import sources  # noqa: E402
from run import CONFIG, OUT, RESULTS, TIME_BIN, call, log, machine, stats  # noqa: E402

CHILD = """
import sys, time, json
from pathlib import Path
from chatmem.config import load_config
from chatmem.importers import find_sources
from chatmem.store import Store
store = Store.open(Path(sys.argv[1]), load_config(sys.argv[2]), catch_up=False)
store.catch_up_index = lambda *a, **k: 0  # parse + database only
t = time.perf_counter()
reports = store.import_sources(find_sources(Path(sys.argv[3])))
print(json.dumps({"seconds": time.perf_counter() - t, "statuses": [r.status for r in reports],
                  "messages": [r.totals() for r in reports]}))
"""


def copy(src: Path, dst: Path) -> None:
    """A file or an export folder, replacing what is at `dst`."""
    if dst.is_dir():
        shutil.rmtree(dst)
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copyfile(src, dst)


def fresh_work(work: Path, base: Path) -> tuple[Path, Path, Path]:
    """An empty `work` folder with the benchmark's config and a copy of the archive `base`:
    (home, config, src)."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "src").mkdir(parents=True)
    config = work / "config.yaml"
    config.write_text(CONFIG)
    src = work / "src" / base.name
    copy(base, src)
    return work / "home", config, src


def touch(src: Path) -> None:
    """The same bytes with a new modification time: what a re-export looks like."""
    later = time.time() + 60
    for f in [src, *src.rglob("*")] if src.is_dir() else [src]:
        os.utime(f, (later, later))


def one(home: Path, config: Path, src: Path) -> dict[str, Any]:
    timing = home.parent / "time.txt"
    out = subprocess.run([TIME_BIN, "-f", "%e %U %S %M", "-o", str(timing), sys.executable, "-c", CHILD,
                          str(home), str(config), str(src)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    wall, user, sys_s, rss = timing.read_text().split()[-4:]
    got = json.loads(out.stdout)
    return {"wall_s": float(wall), "cpu_s": round(float(user) + float(sys_s), 2), "peak_rss_mb": int(rss) // 1024,
            "import_s": round(got["seconds"], 3), "statuses": got["statuses"],
            "new": sum(m["new"] for m in got["messages"])}


def conversation_reads(home: Path, config: Path, repeat: int) -> dict[str, Any]:
    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.api import TOOLS
    from chatmem.tools.history import MAX_OFFSET

    rng = random.Random(generate.SEED)
    store = Store.open(home, config=load_config(str(config)), catch_up=False)
    seat = store.config.seat(None)
    with store.engine.connect() as conn:
        chat, n = conn.exec_driver_sql("SELECT id, message_count FROM chats ORDER BY message_count DESC "
                                       "LIMIT 1").one()
        ids = [r[0] for r in conn.exec_driver_sql(f"SELECT id FROM messages WHERE chat_id = '{chat}' "
                                                  f"ORDER BY random() LIMIT {repeat * 2}")]
        # `before` somewhere in the middle of the chat: a window read deep in its history
        times = [r[0] for r in conn.exec_driver_sql(f"SELECT sent_at FROM messages WHERE chat_id = '{chat}' "
                                                    f"ORDER BY random() LIMIT {repeat}")]
    cases = {
        "get_context": [{"memory_id": i} for i in ids[:repeat]],
        "read_raw_data": [{"record_id": i} for i in ids[repeat:]],
        "list_chats": [{"limit": rng.choice((20, 50))} for _ in range(repeat)],
        "get_conversation_history (offset)": [
            {"conversation_id": chat, "max_turns": 20, "offset": rng.randrange(min(n, MAX_OFFSET + 1))}
            for _ in range(repeat)],
        "get_conversation_context (before)": [
            {"conversation_id": chat, "token_budget": 2000, "before": str(t).replace(" ", "T")} for t in times],
        "get_conversation_history": [{"conversation_id": chat, "max_turns": rng.choice((10, 50))}
                                     for _ in range(repeat)],
        "get_conversation_context": [{"conversation_id": chat, "token_budget": rng.choice((2000, 8000))}
                                     for _ in range(repeat)],
    }
    out: dict[str, Any] = {"chat_messages": n}
    for name, args in cases.items():
        served, cpu = [], []
        call(TOOLS[name.split(" ")[0]], store, seat, args[-1])  # warm: a server has compiled its statements
        for kw in args:
            t0 = time.process_time()  # on a shared machine CPU time says more than wall time
            served.append(call(TOOLS[name.split(" ")[0]], store, seat, kw)[0])
            cpu.append((time.process_time() - t0) * 1000)
        out[name] = {**stats(served), "cpu": stats(cpu)}
        log(f"{name} on a chat of {n:,}: p50 {out[name]['p50']} ms, p95 {out[name]['p95']} ms "
            f"(CPU p95 {out[name]['cpu']['p95']} ms)")
    store.close()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--formats", default="whatsapp,chatdb")
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    result: dict[str, Any] = {"size": args.size, "machine": machine(), "imports": {}}
    for fmt in args.formats.split(","):
        base, ext = (sources.ensure_plus(args.size, fmt) if fmt in sources.WRITERS
                     else generate.ensure(args.size, fmt, log))
        work = OUT / f"ingest-{args.size}" / fmt
        home, config, src = fresh_work(work, base)
        first = one(home, config, src)
        log(f"{fmt}: {first}")
        touch(src)
        touched = one(home, config, src)
        log(f"{fmt} re-exported: {touched}")
        copy(ext, src)
        plus = one(home, config, src)
        log(f"{fmt} +1%: {plus}")
        result["imports"][fmt] = {"first": first, "touched": touched, "plus1pct": plus,
                                  "reads": conversation_reads(home, config, args.repeat)}
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"ingest-{args.size}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"| {args.size} | import s (CPU s) | peak RSS MB | re-exported s | +1% s (new) | +1% / full | "
          "history p95 ms (CPU) | context p95 ms (CPU) |\n|---|---|---|---|---|---|---|---|")
    for fmt, r in result["imports"].items():
        f, t, p, rd = r["first"], r["touched"], r["plus1pct"], r["reads"]
        print(f"| {fmt} | {f['import_s']:.1f} ({f['cpu_s']:.1f}) | {f['peak_rss_mb']} | {t['import_s']:.2f} | "
              f"{p['import_s']:.2f} ({p['new']:,}) | {100 * p['import_s'] / f['import_s']:.1f}% | "
              f"{rd['get_conversation_history']['p95']} ({rd['get_conversation_history']['cpu']['p95']}) | "
              f"{rd['get_conversation_context']['p95']} ({rd['get_conversation_context']['cpu']['p95']}) |")


if __name__ == "__main__":
    main()
