"""One full-text query API: a query string and a filter in; ids, scores and an exact total out.

    hits = search(store, parse_query('coffee "thermos of coffee" -decaf'), SearchFilter(...))

The query language (what people and assistants type):

| you write               | it finds                                                          |
|-------------------------|-------------------------------------------------------------------|
| `coffee beans`          | both words (any form: `bean` finds "beans"); when that finds fewer |
|                         | than a handful, any of the words, ranked (`mode` says which)      |
| `"thermos of coffee"`   | the words next to each other, in this order (“…”, 「…」, «…» too) |
| `coffee OR tea`         | either                                                            |
| `coffee -decaf`         | coffee, not decaf (`NOT decaf` too)                               |
| `pinec*`                | words starting so (at least two letters; the most frequent words) |
| `from:ben`              | sent by someone of that name or handle                            |
| `in:family`             | in chats whose name contains it                                   |
| `with:lena`             | in chats with that person                                         |
| `after:2024-01-31`      | on or after that day; `before:` up to and including that day      |
| `has:attachment`        | messages with a file                                              |
| `has:image`             | messages with a file of that type: image, video, audio, document  |
| `is:deleted`            | messages deleted for everyone                                     |
| `platform:signal`       | one platform                                                      |

Operators are read here and handed to the caller (`ParsedQuery.operators`), which resolves the
names they carry (people, chats) into the filter; the text is matched by the index alone.
"""

from __future__ import annotations

import heapq
import os
import re
import threading
import time
import unicodedata
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from math import ceil
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from whoosh import query as Q

from chatmem.errors import QueryError
from chatmem.records import KINDS

from .analysis import (
    LANGUAGES,
    QUESTION_WORDS,
    STEM_MARK,
    _stemmer,
    doc_terms,
    fold,
    function_words,
    phrase_keys,
    phrase_parts,
    stop_words,
    tokens,
)
from .index import (
    _KIND_BITS,
    _KIND_SHIFT,
    _PLATFORM_BITS,
    ATTACHMENT_BIT,
    DELETED_BIT,
    GROUP_BIT,
    TYPE_BITS,
    kind_code,
    person_key,
    sender_key,
    with_poll,
)
from .postings import (
    Evaluator,
    PostingCache,
    Unsupported,
    alive,
    column_array,
    doc_frequency,
    query_memo,
)

if TYPE_CHECKING:
    from .store import Store

OPERATORS = ("from", "in", "with", "after", "before", "has", "is", "platform", "text")
MIN_PREFIX_CHARS = 2  # "a*" would expand to most of the vocabulary
MAX_PREFIX_TERMS = 40  # a prefix matches its most frequent words, no more
PREFIX_SCAN = 20_000  # terms read at most to find them
FUZZY_MIN_CHARS = 5
MAX_FUZZY_TERMS = 4
HANDFUL = 5  # fewer all-word matches than this: rank any-word matches instead
STEM_BOOST = 0.6  # another form of the word counts a little less than the word itself
FUNCTION_BOOST = 0.15
# any-word ranking: each word weighs its rarity (an idf); a function or question word of the
# query's language a fifth of that; holding a word earns COVER of its weight, how strongly
# (BM25: repeats, a short message, the exact form rather than another) the rest
FUNCTION_SHARE = 0.2
COVER = 0.7
PHRASE_EXACT = 500  # phrases: up to this many candidates are all checked (exact total)
PHRASE_CHECK_LIMIT = 2000  # beyond it, candidates checked in rank order until the page is full, at most
PHRASE_CHUNK = 100
PHRASE_SAMPLE = 200  # candidates spread over all of them, checked to estimate a phrase's total
MAX_QUERY_CHARS = 1000
SEARCH_SECONDS = 10.0  # a query's time bound (CHATMEM_SEARCH_SECONDS sets another)
CHECK_EVERY = 1024  # matches collected between two looks at the clock
# any-word answers ranked in their conversations (questions, mostly)
CONTEXT_CANDIDATES = 20  # best any-word matches looked at in their chats
CONTEXT_SPAN = 3  # messages before and after each
CONTEXT_SHARE = 0.5  # a content word only a neighbour holds counts half
NEIGHBOUR_SHARE = 0.9  # a neighbour holding words of its own: ranked with its match's context
REPLY_SPAN = 3  # messages after a matching question placed after it
REPLY_SHARE = 0.9  # each a little below the one before
REPLY_HOURS = 24
REPLY_COVER = 0.6  # a message holding this share of the query's weight is followed by its replies
POSTINGS = PostingCache()  # decoded postings of large terms, shared by every store of the process


# ---------------------------------------------------------------------- parsed queries
@dataclass
class Word:
    text: str  # as typed (one token)
    prefix: bool = False


@dataclass
class Phrase:
    text: str


@dataclass
class Group:
    op: str  # "and" | "or"
    children: list[Any]


@dataclass
class Not:
    child: Any


@dataclass
class ParsedQuery:
    root: Any | None  # Word, Phrase, Group, Not; None when only operators were given
    operators: list[tuple[str, str]] = field(default_factory=list)
    plain: bool = True  # only words (no quotes, OR, exclusions, prefixes): may fall back to any-word
    question: bool = False  # ends with a question mark or starts with a question word

    @property
    def words(self) -> list[str]:
        out: list[str] = []

        def walk(n):
            if isinstance(n, Word):
                out.append(n.text)
            elif isinstance(n, Phrase):
                out.extend(phrase_keys(n.text))
            elif isinstance(n, Group):
                for c in n.children:
                    walk(c)
        walk(self.root)
        return out


_LEX = re.compile(r'\s+|(?P<lp>\()|(?P<rp>\))|(?P<quote>"[^"]*")|(?P<op>(?<![^\s(])[A-Za-z]+:(?:"[^"]*"|[^\s()"]+))'
                  r'|(?P<chunk>[^\s()"]+)')
_WILDCARD = re.compile(r"[*?]")
# the quotation marks keyboards and input methods type, read as '"': “…” (and what phones put
# for "), „…“, «…», the CJK corner brackets 「…」『…』, the full-width ＂
_QUOTES = str.maketrans({c: '"' for c in "“”„‟«»「」『』＂〝〞〟"})
_OTHER_JOINERS = re.compile(r"[-.@/+&]")  # joiners of compounds other than the apostrophe


def parse_query(text: str) -> ParsedQuery:
    """Read what a person typed. Raises QueryError with a readable reason.

    >>> p = parse_query('from:ben coffee-shop "thermos of coffee" -decaf pine* what?')
    >>> p.operators, p.plain
    ([('from', 'ben')], False)
    """
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"the query must be at most {MAX_QUERY_CHARS} characters; got {len(text)}")
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    quoted = text.translate(_QUOTES)
    if quoted != text and not quoted.count('"') % 2:  # typographic quotes that pair up
        text = quoted
    if text.count('"') % 2:
        raise QueryError(f'the query {text!r} has an unclosed " (quote phrases like "thermos of coffee")')
    items: list[tuple[str, str]] = []
    operators: list[tuple[str, str]] = []
    for mt in _LEX.finditer(text):
        kind = mt.lastgroup
        if kind is None:
            continue
        value = mt.group()
        if kind == "op":
            name, _, arg = value.partition(":")
            name = name.lower()
            arg = arg.strip('"').strip()
            if name in OPERATORS and arg:
                if name == "text":
                    items.append(("chunk", arg))
                else:
                    operators.append((name, arg))
                continue
            kind = "chunk"  # "a:b" that is no operator is text
        items.append((kind, value))
    parser = _Parser(items, text)
    root = parser.parse()
    if root is None and not operators:
        raise QueryError(f"the query {text!r} has no words to search for")
    if root is not None and _only_negative(root):
        raise QueryError(f"the query {text!r} only excludes words; add at least one word to find")
    first = next(iter(tokens(text)), None)
    question = text.rstrip().endswith(("?", "？")) or (first is not None and first.key in QUESTION_WORDS)
    return ParsedQuery(root, operators, plain=not parser.syntax, question=question)


class _Parser:
    """expr := and ("OR" and)* ; and := unary+ ; unary := ("-" | "NOT") atom | atom ;
    atom := "(" expr ")" | phrase | word"""

    def __init__(self, items: list[tuple[str, str]], text: str):
        self.items, self.i, self.text = items, 0, text
        self.syntax = False  # the query used quotes, OR, exclusions or prefixes

    def peek(self) -> tuple[str, str] | None:
        return self.items[self.i] if self.i < len(self.items) else None

    def current(self) -> tuple[str, str]:
        """The item at the cursor, where the caller has seen there is one."""
        item = self.peek()
        if item is None:
            raise QueryError(f"the query {self.text!r} ends too soon")
        return item

    def parse(self):
        node = self.expr()
        if self.peek() is not None:
            raise QueryError(f"the query {self.text!r} has unbalanced parentheses")
        return node

    def expr(self):
        parts = [self.conj()]
        while self.peek() == ("chunk", "OR"):
            self.i += 1
            self.syntax = True
            parts.append(self.conj())
        parts = [p for p in parts if p is not None]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else Group("or", parts)

    def conj(self):
        parts = []
        while True:
            it = self.peek()
            if it is None or it[0] == "rp" or it == ("chunk", "OR"):
                break
            node = self.unary()
            if node is not None:
                parts.append(node)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else Group("and", parts)

    def unary(self):
        kind, value = self.current()
        if (kind, value) in (("chunk", "NOT"), ("chunk", "-")):
            self.i += 1
            self.syntax = True
            nxt = self.peek()
            if nxt is None or nxt[0] == "rp":
                return None
            node = self.atom()
            return Not(node) if node is not None else None
        if kind == "chunk" and value in ("AND", "+"):
            self.i += 1
            return None
        if kind == "chunk" and value[0] in "-+" and len(value) > 1:
            self.i += 1
            self.syntax = True
            node = self.words(value[1:])
            if value[0] == "-":
                return Not(node) if node is not None else None
            return node
        return self.atom()

    def atom(self):
        kind, value = self.current()
        self.i += 1
        if kind == "lp":
            self.syntax = True
            node = self.expr()
            closing = self.peek()
            if closing is None or closing[0] != "rp":
                raise QueryError(f"the query {self.text!r} has unbalanced parentheses")
            self.i += 1
            return node
        if kind == "rp":
            raise QueryError(f"the query {self.text!r} has unbalanced parentheses")
        if kind == "quote":
            self.syntax = True
            inner = value[1:-1].strip()
            return Phrase(inner) if phrase_keys(inner) else None
        return self.words(value)

    def words(self, chunk: str):
        """One whitespace-free chunk: one word, a compound, a prefix*, or several words
        glued by punctuation ("hello,world")."""
        prefix = False
        if _WILDCARD.search(chunk):
            body = chunk.rstrip("?")  # a trailing "?" ends a question, it is no wildcard
            if body.endswith("*") and not _WILDCARD.search(body[:-1]):
                literal = body[:-1]
                if len(fold(literal)) < MIN_PREFIX_CHARS or not re.match(r"\w", literal):
                    raise QueryError(f"the query {self.text!r} has {chunk!r}: a prefix* needs at least "
                                     f"{MIN_PREFIX_CHARS} letters before the *")
                chunk, prefix = literal, True
                self.syntax = True
            elif "*" in body:
                raise QueryError(f"the query {self.text!r} has {chunk!r}: * only ends a word (prefix*)")
            else:
                chunk = body.replace("?", " ")
        toks = list(tokens(chunk))
        if not toks:
            return None
        nodes = [Word(chunk[t.start:t.end]) for t in toks]
        if prefix:
            nodes[-1].prefix = True
        return nodes[0] if len(nodes) == 1 else Group("and", nodes)


def _only_negative(n) -> bool:
    if isinstance(n, Not):
        return True
    if isinstance(n, Group):
        return all(_only_negative(c) for c in n.children)
    return False


@dataclass
class _Unit:
    """One word of an any-word query: what finds it, the forms a text may hold, and whether it
    is a function or question word of the query's language."""

    query: Q.Query
    forms: set[str]
    function: bool


def _plain_words(root) -> list[Word]:
    if isinstance(root, Word):
        return [root]
    if isinstance(root, Group):
        return [w for c in root.children for w in _plain_words(c)]
    return []


def _main_part(tok) -> str:
    """A token's word: its exact form, or for a clitic ("Lena's", "l'évier") its longest part."""
    key = tok.key
    parts = [p for p in tok.terms[1:] if not p.startswith(STEM_MARK)]
    if "'" in key and not _OTHER_JOINERS.search(key) and len(parts) > 1:
        return max(parts, key=len)
    return key


def _is_function(text: str, function: frozenset[str]) -> bool:
    toks = list(tokens(text, stems=False))
    return bool(toks) and all(t.key is not None and (t.key in function or _main_part(t) in function)
                              for t in toks)


# ---------------------------------------------------------------------- filters
@dataclass
class SearchFilter:
    """What a search is limited to. None means "no limit" everywhere."""

    chats: Iterable[str] | None = None  # only these chat (source) ids
    readable_chats: set[str] | None = None  # the seat's scope (None: everything)
    senders: Iterable[str] | None = None  # sender names or handles, any of them
    people: Iterable[str] | None = None  # person ids, any of them
    platforms: Iterable[str] | None = None
    kinds: Iterable[str] | None = None
    group: bool | None = None
    attachment: bool | None = None
    attachment_types: Iterable[str] | None = None  # files of each of these types (media.ATTACHMENT_TYPES)
    deleted: bool | None = None
    since: datetime | None = None  # UTC, inclusive
    until: datetime | None = None  # UTC, inclusive


@dataclass
class Hits:
    ids: list[str]
    scores: list[float]
    total: int
    total_exact: bool = True
    mode: str = "all"  # "all" words, or "any" word ranked (the fallback)
    fuzzy: dict[str, list[str]] = field(default_factory=dict)  # word -> the terms tried instead
    highlight: frozenset[str] = frozenset()  # terms to mark in snippets
    replies: frozenset[str] = frozenset()  # ids shown as the reply to a matching question


def _utc_seconds(t: datetime) -> int:
    return int((t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp())


class _Plan:
    """Turns a parsed query into Whoosh queries over the `t` and `p` fields."""

    def __init__(self, reader, languages: Iterable[str]):
        self.reader = reader
        self.languages = sorted(set(languages) | {"en"})
        self.fuzzy: dict[str, list[str]] = {}
        self.highlight: set[str] = set()
        self.phrases: dict[int, list[str]] = {}  # phrase nodes (by id): their words, checked on the text
        self.built: dict[int, Q.Query] = {}  # each node's query (by id)
        self.unmatched: list[str] = []
        self.function: frozenset[str] = frozenset()  # the query's function words (any-word)

    def exists(self, term: str, fieldname: str = "t") -> bool:
        return doc_frequency(self.reader, fieldname, term) > 0

    def word_terms(self, word: str, any_word: bool = False, negated: bool = False) -> list[Q.Query]:
        """Term queries for one word token: its exact terms and its stems in every language.
        CJK: every character pair (any of them, ranked, for `any_word`). A word found nowhere
        is tried with typos, unless it is `negated`: what a query excludes is never widened
        (`crossing -zebbra` must not leave out the messages with "zebra")."""
        out: list[Q.Query] = []
        for tok in tokens(word):
            if tok.key is None:  # CJK: every character pair
                pairs = [Q.Term("t", b) for b in tok.terms]
                out.append(pairs[0] if len(pairs) == 1 else Q.Or(pairs) if any_word else Q.And(pairs))
                self.highlight.update(tok.terms)
                continue
            key = tok.key
            alts: list[Q.Query] = [Q.Term("t", key)]
            seen = {key}
            parts = [p for p in tok.terms[1:] if not p.startswith(STEM_MARK)]
            low = word.lower()
            clitic = _main_part(tok) != key
            if clitic:  # "Lena's", "l'évier", "we'll": the longest part stands for the word
                low = _main_part(tok)
                alts.append(Q.Term("t", low))
                seen.add(low)
            if low.isalpha() and len(low) >= 3:
                for lang in self.languages:
                    s = fold(_stemmer(lang)(low))
                    for term in (STEM_MARK + s, s):
                        if term not in seen:
                            seen.add(term)
                            alts.append(Q.Term("t", term, boost=STEM_BOOST))
            if parts and parts != [key] and not clitic:  # a compound: whole, or all its parts
                alts.append(Q.And([Q.Term("t", p) for p in dict.fromkeys(parts)]))
            self.highlight.update(t.text for t in alts if isinstance(t, Q.Term))
            self.highlight.update(parts)
            alive = [a for a in alts if not isinstance(a, Q.Term) or self.exists(a.text)]
            if not alive and not negated and len(key) >= FUZZY_MIN_CHARS and key.isalpha():
                near = self.near_terms(key)
                if near:
                    self.fuzzy[key] = near
                    self.highlight.update(near)
                    alive = [Q.Term("t", t) for t in near]
            if not alive:
                self.unmatched.append(key)
                alive = [Q.Term("t", key)]  # matches nothing, and says so
            out.append(alive[0] if len(alive) == 1 else Q.Or(alive))
        if not out:
            return [Q.NullQuery]
        return out

    def near_terms(self, key: str) -> list[str]:
        """Terms within edit distance 1 (2 for words of eight letters or more), most frequent
        first, sharing the first letter. Distance 1 is found by looking up every edit of the
        word (a few hundred dictionary look-ups, not a walk over the vocabulary); distance 2
        walks only the terms sharing the first three letters."""
        found: dict[str, int] = {}
        if key.isascii() and key.isalpha():
            for cand in _edits(key):
                n = doc_frequency(self.reader, "t", cand)
                if n:
                    found[cand] = n
        else:
            for t in self.reader.terms_within("t", key, 1, prefix=1):
                found[t] = doc_frequency(self.reader, "t", t)
        if len(key) >= 8 and len(found) < MAX_FUZZY_TERMS:
            for t in self.reader.terms_within("t", key, 2, prefix=3):
                if not t.startswith(STEM_MARK):
                    found[t] = doc_frequency(self.reader, "t", t)
        best = sorted(((n, t) for t, n in found.items() if not t.startswith(STEM_MARK)), reverse=True)
        return [t for _, t in best[:MAX_FUZZY_TERMS]]

    def prefix_terms(self, word: str) -> list[str]:
        stem = fold(word.lower())
        counted = []
        for n, (text, info) in enumerate(self.reader.iter_prefix("t", stem)):
            if n >= PREFIX_SCAN:
                break
            counted.append((info.doc_frequency(), text))
        best = heapq.nlargest(MAX_PREFIX_TERMS, counted)
        return [t if isinstance(t, str) else t.decode("utf-8") for _, t in best]

    def units(self, root) -> list[_Unit]:
        """The words of a plain query as any-word matching weighs them: each word (a CJK run:
        each character pair) with the query for all its forms and the forms a text may hold."""
        out: list[_Unit] = []
        seen: set[str] = set()
        for w in _plain_words(root):
            for tok in tokens(w.text):
                if tok.key is None:
                    for pair in tok.terms:
                        if pair not in seen:
                            seen.add(pair)
                            out.append(_Unit(Q.Term("t", pair), {pair}, False))
                    continue
                if tok.key in seen:
                    continue
                seen.add(tok.key)
                text = w.text[tok.start:tok.end]
                query = self.word_terms(text, any_word=True)[0]
                forms = {t.lstrip(STEM_MARK) for t in tok.terms} | set(self.fuzzy.get(tok.key, ()))
                low = _main_part(tok)
                forms.add(low)
                if low.isalpha() and len(low) >= 3:
                    forms.update(fold(_stemmer(lang)(low)) for lang in self.languages)
                out.append(_Unit(query, forms, _is_function(text, self.function)))
        return out

    def build(self, node, any_word: bool = False, under: bool = False) -> Q.Query:
        """The query of `node`. A phrase matches a superset (its words), or, `under` a negation,
        a subset (nothing): the phrase itself is checked on the candidates' texts
        (`_PhraseCheck`), where it sits in the query."""
        q = self._build(node, any_word, under)
        self.built[id(node)] = q
        return q

    def _build(self, node, any_word: bool, under: bool) -> Q.Query:
        if isinstance(node, Word):
            if node.prefix:
                terms = self.prefix_terms(node.text)
                self.highlight.update(terms)
                return Q.Or([Q.Term("t", t) for t in terms]) if terms else Q.NullQuery
            parts = self.word_terms(node.text, any_word, negated=under)
            return parts[0] if len(parts) == 1 else Q.Or(parts) if any_word else Q.And(parts)
        if isinstance(node, Phrase):
            keys = phrase_keys(node.text)
            if len(keys) == 1:
                return self.build(Word(node.text), under=under)
            self.highlight.update(keys)
            if any(k is None for k in keys):
                return Q.NullQuery
            # found by its words, then checked word by word on the text (word-pair terms made
            # the index three times the work at import; the check reads a bounded set of texts)
            parts = phrase_parts(node.text)
            self.highlight.update(parts)
            self.phrases[id(node)] = parts
            if under:
                return Q.NullQuery
            return Q.And([Q.Term("t", k) for k in dict.fromkeys(parts)])
        if isinstance(node, Not):
            return self.build(node.child, under=not under)
        assert isinstance(node, Group)
        pos = [c for c in node.children if not isinstance(c, Not)]
        neg = [c.child for c in node.children if isinstance(c, Not)]
        if node.op == "or":
            q: Q.Query = Q.Or([self.build(c, under=under) for c in pos])
        elif any_word:
            content = [c for c in pos if not (isinstance(c, Word) and _is_function(c.text, self.function))]
            light = [c for c in pos if c not in content]
            core = content or light
            q = Q.Or([self.build(c, any_word) for c in core])
            if content and light:
                q = Q.AndMaybe(q, Q.Or([self.build(c) for c in light], boost=FUNCTION_BOOST))
        else:
            both = [self.build(c, under=under) for c in pos]
            # Whoosh drops a NullQuery from an And: a part that matches nothing (a prefix* no
            # word starts with, an OR of such) makes the whole AND match nothing
            q = Q.NullQuery if any(b.normalize() is Q.NullQuery for b in both) else Q.And(both)
        if neg:
            q = Q.AndNot(q, Q.Or([self.build(c, under=not under) for c in neg]))
        return q


def _edits(word: str) -> set[str]:
    """Every string one deletion, transposition, replacement or insertion (a-z) away from
    `word`, keeping its first letter."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out: set[str] = set()
    for i in range(1, len(word) + 1):
        head, tail = word[:i], word[i:]
        for c in letters:
            out.add(head + c + tail)  # insertion
        if tail:
            out.add(head + tail[1:])  # deletion
            for c in letters:
                out.add(head + c + tail[1:])  # replacement
            if len(tail) > 1:
                out.add(head + tail[1] + tail[0] + tail[2:])  # transposition
    out.discard(word)
    return out


# ---------------------------------------------------------------------- running
def search(store: Store, parsed: ParsedQuery, flt: SearchFilter | None = None, *, limit: int = 10,
           offset: int = 0, sort: str = "relevance") -> Hits:
    """Run one query: ids and scores of the page asked for, and the total.

    `sort` is relevance, newest or oldest. Phrases are checked on the stored text; when more
    than PHRASE_EXACT documents hold all of a phrase's words, only the best-ranked are checked
    and the total is an estimate (`total_exact` False)."""
    flt = flt or SearchFilter()
    bound = search_seconds()
    _bound.deadline = time.monotonic() + bound if bound > 0 else None
    try:
        with query_memo():
            return _search(store, parsed, flt, limit, offset, sort)
    except _Nothing:
        return Hits(ids=[], scores=[], total=0)
    finally:
        _bound.deadline = None


class SearchTooLong(QueryError):
    """A query that would run past its time bound: it stops, and asks to be narrowed, rather
    than hold a server's worker (and its clients) for as long as it takes."""


_bound = threading.local()  # this thread's running query's deadline (time.monotonic())


def search_seconds() -> float:
    """The time bound of one query in seconds; 0 (CHATMEM_SEARCH_SECONDS=0) is none."""
    try:
        return max(0.0, float(os.environ.get("CHATMEM_SEARCH_SECONDS") or SEARCH_SECONDS))
    except ValueError:
        return SEARCH_SECONDS


def _in_time() -> None:
    deadline = getattr(_bound, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise SearchTooLong(f"the search took longer than {search_seconds():g} s and was stopped: "
                            "narrow it (fewer or rarer words, a chat, a sender or a date range)")


def _search(store: Store, parsed: ParsedQuery, flt: SearchFilter, limit: int, offset: int,
            sort: str) -> Hits:
    index = store.index
    index.refresh()
    with index.reading() as searcher:
        reader = searcher.reader()
        plan = _Plan(reader, index.languages().values())
        keys, check = _filter_parts(store, flt)
        if parsed.root is None:
            if keys is not None:
                base, keys = keys, None
            elif flt.attachment or flt.attachment_types:
                base = Q.Every()  # every message with a file (of a type): the columns decide
            else:
                raise QueryError("give words to search for, or a sender, person, chat or "
                                 "attachment type to list")
        else:
            base = plan.build(parsed.root)
        query = Q.And([base, keys]) if keys is not None else base
        query = _scoped(store, query, flt.readable_chats)
        need = offset + limit
        # phrases: the best-ranked documents with all the words, checked on the text below
        sample: list[int] | None = [] if plan.phrases else None
        top, total = _collect(store, searcher, query, check,
                              max(need, PHRASE_CHECK_LIMIT) if plan.phrases else need, sort, sample)
        mode = "all"
        in_conversation: list[tuple[str, float]] | None = None
        replies: frozenset[str] = frozenset()
        if parsed.plain and total < HANDFUL and _loosens(parsed.root):
            plan.function = function_words(" ".join(parsed.words))
            in_chat = keys is None and check is None and sort == "relevance"
            a_need = max(need, CONTEXT_CANDIDATES) if in_chat else need
            units: list[_Unit] = []
            weights: list[float] = []
            try:
                if sort != "relevance":
                    raise Unsupported(sort)
                units = plan.units(parsed.root)
                a_top, a_total, weights = _collect_any(store, searcher, units, keys, flt.readable_chats,
                                                       check, a_need)
            except Unsupported:
                anyq = plan.build(parsed.root, any_word=True)
                anyq = Q.And([anyq, keys]) if keys is not None else anyq
                anyq = _scoped(store, anyq, flt.readable_chats)
                a_top, a_total = _collect(store, searcher, anyq, check, a_need, sort)
            if a_total > total:
                top, total, mode = a_top, a_total, "any"
                if in_chat and weights:
                    ranked = list(zip(doc_ids(searcher, [d for d, _ in top]), (s for _, s in top)))
                    words = [(u.forms, w) for u, w in zip(units, weights) if w > 0 and not u.function]
                    # the same CONTEXT_CANDIDATES are looked at in their chats whatever the page
                    # size, so a page of 10 and the first 10 of a page of 50 agree
                    head, rest = ranked[:CONTEXT_CANDIDATES], ranked[CONTEXT_CANDIDATES:]
                    in_conversation, replies = _in_conversation(store, words, head, parsed.question)
                    placed = {i for i, _ in in_conversation}
                    in_conversation += [(i, s) for i, s in rest if i not in placed]
                    total += len(replies)
        exact = True
        if in_conversation is not None:
            ids_scores = in_conversation
        elif plan.phrases:
            ids_scores, total, exact = _check_phrases(store, searcher, _PhraseCheck(plan, parsed.root),
                                                      top, total, need, sample or [])
        else:
            ids_scores = list(zip(doc_ids(searcher, [d for d, _ in top]), (s for _, s in top)))
    page = ids_scores[offset:offset + limit]
    return Hits(ids=[i for i, _ in page], scores=[s for _, s in page], total=total,
                total_exact=exact, mode=mode, fuzzy=plan.fuzzy,
                highlight=frozenset(plan.highlight), replies=replies & frozenset(i for i, _ in page))


def _loosens(root) -> bool:
    """Has the query several words (or CJK character pairs) that any-word matching can rank?"""
    if isinstance(root, Group):
        return root.op == "and" and len(root.children) > 1
    if isinstance(root, Word) and not root.prefix:
        toks = list(tokens(root.text))
        return len(toks) > 1 or any(t.key is None and len(t.terms) > 1 for t in toks)
    return False


def _in_conversation(store: Store, weighted: list[tuple[set[str], float]], ranked: list[tuple[str, float]],
                     question: bool) -> tuple[list[tuple[str, float]], frozenset[str]]:
    """Any-word matches ranked in their conversations. A message counts the weights of the
    content words it (or its sender's name) holds, and half of those only its neighbours hold
    (the CONTEXT_SPAN messages before and after it in its chat): more weight first, then the
    score. The messages that follow a matching question in its chat, or a message holding
    at least REPLY_COVER of the query's weight (REPLY_SPAN at most, within REPLY_HOURS), are
    placed right after it: in a chat the answer is the reply (when the query is a question
    itself). Neighbours holding content words of their own are ranked the same way. Returns
    the ranking and the replies added (messages that hold none of the words)."""
    if not weighted or not ranked:
        return ranked, frozenset()
    words = [forms for forms, _ in weighted]
    weight = [w for _, w in weighted]
    whole = sum(weight)

    def held(found: set[int]) -> float:
        return sum(weight[i] for i in found)

    langs = store.index.languages()
    keys: dict[str, tuple[float, float]] = {}
    matched = {i for i, _ in ranked}
    replies: set[str] = set()
    seen: dict[tuple[str, str], set[int]] = {}
    # a text without the first letters of any form of any word holds none (C speed)
    starts = re.compile("|".join(sorted({re.escape(f[:3]) for forms in words for f in forms if f})))

    def covered(mid: str, text: str, lang: str) -> set[int]:
        got = seen.get((mid, lang))
        if got is None:
            got = seen[(mid, lang)] = _covered(text, words, lang) if starts.search(fold(text)) else set()
        return got

    def put(i: str, key: tuple[float, float]) -> None:
        keys[i] = max(keys.get(i, key), key)

    rows, neighbours = _neighbours(store, [mid for mid, _ in ranked])
    for mid, score in ranked:
        r = rows.get(mid)
        if r is None:
            keys[mid] = max(keys.get(mid, (0.0, 0.0)), (0.0, score))
            continue
        prev, nxt = neighbours[mid]
        lang = langs.get(r.chat_id, "en")
        own = covered(mid, f"{r.text or ''} {r.sender or ''}", lang)  # "what did Marco buy"
        near = {x.id: (covered(x.id, x.text or "", lang), x) for x in [*prev, *nxt]}
        around = own.union(*(c for c, _ in near.values()))
        key = (held(own) + CONTEXT_SHARE * held(around - own), score)
        put(mid, key)
        # neighbours holding words of their own are ranked with the same context
        for i, (has, x) in near.items():
            if has:
                by = has | covered("sender:" + (x.sender or ""), x.sender or "", lang)
                put(i, (held(by) + CONTEXT_SHARE * held(around - by), score * NEIGHBOUR_SHARE))
        if question and own and ("?" in (r.text or "") or held(own) >= REPLY_COVER * whole):
            share = 1.0
            for x in nxt[:REPLY_SPAN]:
                if (x.sent_at - r.sent_at).total_seconds() > REPLY_HOURS * 3600:
                    break
                share *= REPLY_SHARE
                if not near[x.id][0]:
                    replies.add(x.id)
                put(x.id, (key[0], score * share))
    order = sorted(keys.items(), key=lambda kv: (-kv[1][0], -kv[1][1]))
    return [(i, k[1]) for i, k in order], frozenset(replies - matched)


def _covered(text: str, words: list[set[str]], lang: str) -> set[int]:
    """Which of the content words (by index) `text` holds, in any form; a function word of the
    text's own language holds none ("son" in a French chat is "his", not a son)."""
    small = stop_words(lang)
    terms = {t.lstrip(STEM_MARK) for t in doc_terms(text, lang) if t not in small}  # (a memo per token)
    return {i for i, forms in enumerate(words) if not forms.isdisjoint(terms)}


_CONTEXT_QUERIES: dict[int, Any] = {}


def _context_query(n: int) -> Any:
    """The statement reading the CONTEXT_SPAN messages after and before each of `n` messages
    in its chat (a row's `k`: 2 × the message's place, + 1 before it), along the (chat, time,
    ordinal) index: the range on the time, the ordinal only to break ties (an OR in the range
    made SQLite walk the whole chat). One statement for all (built once per `n`, so SQLAlchemy
    compiles it once): a statement each cost more in SQLAlchemy than in SQLite."""
    q = _CONTEXT_QUERIES.get(n)
    if q is None:
        from sqlalchemy import bindparam, literal, or_, select, union_all

        from .models import Message

        mt = Message.__table__
        cols = (mt.c.id, mt.c.sent_at, mt.c.ordinal, mt.c.text, mt.c.sender)
        parts = []
        for k in range(n):
            chat: Any = bindparam(f"c{k}", type_=mt.c.chat_id.type)
            at: Any = bindparam(f"a{k}", type_=mt.c.sent_at.type)
            ordinal: Any = bindparam(f"o{k}", type_=mt.c.ordinal.type)
            after = (select(*cols, literal(2 * k).label("k"))
                     .where(mt.c.chat_id == chat, mt.c.sent_at >= at,
                            or_(mt.c.sent_at > at, mt.c.ordinal > ordinal))
                     .order_by(mt.c.sent_at, mt.c.ordinal).limit(CONTEXT_SPAN))
            before = (select(*cols, literal(2 * k + 1).label("k"))
                      .where(mt.c.chat_id == chat, mt.c.sent_at <= at,
                             or_(mt.c.sent_at < at, mt.c.ordinal < ordinal))
                      .order_by(mt.c.sent_at.desc(), mt.c.ordinal.desc()).limit(CONTEXT_SPAN))
            parts += [after.subquery().select(), before.subquery().select()]
        q = _CONTEXT_QUERIES[n] = union_all(*parts)
    return q


_ROWS_QUERY: list[Any] = []


def _neighbours(store: Store, ids: list[str]) -> tuple[dict[str, Any], dict[str, tuple[list, list]]]:
    """The rows (id, chat_id, sent_at, ordinal, sender, text) of the messages `ids`, and for
    each, the CONTEXT_SPAN messages before it in its chat (nearest first) and after it (in
    order)."""
    if not _ROWS_QUERY:
        from sqlalchemy import bindparam, select

        from .models import Message

        mt = Message.__table__
        _ROWS_QUERY.append(select(mt.c.id, mt.c.chat_id, mt.c.sent_at, mt.c.ordinal, mt.c.sender, mt.c.text)
                           .where(mt.c.id.in_(bindparam("ids", expanding=True))))
    with store.read() as conn:
        rows = {r.id: r for r in conn.execute(_ROWS_QUERY[0], {"ids": list(ids)})}
        found = [rows[i] for i in dict.fromkeys(ids) if i in rows]
        around: dict[str, tuple[list, list]] = {r.id: ([], []) for r in found}
        if found:
            args: dict[str, Any] = {}
            for k, r in enumerate(found):
                args.update({f"c{k}": r.chat_id, f"a{k}": r.sent_at, f"o{k}": r.ordinal})
            for x in conn.execute(_context_query(len(found)), args):
                prev, nxt = around[found[x.k // 2].id]
                (prev if x.k % 2 else nxt).append(x)
    key = itemgetter(1, 2)  # (sent_at, ordinal)
    for prev, nxt in around.values():
        prev.sort(key=key, reverse=True)
        nxt.sort(key=key)
    return rows, around


class _Nothing(Exception):
    """A filter no document can pass (Whoosh drops a NullQuery from an And, so an empty filter
    must never reach it as one)."""


def _or_terms(fieldname: str, values: Iterable[str]) -> Q.Query:
    terms = [Q.Term(fieldname, v) for v in dict.fromkeys(values)]
    if not terms:
        raise _Nothing
    return terms[0] if len(terms) == 1 else Q.Or(terms)


@dataclass
class ColumnCheck:
    """The filters checked on the `meta` and `ts` columns of each match."""

    platforms: set[int] | None
    kinds: set[int] | None
    flags_mask: int
    flags_want: int
    lo: int | None
    hi: int | None
    types_mask: int = 0  # attachment types: every one of these bits set

    def __call__(self, meta: int, ts: int) -> bool:
        if self.platforms is not None and meta & _PLATFORM_BITS not in self.platforms:
            return False
        if self.types_mask and meta & self.types_mask != self.types_mask:
            return False
        if self.kinds is not None and (meta >> _KIND_SHIFT) & 0x7 not in self.kinds:
            return False
        if self.flags_mask and meta & self.flags_mask != self.flags_want:
            return False
        if self.lo is not None and ts < self.lo:
            return False
        return self.hi is None or ts <= self.hi

    def mask(self, meta, ts):
        """The same over arrays (numpy) of the matches' columns."""
        import numpy as np

        keep = np.ones(len(meta), dtype=bool)
        if self.platforms is not None:
            keep &= np.isin(meta & _PLATFORM_BITS, list(self.platforms))
        if self.types_mask:
            keep &= (meta & self.types_mask) == self.types_mask
        if self.kinds is not None:
            keep &= np.isin((meta >> _KIND_SHIFT) & 0x7, list(self.kinds))
        if self.flags_mask:
            keep &= (meta & self.flags_mask) == self.flags_want
        if self.lo is not None:
            keep &= ts >= self.lo
        if self.hi is not None:
            keep &= ts <= self.hi
        return keep


def _filter_parts(store: Store, flt: SearchFilter) -> tuple[Q.Query | None, ColumnCheck | None]:
    """(key query ANDed into the search, a check on the columns) — filters that every document
    passes are left out."""
    keys: list[Q.Query] = []
    if flt.chats is not None:
        keys.append(_or_terms("c", flt.chats))
    who = [sender_key(s) for s in (flt.senders or ()) if s.strip()]
    who += [person_key(p) for p in (flt.people or ())]
    if flt.senders is not None or flt.people is not None:
        keys.append(_or_terms("who", who))
    holds = store.index.holds()

    platforms = None
    if flt.platforms is not None:
        codes = holds["platforms"]
        platforms = {codes[p] for p in flt.platforms if p in codes}
        if not platforms:
            raise _Nothing
        elif set(codes.values()) <= platforms:
            platforms = None  # every document is on one of them
    kinds = None
    if flt.kinds is not None:
        kinds = {kind_code(k) for k in flt.kinds if k in KINDS}
        if not kinds:
            raise _Nothing
        elif len(kinds) == len(KINDS):
            kinds = None
    lo = _utc_seconds(flt.since) if flt.since else None
    hi = _utc_seconds(flt.until) if flt.until else None
    if lo is not None and holds["min_ts"] is not None and lo <= holds["min_ts"]:
        lo = None
    if hi is not None and holds["max_ts"] is not None and hi >= holds["max_ts"]:
        hi = None
    flags_mask = flags_want = 0
    for flag, bit in ((flt.group, GROUP_BIT), (flt.attachment, ATTACHMENT_BIT), (flt.deleted, DELETED_BIT)):
        if flag is not None:
            flags_mask |= bit
            flags_want |= bit if flag else 0
    types_mask = 0
    if flt.attachment_types is not None:
        for kind in flt.attachment_types:
            types_mask |= TYPE_BITS.get(kind, 0)
        if not types_mask:
            raise _Nothing

    check = None
    if (platforms is not None or kinds is not None or lo is not None or hi is not None or flags_mask
            or types_mask):
        check = ColumnCheck(platforms, kinds, flags_mask, flags_want, lo, hi, types_mask)
    key_query = None
    if keys:
        key_query = keys[0] if len(keys) == 1 else Q.And(keys)
    return key_query, check


def _scoped(store: Store, query: Q.Query, readable: set[str] | None) -> Q.Query:
    """The seat's scope: only its chats."""
    scope = _scope(store, readable)
    return query if scope is None else Q.And([query, scope])


def _scope(store: Store, readable: set[str] | None) -> Q.Query | None:
    """The chats a seat may read, as a query (None: every chat)."""
    if readable is None:
        return None
    everything = store_chat_ids(store)
    hidden = everything - readable
    if not hidden:
        return None
    if not readable:
        raise _Nothing
    # always the chats it may read: Whoosh's AndNot counted (and listed) documents its
    # exclusion should have removed, which let a seat see hits and totals of hidden chats
    return _or_terms("c", sorted(readable))


def store_chat_ids(store: Store) -> set[str]:
    from sqlalchemy import select

    from .models import Chat

    with store.read() as conn:
        return set(conn.execute(select(Chat.__table__.c.id)).scalars())


def _collect(store: Store, searcher, query: Q.Query, check: ColumnCheck | None, need: int,
             sort: str, sample: list[int] | None = None) -> tuple[list[tuple[int, float]], int]:
    """(the best `need` (docnum, score), the exact number of matches): each term's postings
    read as arrays, the query combined by set operations, the columns checked as masks
    (store/postings.py); Whoosh's matchers only for a query that module does not know.
    `sample`, when given, receives PHRASE_SAMPLE matches at most, spread evenly over all."""
    query = query.normalize()
    if query is Q.NullQuery:
        return [], 0
    try:
        return _collect_arrays(store, searcher, query, check, need, sort, sample)
    except Unsupported:
        return _collect_matchers(store, searcher, query, check, need, sort, sample)


def _spread(matched: Any, size: int) -> list[int]:
    """`size` of the sorted matches `matched` at most, spread evenly over all of them (the
    first and the last included)."""
    import numpy as np

    every = np.asarray(matched, dtype=np.int64)
    if not len(every):
        return []
    return every[np.linspace(0, len(every) - 1, min(len(every), size)).astype(np.int64)].tolist()


def _collect_arrays(store: Store, searcher, query: Q.Query, check: ColumnCheck | None, need: int,
                    sort: str, sample: list[int] | None = None) -> tuple[list[tuple[int, float]], int]:
    import numpy as np

    scored = sort == "relevance"
    keys: list[Any] = []  # each segment's best `need`: sort keys and document numbers
    docs: list[Any] = []
    total = 0
    matched: list[Any] = []  # every segment's matches (index-wide numbers), for `sample`
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        if reader.doc_count() == 0:
            continue
        ids, scores = Evaluator(searcher, reader, POSTINGS, scored).run(query)
        _in_time()
        if not len(ids):
            continue
        keep = alive(reader, ids)
        ts = None
        if check is not None or not scored:
            ts = column_array(store.index.column(reader, "ts"))
        if check is not None:
            assert ts is not None
            meta = column_array(store.index.column(reader, "meta"))
            keep &= check.mask(meta[ids], ts[ids])
        if not keep.all():
            ids, scores = ids[keep], scores[keep]
        total += len(ids)
        if sample is not None and len(ids):
            matched.append(ids + offset)
        if not len(ids) or not need:
            continue
        if scored:
            key = scores.astype(np.float64)
            order_ids = ids  # ties: the earlier document first
        else:
            assert ts is not None
            key = (ts[ids].astype(np.float64) * (1 if sort == "newest" else -1))
            order_ids = -ids  # ties: the later document first
        if len(ids) > need:
            cut = np.partition(key, len(key) - need)[len(key) - need]
            sel = np.flatnonzero(key >= cut)
        else:
            sel = np.arange(len(ids))
        sel = sel[np.lexsort((order_ids[sel], -key[sel]))][:need]
        keys.append(key[sel])
        docs.append(ids[sel] + offset)
    if sample is not None and matched:
        # spread over all the matches as one list, not segment by segment: the same sample
        # (and so the same estimated total) however the index is split
        sample += _spread(np.concatenate(matched), PHRASE_SAMPLE)
    if not keys:
        return [], total
    key, doc = np.concatenate(keys), np.concatenate(docs)
    # the best first; ties: the earlier document first by relevance, the later by time
    best = np.lexsort((doc if scored else -doc, -key))[:need]
    if scored:
        return list(zip(doc[best].tolist(), key[best].tolist())), total
    return [(d, 0.0) for d in doc[best].tolist()], total


def _collect_any(store: Store, searcher, units: list[_Unit], keys: Q.Query | None,
                 readable: set[str] | None, check: ColumnCheck | None,
                 need: int) -> tuple[list[tuple[int, float]], int, list[float]]:
    """Any-word matches ranked by the words they hold: (the best `need` (docnum, score), the
    exact number of matches, each unit's weight).

    A unit weighs its idf over the whole index, ln(1 + (N - n + 0.5) / (n + 0.5)) for n
    messages holding it in any form (a fifth of that for a function word); a message scores,
    for each unit it holds, COVER of its weight plus the rest times its BM25 score over the
    unit's best. So a rare word outweighs a common one whatever the lengths of the messages
    (BM25 alone puts a one-word message with a common word above a sentence with a rare one),
    and lengths and repeats still order messages holding the same words. Messages holding only
    function words do not match, unless no other word of the query is found anywhere.

    Every figure is the whole index's (idf, BM25's statistics, a unit's best: a function
    word's over all the messages it is scored at), so the same messages get the same scores
    however the index is split into segments (before and after a merge)."""
    import numpy as np

    filters = [q for q in (keys, _scope(store, readable)) if q is not None]
    filt = None if not filters else filters[0] if len(filters) == 1 else Q.And(filters)
    subs = [(sub.reader(), offset, Evaluator(searcher, sub.reader(), POSTINGS, True))
            for sub, offset in searcher.leaf_searchers() if sub.reader().doc_count()]

    def evaluate(ev, reader, q: Q.Query) -> tuple[Any, Any]:
        ids, scores = ev.run(q.normalize())
        if len(ids):
            keep = alive(reader, ids)
            if not keep.all():
                ids, scores = ids[keep], scores[keep]
        return ids, scores

    # the content words' matches, each word on its own; function words only where those match
    # (their lists are long and their union is never built), unless no content word is found
    content = [i for i, u in enumerate(units) if not u.function]
    per: dict[int, list[tuple[Any, Any]]] = {i: [evaluate(ev, r, units[i].query) for r, _, ev in subs]
                                             for i in content}
    found = {i: sum(len(ids) for ids, _ in per[i]) for i in content}
    core = [i for i in content if found[i]]
    if not core:  # only function words are found: they are the match
        core = list(range(len(units)))
        for i in core:
            if i not in per:
                per[i] = [evaluate(ev, r, units[i].query) for r, _, ev in subs]
                found[i] = sum(len(ids) for ids, _ in per[i])
        core = [i for i in core if found[i]]
    n_all = max(searcher.doc_count(), 1)

    def idf(n: int) -> float:
        return float(np.log(1 + (n_all - n + 0.5) / (n + 0.5))) if n else 0.0

    weights: list[float] = []
    reader0 = searcher.reader()
    for i, u in enumerate(units):
        if i not in found:  # a function word scored at the matches: its messages by the index
            found[i] = max((doc_frequency(reader0, "t", t.text) for t in u.query.leaves()
                            if isinstance(t, Q.Term)), default=0)
        weights.append(idf(found[i]) * (FUNCTION_SHARE if u.function else 1.0))
    # each unit's best score over the whole index, so that a message's score does not depend on
    # the segment it is in: a content word's over all its matches, a function word's over the
    # messages it is scored at (the content words' matches, in every segment: a first pass)
    best = {i: max((float(sc.max()) for ids, sc in per[i] if len(ids)), default=0.0) for i in per}
    found_at: list[tuple[Any, list[tuple[int, Any, Any]]]] = []  # per segment: (uniq, [(unit, at, got)])
    for k, (reader, _, ev) in enumerate(subs):
        held = [per[i][k][0] for i in core if len(per[i][k][0])]
        if not held:
            found_at.append((None, []))
            continue
        size = reader.doc_count_all()
        dense = sum(len(h) for h in held) * 16 > size  # long lists: a look-up table of the segment
        if dense:
            where = np.full(size, -1, dtype=np.int64)
            for h in held:
                where[h] = 0
            uniq = np.flatnonzero(where >= 0)
            where[uniq] = np.arange(len(uniq))
        else:
            uniq = held[0] if len(held) == 1 else np.unique(np.concatenate(held))
        parts: list[tuple[int, Any, Any]] = []
        for i in range(len(units)):
            if not weights[i]:
                continue
            if i in per:
                ids, scores = per[i][k]
                if not len(ids):
                    continue
                if dense:
                    pos = where[ids]
                    hit = pos >= 0
                else:
                    pos = np.searchsorted(uniq, ids)  # each word's postings are sorted and distinct
                    pos[pos >= len(uniq)] = 0
                    hit = uniq[pos] == ids
                at, got = pos[hit], scores[hit].astype(np.float64)
            else:
                got = ev.scores_at(units[i].query, uniq).astype(np.float64)
                at = np.flatnonzero(got > 0)
                got = got[at]
                if len(got):
                    best[i] = max(best.get(i, 0.0), float(got.max()))
            parts.append((i, at, got))
        found_at.append((uniq, parts))
    candidates: list[tuple[float, int, int]] = []
    total = 0
    for (reader, offset, ev), (uniq, parts) in zip(subs, found_at):
        if uniq is None:
            continue
        score = np.zeros(len(uniq), dtype=np.float64)
        for i, at, got in parts:
            peak = best.get(i, 0.0)
            strength = got / peak if peak > 0 else 1.0
            score[at] += weights[i] * (COVER + (1 - COVER) * strength)
        keep = np.ones(len(uniq), dtype=bool)
        if filt is not None:
            fids, _ = ev.run(filt.normalize())
            keep &= np.isin(uniq, fids)
        if check is not None:
            ts = column_array(store.index.column(reader, "ts"))
            meta = column_array(store.index.column(reader, "meta"))
            keep &= check.mask(meta[uniq], ts[uniq])
        uniq, score = uniq[keep], score[keep]
        total += len(uniq)
        if not len(uniq) or not need:
            continue
        if len(uniq) > need:
            cut = np.partition(score, len(score) - need)[len(score) - need]
            sel = np.flatnonzero(score >= cut)
        else:
            sel = np.arange(len(uniq))
        sel = sel[np.lexsort((uniq[sel], -score[sel]))][:need]  # ties: the earlier document first
        candidates += [(float(score[i]), -(int(uniq[i]) + offset), int(uniq[i]) + offset) for i in sel.tolist()]
    top = sorted(candidates, reverse=True)[:need]
    return [(d, s) for s, _, d in top], total, weights


def _collect_matchers(store: Store, searcher, query: Q.Query, check: ColumnCheck | None, need: int,
                      sort: str, sample: list[int] | None = None) -> tuple[list[tuple[int, float]], int]:
    """The same with Whoosh's matchers, a document at a time."""
    heap: list[tuple[float, int, int]] = []
    total = 0
    matched: list[int] = []
    scored = sort == "relevance"
    context = searcher.context(needs_current=True) if scored else searcher.boolean_context()
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        if reader.doc_count() == 0:
            continue
        m = query.matcher(sub, context)
        _in_time()
        if not m.is_active():
            continue
        # read only where needed; an empty column stands for one not loaded
        meta = store.index.column(reader, "meta") if check is not None else array("q")
        ts = store.index.column(reader, "ts") if (check is not None or not scored) else array("q")
        steps = 0
        if scored:
            while m.is_active():
                steps += 1
                if steps % CHECK_EVERY == 0:
                    _in_time()
                d = m.id()
                if check is None or check(meta[d], ts[d]):
                    total += 1
                    if sample is not None:
                        matched.append(d + offset)
                    s = m.score()
                    if len(heap) < need:
                        heapq.heappush(heap, (s, -(d + offset), d + offset))
                    elif s > heap[0][0]:
                        heapq.heapreplace(heap, (s, -(d + offset), d + offset))
                m.next()
        else:
            sign = 1 if sort == "newest" else -1
            for d in m.all_ids():
                steps += 1
                if steps % CHECK_EVERY == 0:
                    _in_time()
                if check is None or check(meta[d], ts[d]):
                    total += 1
                    if sample is not None:
                        matched.append(d + offset)
                    key = sign * ts[d]
                    if len(heap) < need:
                        heapq.heappush(heap, (key, d + offset, d + offset))
                    elif key > heap[0][0]:
                        heapq.heapreplace(heap, (key, d + offset, d + offset))
    best = sorted(heap, reverse=True)
    if sample is not None:
        sample += _spread(matched, PHRASE_SAMPLE)
    if scored:
        return [(d, float(s)) for s, _, d in best], total
    return [(d, 0.0) for _, _, d in best], total


def _check_phrases(store: Store, searcher, check: _PhraseCheck, top: list[tuple[int, float]],
                   total: int, need: int, sample: list[int]) -> tuple[list[tuple[str, float]], int, bool]:
    """The best `need` matches that pass `check` (their phrases on the text), and their total.

    `top` are the best-ranked candidates (documents matching the query with each phrase taken
    as its words, PHRASE_CHECK_LIMIT at most) of `total`. Up to PHRASE_EXACT candidates are all
    checked and the total is exact;
    beyond that, checking stops once the page is full, and the total is an estimate, said so:
    the phrases found among the checked ones, plus the unchecked candidates times the share
    of a sample of them (`sample`: candidates spread evenly over all of them) that holds the
    phrase. The best-ranked candidates are short messages, where words are neighbours far more
    often than in the rest: their share alone made totals up to ten times too large."""
    exact = total <= PHRASE_EXACT
    kept: list[tuple[str, float]] = []
    checked = 0
    size = PHRASE_CHUNK
    while checked < len(top):
        docs = top[checked:checked + size]
        nums = [d for d, _ in docs]
        ids, texts = _doc_texts(store, searcher, nums)
        passes = check.on(searcher, nums)
        kept += [(i, sc) for i, (d, sc) in zip(ids, docs) if passes(d, texts.get(i))]
        checked += len(docs)
        if not exact and len(kept) >= need:
            break
        # the next chunk: what the share found so far says the page still needs (a quarter
        # more), four times the last chunk while none was found
        size = (ceil((need - len(kept)) * checked / len(kept) * 1.25) if kept and not exact
                else size * 4)
        size = max(size, PHRASE_CHUNK)
    if exact:
        return kept[:need], len(kept), True
    seen = {d for d, _ in top[:checked]}
    rest = [d for d in sample if d not in seen]
    estimate = len(kept)
    if rest and total > checked:
        ids, texts = _doc_texts(store, searcher, rest)
        passes = check.on(searcher, rest)
        held = sum(1 for i, d in zip(ids, rest) if passes(d, texts.get(i)))
        estimate += round((total - checked) * held / len(rest))
    return kept[:need], estimate, False


class _PhraseCheck:
    """Does a candidate match the query where only its text can say (its phrases)? The query
    tree is evaluated on each candidate: a phrase on the text (its words neighbours, in order),
    a part without phrases on the index where the candidates do not decide it alone (an OR
    branch, an exclusion). Along the query's ANDs, such a part holds for every candidate (they
    match the query), and a query whose phrases are all required is checked on the text alone.
    A candidate whose text was not found passes its phrases."""

    def __init__(self, plan: _Plan, root):
        self.plan = plan
        self.queries: list[Q.Query] = []  # parts decided on the index
        self.tree = self._compile(root, True)

    def _has_phrase(self, node) -> bool:
        if isinstance(node, Phrase):
            return id(node) in self.plan.phrases
        if isinstance(node, Not):
            return self._has_phrase(node.child)
        return isinstance(node, Group) and any(self._has_phrase(c) for c in node.children)

    def _compile(self, node, implied: bool) -> tuple:
        """("true") | ("index", i) | ("phrase", words, pattern) | ("and"|"or", parts) | ("not", part)"""
        if not self._has_phrase(node):
            if implied:
                return ("true",)
            self.queries.append(self.plan.built.get(id(node), Q.NullQuery))
            return ("index", len(self.queries) - 1)
        if isinstance(node, Phrase):
            words = self.plan.phrases[id(node)]
            plain = all(re.fullmatch(r"[a-z0-9]+", k) for k in words)
            pattern = re.compile(r"(?<![\w])" + r"\W+".join(map(re.escape, words)) + r"(?![\w])") if plain else None
            return ("phrase", words, pattern)
        if isinstance(node, Not):
            return ("not", self._compile(node.child, False))
        assert isinstance(node, Group)
        pos = [c for c in node.children if not isinstance(c, Not)]
        neg = [c.child for c in node.children if isinstance(c, Not)]
        if node.op == "or":
            out: tuple = ("or", [self._compile(c, False) for c in pos])
        else:
            out = ("and", [self._compile(c, implied) for c in pos])
        # exclusions without phrases already left the candidates of an implied AND
        neg = [c for c in neg if not implied or self._has_phrase(c)]
        if neg:
            out = ("and", [out, ("not", ("or", [self._compile(c, False) for c in neg]))])
        return out

    def on(self, searcher, docnums: list[int]) -> Callable[[int, str | None], bool]:
        """The test of the candidates `docnums`: (document number, its text or None) -> passes."""
        members = [_matching(searcher, q, docnums) for q in self.queries]

        def passes(doc: int, text: str | None) -> bool:
            memo: dict[str, Any] = {}

            def ev(n: tuple) -> bool:
                op = n[0]
                if op == "true":
                    return True
                if op == "index":
                    return doc in members[n[1]]
                if op == "and":
                    return all(ev(c) for c in n[1])
                if op == "or":
                    return any(ev(c) for c in n[1])
                if op == "not":
                    return not ev(n[1])
                if text is None:
                    return True
                words, pattern = n[1], n[2]
                if pattern is not None:
                    if "folded" not in memo:
                        memo["folded"] = fold(text)
                    if not pattern.search(memo["folded"]):
                        return False
                if "parts" not in memo:
                    memo["parts"] = phrase_parts(text)
                parts, k = memo["parts"], len(words)
                return any(parts[i:i + k] == words for i in range(len(parts) - k + 1))

            return ev(self.tree)

        return passes


def _matching(searcher, query: Q.Query, docnums: list[int]) -> set[int]:
    """Which of the documents `docnums` match `query` (by the index)."""
    import numpy as np

    query = query.normalize()
    if query is Q.NullQuery or not docnums:
        return set()
    docs = np.unique(np.asarray(docnums, dtype=np.int64))
    out: set[int] = set()
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        seg = docs[(docs >= offset) & (docs < offset + reader.doc_count_all())] - offset
        if not len(seg):
            continue
        try:
            ids, _ = Evaluator(searcher, reader, POSTINGS, False).run(query)
            hit = seg[np.isin(seg, ids)].tolist()
        except Unsupported:
            found = set(query.matcher(sub, searcher.boolean_context()).all_ids())
            hit = [d for d in seg.tolist() if d in found]
        out.update(d + offset for d in hit)
    return out


def _doc_texts(store: Store, searcher, docnums: list[int]) -> tuple[list[str], dict[str, str]]:
    """The ids of documents and the text the index read of each: stored in the index (`x`,
    index v5), so checking phrases reads no database row; from the database (files and calls
    looked up only for the documents whose columns say they are or have one) for a document
    stored without it."""
    import numpy as np

    stored = _stored_fields(searcher, docnums)
    ids = [f["id"] for f in stored]
    texts = {f["id"]: f["x"] for f in stored if "x" in f}
    if len(texts) == len(stored):
        return ids, texts
    call = kind_code("call")
    others: list[str] = []
    docs = np.asarray(docnums, dtype=np.int64)
    for sub, offset in searcher.leaf_searchers():
        reader = sub.reader()
        at = np.flatnonzero((docs >= offset) & (docs < offset + reader.doc_count_all()))
        if not len(at):
            continue
        meta = column_array(store.index.column(reader, "meta"))
        if len(meta) < reader.doc_count_all():  # no column: look everything up
            return ids, _texts(store, ids)
        m = meta[docs[at] - offset]
        extra = ((m & ATTACHMENT_BIT) != 0) | (((m >> _KIND_SHIFT) & _KIND_BITS) == call)
        others += [ids[i] for i in at[extra].tolist()]
    return ids, _texts(store, ids, others)


def doc_ids(searcher, docnums: list[int]) -> list[str]:
    """The message or call ids of documents (by document number)."""
    return [f["id"] for f in _stored_fields(searcher, docnums)]


def _stored_fields(searcher, docnums: list[int]) -> list[dict[str, Any]]:
    """The stored fields of documents (by document number), read from each segment's stored
    column directly (Whoosh's searcher finds the segment and copies the dict for each)."""
    import bisect

    subs = list(searcher.leaf_searchers())
    if len(docnums) < 20 or not all(hasattr(sub.reader(), "_perdoc") for sub, _ in subs):
        return [searcher.stored_fields(d) for d in docnums]
    from whoosh.codec.whoosh3 import STORED_COLUMN

    offsets = [o for _, o in subs]
    columns = [sub.reader()._perdoc._cached_reader("_stored", STORED_COLUMN) for sub, _ in subs]
    out = []
    for d in docnums:
        i = bisect.bisect_right(offsets, d) - 1
        out.append(columns[i][d - offsets[i]] or {})
    return out


_TEXT_QUERIES: list[Any] = []


def _text_queries() -> list[Any]:
    """The three statements reading what the index read of each document (built once, so
    SQLAlchemy compiles them once: a list of ids is an expanding parameter)."""
    if not _TEXT_QUERIES:
        from sqlalchemy import String, bindparam, select, type_coerce

        from .models import Attachment, Call, Message

        mt, ct, at = Message.__table__, Call.__table__, Attachment.__table__
        ids: Any = bindparam("ids", expanding=True)
        _TEXT_QUERIES.extend([
            # `extra` as stored (a poll is read only where it says "poll")
            select(mt.c.id, mt.c.text, type_coerce(mt.c.extra, String())).where(mt.c.id.in_(ids)),
            select(at.c.message_id, at.c.name, at.c.text).where(at.c.message_id.in_(ids)),
            select(ct.c.id, ct.c.summary, ct.c.transcript).where(ct.c.id.in_(ids)),
        ])
    return _TEXT_QUERIES


def _texts(store: Store, ids: list[str], others: list[str] | None = None) -> dict[str, str]:
    """The text of each message (and call); files and calls are looked up for `others`
    only when it is given (all of `ids` otherwise)."""
    msgs, atts, calls = _text_queries()
    out: dict[str, str] = {}
    rest = ids if others is None else others
    with store.read() as conn:
        for i in range(0, len(ids), 500):
            for mid, text, extra in conn.execute(msgs, {"ids": ids[i:i + 500]}):
                out[mid] = with_poll(text or "", extra)
        for i in range(0, len(rest), 500):
            chunk = {"ids": rest[i:i + 500]}
            for mid, name, text in conn.execute(atts, chunk):
                # as the index reads it: the name, then what the source said of the file
                out[mid] = " ".join([out.get(mid, ""), name or "", text or ""])
            for cid, summary, transcript in conn.execute(calls, chunk):
                out[cid] = " ".join(x for x in (summary, transcript) if x)
    return out


# ---------------------------------------------------------------------- names in operators
def known_sender(store: Store, name: str) -> bool:
    """Some message was sent under exactly this name or handle (any case)."""
    with store.index.reading() as searcher:
        return searcher.doc_frequency("who", sender_key(name)) > 0


def _name_forms(name: str) -> set[str]:
    """A name, whole and by words, transliterated and with accents only dropped ("Søren" is
    written "Soeren" and "Soren")."""
    out = set()
    for w in [name, *re.findall(r"\w+", name)]:
        out.add(fold(w))
        out.add("".join(ch for ch in unicodedata.normalize("NFKD", w.lower().replace("ø", "o"))
                        if not unicodedata.combining(ch)))
    return out


def chats_named(store: Store, text: str) -> list[str]:
    """Chat ids whose id is `text` or whose name contains it (case and accents aside)."""
    from sqlalchemy import select

    from .models import Chat

    t = Chat.__table__
    want = fold(text.strip())
    with store.read() as conn:
        return [r.id for r in conn.execute(select(t.c.id, t.c.name))
                if r.id == text.strip() or want in fold(r.name or "")]


def chats_with(store: Store, text: str) -> list[str]:
    """Chat ids with that person in them: a one-to-one chat with them, or a group naming them
    among its participants."""
    from sqlalchemy import select

    from .models import Chat
    from .people import resolve_people

    with store.read() as conn:
        people = {pid for pid, _ in resolve_people(conn, text, store.config.region)}
    want = fold(text.strip())
    t = Chat.__table__
    out = []
    with store.read() as conn:
        for r in conn.execute(select(t.c.id, t.c.person_id, t.c.participants, t.c.handles)):
            names = [str(p) for p in [*(r.participants or []), *(r.handles or [])]]
            if r.person_id in people or any(want in _name_forms(n) for n in names):
                out.append(r.id)
    return out


def hit_rows(store: Store, ids: list[str]) -> tuple[dict, dict, dict, Any]:
    """(messages by id, calls by id, chats by id, display names) of search hits, to show them."""
    from sqlalchemy import select

    from .models import Call, Chat, Message

    mt, ct, ch = Message.__table__, Call.__table__, Chat.__table__
    with store.read() as conn:
        msgs = {r.id: r for r in conn.execute(select(mt).where(mt.c.id.in_(ids)))}
        missing = [i for i in ids if i not in msgs]
        calls = {r.id: r for r in conn.execute(select(ct).where(ct.c.id.in_(missing)))} if missing else {}
        chat_ids = {r.chat_id for r in [*msgs.values(), *calls.values()]}
        chats = {r.id: r for r in conn.execute(select(ch).where(ch.c.id.in_(chat_ids)))}
        names = store.display_names(conn)
    return msgs, calls, chats, names



__all__ = ["LANGUAGES", "Hits", "ParsedQuery", "SearchFilter", "chats_named", "chats_with", "hit_rows",
           "known_sender", "parse_query", "search"]
