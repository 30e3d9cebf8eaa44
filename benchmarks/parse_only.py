"""Parse without a store: what each importer alone costs, beside `ingest_only.py`'s parse + database.

    python benchmarks/parse_only.py --size 100k --formats whatsapp,chatdb,signal,signal-export,telegram,sms
    python benchmarks/parse_only.py --size 100k --formats telegram --profile   # top functions

Each importer reads the generated archive in a subprocess under /usr/bin/time (CPU, peak RSS);
records are counted and dropped. `--profile` runs cProfile in the child and prints the functions
with the most own time. The database's share of an import is ingest_only's CPU minus this.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import sources  # noqa: E402
from run import TIME_BIN, log  # noqa: E402

CHILD = """
import sys, time, json, cProfile, pstats
from pathlib import Path
from chatmem.importers import find_sources
from chatmem.records import ImportOptions, Message
((path, importer),) = find_sources(Path(sys.argv[1]))
prof = cProfile.Profile() if sys.argv[2] == "1" else None
t = time.process_time()
if prof:
    prof.enable()
n = sum(isinstance(r, Message) for r in importer.read(path, ImportOptions()))
if prof:
    prof.disable()
    pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(25)
print(json.dumps({"messages": n, "cpu_s": time.process_time() - t}))
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--formats", default="whatsapp,chatdb,signal,signal-export,telegram,sms")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for fmt in args.formats.split(","):
        src = (sources.ensure_plus(args.size, fmt)[0] if fmt in sources.WRITERS
               else generate.ensure(args.size, fmt, log)[0])
        timing = HERE / "out" / "parse-time.txt"
        timing.parent.mkdir(exist_ok=True)
        out = subprocess.run([TIME_BIN, "-f", "%e %U %S %M", "-o", str(timing), sys.executable, "-c", CHILD,
                              str(src), "1" if args.profile else "0"], capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr[-3000:])
        if args.profile:
            print(out.stderr)
        wall, user, sys_s, rss = timing.read_text().split()[-4:]
        got = json.loads(out.stdout)
        rows.append((fmt, got["messages"], got["cpu_s"], float(user) + float(sys_s), int(rss) // 1024))
        log(f"{fmt}: {rows[-1]}")
    print(f"| {args.size} | messages | parse CPU s | whole process CPU s | peak RSS MB |\n|---|---|---|---|---|")
    for fmt, n, cpu, total, rss in rows:
        print(f"| {fmt} | {n:,} | {cpu:.2f} | {total:.2f} | {rss} |")


if __name__ == "__main__":
    main()
