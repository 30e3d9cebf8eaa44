"""Search by meaning for search_memory: the semantic leg, and its fusion with the keyword leg.

`mode` is `keyword` (the full-text index only), `semantic` (the nearest message vectors only) or
`hybrid` (both, fused by reciprocal rank: each message scores the sum of 1 / (60 + its rank) over
the legs that found it). Without the `semantic` extra only `keyword` exists, and it is the
default; with it `hybrid` is. Filters and the seat's scope apply to both legs before ranking:
the semantic leg scans only the vectors of messages the filters allow.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from chatmem.config import Seat
from chatmem.errors import ArgumentError, StoreError
from chatmem.store import Store

from .lookup import Timer
from .types import Leg, SearchHit, SearchResult

MODES = ("keyword", "semantic", "hybrid")
MODE_ENV = "CHATMEM_SEARCH_MODE"  # the default mode, e.g. keyword to keep hybrid off
RRF_K = 60  # the constant of reciprocal rank fusion (Cormack et al.): damps the top ranks
KEYWORD_DEPTH = 50  # each leg's ranked list that goes into the fusion
# Hybrid keeps the keyword leg's best KEYWORD_KEPT where keyword search put them, and fuses the
# rest. Plain RRF let messages that both legs found overtake keyword's own best: on the labelled
# set (30k, 54 questions) hybrid answered 0.77 of the questions in its top 10 where keyword alone
# answered 0.89. Keeping 4 to 8 gives keyword's figure on every class and paraphrases unchanged
# (benchmarks/NOTES.md); 5 is the middle.
KEYWORD_KEPT = 5
SEMANTIC_DEPTH = 100
# The similarity floor: the semantic leg keeps only messages at least this near in meaning (cosine
# of the mean-of-token vectors). The distilled table's space is crowded (a query and a random
# message of the labelled set's 30k background: cosine 0.17 at the median, 0.40 at the 90th
# percentile); at 0.3 every hybrid and semantic top-10 figure of the set is unchanged, at 0.4
# paraphrases lose (benchmarks/NOTES.md). A word nothing in the store is about returns fewer
# messages rather than the 100 least unrelated ones.
SIMILARITY_FLOOR = 0.3
ALL_CHATS = 10**9  # list_chats' limit, lifted: the semantic leg needs every chat a filter keeps


def resolve_mode(mode: str | None) -> str:
    """The mode asked for, or the default: CHATMEM_SEARCH_MODE when set, else hybrid where the
    semantic extra is installed, else keyword."""
    from chatmem.store.embedder import EXTRA_HINT, SemanticUnavailable, available

    if mode is None:
        mode = os.environ.get(MODE_ENV) or None
        if mode is None:
            return "hybrid" if available() else "keyword"
        if mode not in MODES:
            raise ArgumentError(f"{MODE_ENV} must be one of {', '.join(MODES)}; got {mode!r}")
    if mode not in MODES:
        raise ArgumentError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    if mode != "keyword" and not available():
        raise SemanticUnavailable(f"mode={mode} needs search by meaning, which is not installed: "
                                  f"{EXTRA_HINT}")
    return mode


def reciprocal_rank_fusion(legs: dict[Leg, list[str]], k: int = RRF_K) -> list[tuple[str, float, list[Leg]]]:
    """(id, fused score, legs that found it), best first; ties keep the first leg's order.

    >>> reciprocal_rank_fusion({"keyword": ["a", "b"], "semantic": ["b", "c"]})[0][:1]
    ('b',)
    """
    scores: dict[str, float] = {}
    found: dict[str, list[Leg]] = {}
    for name, ids in legs.items():
        for rank, doc in enumerate(ids, 1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
            found.setdefault(doc, []).append(name)
    order = sorted(scores, key=lambda d: -scores[d])  # stable: first seen wins a tie
    return [(d, scores[d], found[d]) for d in order]


def keep_keyword_head(fused: list[tuple[str, float, list[Leg]]], keyword: list[str],
                      kept: int = KEYWORD_KEPT) -> list[tuple[str, float, list[Leg]]]:
    """The fused list with the keyword leg's first `kept` in front, in keyword's order; their
    scores are lifted to the best score behind them so that scores still fall down the list.

    >>> keep_keyword_head([("s", 0.03, ["semantic"]), ("k", 0.02, ["keyword"])], ["k"])
    [('k', 0.03, ['keyword']), ('s', 0.03, ['semantic'])]
    """
    head = keyword[:kept]
    if not head:
        return fused
    by_id = {f[0]: f for f in fused}
    kept_ids = set(head)
    rest = [f for f in fused if f[0] not in kept_ids]
    out: list[tuple[str, float, list[Leg]]] = []
    score = rest[0][1] if rest else 0.0
    for d in reversed(head):
        score = max(by_id[d][1], score)
        out.append((d, score, by_id[d][2]))
    return out[::-1] + rest


def semantic_leg(store: Store, seat: Seat, query: str, *, platform: str | None, source: str | None,
                 sender: str | None, person: str | None, group: bool | None, since, until,
                 depth: int = SEMANTIC_DEPTH) -> list[tuple[str, float]]:
    """The messages nearest in meaning to `query` that the filters and the seat allow, at most
    `depth`, none below SIMILARITY_FLOOR."""
    from chatmem.store.embedder import load_embedder

    chats: list[str] | None = None
    people: list[str] | None = None
    with store.reader() as r:
        if platform or source or group is not None or not seat.unrestricted:
            rows = r.chats(seat, platform=platform.strip().lower() if platform else None, limit=ALL_CHATS)
            chats = [c.id for c in rows if (not source or c.id == source.strip())
                     and (group is None or bool(c.is_group) == group)]
        for who in (sender, person):
            if who is not None and who.strip():
                ids = [pid for pid, _ in r.resolve_people(who)]  # names as people say them
                people = ids if people is None else [p for p in people if p in ids]
    embedder = load_embedder()
    if not store.vectors.made_by(embedder.name):
        if store.read_only:
            raise StoreError(f"the vectors in {store.vectors.folder} were made by an older model and "
                             "the store is read-only: `chatmem reindex` on a writable copy rebuilds them")
        store.catch_up_vectors()  # once, after an upgrade: the messages embedded by this model
    vector = embedder.embed([query])[0]
    near = store.vectors.search(vector, depth, chats=chats, people=people, since=since, until=until)
    return [(i, s) for i, s in near if s >= SIMILARITY_FLOOR]


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _beside() -> ThreadPoolExecutor:
    """The threads hybrid searches run their semantic leg in (made at the first one)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="chatmem-semantic")
        return _pool


def search_by_meaning(store: Store, seat: Seat, query: str, mode: str,
                      keyword: Callable[..., SearchResult], load: Callable[..., list[SearchHit]],
                      *, limit: int, offset: int = 0, sort: str, since: str | None, until: str | None,
                      bounds: tuple[Any, Any], **filters: Any) -> SearchResult:
    """search_memory's answer in `semantic` or `hybrid` mode, for a query with words. `keyword`
    is the keyword search (called with mode="keyword"); `load(page)` turns (id, score) pairs
    into results; `since` and `until` as the caller gave them, `bounds` the same as UTC times."""
    timer = Timer()
    legs: dict[Leg, list[str]] = {}
    keyword_result: SearchResult | None = None
    if mode == "hybrid":
        # the semantic leg runs beside the keyword leg: its scan is numpy and SQLite, which let
        # the keyword leg's Python run on the other core meanwhile (benchmarks/NOTES.md)
        pending = _beside().submit(semantic_leg, store, seat, query, since=bounds[0], until=bounds[1],
                                   **filters)
        try:
            keyword_result = keyword(query=query, limit=KEYWORD_DEPTH, sort="relevance", since=since,
                                     until=until, mode="keyword", **filters)
        except BaseException:
            pending.exception()  # the leg has ended before the keyword leg's error is raised
            raise
        near = pending.result()
        legs["keyword"] = [r["id"] for r in keyword_result["results"]]
    else:
        near = semantic_leg(store, seat, query, since=bounds[0], until=bounds[1], **filters)
    legs["semantic"] = [i for i, _ in near]
    fused = keep_keyword_head(reciprocal_rank_fusion(legs), legs.get("keyword", []))
    page = fused[offset:offset + limit]
    results = load([(d, s) for d, s, _ in page])
    by_id = {d: found for d, _, found in page}
    for r in results:
        r["legs"] = by_id.get(r["id"], [])
    if sort in ("newest", "oldest"):  # the best matches of this page, in time order
        results.sort(key=lambda r: r["timestamp"], reverse=sort == "newest")
    contributed: dict[str, int] = {name: sum(1 for r in results if name in r["legs"]) for name in legs}
    # exactly what paging reaches: the fused list (the keyword leg's best KEYWORD_DEPTH and the
    # semantic leg's nearest SEMANTIC_DEPTH); keyword mode counts every keyword match
    out = SearchResult(
        results=results,
        total=len(fused),
        has_more=offset + len(page) < len(fused),
        server_ms=timer.ms(),
        mode="semantic" if mode == "semantic" else "hybrid",
        legs=contributed,
    )
    if keyword_result is not None and "matching" in keyword_result:
        out["matching"] = keyword_result["matching"]
    if keyword_result is not None and "people_matched" in keyword_result:
        out["people_matched"] = keyword_result["people_matched"]
    return out
