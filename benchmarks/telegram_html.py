"""Telegram Desktop's HTML export at size: the reader alone, then the whole import.

    python benchmarks/telegram_html.py --size 100k            # writes data/<size>/telegram-html once
    flock /work/wt/bench.lock python benchmarks/telegram_html.py --size 100k

The export is an account export of 100 chats laid out as the app writes it (1000 messages a
page, tests/telegram_html_builders.py; chat sizes fall off as 1/rank^0.8, the longest 13 pages at 100k, 123 at 1M), texts from textgen's Zipf vocabulary, one message in 20 a
reply, one in 10 joined to the one before. Measured in subprocesses under /usr/bin/time: the
reader alone (records counted and dropped: CPU, peak RSS), then `chatmem import` into an empty
home (wall, CPU of the tree, peak RSS, via run.run_import) and an unchanged re-import. Prints
one JSON line per step.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import generate  # noqa: E402
from run import TIME_BIN, run_import  # noqa: E402
from telegram_html_builders import Msg, page, reply, results_page, text, write_assets  # noqa: E402
from textgen import TextMaker, Vocabulary, person_names  # noqa: E402

CHATS = 100
PER_PAGE = 1000  # as the app writes them
OWNER = "Sam Rivera"

CHILD = """
import sys, time, json
from pathlib import Path
from chatmem.importers import get_importer
from chatmem.records import ImportOptions, Message
t = time.process_time()
n = sum(isinstance(r, Message) for r in get_importer("telegram").read(Path(sys.argv[1]), ImportOptions()))
print(json.dumps({"messages": n, "cpu_s": round(time.process_time() - t, 2)}))
"""


def write_export(root: Path, n: int) -> None:
    rng = random.Random(17)
    maker = TextMaker(Vocabulary())
    people = person_names(rng, 400)
    root.mkdir(parents=True)
    write_assets(root)
    (root / "export_results.html").write_text(results_page(), encoding="utf-8")
    start = datetime(2021, 1, 1, tzinfo=timezone.utc)
    weights = [1 / (c + 1) ** 0.8 for c in range(CHATS)]  # a few long chats of many pages, many short
    sizes = [int(n * w / sum(weights)) for w in weights]
    sizes[0] += n - sum(sizes)
    for c, per_chat in enumerate(sizes):
        folder = root / "chats" / f"chat_{c + 1:03d}"
        folder.mkdir(parents=True)
        group = c % 3 == 0
        members = rng.sample(people, 6) if group else [people[c]]
        name = f"Group {c}" if group else members[0]
        msgs: list[Msg] = []
        when = start + timedelta(minutes=rng.randrange(60 * 24 * 30))
        previous = None
        for i in range(per_chat):
            when += timedelta(seconds=rng.randrange(30, 4000))
            sender = OWNER if rng.random() < 0.4 else rng.choice(members)
            native = c * 1_000_000 + i + 1
            body = text(maker.text(rng).replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>"))
            if i > 10 and rng.random() < 0.05:
                body = reply(native - rng.randrange(1, 10)) + body
            joined = sender == previous and rng.random() < 0.5
            msgs.append(Msg(native, when, None if joined else sender, body))
            previous = sender
        pages = [msgs[i:i + PER_PAGE] for i in range(0, len(msgs), PER_PAGE)]
        for p, chunk in enumerate(pages):
            file = "messages.html" if p == 0 else f"messages{p + 1}.html"
            prev = "" if p == 0 else ("messages.html" if p == 1 else f"messages{p}.html")
            nxt = f"messages{p + 2}.html" if p + 1 < len(pages) else ""
            (folder / file).write_text(page(name, chunk, prev, nxt, base="../../"), encoding="utf-8")


def timed_child(path: Path) -> dict:
    with tempfile.NamedTemporaryFile("r") as rss:
        cmd = [TIME_BIN, "-f", "%M %U %S %e", "-o", rss.name, sys.executable, "-c", CHILD, str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        peak, user, system, wall = rss.read().split()[-4:]
    return {**json.loads(out), "tree_cpu_s": round(float(user) + float(system), 2), "wall_s": float(wall),
            "peak_rss_mb": round(int(peak) / 1024, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="100k", choices=list(generate.SIZES))
    ap.add_argument("--keep", action="store_true", help="keep the store the import wrote")
    args = ap.parse_args()
    data = generate.DATA / args.size / "telegram-html"
    if not (data / "export_results.html").is_file():
        shutil.rmtree(data, ignore_errors=True)
        t = time.perf_counter()
        write_export(data, generate.SIZES[args.size])
        print(json.dumps({"step": "generate", "seconds": round(time.perf_counter() - t, 1)}), flush=True)
    size_mb = sum(p.stat().st_size for p in data.rglob("*.html")) / 1e6
    print(json.dumps({"step": "read", "size": args.size, "html_mb": round(size_mb, 1), **timed_child(data)}),
          flush=True)
    work = Path(tempfile.mkdtemp(prefix="tghtml-bench-"))
    home = work / "home"
    config = work / "config.yaml"
    config.write_text("owner:\n  names: [\"Sam Rivera\"]\ntimezone: Europe/Berlin\n")
    print(json.dumps({"step": "import", **run_import(home, config, data)}), flush=True)
    print(json.dumps({"step": "unchanged re-import", **run_import(home, config, data)}), flush=True)
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
