"""Re-imports of a newer export that arrives under a new name (issue 17): SMS Backup & Restore
names each backup sms-<date>.xml, Telegram each export DataExport_<date>/, a Signal export
folder carries its date. For each: the first import, the same bytes under a new name, then the
+1% export under a third name, each in a subprocess under /usr/bin/time (parse + database only).

    python benchmarks/renamed.py --size 100k --formats signal-export,telegram,sms
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import sources  # noqa: E402
from ingest_only import copy, one  # noqa: E402
from run import CONFIG, OUT, RESULTS, log, machine  # noqa: E402

NAMES = {"signal-export": ("signal-export-2024-03-02", "signal-export-2024-04-01", "signal-export-2024-05-01"),
         "telegram": ("DataExport_2024-03-02", "DataExport_2024-04-01", "DataExport_2024-05-01"),
         "sms": ("sms-20240302120000.xml", "sms-20240401120000.xml", "sms-20240501120000.xml")}


def place(src: Path, folder: Path, name: str, fmt: str) -> Path:
    """The export `src` as the user has it under `name` in `folder`; the path to import."""
    if fmt == "telegram":
        (folder / name).mkdir(parents=True)
        copy(src, folder / name / "result.json")
        return folder / name / "result.json"
    copy(src, folder / name)
    return folder / name


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--formats", default="signal-export,telegram,sms")
    args = ap.parse_args(argv)
    result: dict[str, Any] = {"size": args.size, "machine": machine(), "imports": {}}
    for fmt in args.formats.split(","):
        base, ext = sources.ensure_plus(args.size, fmt)
        work = OUT / f"renamed-{args.size}" / fmt
        shutil.rmtree(work, ignore_errors=True)
        (work / "src").mkdir(parents=True)
        config = work / "config.yaml"
        config.write_text(CONFIG)
        home = work / "home"
        first_name, same_name, plus_name = NAMES[fmt]
        runs = {"first": one(home, config, place(base, work / "src", first_name, fmt)),
                "same bytes, new name": one(home, config, place(base, work / "src", same_name, fmt)),
                "+1%, new name": one(home, config, place(ext, work / "src", plus_name, fmt))}
        for k, v in runs.items():
            log(f"{fmt} {k}: {v}")
        result["imports"][fmt] = runs
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"renamed-{args.size}.json").write_text(json.dumps(result, indent=1) + "\n")
    print("| source | first CPU s (wall) | same bytes, new name CPU s (wall) | +1%, new name CPU s (wall), new |")
    print("|---|---|---|---|")
    for fmt, r in result["imports"].items():
        cells = [f"{v['cpu_s']:.2f} ({v['wall_s']:.1f})" for v in r.values()]
        print(f"| {fmt} | {cells[0]} | {cells[1]} | {cells[2]}, {r['+1%, new name']['new']:,} |")


if __name__ == "__main__":
    main()
