"""search_memory: BM25 full-text search with filters applied inside the search."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select
from whoosh import qparser
from whoosh import query as Q
from whoosh.highlight import ContextFragmenter, Formatter, highlight

from chatmem.config import Seat
from chatmem.errors import ArgumentError, QueryError
from chatmem.store import Store
from chatmem.store.index import SECONDS_PER_DAY, _analyzer
from chatmem.store.models import Call, Chat, Message

from .records import message_record, timestamp_fields
from .scope import allowed_chat_ids

MAX_QUERY_CHARS = 1000
SORTS = ("relevance", "newest")
SEARCH_FIELDS = ["text", "sender", "chat"]


class _Bold(Formatter):
    """Highlights as **word**, readable in a terminal and by a model."""

    between = " … "

    def format_token(self, text, token, replace=False):
        return f"**{token.text if replace else text[token.startchar:token.endchar]}**"


def parse_time(value: str | None, name: str, tz) -> datetime | None:
    """An ISO 8601 date or time (a date alone means its midnight in the owner's zone)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be an ISO 8601 date or time, e.g. 2024-05-01")
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ArgumentError(f"{name} must be an ISO 8601 date or time, e.g. 2024-05-01 or "
                            f"2024-05-01T18:30:00+02:00; got {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(timezone.utc)


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{name} must be a whole number from {lo} to {hi}")
    if not lo <= value <= hi:
        raise ArgumentError(f"{name} must be from {lo} to {hi}; got {value}")
    return value


def make_parser(schema) -> qparser.MultifieldParser:
    parser = qparser.MultifieldParser(SEARCH_FIELDS, schema, group=qparser.AndGroup)
    parser.add_plugin(qparser.PlusMinusPlugin())
    parser.remove_plugin_class(qparser.FieldsPlugin)  # "a:b" is text, not a field name
    return parser


def parse_query(schema, query: str):
    if not isinstance(query, str) or not query.strip():
        raise ArgumentError("query must be a non-empty string of words")
    if len(query) > MAX_QUERY_CHARS:
        raise ArgumentError(f"query must be at most {MAX_QUERY_CHARS} characters; got {len(query)}")
    cleaned = "".join(ch if ch.isprintable() else " " for ch in query)
    try:
        q = make_parser(schema).parse(cleaned)
    except Exception as e:  # whoosh raises assorted errors for odd syntax
        raise QueryError(f"could not read the query {query!r}: {e}") from e
    if q is Q.NullQuery:
        raise QueryError(f"the query {query!r} has no words to search for")
    return q


def search_memory(store: Store, seat: Seat, query: str, platform: str | None = None,
                  source: str | None = None, sender: str | None = None, group: bool | None = None,
                  since: str | None = None, until: str | None = None, limit: int = 10,
                  sort: str = "relevance") -> dict[str, Any]:
    started = time.perf_counter()
    limit = check_int(limit, "limit", 1, 50)
    if sort not in SORTS:
        raise ArgumentError(f"sort must be one of {', '.join(SORTS)}; got {sort!r}")
    if group is not None and not isinstance(group, bool):
        raise ArgumentError("group must be true or false")
    tz = store.config.timezone
    t_since, t_until = parse_time(since, "since", tz), parse_time(until, "until", tz)
    store.index.refresh()
    ix = store.index.ix
    q = parse_query(ix.schema, query)

    filters: list[Q.Query] = []
    if platform:
        filters.append(Q.Term("platform", platform))
    if source:
        filters.append(Q.Term("source", source))
    if sender:
        filters.append(Q.Term("sender_key", sender.lower().replace(",", " ")))
    if group is not None:
        filters.append(Q.Term("group", "1" if group else "0"))
    lo = int(t_since.timestamp()) if t_since else None
    hi = int(t_until.timestamp()) if t_until else None
    if lo is not None or hi is not None:
        # a coarse day range expands into few terms; exact bounds are checked on `ts` below
        filters.append(Q.NumericRange("day", lo // SECONDS_PER_DAY if lo is not None else None,
                                      hi // SECONDS_PER_DAY if hi is not None else None))
    with store.read() as conn:
        allowed = allowed_chat_ids(conn, seat)
    if allowed is not None:
        filters.append(Q.Or([Q.Term("source", s) for s in sorted(allowed)]) if allowed else Q.NullQuery)
    full = Q.And([q, *filters]) if filters else q

    with ix.searcher() as searcher:
        kwargs: dict[str, Any] = {}
        if sort == "newest":
            kwargs["sortedby"] = "ts"
            kwargs["reverse"] = True
        exact_bounds = lo is not None or hi is not None
        if exact_bounds:
            hits = searcher.search(full, limit=None, **kwargs)
            ts_col = searcher.reader().column_reader("ts")
            docnums = [h.docnum for h in hits
                       if (lo is None or ts_col[h.docnum] >= lo) and (hi is None or ts_col[h.docnum] <= hi)]
            total = len(docnums)
            scores = {h.docnum: h.score for h in hits}
            page = [(searcher.stored_fields(d)["id"], scores.get(d)) for d in docnums[:limit]]
        else:
            hits = searcher.search(full, limit=limit, **kwargs)
            total = len(hits)
            page = [(h["id"], h.score) for h in hits]
        terms = {t for f, t in q.iter_all_terms() if f == "text"} if hasattr(q, "iter_all_terms") else set()

    results = _load_results(store, page, terms, tz)
    return {
        "results": results,
        "total": total,
        "has_more": total > len(results),
        "server_ms": round((time.perf_counter() - started) * 1000, 2),
    }


def _load_results(store: Store, page: list[tuple[str, float | None]], terms: set, tz) -> list[dict]:
    ids = [i for i, _ in page]
    mt, ct, ch = Message.__table__, Call.__table__, Chat.__table__
    with store.read() as conn:
        msgs = {r.id: r for r in conn.execute(select(mt).where(mt.c.id.in_(ids)))}
        calls = {r.id: r for r in conn.execute(select(ct).where(ct.c.id.in_(ids)))}
        chat_ids = {r.chat_id for r in [*msgs.values(), *calls.values()]}
        chats = {r.id: r for r in conn.execute(select(ch).where(ch.c.id.in_(chat_ids)))}
    out = []
    for doc_id, score in page:
        if doc_id in msgs:
            row = msgs[doc_id]
            item = message_record(row, chats.get(row.chat_id), tz)
            text = row.text or ""
        elif doc_id in calls:
            row = calls[doc_id]
            chat = chats.get(row.chat_id)
            text = " ".join(x for x in (row.summary, row.transcript) if x) or f"{row.direction} {row.media} call"
            item = {"id": row.id, **timestamp_fields(row.started_at, tz), "platform": row.platform,
                    "chat": chat.name if chat else "", "group": bool(chat.is_group) if chat else False,
                    "sender": row.peer or "", "content": text, "source": row.chat_id,
                    "deleted": False, "edited": False, "kind": "call"}
        else:
            continue  # indexed but gone from the database: never show a ghost
        item["score"] = round(float(score), 4) if score is not None else None
        item["snippet"] = snippet(text, terms)
        out.append(item)
    return out


def snippet(text: str, terms: set, chars: int = 160) -> str:
    if not text:
        return ""
    if terms:
        frag = highlight(text, frozenset(terms), _analyzer(), ContextFragmenter(maxchars=chars, surround=60),
                         _Bold(), top=2)
        if frag:
            return frag
    return text if len(text) <= chars else text[: chars - 1] + "…"
