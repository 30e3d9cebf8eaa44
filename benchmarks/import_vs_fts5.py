"""One import, index included, beside the FTS5 reference on the same archive (issue 14).

    python benchmarks/import_vs_fts5.py --size 100k               # WhatsApp, 3 runs each
    python benchmarks/import_vs_fts5.py --size 1m --runs 1
    python benchmarks/import_vs_fts5.py --size 100k --format chatdb

Each run imports the generated archive into a fresh store with `python -m chatmem import` in a
subprocess (`run.run_import`: wall seconds, CPU seconds of the whole process tree from
/usr/bin/time, peak RSS of the largest process and of the whole tree sampled from /proc), then
builds the FTS5 reference from the same file in another subprocess, timed the same way. Runs
alternate (chatmem, reference, chatmem, ...) so the ratio is taken pair by pair; medians are
printed and written to results/import-vs-fts5-<format>-<size>.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from run import CONFIG, OUT, RESULTS, TIME_BIN, machine, run_import  # noqa: E402


def reference_run(fmt: str, src: Path, db: Path) -> dict[str, float]:
    """The FTS5 reference as a whole process: wall and CPU seconds."""
    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    times = db.parent / "ref-time.txt"
    cmd = [sys.executable, str(HERE / "fts5_reference.py"), fmt, str(src), str(db)]
    if Path(TIME_BIN).exists():
        cmd = [TIME_BIN, "-f", "%M %U %S", "-o", str(times), *cmd]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    rss_kb, user, system = (times.read_text().split()[-3:] if times.exists() else ["0", "0", "0"])
    return {"seconds": round(wall, 3), "cpu_s": round(float(user) + float(system), 2),
            "peak_rss_mb": round(int(rss_kb) / 1024, 1)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--format", choices=list(generate.FORMATS), default="whatsapp")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    base, _ext = generate.ensure(args.size, args.format)
    work = OUT / "import-vs-fts5" / f"{args.format}-{args.size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    config = work / "config.yaml"
    config.write_text(CONFIG)
    runs = []
    for i in range(args.runs):
        home = work / "home"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir()
        ours = run_import(home, config, base)
        ref = reference_run(args.format, base, work / "reference.sqlite")
        runs.append({"chatmem": ours, "fts5": ref,
                     "x_wall": round(ours["seconds"] / ref["seconds"], 1),
                     "x_cpu": round(ours["cpu_s"] / ref["cpu_s"], 1) if ref["cpu_s"] else None})
        print(f"run {i + 1}: chatmem {ours['seconds']} s wall, {ours['cpu_s']} s CPU, peak "
              f"{ours['peak_rss_mb']} MB ({ours['peak_tree_rss_mb']} MB tree); FTS5 {ref['seconds']} s "
              f"wall, {ref['cpu_s']} s CPU", file=sys.stderr, flush=True)

    def med(key: str, side: str | None = None) -> float:
        return statistics.median(r[side][key] if side else r[key] for r in runs)

    summary = {
        "size": args.size, "format": args.format, "runs": runs, "machine": machine(),
        "messages": runs[0]["chatmem"]["new_messages"],
        "median": {"chatmem_wall_s": med("seconds", "chatmem"), "chatmem_cpu_s": med("cpu_s", "chatmem"),
                   "chatmem_peak_tree_mb": med("peak_tree_rss_mb", "chatmem"),
                   "fts5_wall_s": med("seconds", "fts5"), "fts5_cpu_s": med("cpu_s", "fts5"),
                   "x_wall": med("x_wall"), "x_cpu": med("x_cpu")},
    }
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"import-vs-fts5-{args.format}-{args.size}.json"
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary["median"]))


if __name__ == "__main__":
    main()
