"""search_memory: full-text search, every filter applied inside the search (exact totals).

The query language, the index and the ranking live in the store (`chatmem.store.search`); this
tool checks arguments, turns the query's operators (`from:`, `in:`, `with:`, ...) and the
arguments into one filter, and shows the hits as messages with a highlighted snippet.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, cast

from chatmem.config import Seat
from chatmem.errors import ArgumentError, NotFound, QueryError
from chatmem.records import KINDS
from chatmem.store import Store
from chatmem.store.analysis import matched_spans
from chatmem.store.media import ATTACHMENT_TYPES
from chatmem.store.search import (
    ParsedQuery,
    SearchFilter,
    chats_named,
    chats_with,
    hit_rows,
    known_sender,
    parse_query,
    search,
    store_chat_ids,
)

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
from .secrets import MASK, masker
from .semantic import resolve_mode, search_by_meaning
from .types import SearchHit, SearchResult

__all__ = ["chat_matches", "check_int", "parse_time", "search_memory", "snippet"]

MAX_QUERY_CHARS = 1000
SORTS = ("relevance", "newest", "oldest")
MAX_OFFSET = 10_000
SNIPPET_CHARS = 160
DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
HAS_VALUES = {"attachment": "attachment", "attachments": "attachment", "file": "attachment",
              "files": "attachment", "media": "attachment",
              # the attachment types (store.media.ATTACHMENT_TYPES) and the words people use for them
              "image": "image", "images": "image", "photo": "image", "photos": "image",
              "picture": "image", "pictures": "image", "video": "video", "videos": "video",
              "audio": "audio", "voice": "audio", "document": "document", "documents": "document",
              "doc": "document", "docs": "document", "pdf": "document", "other": "other"}
IS_VALUES = ("deleted",)


def _day_end(value: str, t: datetime | None) -> datetime | None:
    """`until 2024-02-10` includes that whole day."""
    if t is not None and DATE_ONLY.fullmatch(value.strip()):
        return t + timedelta(days=1) - timedelta(seconds=1)
    return t


def search_memory(store: Store, seat: Seat, query: str, platform: str | None = None,
                  source: str | None = None, sender: str | None = None, group: bool | None = None,
                  since: str | None = None, until: str | None = None, limit: int = 10,
                  sort: str = "relevance", person: str | None = None, offset: int = 0,
                  mode: str | None = None, attachment_type: str | None = None) -> SearchResult:
    """Messages and calls matching `query`, best (or newest) first, with exact totals.

    `person` (a name, phone number, e-mail or person id) finds that person's messages on
    every platform, whatever name each platform shows for them. `mode` is keyword, semantic
    or hybrid (tools/semantic.py; hybrid by default where the semantic extra is installed); a
    query with operators is answered by keyword search.
    `attachment_type` (image, video, audio, document, other) keeps messages with such a file;
    it is a keyword search (by meaning, files are not told apart)."""
    # the query is read once, here: the hybrid search's keyword leg reuses it
    parsed = (parse_query(query) if isinstance(query, str) and query.strip() and len(query) <= MAX_QUERY_CHARS
              else None)
    return _search_memory(store, seat, query, parsed, platform=platform, source=source, sender=sender,
                          group=group, since=since, until=until, limit=limit, sort=sort, person=person,
                          offset=offset, mode=mode, attachment_type=attachment_type)


def _search_memory(store: Store, seat: Seat, query: str, parsed: ParsedQuery | None,
                   platform: str | None = None, source: str | None = None, sender: str | None = None,
                   group: bool | None = None, since: str | None = None, until: str | None = None,
                   limit: int = 10,
                   sort: str = "relevance", person: str | None = None, offset: int = 0,
                   mode: str | None = None, attachment_type: str | None = None,
                   ids_only: bool = False) -> SearchResult:
    """search_memory with its query read (`parsed`: None for an empty or invalid one).
    `ids_only`: results carry only their ids (hybrid's keyword leg, which fuses ids and loads
    only the page it shows)."""
    timer = Timer()
    types = _attachment_types(attachment_type)
    if types is not None and mode in ("semantic", "hybrid"):
        raise ArgumentError(f"attachment_type works with mode keyword, not {mode}")
    operators = parsed is not None and bool(parsed.operators)
    if operators and mode == "semantic":
        raise ArgumentError("operators (from:, in:, with:, after:, before:, has:, is:, platform:, "
                            "text:) work with mode keyword or hybrid, not semantic: give the "
                            "filters as arguments, or leave the operators out")
    # operators are the keyword search's own language (a meaning has no `in:` or `has:`): a
    # query with them is answered by keyword search, and the result's mode says so
    mode = "keyword" if types is not None or operators else resolve_mode(mode)
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
    if source is not None and source.strip():
        source = _known_source(store, seat, source.strip())
    if not isinstance(query, str) or (not query.strip() and not (person or sender or source or types)):
        raise ArgumentError("query must be a non-empty string of words (1 to 1000 characters)")
    if len(query) > MAX_QUERY_CHARS:
        raise ArgumentError(f"query must be at most {MAX_QUERY_CHARS} characters; got {len(query)}")
    tz = store.config.timezone
    t_since = parse_time(since, "since", tz)
    t_until = _day_end(until, parse_time(until, "until", tz)) if until else None
    if t_since and t_until and t_since > t_until:
        raise ArgumentError(f"since ({since}) must not be after until ({until})")

    if parsed is None:
        parsed = ParsedQuery(None)
    if mode != "keyword" and query.strip():
        def keyword(**kw: Any) -> SearchResult:
            return _search_memory(store, seat, kw.pop("query"), parsed, ids_only=True, **kw)

        def load(page: list[tuple[str, float]]) -> list[SearchHit]:
            return _load_results(store, seat, list(page), frozenset())

        return search_by_meaning(store, seat, query, mode, keyword, load, limit=limit, offset=offset,
                                 sort=sort, since=since, until=until, bounds=(t_since, t_until),
                                 platform=platform, source=source, sender=sender, group=group,
                                 person=person)
    flt = SearchFilter(group=group, since=t_since, until=t_until, attachment_types=types)
    matched: dict[str, str] = {}
    if platform:
        flt.platforms = [platform]
    if source:
        flt.chats = [source.strip()]
    if sender:
        _sender_filter(store, flt, sender, "sender", matched)
    if person is not None:
        if not person.strip():
            raise ArgumentError("person must be a name, a phone number, an e-mail or a person id")
        flt.people = [pid for pid, _ in _people(store, person, "person", matched)]
    with store.reader() as r:
        flt.readable_chats = r.readable_chat_ids(seat)  # (expired agent sessions are left out)
    _apply_operators(store, parsed, flt, matched)

    hits = search(store, parsed, flt, limit=limit, offset=offset, sort=sort)
    if ids_only:
        results = [cast(SearchHit, {"id": i}) for i in hits.ids]
    else:
        results = _load_results(store, seat, list(zip(hits.ids, hits.scores)), hits.highlight)
    for hit in results:
        if hit["id"] in hits.replies:
            hit["found_as"] = "reply"
    out: SearchResult = {
        "results": results,
        "total": hits.total,
        "has_more": offset + len(hits.ids) < hits.total,
        "server_ms": timer.ms(),
        "mode": "keyword",
        "matching": "all words" if hits.mode == "all" else "any word",
    }
    if not hits.total_exact:
        out["total_is_estimate"] = True
    if hits.fuzzy:
        out["fuzzy"] = hits.fuzzy
    if matched:
        # which people the person/sender filter took the name to mean
        out["people_matched"] = [{"person": pid, "name": name} for pid, name in matched.items()]
    return out


def _some_chats(flt: SearchFilter, found: list[str], operator: str, nothing: str) -> list[str]:
    """`found`, or an error saying the operator names no chat the seat may read (a hidden
    chat is as unknown as one that never was)."""
    if not any(flt.readable_chats is None or c in flt.readable_chats for c in found):
        raise QueryError(f"{operator}: {nothing} (list_chats lists the chats)")
    return found


def _known_source(store: Store, seat: Seat, source: str) -> str:
    """The id of the chat `source` names (a chat's source id, or an id another export gave
    the same conversation); one the seat may not read is as unknown as one that never was,
    an error naming the closest ids the seat may read."""
    import difflib

    with store.reader() as r:
        chat = r.chat(seat, source)
        if chat is not None:
            return chat.id
        readable = r.readable_chat_ids(seat)
    known = sorted(readable if readable is not None else store_chat_ids(store))
    near = difflib.get_close_matches(source, known, n=3, cutoff=0.7)
    hint = f"; the closest: {', '.join(near)}" if near else ""
    raise NotFound(f"source: no chat has the source id {source!r}{hint} (list_chats lists the "
                   "chats and their ids)")


def _people(store: Store, text: str, name: str, matched: dict[str, str]) -> list[tuple[str, str]]:
    """The people a name as people say it means (first names, parts, handles, any case and
    accents); nobody is an error naming the closest people."""
    with store.reader() as r:
        people = r.resolve_people(text)
        if not people:
            near = r.closest_people(text)
            hint = f"; the closest: {', '.join(near)}" if near else "; list_chats(query=...) shows who is there"
            raise ArgumentError(f"{name}: nobody called {text!r} is in the archive{hint}")
    matched.update(people)
    return people


def _sender_filter(store: Store, flt: SearchFilter, sender: str, name: str, matched: dict[str, str]) -> None:
    """Messages by the people `sender` means, or by a sender of exactly that name or handle
    (a logged session's `user`/`assistant`, a system notice's author)."""
    flt.senders = [*(flt.senders or []), sender]
    if known_sender(store, sender):
        with store.reader() as r:
            people = r.resolve_people(sender)
        matched.update(people)
    else:
        people = _people(store, sender, name, matched)
    flt.people = [*(flt.people or []), *(pid for pid, _ in people)]


def _apply_operators(store: Store, parsed: ParsedQuery, flt: SearchFilter, matched: dict[str, str]) -> None:
    """`from:`, `in:`, `with:`, `after:`, `before:`, `has:`, `is:`, `platform:` narrow the filter
    exactly as the arguments of the same meaning do (both apply when both are given)."""
    tz = store.config.timezone
    for name, value in parsed.operators:
        if name == "from":
            _sender_filter(store, flt, value, "from:", matched)
        elif name == "in":
            flt.chats = _narrow(flt.chats, _some_chats(flt, chats_named(store, value), f"in:{value}",
                                                       f"no chat's name holds {value!r}"))
        elif name == "with":
            flt.chats = _narrow(flt.chats, _some_chats(flt, chats_with(store, value), f"with:{value}",
                                                       f"no chat has {value!r} in it"))
        elif name == "after":
            t = parse_time(value, "after:", tz)
            flt.since = t if flt.since is None or (t and t > flt.since) else flt.since
        elif name == "before":
            t = _day_end(value, parse_time(value, "before:", tz))
            flt.until = t if flt.until is None or (t and t < flt.until) else flt.until
        elif name == "has":
            wanted = HAS_VALUES.get(value.lower())
            if wanted is None:
                known = ", ".join(f"has:{t}" for t in ("attachment", *ATTACHMENT_TYPES))
                raise QueryError(f"has:{value} is not known; {known} are")
            if wanted == "attachment":
                flt.attachment = True
            else:  # both hold when both are given: a message with files of both types
                flt.attachment_types = [*(flt.attachment_types or []), wanted]
        elif name == "is":
            if value.lower() not in IS_VALUES:
                raise QueryError(f"is:{value} is not known; is:deleted is")
            flt.deleted = True
        elif name == "platform":
            try:
                p = check_platform(value, known_platforms(store))
            except ArgumentError as e:
                raise QueryError(f"platform:{value}: {e}") from None
            flt.platforms = _narrow(flt.platforms, [p] if p else [])


def _attachment_types(value: Any) -> list[str] | None:
    """The attachment_type argument: None, or one of ATTACHMENT_TYPES (the has: words too)."""
    if value is None:
        return None
    wanted = HAS_VALUES.get(value.strip().lower()) if isinstance(value, str) else None
    if wanted is None or wanted == "attachment":
        raise ArgumentError(f"attachment_type must be one of {', '.join(ATTACHMENT_TYPES)}; got {value!r}")
    return [wanted]


def _narrow(current, new: list[str]) -> list[str]:
    """Both limits hold: the values in both (the new ones when there was none)."""
    if current is None:
        return list(new)
    keep = set(new)
    return [v for v in current if v in keep]


def _load_results(store: Store, seat: Seat, page: list[tuple[str, float]], terms: frozenset) -> list[SearchHit]:
    tz = store.config.timezone
    msgs, calls, chats, names = hit_rows(store, [i for i, _ in page])
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
    """A window of `text` around its best cluster of matched words, those in **bold**."""
    if not text:
        return ""
    spans = matched_spans(text, terms)
    if not spans:
        if len(text) <= chars:
            return text
        _, end = _off_masks(text, 0, chars - 1)
        return text[:end] + "…"
    # the window of `chars` holding the most matches, starting a little before the first
    best_i, best_n = 0, 0
    for i, (a, _) in enumerate(spans):
        n = sum(1 for x, y in spans[i:] if y - a <= chars)
        if n > best_n:
            best_i, best_n = i, n
    start = max(0, spans[best_i][0] - 40)
    if start:
        space = text.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and start - space < 20 else start
    start, end = _off_masks(text, start, min(len(text), start + chars))
    parts, pos = [], start
    for a, b in spans:
        if a < start or b > end:
            continue
        parts += [text[pos:a], "**", text[a:b], "**"]
        pos = b
    parts.append(text[pos:end])
    return ("…" if start else "") + "".join(parts) + ("…" if end < len(text) else "")


def _off_masks(text: str, start: int, end: int) -> tuple[int, int]:
    """`start` and `end` moved out of any [masked] mark they fall inside, so that a cut
    never leaves half a mark ("[mask…") that reads like text or hides where a secret was."""
    at = text.find(MASK, max(0, start - len(MASK)))
    while at != -1 and at < end:
        if at < start < at + len(MASK):
            start = at
        if at < end < at + len(MASK):
            end = at + len(MASK)
        at = text.find(MASK, at + 1)
    return start, end


def chat_matches(store: Store, chat_id: str, query: str, since: datetime | None,
                 limit: int = 50) -> list[str]:
    """Ids of one chat's messages matching `query` (calls left out), best first: what
    get_conversation_context pulls in from further back."""
    flt = SearchFilter(chats=[chat_id], kinds=[k for k in KINDS if k != "call"], since=since)
    return search(store, parse_query(query), flt, limit=limit).ids
