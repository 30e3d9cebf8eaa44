"""The results of a search do not depend on how the index happens to be split into segments.

The same messages imported as one segment, as three, as twelve, and the twelve packed again by
`chatmem reindex --merge`: every query (all words, any word with common words, phrases, a
phrase's estimated total, fuzzy, prefix, filtered) gives the same ids in the same order with the
same scores and the same total, page after page."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import Cli
from whoosh import index as windex

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store import index as index_mod
from chatmem.store import merge as merge_mod
from chatmem.store import search as search_mod
from chatmem.store.search import SearchFilter, parse_query, search

RARE = ("granola", "lighthouse", "ferry", "tomatoes", "invoice", "marathon", "bakery", "violin",
        "glacier", "umbrella", "passport", "cinnamon", "harbour", "kayak", "lantern")
COMMON = ("the", "and", "of", "is", "it", "we", "to", "at", "what", "where", "when", "was")
SENDERS = ("Anna", "Ben", "Cleo", "Dev")
START = datetime(2024, 3, 4, 7, tzinfo=timezone.utc)
N = 720

# (query, filter) pairs; each is asked for every result it has
QUERIES: list[tuple[str, dict]] = [
    ("granola", {}),
    ("lighthouse violin", {}),
    # any word: rare words found in few messages, common ones scored where those are
    ("what was the glacier and the xylophone", {}),
    ("where is the kayak of the quokka", {}),
    ("when we went to the bakery at the harbour zzyzx", {}),
    ("the lantern and the wombat", {}),
    ("what is it quokka", {}),  # no content word found: the common words are the match
    ("granola violin umbrella passport cinnamon", {}),
    # phrases (an exact total, then more candidates than are all checked: an estimate)
    ('"the ferry"', {}),
    ('"of the"', {}),
    ('"and the"', {}),
    ("pasport umbrela", {}),  # fuzzy
    ("lant*", {}),
    ("marathon", {"senders": ["Ben"]}),
    ("invoice", {"since": START + timedelta(days=3), "until": START + timedelta(days=9)}),
    ("what was the glacier and the xylophone", {"senders": ["Cleo"]}),
    ("the tomatoes of the quokka", {"platforms": ["signal"], "group": False}),
]


def _messages() -> list[dict]:
    rng = random.Random(7)
    out = []
    for i in range(N):
        words = [rng.choice(COMMON) for _ in range(rng.randrange(0, 9))]
        words += [rng.choice(RARE) for _ in range(rng.choice((0, 1, 1, 1, 2)))]
        rng.shuffle(words)
        if rng.random() < 0.1:  # a repeat: BM25 counts it
            words += words[-1:]
        text = " ".join(words) or "ok"
        ts = (START + timedelta(minutes=23 * i)).isoformat()
        out.append({"platform": "signal", "chat": ("Hikes", "Family", "Work")[i % 3] if i % 7 else "Ben",
                    "sender": SENDERS[rng.randrange(len(SENDERS))], "timestamp": ts, "text": text,
                    "guid": f"M{i}"})
    return out


def _import_in_parts(home: Path, folder: Path, cuts: list[int]) -> None:
    """One import per part of the messages (cut at `cuts`): a segment each."""
    msgs = _messages()
    cli = Cli(home)
    bounds = [0, *cuts, len(msgs)]
    folder.mkdir(parents=True, exist_ok=True)
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        path = folder / f"part{k}.jsonl"
        path.write_text("".join(json.dumps(m) + "\n" for m in msgs[a:b]), encoding="utf-8")
        cli("import", path)
    assert len(windex.open_dir(str(home / "index"))._segments()) == len(bounds) - 1


def _results(home: Path) -> list:
    """Every query's results: all its hits (ids, scores to 6 places), its total and mode."""
    out = []
    with Store.open(home, load_config()) as store:
        for text, flt in QUERIES:
            for limit in (N, 10):  # everything, and the first page (a phrase's total: an estimate)
                hits = search(store, parse_query(text), SearchFilter(**flt), limit=limit)
                out.append((text, hits.mode, hits.total, hits.total_exact,
                            [(i, round(s, 6)) for i, s in zip(hits.ids, hits.scores)]))
    return out


@pytest.fixture
def layouts(tmp_path_factory, monkeypatch):
    """The same messages as one segment, three and twelve; their results."""
    monkeypatch.setattr(index_mod, "BULK_THRESHOLD", 10)  # every import writes its own segment
    monkeypatch.setattr(merge_mod, "plan", lambda live, budget=0: [])  # and none is merged
    # '"of the"' has more candidates than are all checked: its total is estimated from a sample
    monkeypatch.setattr(search_mod, "PHRASE_EXACT", 40)
    monkeypatch.setattr(search_mod, "PHRASE_CHUNK", 20)
    monkeypatch.setattr(search_mod, "PHRASE_SAMPLE", 30)
    base = tmp_path_factory.mktemp("layouts")
    homes = {}
    for name, cuts in (("one", []), ("three", [100, 350]), ("twelve", list(range(60, N, 60)))):
        homes[name] = base / name
        _import_in_parts(homes[name], base / f"{name}-parts", cuts)
    return homes


def test_any_segment_layout_gives_the_same_results(layouts):
    one = _results(layouts["one"])
    by_query = {q: (mode, total, exact, hits) for q, mode, total, exact, hits in one}
    # the queries do what they are here for
    assert by_query["what was the glacier and the xylophone"][0] == "any"
    assert by_query["what is it quokka"][0] == "any" and by_query["what is it quokka"][1] > 50
    assert not by_query['"of the"'][2] and by_query['"the ferry"'][2]
    assert all(total and hits for _, _, total, _, hits in one)
    assert _results(layouts["three"]) == one
    assert _results(layouts["twelve"]) == one


def test_merging_segments_keeps_the_results(layouts, monkeypatch):
    before = _results(layouts["twelve"])
    cli = Cli(layouts["twelve"])
    assert cli.json("reindex", "--merge") == {"segments_before": 12, "segments": 1}
    assert _results(layouts["twelve"]) == before
