"""The web page's speed in a real browser, on a generated archive (issue 22).

    python benchmarks/web.py --size 100k [--runs 20]

Imports the generated chat.db of that size (many chats) into a fresh store (or reuses
benchmarks/out/web-<size>/home), starts `chatmem web --port 0`, and drives Debian's headless
Chromium with Playwright:
- first paint: from navigating to the page (cookie already set) to the chat list shown;
- search end to end: from pressing Enter in the search box to the hits shown, for words
  sampled from the archive's vocabulary across its frequency range;
- pictures: from opening the Pictures tab to the first chart drawn (the server counts once at
  start and keeps the counts until the store changes); `pictures_first_ms` is the first visit
  right after the server started (its counting may still be under way), and `counts_ms` the
  counting itself (archive_activity, in this process, on a store nothing else reads).
Prints p50/p95/max in milliseconds and writes benchmarks/results/web-<size>.json.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from run import CONFIG, OUT, RESULTS, log, stats  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def prepare(size: str) -> tuple[Path, Path]:
    work = OUT / f"web-{size}"
    home, config = work / "home", work / "config.yaml"
    if not (home / "chatmem.db").exists():
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        config.write_text(CONFIG, encoding="utf-8")
        base, _ = generate.ensure(size, "chatdb", log=log)  # many chats, as on a Mac
        log(f"importing {base.name}")
        subprocess.run([sys.executable, "-m", "chatmem", "--home", str(home), "--config",
                        str(config), "import", str(base)], check=True, capture_output=True)
    return home, config


def words_for(page, rng: random.Random, n: int) -> list[str]:
    """Words from the archive's own messages, sampled from many chats."""
    chats = page.evaluate("fetch('/api/chats?limit=20').then(r => r.json())")["chats"]
    vocab: set[str] = set()
    for chat in chats:
        found = page.evaluate(f"fetch('/api/search?query=&source={chat['source']}&sort=newest"
                              "&limit=50').then(r => r.json())")
        vocab |= {w.lower() for r in found.get("results", [])
                  for w in re.findall(r"[A-Za-z]{4,}", r["content"])}
    words = sorted(vocab)
    return [rng.choice(words) for _ in range(n)] if words else ["hello"] * n


def count_directly(home: Path, config: Path, runs: int = 3) -> list[float]:
    """archive_activity's own time: what a visit costs when the counts are not kept."""
    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.activity import archive_activity

    cfg = load_config(config)
    store = Store.open(home, cfg)
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        archive_activity(store, cfg.seat(None))
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="100k")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    home, config = prepare(args.size)
    proc = subprocess.Popen([sys.executable, "-m", "chatmem", "--home", str(home), "--config",
                             str(config), "web", "--port", "0"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        url = re.search(r"open (http://\S+)", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        base = url.split("?")[0]
        paint, search, pictures, first = [], [], [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                        args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("#chat-list li")
            t0 = time.perf_counter()
            page.evaluate("location.hash = '#/pictures'")
            page.wait_for_selector("#chart-months .point", state="attached", timeout=120000)
            first.append((time.perf_counter() - t0) * 1000)
            words = words_for(page, random.Random(7), args.runs)
            for i in range(args.runs):
                t0 = time.perf_counter()
                page.goto(base + f"?run={i}#/chats")
                page.wait_for_selector("#chat-list li")
                paint.append((time.perf_counter() - t0) * 1000)
                page.fill("#search-box", words[i])
                t0 = time.perf_counter()
                page.press("#search-box", "Enter")
                page.wait_for_selector("#hits li, #nothing-found")
                search.append((time.perf_counter() - t0) * 1000)
            for _ in range(min(5, args.runs)):
                page.goto(base + "#/chats")
                page.wait_for_selector("#chat-list li")
                t0 = time.perf_counter()
                page.evaluate("location.hash = '#/pictures'")
                page.wait_for_selector("#chart-months .point", state="attached", timeout=60000)
                pictures.append((time.perf_counter() - t0) * 1000)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    result = {"size": args.size, "runs": args.runs, "first_paint_ms": stats(paint),
              "search_ms": stats(search), "pictures_ms": stats(pictures),
              "pictures_first_ms": stats(first), "counts_ms": stats(count_directly(home, config))}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"web-{args.size}.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
