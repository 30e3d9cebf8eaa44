"""What a query leaves out stays as typed, and quotes are quotes whatever the keyboard: a
negated word is never tried with typos, a quoted Chinese or Japanese phrase finds only the
messages with that exact run of characters, and the quotation marks phones and input methods
type (“…”, 「…」, «…») quote like '"'. On a real index built from our own JSON Lines archive."""

from __future__ import annotations

import pytest
from tool_helpers import jsonl_store_fixture, valid

from chatmem.tools.search import search_memory

TEXTS = [
    "crossing the zebra by the school",
    "crossing the road after the match",
    "我们在东京大学见面",  # "we meet at the University of Tokyo"
    "东京的大学很多",  # Tokyo has many universities: both words, not the phrase
    "大学东京",  # the words the other way round
    "東京大学で会いましょう",
    "大学は東京にあります",
    "on se retrouve au café de la gare",
]


def _lines() -> list[dict]:
    return [{"platform": "signal", "chat": "Mei Lin", "sender": "Mei Lin" if i % 2 else "Sam Rivera",
             "timestamp": f"2024-04-{i + 1:02d}T10:00:00+00:00", "text": t} for i, t in enumerate(TEXTS)]


store = jsonl_store_fixture("negation-quotes", _lines)


def find(store, query: str) -> dict:
    return valid("search_memory", search_memory(store, store.config.seat(None), query))


def texts(result: dict) -> set[str]:
    return {r["content"].split(": ", 1)[1] for r in result["results"]}


@pytest.mark.parametrize("query", ["crossing -zebbra", "crossing NOT zebbra", 'crossing -"zebbra"'])
def test_a_misspelt_excluded_word_excludes_nothing_else(store, query):
    r = find(store, query)
    # no message has "zebbra": nothing is left out, and no word was guessed
    assert texts(r) == {TEXTS[0], TEXTS[1]}
    assert "fuzzy" not in r


def test_an_excluded_word_still_leaves_out_its_messages(store):
    assert texts(find(store, "crossing -zebra")) == {TEXTS[1]}
    assert find(store, "zebbra")["fuzzy"] == {"zebbra": ["zebra"]}  # a word looked for is guessed


@pytest.mark.parametrize(("query", "expected"), [
    ('"东京大学"', {TEXTS[2]}),
    ("“东京大学”", {TEXTS[2]}),  # Chinese input methods' quotes
    ("「東京大学」", {TEXTS[5]}),  # Japanese corner brackets
    ("『東京大学』", {TEXTS[5]}),
    ('"大学で会い"', {TEXTS[5]}),  # across kanji and kana
    ('"京大"', {TEXTS[2], TEXTS[5]}),  # inside a longer run
    ('"学东"', {TEXTS[4]}),
    ("“crossing the road”", {TEXTS[1]}),  # a phone's curly quotes
    ("« café de la gare »", {TEXTS[7]}),
])
def test_a_quoted_phrase_finds_exactly_its_sequence(store, query, expected):
    r = find(store, query)
    assert texts(r) == expected
    assert r["matching"] == "all words"


def test_a_lone_corner_bracket_is_no_unclosed_quote(store):
    # an unpaired 「 is punctuation: the words are searched as typed
    assert TEXTS[5] in texts(find(store, "「東京大学"))
