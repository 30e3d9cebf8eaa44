"""Every importer at one size, one importer per command (issue 17).

    python benchmarks/importers.py --size 1m --format chatdb --generate-only   # data first, untimed
    flock /work/wt/bench.lock python benchmarks/importers.py --size 1m --format chatdb
    python benchmarks/importers.py --table                                     # the README's table

For the importer named, in a fresh store: the import as a user runs it (`chatmem import --json`
in a subprocess, the search index included: wall, CPU of the whole process tree, peak RSS of the
whole tree sampled every 0.2 s), the same source again (unchanged), the same bytes with a new file
time (a re-export), then a newer export with 1% more messages at the same path; then the read
tools on that store's biggest chat (`server_ms` and CPU p50/p95, as `ingest_only.py` takes them).
One importer per command, so that a benchmark lock is held for one import series at a time.
Each run is merged into results/importers-<size>.json with the commit and the load average
before and after; `--table` renders every size's file as Markdown.

Formats: whatsapp, chatdb, signal (Signal Desktop) from generate.py; signal-export (Signal's
phone export), telegram, sms, meta (Messenger's download: one source per thread) from sources.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import sources  # noqa: E402
from ingest_only import conversation_reads, copy, fresh_work, touch  # noqa: E402
from run import OUT, RESULTS, dir_bytes, log, machine, run_import  # noqa: E402

FORMATS = ("whatsapp", "chatdb", "signal", "signal-export", "telegram", "sms", "meta")
NAMES = {"whatsapp": "WhatsApp .txt", "chatdb": "iMessage chat.db", "signal": "Signal Desktop db",
         "signal-export": "Signal phone export", "telegram": "Telegram result.json",
         "sms": "SMS Backup & Restore", "meta": "Messenger download"}
SHOWN_READS = ("get_conversation_context", "get_conversation_history", "get_context", "read_raw_data", "list_chats")


def archives(size: str, fmt: str) -> tuple[Path, Path]:
    """(base archive, its newer export with 1% more messages), generated once."""
    if fmt in sources.WRITERS:
        return sources.ensure_plus(size, fmt)
    return generate.ensure(size, fmt, log)


def commit() -> str:
    out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip()


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def save(size: str, fmt: str, result: dict[str, Any]) -> None:
    """Merge one importer's run into results/importers-<size>.json."""
    path = RESULTS / f"importers-{size}.json"
    RESULTS.mkdir(exist_ok=True)
    saved = json.loads(path.read_text()) if path.exists() else {"size": size, "imports": {}}
    saved["machine"] = machine()
    saved["imports"][fmt] = result
    path.write_text(json.dumps(saved, indent=1) + "\n")


def workdir(size: str, fmt: str) -> Path:
    return OUT / f"importers-{size}" / fmt


def bench(size: str, fmt: str, repeat: int, keep: bool) -> dict[str, Any]:
    base, ext = archives(size, fmt)
    work = workdir(size, fmt)
    home, config, src = fresh_work(work, base)
    result: dict[str, Any] = {"commit": commit(), "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              "load_before": load()}
    first = run_import(home, config, src)
    first["store_mb"] = round(sum(dir_bytes(p) for p in home.glob("chatmem.db*")) / 2**20, 1)
    first["index_mb"] = round(dir_bytes(home / "index") / 2**20, 1)
    log(f"{size} {fmt}: {first}")
    result["load_after_import"] = load()
    unchanged = run_import(home, config, src)
    log(f"{size} {fmt} unchanged: {unchanged}")
    touch(src)
    touched = run_import(home, config, src)
    log(f"{size} {fmt} re-exported: {touched}")
    copy(ext, src)
    plus = run_import(home, config, src)
    log(f"{size} {fmt} +1%: {plus}")
    result.update(first=first, unchanged=unchanged, touched=touched, plus1pct=plus, load_after=load())
    save(size, fmt, result)  # the imports are kept whatever happens to the reads
    result.update(reads=conversation_reads(home, config, repeat), load_after=load())
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def peak(run: dict[str, Any]) -> float:
    """The import's peak memory: the whole tree's as sampled every 0.2 s, or the largest
    process's own high-water mark (`/usr/bin/time`) when a short peak fell between samples."""
    return max(run["peak_tree_rss_mb"], run.get("peak_rss_mb") or 0)


def row(size: str, fmt: str, r: dict[str, Any]) -> str:
    f, u, t, p, rd = r["first"], r["unchanged"], r["touched"], r["plus1pct"], r.get("reads", {})

    def read(name: str) -> str:
        s = rd.get(name)
        return f"{s['p50']} / {s['p95']} ({s['cpu']['p95']})" if s else "–"

    share = 100 * p["seconds"] / f["seconds"] if f["seconds"] else 0
    cpu_share = 100 * p["cpu_s"] / f["cpu_s"] if f["cpu_s"] else 0
    return (f"| {NAMES.get(fmt, fmt)} | {size} | {f['new_messages']:,} | {f['seconds']:.0f} ({f['cpu_s']:.0f}) | "
            f"{peak(f):.0f} | {u['seconds']:.1f} | {t['seconds']:.1f} | "
            f"{p['seconds']:.1f} ({p['cpu_s']:.1f}), {share:.1f}% ({cpu_share:.1f}%) | "
            f"{peak(p):.0f} | "
            + " | ".join(read(n) for n in SHOWN_READS)
            + f" | {r['load_before'][0]}–{r['load_after'][0]} | {r['commit']} |")


def table() -> str:
    head = ("| importer | size | messages | import s wall (CPU) | peak RSS tree MB | unchanged s | re-export s | "
            "+1% s wall (CPU), share of the import's wall (CPU) | +1% peak RSS tree MB | " + " | ".join(f"{n} p50 / p95 ms (CPU p95)" for n in SHOWN_READS)
            + " | load | commit |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for size in generate.SIZES:
        path = RESULTS / f"importers-{size}.json"
        if path.exists():
            runs = json.loads(path.read_text())["imports"]
            lines += [row(size, fmt, runs[fmt]) for fmt in FORMATS if fmt in runs]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--format", choices=FORMATS)
    ap.add_argument("--repeat", type=int, default=30, help="calls per read tool")
    ap.add_argument("--generate-only", action="store_true", help="only generate the archives (untimed)")
    ap.add_argument("--keep", action="store_true", help="keep the store under benchmarks/out/")
    ap.add_argument("--reads-only", action="store_true",
                    help="time the read tools again on the store a --keep run left, into the same result")
    ap.add_argument("--table", action="store_true", help="print the table of every results/importers-*.json")
    args = ap.parse_args(argv)
    if args.table:
        print(table())
        return
    if args.format is None:
        ap.error("--format is required (one importer per run)")
    if args.generate_only:
        archives(args.size, args.format)
        return
    if args.reads_only:
        work = workdir(args.size, args.format)
        result = json.loads((RESULTS / f"importers-{args.size}.json").read_text())["imports"][args.format]
        result.update(reads=conversation_reads(work / "home", work / "config.yaml", args.repeat),
                      reads_commit=commit(), reads_load=load())
    else:
        result = bench(args.size, args.format, args.repeat, args.keep)
    save(args.size, args.format, result)
    print(table())


if __name__ == "__main__":
    main()
