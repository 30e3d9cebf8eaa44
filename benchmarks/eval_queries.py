"""Recall@10 and MRR of search_memory on chatmem's labelled query set (issues 14 and 20).

    python benchmarks/eval_queries.py                    # 30k background, every query
    python benchmarks/eval_queries.py --background 100000
    python benchmarks/eval_queries.py --classes exact,typo --show-misses
    python benchmarks/eval_queries.py --modes keyword,semantic,hybrid   # once search_memory has `mode`
    python benchmarks/eval_queries.py --slice heldout    # only the held-out queries

Three slices of queries: `set` (queryset/queries.yaml, the set the ranking was tuned on),
`heldout` (queryset/heldout.yaml, written later over chats the tuning never saw) and
`paraphrase2` (queryset/paraphrase2.yaml, paraphrases only, written after the semantic leg's
choices were made on the other two); every run reports each slice apart as well as all together.

What it does:
1. Writes (once, cached in benchmarks/data/eval/) a generated WhatsApp group export of N
   background messages with `generate.py`'s seeded generator.
2. Imports the background and the written conversations of `queryset/chats/` (WhatsApp text
   exports in Android and iOS layouts, chatmem JSON Lines) into a fresh store through the
   product's own path (`find_sources` + `Store.import_sources`), timed.
3. Resolves every label ("chat | a piece of the text") to exactly one message id.
4. Runs every query through the `search_memory` tool function (limit 10, the query's filter
   arguments, once per `--modes` entry) and through the FTS5 reference built on the same
   messages (porter + unicode61 without diacritics; the query form per class in `FTS5_FORMS`).
5. Reports recall@10 (share of a query's answers in its top 10, averaged) and MRR (1 / rank of
   the first answer in the top 10, 0 when none) per class, for every system, as a table and JSON
   (`benchmarks/results/queryset.json`), with p50/p95 query time and the misses per query.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

QUERYSET = HERE / "queryset"
CHATS = QUERYSET / "chats"
SLICES = {"set": QUERYSET / "queries.yaml", "heldout": QUERYSET / "heldout.yaml",
          "paraphrase2": QUERYSET / "paraphrase2.yaml"}
DATA = HERE / "data" / "eval"
RESULTS = HERE / "results"
TOP = 10
CLASSES = ("exact", "word_form", "question", "typo", "filtered", "paraphrase", "cross_language")
OWNER = "Sam Rivera"
TIMEZONE = "Europe/Berlin"
CONFIG = f"""owner:
  names: ["{OWNER}"]
timezone: {TIMEZONE}
"""

# How the FTS5 reference is asked, per class: the words ANDed where the words are the user's own,
# any content word (bm25-ranked) where they are not, prefixes of long words for typos.
FTS5_FORMS = {
    "exact": "all", "word_form": "all", "filtered": "all",
    "question": "any", "paraphrase": "any", "cross_language": "any", "typo": "prefix",
}
STOP_WORDS = set("""
a an and are at be by can could did do does for from get has have he her his how i in is it its
me my of on or our she should so that the their them they this to us was we were what when where
which while who why will with would you your
der die das ein eine einen und ist im in zu mit von für bei den dem des wie viel was wer wann wo
welchen welche muss du ich es auf
el la los las un una y de del en que es por para con cuándo cuánto cuesta dónde qué se al
le les des du et est à au pour chez quel quelle quand où ce
в на и не что с по до как во сколько
""".split())
WORD = re.compile(r"\w+", re.UNICODE)


def log(msg: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ the labelled set

@dataclass
class Query:
    id: str
    cls: str
    query: str
    args: dict[str, Any]
    labels: list[str]
    answers: list[str] = field(default_factory=list)  # message ids, resolved after import
    slice: str = "set"  # which file it comes from (SLICES)


def load_queries(path: Path | None = None, classes: Iterable[str] | None = None,
                 per_class: int | None = None, slices: Iterable[str] | None = None) -> list[Query]:
    """The queries of `classes` (all by default), at most `per_class` of each per slice, from
    `path` or from the files of `slices` (all of them by default)."""
    files = {"set": path} if path is not None else {s: SLICES[s] for s in (slices or SLICES)}
    wanted = set(classes or CLASSES)
    out: list[Query] = []
    seen: set[str] = set()
    for name, file in files.items():
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
        counts: dict[str, int] = {}
        for q in doc["queries"]:
            if q["class"] not in CLASSES:
                raise SystemExit(f"{file}: query {q['id']} has an unknown class {q['class']!r}")
            if q["id"] in seen:
                raise SystemExit(f"{file}: query id {q['id']} is used twice")
            seen.add(q["id"])
            if q["class"] not in wanted:
                continue
            counts[q["class"]] = counts.get(q["class"], 0) + 1
            if per_class is not None and counts[q["class"]] > per_class:
                continue
            out.append(Query(q["id"], q["class"], str(q["query"]), dict(q.get("args") or {}),
                             list(q["answers"]), slice=name))
    return out


def resolve_labels(store, queries: list[Query]) -> None:
    """Each "chat | text piece" label to the one message it names (SystemExit otherwise)."""
    problems = []
    with store.engine.connect() as conn:
        for q in queries:
            q.answers = []
            for label in q.labels:
                chat, _, piece = (s.strip() for s in label.partition("|"))
                rows = conn.exec_driver_sql(
                    "SELECT m.id FROM messages m JOIN chats c ON c.id = m.chat_id "
                    "WHERE c.name = ? AND instr(m.text, ?) > 0", (chat, piece)).fetchall()
                if len(rows) != 1:
                    problems.append(f"{q.id}: {label!r} matches {len(rows)} messages")
                else:
                    q.answers.append(rows[0][0])
    if problems:
        raise SystemExit("labels that do not name exactly one message:\n  " + "\n  ".join(problems))


# ------------------------------------------------------------------ the archive

def background_export(n: int, data: Path = DATA) -> Path | None:
    """A generated WhatsApp group export of n messages (cached in `data`), or None for n = 0."""
    if n <= 0:
        return None
    import generate

    path = data / f"background-{n}" / generate.WHATSAPP_NAME
    done = path.with_suffix(".done")
    if not done.exists():
        t0 = time.perf_counter()
        generate.write_whatsapp(path, n, n)
        done.write_text("ok\n")
        log(f"generated a {n}-message background in {time.perf_counter() - t0:.1f} s")
    return path


def build_store(home: Path, background: int, data: Path = DATA) -> tuple[Any, dict[str, Any]]:
    """A fresh store holding the background and the written chats; returns (store, import figures)."""
    from chatmem.config import load_config
    from chatmem.importers import find_sources
    from chatmem.store import Store

    config_path = home / "config.yaml"
    home.mkdir(parents=True, exist_ok=True)
    config_path.write_text(CONFIG)
    store = Store.open(home / "store", config=load_config(str(config_path)))
    sources = find_sources(CHATS)
    bg = background_export(background, data)
    if bg is not None:
        sources = find_sources(bg) + sources
    t0 = time.perf_counter()
    reports = store.import_sources(sources)
    seconds = time.perf_counter() - t0
    new = sum(r.totals()["new"] for r in reports)
    log(f"imported {new} messages from {len(sources)} sources in {seconds:.1f} s")
    figures: dict[str, Any] = {"sources": len(sources), "messages": new, "seconds": round(seconds, 2)}
    from chatmem.store.embedder import available

    if available():  # the import above embedded too: time that part alone by rebuilding it
        from chatmem.store.embedder import load_embedder

        store.vectors.clear()
        load_embedder.cache_clear()  # as a new process would: the model loaded, no piece known
        t0 = time.perf_counter()
        store.catch_up_vectors()
        embed = time.perf_counter() - t0
        figures.update(embed_seconds=round(embed, 2), vectors=store.vectors.count(),
                       vector_bytes_per_message=round(store.vectors.nbytes() / max(store.vectors.count(), 1), 1),
                       embedding_adds=f"{embed / max(seconds - embed, 1e-9):.0%}")
        log(f"embedding {figures['vectors']} messages: {embed:.1f} s "
            f"({figures['embedding_adds']} of the import without it)")
    return store, figures


# ------------------------------------------------------------------ the FTS5 reference

class Fts5Reference:
    """The same messages in a plain SQLite FTS5 table, asked the way a careful script would."""

    def __init__(self, store, tz: str = TIMEZONE):
        self.tz = ZoneInfo(tz)
        self.conn = sqlite3.connect(":memory:")
        self.conn.executescript(
            "CREATE TABLE messages (rowid INTEGER PRIMARY KEY, id TEXT, sender TEXT, ts INTEGER, text TEXT);"
            "CREATE VIRTUAL TABLE fts USING fts5(text, content='messages', content_rowid='rowid',"
            " tokenize='porter unicode61 remove_diacritics 2');")
        with store.engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT id, sender, sent_at, text FROM messages").fetchall()
        self.conn.executemany(
            "INSERT INTO messages (id, sender, ts, text) VALUES (?, ?, ?, ?)",
            [(i, s, int(_utc(t).timestamp()), x) for i, s, t, x in rows])
        self.conn.execute("INSERT INTO fts(fts) VALUES ('rebuild')")

    @staticmethod
    def match(cls: str, query: str) -> str | None:
        words = [w.lower() for w in WORD.findall(query)]
        form = FTS5_FORMS[cls]
        if form == "all":
            return " ".join(f'"{w}"' for w in words) or None
        content = [w for w in words if w not in STOP_WORDS] or words
        if form == "prefix":
            return " OR ".join(f'"{w[:4]}"*' if len(w) >= 5 else f'"{w}"' for w in content) or None
        return " OR ".join(f'"{w}"' for w in content) or None

    def search(self, cls: str, query: str, args: dict[str, Any]) -> list[str]:
        match = self.match(cls, query)
        if match is None:
            return []
        where, params = ["fts MATCH ?"], [match]
        if args.get("sender"):
            where.append("lower(m.sender) = lower(?)")
            params.append(args["sender"])
        if args.get("since"):
            where.append("m.ts >= ?")
            params.append(self._day(args["since"]))
        if args.get("until"):
            where.append("m.ts < ?")
            params.append(self._day(args["until"], 1))
        rows = self.conn.execute(
            f"SELECT m.id FROM fts CROSS JOIN messages m ON m.rowid = fts.rowid "
            f"WHERE {' AND '.join(where)} ORDER BY fts.rank LIMIT {TOP}", params).fetchall()
        return [r[0] for r in rows]

    def _day(self, value: str, plus: int = 0) -> int:
        d = datetime.fromisoformat(value[:10]).replace(tzinfo=self.tz) + timedelta(days=plus)
        return int(d.timestamp())


def _utc(t: Any) -> datetime:
    if isinstance(t, str):
        t = datetime.fromisoformat(t)
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t


# ------------------------------------------------------------------ scoring

def score(ranked: list[str], answers: list[str]) -> tuple[float, float, int | None]:
    """(recall@10, reciprocal rank, rank of the first answer or None)."""
    top = ranked[:TOP]
    found = sum(1 for a in answers if a in top)
    first = next((i + 1 for i, r in enumerate(top) if r in answers), None)
    return found / len(answers), (1 / first if first else 0.0), first


def percentile(values: list[float], p: float) -> float | None:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2) if s else None


def evaluate(queries: list[Query], systems: dict[str, Callable[[Query], tuple[list[str], dict]]]
             ) -> dict[str, Any]:
    """Every query through every system: per-class figures and per-query ranks."""
    per_query: dict[str, dict[str, Any]] = {q.id: {"class": q.cls, "query": q.query, "args": q.args,
                                                   "slice": q.slice} for q in queries}
    times: dict[str, list[float]] = {}
    for name, run in systems.items():
        times[name] = []
        for q in queries:
            t0 = time.perf_counter()
            try:
                ranked, extra = run(q)
                error = None
            except Exception as e:  # a query the system refuses counts as finding nothing
                ranked, extra, error = [], {}, f"{type(e).__name__}: {e}"
            times[name].append((time.perf_counter() - t0) * 1000)
            rec, rr, first = score(ranked, q.answers)
            entry = {"recall": round(rec, 3), "rank": first, "rr": round(rr, 4), **extra}
            if error:
                entry["error"] = error
            per_query[q.id][name] = entry
    figures = summarise(per_query, list(systems), times)
    slices = sorted({q.slice for q in queries})
    out: dict[str, Any] = {"figures": figures, "queries": per_query}
    if len(slices) > 1:
        out["slices"] = {s: summarise({k: v for k, v in per_query.items() if v["slice"] == s}, list(systems))
                         for s in slices}
    return out


def summarise(per_query: dict[str, dict[str, Any]], systems: list[str],
              times: dict[str, list[float]] | None = None) -> dict[str, Any]:
    """Recall@10 and MRR per class (and over all) of each system, from the per-query entries."""
    figures: dict[str, Any] = {}
    for name in systems:
        by_class: dict[str, list[tuple[float, float]]] = {}
        for q in per_query.values():
            by_class.setdefault(q["class"], []).append((q[name]["recall"], q[name]["rr"]))
        cls_figs = {}
        for cls in (*CLASSES, "all"):
            vals = by_class.get(cls) if cls != "all" else [v for vs in by_class.values() for v in vs]
            if vals:
                cls_figs[cls] = {"n": len(vals), "recall@10": round(sum(v[0] for v in vals) / len(vals), 3),
                                 "mrr": round(sum(v[1] for v in vals) / len(vals), 3)}
        figures[name] = {"classes": cls_figs}
        if times is not None:
            figures[name].update(ms_p50=percentile(times[name], 50), ms_p95=percentile(times[name], 95))
    return figures


def chatmem_system(store, mode: str | None) -> Callable[[Query], tuple[list[str], dict]]:
    from chatmem.tools.search import search_memory

    seat = store.config.seat(None)

    def run(q: Query) -> tuple[list[str], dict]:
        kwargs: dict[str, Any] = {"query": q.query, "limit": TOP, **q.args}
        if mode is not None:
            kwargs["mode"] = mode
        res = search_memory(store, seat, **kwargs)
        extra = {k: res[k] for k in ("mode", "legs", "corrected", "matching") if k in res}
        return [r["id"] for r in res["results"]], extra

    return run


def table(figures: dict[str, Any]) -> str:
    names = list(figures)
    head = "| class | n | " + " | ".join(f"{n} R@10 | {n} MRR" for n in names) + " |"
    sep = "|---|---|" + "---|---|" * len(names)
    lines = [head, sep]
    for cls in (*CLASSES, "all"):
        cells = [figures[n]["classes"].get(cls) for n in names]
        if not any(cells):
            continue
        count = next(c["n"] for c in cells if c)
        row = [f"{c['recall@10']:.2f} | {c['mrr']:.2f}" if c else "– | –" for c in cells]
        lines.append(f"| {cls} | {count} | " + " | ".join(row) + " |")
    if all("ms_p50" in figures[n] for n in names):
        lines.append("| query ms p50 / p95 | | " + " | ".join(
            f"{figures[n]['ms_p50']} | {figures[n]['ms_p95']}" for n in names) + " |")
    return "\n".join(lines)


def run_eval(background: int, classes: Iterable[str] | None = None, per_class: int | None = None,
             modes: Iterable[str | None] = (None,), home: Path | None = None,
             slices: Iterable[str] | None = None) -> dict[str, Any]:
    """Build the store, run every query on chatmem (per mode) and on FTS5; the result dict."""
    queries = load_queries(classes=classes, per_class=per_class, slices=slices)
    with tempfile.TemporaryDirectory(prefix="chatmem-eval-") as tmp:
        store, imported = build_store(Path(home or tmp), background)
        try:
            resolve_labels(store, queries)
            systems: dict[str, Callable[[Query], tuple[list[str], dict]]] = {}
            for mode in modes:
                systems["chatmem" if mode is None else f"chatmem-{mode}"] = chatmem_system(store, mode)
            ref = Fts5Reference(store)
            systems["fts5"] = lambda q: (ref.search(q.cls, q.query, q.args), {})
            result = evaluate(queries, systems)
        finally:
            store.close()
    result["setup"] = {"background": background, "queries": len(queries), "import": imported,
                       "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                       "fts5_forms": FTS5_FORMS}
    return result


def misses(result: dict[str, Any], system: str) -> list[str]:
    out = []
    for qid, q in result["queries"].items():
        r = q.get(system)
        if r and r["recall"] < 1:
            out.append(f"{qid} [{q['class']}] {q['query']!r} {q['args'] or ''}: recall {r['recall']}, "
                       f"first answer at {r['rank']}" + (f" ({r['error']})" if r.get("error") else ""))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--background", type=int, default=30_000, help="generated background messages")
    ap.add_argument("--classes", default=None, help=f"comma-separated subset of {','.join(CLASSES)}")
    ap.add_argument("--per-class", type=int, default=None, help="at most this many queries per class")
    ap.add_argument("--modes", default=None,
                    help="comma-separated search_memory modes (keyword,semantic,hybrid); default: none passed")
    ap.add_argument("--slice", default=None, choices=[*SLICES, "all"],
                    help="the tuned set, the held-out queries, the second paraphrase slice, or all (default)")
    ap.add_argument("--out", type=Path, default=RESULTS / "queryset.json")
    ap.add_argument("--show-misses", action="store_true", help="list the queries each system missed")
    args = ap.parse_args(argv)
    modes: list[str | None] = args.modes.split(",") if args.modes else [None]
    slices = None if args.slice in (None, "all") else [args.slice]
    result = run_eval(args.background, args.classes.split(",") if args.classes else None,
                      args.per_class, modes, slices=slices)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    for name, figures in result.get("slices", {}).items():
        print(f"\n{name} ({figures[next(iter(figures))]['classes']['all']['n']} queries):")
        print(table(figures))
    print(f"\nall ({result['setup']['queries']} queries):")
    print(table(result["figures"]))
    if args.show_misses:
        for name in result["figures"]:
            print(f"\n{name} missed:")
            print("\n".join("  " + m for m in misses(result, name)) or "  nothing")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
