"""One huge message: what a single N MB WhatsApp message (or JSON Lines record) costs to import.

    python benchmarks/huge_message.py                 # 1, 8 and 32 MB, WhatsApp and JSON Lines
    python benchmarks/huge_message.py --sizes 100     # the issue's 100 MB case (~1 GB of disk)

Each size runs `chatmem import --json` in a subprocess under `/usr/bin/time`: wall seconds and
peak RSS, and that ratio to the message's size. The message is stored whole; the search index
takes its first 1,000,000 characters (store/index.py INDEX_TEXT_CHARS) and the report says so.
Writes results/huge_message.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ".split()


def write_export(folder: Path, kind: str, mb: int) -> Path:
    size = mb * 1024 * 1024
    chunk = " ".join(WORDS) + " "
    body = (chunk * (size // len(chunk) + 1))[:size]
    if kind == "whatsapp":
        path = folder / "WhatsApp Chat with Anna Berg.txt"
        path.write_text("12/03/2024, 09:15 - Anna Berg: hi\n12/03/2024, 09:16 - Anna Berg: " + body
                        + "\n12/03/2024, 09:17 - Sam Rivera: ok\n", encoding="utf-8")
    else:
        path = folder / "huge.jsonl"
        path.write_text(json.dumps({"platform": "whatsapp", "chat": "Anna Berg", "sender": "Anna Berg",
                                    "timestamp": "2024-03-12T09:16:00+00:00", "text": body}) + "\n",
                        encoding="utf-8")
    return path


def run(kind: str, mb: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="chatmem-huge-") as tmp:
        folder = Path(tmp)
        path = write_export(folder, kind, mb)
        timing = folder / "time.txt"
        cmd = ["/usr/bin/time", "-f", "%e %M", "-o", str(timing), sys.executable, "-m", "chatmem",
               "--home", str(folder / "home"), "import", "--json", str(path)]
        env = {**os.environ, "CHATMEM_CONFIG": str(folder / "none.yaml")}
        (folder / "none.yaml").write_text("{}\n")
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE.parent)
        if done.returncode != 0:
            raise SystemExit(f"{kind} {mb} MB failed: {done.stderr}")
        seconds, rss_kb = timing.read_text().split()[-2:]
        report = json.loads(done.stdout)[0]
        return {"kind": kind, "mb": mb, "seconds": float(seconds), "peak_rss_mb": round(int(rss_kb) / 1024),
                "rss_per_mb": round(int(rss_kb) / 1024 / mb, 1), "notes": report["notes"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,8,32", help="message sizes in MB, comma-separated")
    parser.add_argument("--kinds", default="whatsapp,jsonl")
    args = parser.parse_args()
    rows = [run(kind, int(mb)) for kind in args.kinds.split(",") for mb in args.sizes.split(",")]
    print(f"{'kind':10} {'MB':>5} {'seconds':>8} {'peak RSS MB':>12} {'RSS/MB':>7}")
    for r in rows:
        print(f"{r['kind']:10} {r['mb']:>5} {r['seconds']:>8.1f} {r['peak_rss_mb']:>12} {r['rss_per_mb']:>7}")
    out = HERE / "results" / "huge_message.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
