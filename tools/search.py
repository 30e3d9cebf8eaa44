"""search_memory: BM25 full-text search with every filter applied inside the search.

Filters (platform, source, sender, group, since/until and the seat's scope) are ANDed into the
Whoosh query itself, so a filtered search finds every match and `total` is exact: never a
top-N cut filtered afterwards.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import func, select
from whoosh import qparser
from whoosh import query as Q
from whoosh.highlight import ContextFragmenter, Formatter, highlight

from chatmem.config import Seat
from chatmem.errors import ArgumentError, QueryError
from chatmem.store import Store
from chatmem.store.index import _analyzer, in_time_range
from chatmem.store.models import Call, Chat, Message
from chatmem.store.scope import chat_filter, expired_sessions

from .lookup import (
    Timer,
    call_record,
    call_text,
    check_int,
    check_platform,
    known_platforms,
    parse_time,
)
from .records import message_record
from .secrets import masker
from .semantic import resolve_mode, search_by_meaning
from .types import SearchHit, SearchResult

__all__ = ["check_int", "parse_time", "search_memory"]

MAX_QUERY_CHARS = 1000
SORTS = ("relevance", "newest", "oldest")
MAX_OFFSET = 10_000
SEARCH_FIELDS = ["text", "sender", "chat"]
MIN_PREFIX_CHARS = 2  # "a*" would expand to most of the vocabulary
SNIPPET_CHARS = 160
DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_WILDCARD_WORD = re.compile(r"[^\s\"()]*[*?][^\s\"()]*")


class _Bold(Formatter):
    """Highlights as **word**, readable in a terminal and by a model."""

    between = " … "

    def format_token(self, text, token, replace=False):
        return f"**{token.text if replace else text[token.startchar:token.endchar]}**"


def make_parser(schema) -> qparser.MultifieldParser:
    parser = qparser.MultifieldParser(SEARCH_FIELDS, schema, group=qparser.AndGroup)
    parser.add_plugin(qparser.PlusMinusPlugin())
    parser.remove_plugin_class(qparser.FieldsPlugin)  # "a:b" is text, not a field name
    return parser


def _check_syntax(query: str) -> None:
    """Reject what Whoosh would silently misread: an unclosed quote or parenthesis, and
    wildcards that would expand to most of the index."""
    if query.count('"') % 2:
        raise QueryError(f'the query {query!r} has an unclosed " (quote phrases like "thermos of coffee")')
    depth = 0
    for ch in query:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise QueryError(f"the query {query!r} has unbalanced parentheses")
    for word in _WILDCARD_WORD.findall(query):
        literal = re.sub(r"[*?].*", "", word.lstrip("+-"))
        if len(literal) < MIN_PREFIX_CHARS:
            raise QueryError(f"the query {query!r} has {word!r}: a prefix* needs at least "
                             f"{MIN_PREFIX_CHARS} letters before the *")


def _only_negative(q) -> bool:
    if isinstance(q, Q.Not):
        return True
    if isinstance(q, (Q.And, Q.Or)):
        return all(_only_negative(c) for c in q.children())
    return False


def parse_query(schema, query: Any):
    if not isinstance(query, str) or not query.strip():
        raise ArgumentError("query must be a non-empty string of words (1 to 1000 characters)")
    if len(query) > MAX_QUERY_CHARS:
        raise ArgumentError(f"query must be at most {MAX_QUERY_CHARS} characters; got {len(query)}")
    cleaned = "".join(ch if ch.isprintable() else " " for ch in query)
    _check_syntax(cleaned)
    try:
        q = make_parser(schema).parse(cleaned)
    except Exception as e:  # whoosh raises assorted errors for odd syntax
        raise QueryError(f"could not read the query {query!r}: {e}") from e
    if q is Q.NullQuery:
        raise QueryError(f"the query {query!r} has no words to search for (only excluded words "
                         "or punctuation)")
    if _only_negative(q):
        raise QueryError(f"the query {query!r} only excludes words; add at least one word to find")
    return q


def scope_filter(store: Store, seat: Seat) -> tuple[str, list[str]] | None:
    """None for a seat that sees everything; else ("only", ids) or ("not", ids), whichever
    list is shorter, as the search filter on `source`."""
    t = Chat.__table__
    with store.read() as conn:
        if seat.unrestricted:
            gone = [r.id for r in conn.execute(select(t.c.id).where(expired_sessions(seat, t)))]
            return ("not", gone) if gone else None
        allowed = [r.id for r in conn.execute(select(t.c.id).where(chat_filter(seat)))]
        total = conn.execute(select(func.count()).select_from(t)).scalar_one()
        if len(allowed) <= total - len(allowed):
            return ("only", allowed)
        return ("not", [r.id for r in conn.execute(select(t.c.id).where(~chat_filter(seat)))])


def search_memory(store: Store, seat: Seat, query: str, platform: str | None = None,
                  source: str | None = None, sender: str | None = None, group: bool | None = None,
                  since: str | None = None, until: str | None = None, limit: int = 10,
                  sort: str = "relevance", person: str | None = None, offset: int = 0,
                  mode: str | None = None) -> SearchResult:
    """Messages and calls matching `query`, best (or newest) first, with exact totals.

    `person` (a name, phone number, e-mail or person id) finds that person's messages on
    every platform, whatever name each platform shows for them. `mode` is keyword, semantic
    or hybrid (tools/semantic.py; hybrid by default where the semantic extra is installed)."""
    timer = Timer()
    mode = resolve_mode(mode)
    limit = check_int(limit, "limit", 1, 50)
    offset = check_int(offset, "offset", 0, MAX_OFFSET)
    if isinstance(sort, str):
        sort = sort.strip().lower()
    if sort not in SORTS:
        raise ArgumentError(f"sort must be one of {', '.join(SORTS)}; got {sort!r}")
    if group is not None and not isinstance(group, bool):
        raise ArgumentError(f"group must be true or false; got {group!r}")
    for name, value in (("platform", platform), ("source", source), ("sender", sender), ("person", person)):
        if value is not None and (not isinstance(value, str) or len(value) > 200):
            raise ArgumentError(f"{name} must be a string of at most 200 characters")
    platform = check_platform(platform, known_platforms(store))
    tz = store.config.timezone
    t_since, t_until = parse_time(since, "since", tz), parse_time(until, "until", tz)
    if t_until is not None and isinstance(until, str) and DATE_ONLY.fullmatch(until.strip()):
        t_until += timedelta(days=1) - timedelta(seconds=1)  # "until 2024-02-10" includes that day
    if t_since and t_until and t_since > t_until:
        raise ArgumentError(f"since ({since}) must not be after until ({until})")
    if mode != "keyword" and isinstance(query, str) and query.strip():
        parse_query(store.index.ix.schema, query)  # the same errors for a bad query in every mode

        def keyword(**kw: Any) -> SearchResult:
            return search_memory(store, seat, **kw)

        def load(page: list[tuple[str, float]]) -> list[SearchHit]:
            return _load_results(store, seat, list(page), frozenset(), tz)

        return search_by_meaning(store, seat, query, mode, keyword, load, limit=limit, offset=offset,
                                 sort=sort, since=since, until=until, bounds=(t_since, t_until),
                                 platform=platform, source=source, sender=sender, group=group,
                                 person=person)
    store.index.refresh()
    ix = store.index.ix
    if isinstance(query, str) and not query.strip() and (person or sender or source):
        q = Q.Every()  # everything from this person / sender / chat, newest or best first
    else:
        q = parse_query(ix.schema, query)

    filters: list[Q.Query] = []
    bounds: tuple[int | None, int | None] | None = None
    if platform:
        filters.append(Q.Term("platform", platform.strip().lower()))
    if source:
        filters.append(Q.Term("source", source.strip()))
    matched: dict[str, str] = {}
    if sender:
        filters.append(_sender_filter(store, sender, matched))
    if group is not None:
        filters.append(Q.Term("group", "1" if group else "0"))
    if person is not None:
        filters.append(_person_filter(store, person, matched))
    if t_since or t_until:
        lo = int(t_since.replace(tzinfo=timezone.utc).timestamp()) if t_since else None
        hi = int(t_until.replace(tzinfo=timezone.utc).timestamp()) if t_until else None
        bounds = (lo, hi)
    scope = scope_filter(store, seat)
    excluded: Q.Query | None = None
    if scope is not None:
        how, ids = scope
        if how == "only":
            filters.append(Q.Or([Q.Term("source", s) for s in ids]) if ids else Q.NullQuery)
        elif ids:
            excluded = Q.Or([Q.Term("source", s) for s in ids])
    full = Q.And([q, *filters]) if filters else q
    if excluded is not None:
        full = Q.AndNot(full, excluded)

    with store.index.reading() as searcher:
        kwargs: dict[str, Any] = {}
        if sort in ("newest", "oldest"):
            kwargs = {"sortedby": "ts", "reverse": sort == "newest"}
        if bounds is not None:
            # the date bounds are checked on the `ts` column of every match, not by range terms
            matching = in_time_range(searcher, full, *bounds)
        else:
            # the exact set of matches: Whoosh's own count of a query with exclusions (AndNot,
            # the seat's excluded chats, `-word`) can count documents it then rejects
            matching = set(searcher.docs_for_query(full))
        total = len(matching)
        if not matching or offset >= total:
            # (Whoosh would read an empty filter as no filter at all)
            page = []
        else:
            hits = searcher.search(full, limit=offset + limit, terms=False, filter=matching, **kwargs)
            page = [(h["id"], h.score) for h in list(hits)[offset:offset + limit]]
        terms = _highlight_terms(q, searcher)

    results = _load_results(store, seat, page, terms, tz)
    out: dict[str, Any] = {
        "results": results,
        "total": total,
        "has_more": offset + len(page) < total,
        "server_ms": timer.ms(),
    }
    if matched:
        # which people the person/sender filter took the name to mean
        out["people_matched"] = [{"person": pid, "name": name} for pid, name in matched.items()]
    return out


def _no_such_person(store: Store, name: str, text: str) -> ArgumentError:
    with store.reader() as r:
        near = r.closest_people(text)
    hint = f"; the closest: {', '.join(near)}" if near else "; list_chats(query=...) shows who is there"
    return ArgumentError(f"{name}: nobody called {text!r} is in the archive{hint}")


def _person_filter(store: Store, person: str, matched: dict[str, str]) -> Q.Query:
    """The messages of the people `person` means, as people say names (first names, parts,
    handles, any case and accents); nobody matching is an error naming the closest people."""
    if not person.strip():
        raise ArgumentError("person must be a name, a phone number, an e-mail or a person id")
    with store.reader() as r:
        people = r.resolve_people(person)
    if not people:
        raise _no_such_person(store, "person", person)
    matched.update(people)
    return Q.Or([Q.Term("person", pid.lower()) for pid, _ in people])


def _sender_filter(store: Store, sender: str, matched: dict[str, str]) -> Q.Query:
    """Messages by the people `sender` means, or by a sender of exactly that name or handle
    (a logged session's `user`/`assistant`, a system notice's author)."""
    exact = Q.Term("sender_key", sender.strip().lower().replace(",", " "))
    with store.reader() as r:
        people = r.resolve_people(sender)
    if people:
        matched.update(people)
        return Q.Or([exact, *(Q.Term("person", pid.lower()) for pid, _ in people)])
    with store.index.reading() as searcher:
        known = searcher.doc_frequency("sender_key", exact.text) > 0
    if not known:
        raise _no_such_person(store, "sender", sender)
    return exact


def _highlight_terms(q, searcher) -> frozenset[str]:
    """The words to highlight: the query's text terms, prefixes expanded, exclusions left out."""
    positive = _strip_negations(q)
    if positive is None:
        return frozenset()
    try:
        terms = positive.existing_terms(searcher.reader(), phrases=True, expand=True)
    except Exception:  # an odd query shape: highlight nothing rather than fail the search
        return frozenset()
    return frozenset(t.decode("utf-8") if isinstance(t, bytes) else t
                     for f, t in terms if f == "text")


def _strip_negations(q):
    if isinstance(q, Q.Not):
        return None
    if isinstance(q, Q.AndNot):
        return _strip_negations(q.a)
    if isinstance(q, (Q.And, Q.Or)):
        kids = [k for k in (_strip_negations(c) for c in q.children()) if k is not None]
        return type(q)(kids) if kids else None
    return q


def _load_results(store: Store, seat: Seat, page: list[tuple[str, float | None]], terms: frozenset,
                  tz) -> list[SearchHit]:
    ids = [i for i, _ in page]
    mt, ct, ch = Message.__table__, Call.__table__, Chat.__table__
    with store.read() as conn:
        msgs = {r.id: r for r in conn.execute(select(mt).where(mt.c.id.in_(ids)))}
        missing = [i for i in ids if i not in msgs]
        calls = {r.id: r for r in conn.execute(select(ct).where(ct.c.id.in_(missing)))} if missing else {}
        chat_ids = {r.chat_id for r in [*msgs.values(), *calls.values()]}
        chats = {r.id: r for r in conn.execute(select(ch).where(ch.c.id.in_(chat_ids)))}
        names = store.display_names(conn)
    with store.reader() as r:
        extras = r.message_extras(list(msgs.values()))
    mask = masker(seat)
    out: list[SearchHit] = []
    for doc_id, score in page:
        if doc_id in msgs:
            row = msgs[doc_id]
            item = message_record(row, chats.get(row.chat_id), tz, names, extras.get(row.id), mask)
            text = item["content"].partition(": ")[2] if item["sender"] else item["content"]
        elif doc_id in calls:
            row = calls[doc_id]
            item = call_record(row, chats.get(row.chat_id), tz, names)
            text = " ".join(x for x in (row.summary, row.transcript) if x) or call_text(row)
        else:
            continue  # indexed but gone from the database: never show a ghost
        out.append({**item, "content": mask(item["content"]),
                    "score": round(float(score), 4) if score is not None else 0.0,
                    "snippet": snippet(mask(text), terms)})
    return out


def snippet(text: str, terms: frozenset, chars: int = SNIPPET_CHARS) -> str:
    """The best fragments of `text` with the matched words in **bold**."""
    if not text:
        return ""
    if terms:
        frag = highlight(text, terms, _analyzer(), ContextFragmenter(maxchars=chars, surround=60),
                         _Bold(), top=2)
        if frag:
            return frag
    return text if len(text) <= chars else text[: chars - 1] + "…"


def chat_matches(store: Store, chat_id: str, query: str, since: datetime | None,
                 limit: int = 50) -> list[str]:
    """Ids of one chat's messages matching `query` (calls left out), best first: what
    get_conversation_context pulls in from further back."""
    store.index.refresh()
    q = parse_query(store.index.ix.schema, query)
    full = Q.AndNot(Q.And([q, Q.Term("source", chat_id)]), Q.Term("kind", "call"))
    with store.index.reading() as searcher:
        allowed = None
        if since is not None:
            allowed = in_time_range(searcher, full, int(since.replace(tzinfo=timezone.utc).timestamp()), None)
            if not allowed:  # an empty filter would mean no filter to Whoosh
                return []
        return [h["id"] for h in searcher.search(full, limit=limit, filter=allowed)]
