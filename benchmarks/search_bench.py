"""Search speed per query class, chatmem beside the FTS5 reference, in one run on the same data.

    python benchmarks/search_bench.py --size 100k --prepare        # generate + import (untimed)
    flock /work/wt/bench.lock python benchmarks/search_bench.py --size 100k
    python benchmarks/search_bench.py --size 1m --prepare           # about an hour on 2 cores
    flock /work/wt/bench.lock python benchmarks/search_bench.py --size 1m --repeat 40

The store is the generated chat.db of `run.py` (300 chats, thousands of senders, 10 years)
imported through `chatmem import` once (kept in benchmarks/out/search/<size>/, reused while the
index version matches); the reference is `fts5_reference.py` built from the same file.

Query words are drawn log-uniformly over the rank of every word in the archive's vocabulary
(by the number of messages holding it, read from the reference's fts5vocab), so each decade of
frequency — from words in a third of all messages down to words in one — is drawn as often:
- word, newest (the same, sort=newest), prefix (3 or 4 first letters of a drawn word);
- two words, phrase: a drawn word and its neighbour(s) in a message that holds it;
- sender, date (a year), sender+platform+date (two years): a drawn word, a sender who wrote it;
- any word: "what did they say about A B C" for three drawn words (chatmem: all words, then
  its any-word fallback; FTS5: A OR B OR C ranked by bm25, stop words left out as in
  eval_queries.py);
- fuzzy: a drawn word of five or more letters with one letter changed into a word that does
  not occur (FTS5 has no edit distance: its row is the word's first four letters as a prefix).

Each query runs on both sides in turn, in this process: chatmem's `search_memory` tool
(`server_ms`, top 10 with snippets, the total) and the reference's search (top 10 with text
and snippet, then `count(*)`). Wall and CPU milliseconds per query; p50/p95 per class; the mean
totals on both sides and how many of chatmem's totals were marked as estimates.
Writes benchmarks/results/search-<size>.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import sys
import time
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import fts5_reference as ref  # noqa: E402
import generate  # noqa: E402
from eval_queries import STOP_WORDS  # noqa: E402
from run import CONFIG, OUT, RESULTS, log, run_import, stats  # noqa: E402

CLASSES = ("word", "two_words", "phrase", "prefix", "newest", "sender", "date", "sender_platform_date",
           "any_word", "fuzzy")
PLATFORM = "imessage"


def paths(size: str) -> dict[str, Path]:
    work = OUT / "search" / size
    return {"work": work, "home": work / "home", "config": work / "config.yaml",
            "ref": work / "reference.sqlite"}


def prepare(size: str) -> dict[str, Any]:
    """Generate, import and build the reference once; later runs reuse them."""
    from chatmem.store.index import INDEX_VERSION

    p = paths(size)
    base, _ = generate.ensure(size, "chatdb", log)
    marker = p["work"] / f".imported-v{INDEX_VERSION}"
    out: dict[str, Any] = {}
    if not marker.exists():
        import shutil
        shutil.rmtree(p["home"], ignore_errors=True)
        p["work"].mkdir(parents=True, exist_ok=True)
        p["config"].write_text(CONFIG)
        log(f"importing {base} into {p['home']}")
        out["import"] = run_import(p["home"], p["config"], base)
        log(f"imported {out['import']['new_messages']} in {out['import']['seconds']} s")
        marker.write_text(json.dumps(out["import"]))
    if not p["ref"].exists():
        r = ref.build("chatdb", base, p["ref"])
        log(f"FTS5 reference: {r['messages']} messages in {r['seconds']:.1f} s")
    return out


# ------------------------------------------------------------------ the queries
class Sampler:
    def __init__(self, conn: sqlite3.Connection, rng: random.Random):
        self.conn, self.rng = conn, rng
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, 'row')")
        self.vocab = [(t, d) for t, d in conn.execute("SELECT term, doc FROM temp.vocab ORDER BY doc DESC, term")
                      if t.isalpha() and t.isascii() and len(t) >= 2]
        self.known = {t for t, _ in self.vocab}

    def word(self, min_len: int = 2) -> tuple[str, int]:
        while True:
            rank = int(math.exp(self.rng.random() * math.log(len(self.vocab))))
            t, d = self.vocab[min(rank, len(self.vocab)) - 1]
            if len(t) >= min_len:
                return t, d

    def message_with(self, word: str) -> tuple[list[str], str]:
        """The words and sender of a random message holding `word`."""
        n = self.conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", [word]).fetchone()[0]
        row = self.conn.execute(
            "SELECT m.text, m.sender FROM fts CROSS JOIN messages m ON m.id = fts.rowid WHERE fts MATCH ? "
            "LIMIT 1 OFFSET ?", [word, self.rng.randrange(max(n, 1))]).fetchone()
        import re
        return re.findall(r"[a-z]+", (row[0] or "").lower()), row[1]

    def neighbours(self, n: int) -> list[str]:
        while True:
            w, _ = self.word()
            words, _ = self.message_with(w)
            if w not in words or len(words) < n:
                continue
            i = words.index(w)
            start = max(0, min(i - self.rng.randrange(n), len(words) - n))
            return words[start:start + n]

    def with_sender(self) -> tuple[str, str]:
        while True:
            w, _ = self.word()
            _, sender = self.message_with(w)
            if sender and sender != "me":
                return w, sender

    def typo(self) -> tuple[str, str]:
        letters = "abcdefghijklmnopqrstuvwxyz"
        while True:
            w, _ = self.word(min_len=5)
            i = 1 + self.rng.randrange(len(w) - 1)
            t = w[:i] + self.rng.choice(letters) + w[i + 1:]
            if t not in self.known:
                return w, t

    def span(self, years: int) -> tuple[str, str]:
        start = date(2015 + self.rng.randrange(10 - years), 1 + self.rng.randrange(12), 1)
        return start.isoformat(), start.replace(year=start.year + years).isoformat()


def unix(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(tzinfo=timezone.utc).timestamp())


def make_queries(sampler: Sampler, n: int) -> dict[str, list[tuple[dict, dict]]]:
    """Per class, n pairs of (search_memory arguments, reference arguments)."""
    out: dict[str, list[tuple[dict, dict]]] = {c: [] for c in CLASSES}
    s = sampler
    for k in range(n):
        w, _ = s.word()
        out["word"].append(({"query": w}, {"query": w}))
        w, _ = s.word()
        out["newest"].append(({"query": w, "sort": "newest"}, {"query": w, "newest": True}))
        two = s.neighbours(2)
        out["two_words"].append(({"query": " ".join(two)}, {"query": " ".join(two)}))
        ph = s.neighbours(2 + k % 2)
        out["phrase"].append(({"query": '"' + " ".join(ph) + '"'}, {"query": '"' + " ".join(ph) + '"'}))
        w, _ = s.word(min_len=4 + k % 2)
        pre = w[:3 + k % 2]
        out["prefix"].append(({"query": pre + "*"}, {"query": pre + "*"}))
        w, who = s.with_sender()
        out["sender"].append(({"query": w, "sender": who}, {"query": w, "sender": who}))
        w, _ = s.word()
        a, b = s.span(1)
        out["date"].append(({"query": w, "since": a, "until": b},
                            {"query": w, "since": unix(a), "until": unix(b)}))
        w, who = s.with_sender()
        a, b = s.span(2)
        out["sender_platform_date"].append(
            ({"query": w, "sender": who, "platform": PLATFORM, "since": a, "until": b},
             {"query": w, "sender": who, "since": unix(a), "until": unix(b)}))
        ws = [s.word(min_len=3)[0] for _ in range(3)]
        content = [w for w in ws if w not in STOP_WORDS] or ws
        out["any_word"].append(({"query": "what did they say about " + " ".join(ws)},
                                {"query": " OR ".join(content)}))
        right, wrong = s.typo()
        out["fuzzy"].append(({"query": wrong}, {"query": wrong[:4] + "*"}))
    return out


# ------------------------------------------------------------------ timing
def timed(fn, *args, **kwargs) -> tuple[float, float, Any]:
    w0, c0 = time.perf_counter(), time.process_time()
    res = fn(*args, **kwargs)
    return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000, res


def ref_search(conn: sqlite3.Connection, query: str, sender: str | None = None, **kw) -> dict:
    if sender is None:
        return ref.search(conn, query, **kw)
    return ref.search(conn, query, sender=sender, **kw)


def bench(size: str, repeat: int, seed: int) -> dict[str, Any]:
    from chatmem.config import load_config
    from chatmem.store import Store
    from chatmem.tools.search import search_memory

    p = paths(size)
    rconn = sqlite3.connect(p["ref"])
    queries = make_queries(Sampler(rconn, random.Random(seed)), repeat)
    store = Store.open(p["home"], config=load_config(str(p["config"])))
    seat = store.config.seat(None)
    for cls in CLASSES:  # warm-up: searchers, columns, caches on both sides
        for ours, theirs in queries[cls][:3]:
            search_memory(store, seat, mode="keyword", **ours)
            ref_search(rconn, **theirs)
    result: dict[str, Any] = {"size": size, "messages": store.index.doc_count(), "repeat": repeat,
                              "seed": seed, "classes": {}}
    for cls in CLASSES:
        walls, cpus, rwalls, rcpus, totals, rtotals, estimates, modes = [], [], [], [], [], [], 0, {}
        for ours, theirs in queries[cls]:
            w, c, res = timed(search_memory, store, seat, mode="keyword", **ours)
            walls.append(w)
            cpus.append(c)
            totals.append(res["total"])
            estimates += bool(res.get("total_is_estimate"))
            modes[res.get("matching", "")] = modes.get(res.get("matching", ""), 0) + 1
            w, c, r = timed(ref_search, rconn, **theirs)
            rwalls.append(w)
            rcpus.append(c)
            rtotals.append(r["total"])
        row = {"chatmem": stats(walls), "chatmem_cpu": stats(cpus), "fts5": stats(rwalls),
               "fts5_cpu": stats(rcpus), "mean_total": round(sum(totals) / len(totals), 1),
               "fts5_mean_total": round(sum(rtotals) / len(rtotals), 1), "estimates": estimates,
               "modes": modes, "examples": [q for q, _ in queries[cls][:3]]}
        row["p95_ratio"] = round(row["chatmem"]["p95"] / max(row["fts5"]["p95"], 0.01), 1)
        result["classes"][cls] = row
        log(f"{cls}: chatmem p50 {row['chatmem']['p50']} p95 {row['chatmem']['p95']} ms; "
            f"FTS5 p50 {row['fts5']['p50']} p95 {row['fts5']['p95']} ms; totals {row['mean_total']} / "
            f"{row['fts5_mean_total']}")
    store.close()
    rconn.close()
    return result


def render(result: dict[str, Any]) -> str:
    lines = [f"Search at {result['size']} ({result['messages']} documents), {result['repeat']} queries per class, "
             "wall ms (CPU ms in brackets):", "",
             "| class | chatmem p50 | chatmem p95 | FTS5 p50 | FTS5 p95 | p95 × FTS5 | mean total (chatmem / FTS5) |",
             "|---|---|---|---|---|---|---|"]
    for cls, r in result["classes"].items():
        est = f", {r['estimates']} estimated" if r["estimates"] else ""
        lines.append(f"| {cls} | {r['chatmem']['p50']} ({r['chatmem_cpu']['p50']}) | {r['chatmem']['p95']} "
                     f"({r['chatmem_cpu']['p95']}) | {r['fts5']['p50']} ({r['fts5_cpu']['p50']}) | "
                     f"{r['fts5']['p95']} ({r['fts5_cpu']['p95']}) | {r['p95_ratio']} | "
                     f"{r['mean_total']} / {r['fts5_mean_total']}{est} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=list(generate.SIZES), default="100k")
    ap.add_argument("--repeat", type=int, default=40, help="queries per class")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--prepare", action="store_true", help="generate and import only (untimed)")
    args = ap.parse_args(argv)
    prepare(args.size)
    if args.prepare:
        return
    result = bench(args.size, args.repeat, args.seed)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"search-{args.size}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(render(result))


if __name__ == "__main__":
    main()
