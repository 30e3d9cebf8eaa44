"""How the any-word fallback ranks, as a user sees it: when not every word of a plain-language
question is in one message, the message holding its rare words comes before messages that share
only a common word (however short they are), a possessive finds the name, the query's own
language decides which words are small, and the reply to a well-matched message follows it.
On a real index built by importing our own JSON Lines archive, with a background of short
messages that share the common words."""

from __future__ import annotations

import pytest
from tool_helpers import jsonl_store, valid

from chatmem.tools.search import search_memory

CAMP, GARDEN, FRIENDS, NL, FR = "Camping trip", "Allotment", "Friends", "Jeroen", "Chloé"


def _msg(chat: str, sender: str, day: int, minute: int, text: str) -> dict:
    return {"platform": "whatsapp", "chat": chat, "sender": sender,
            "timestamp": f"2024-04-{day:02d}T10:{minute:02d}:00+02:00", "text": text}


RECORDS = [
    _msg(CAMP, "Ines Roth", 2, 0, "Campsite booked by the lake, two tents, we arrive Friday evening"),
    _msg(CAMP, "me", 2, 5, "Great, I'll bring the stove"),
    _msg(CAMP, "Ines Roth", 3, 0, "Booked a table for Tomasz at Taverna Olympia, Friday at eight"),
    _msg(GARDEN, "Karl Weiss", 4, 0, "Aphids all over my roses again"),
    _msg(GARDEN, "Mila Horn", 4, 6, "Soapy water in a spray bottle works, every two days"),
    _msg(GARDEN, "Karl Weiss", 4, 9, "Thanks, trying it tonight"),
    _msg(GARDEN, "Mila Horn", 9, 0, "The dog from the next plot dug up my carrots"),
    _msg("School", "me", 9, 5, "Leo wants to be a marine biologist now"),
    _msg(FR, "Chloé", 9, 0, "Elle a vendu son vélo, elle veut une trottinette maintenant"),
    {"platform": "telegram", "chat": NL, "sender": "Jeroen", "timestamp": "2024-04-05T09:00:00+02:00",
     "text": "Mijn fiets is gestolen bij het station"},
    {"platform": "telegram", "chat": NL, "sender": "Jeroen", "timestamp": "2024-04-05T09:03:00+02:00",
     "text": "Ik heb een nieuwe gekocht, tweedehands"},
]
# near misses: short messages with the questions' common words, more of them than a page
RECORDS += [_msg(FRIENDS, "Ben Ortiz", 10 + i % 15, i % 50, text) for i, text in enumerate(
    [f"{w}!" for w in ("weekend", "dinner", "weekend", "dinner")] * 6
    + [f"get {w} please" for w in ("milk", "bread", "tickets", "ice", "snacks", "beer")] * 4
    + ["who wants pizza?"] * 5)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = jsonl_store(tmp_path_factory.mktemp("ranking"), RECORDS, "timezone: Europe/Berlin\n")
    yield s
    s.close()


def find(store, query: str, **kw) -> dict:
    r = valid("search_memory", search_memory(store, store.config.seat(None), query, **kw))
    assert r["mode"] == "keyword"
    return r


def contents(r: dict) -> list[str]:
    return [h["content"] for h in r["results"]]


def test_a_rare_word_outranks_short_messages_sharing_a_common_one(store):
    r = find(store, "tent for the weekend")  # no message has both words
    assert r["matching"] == "any word"
    assert "two tents" in contents(r)[0]
    assert sum("weekend" in c for c in contents(r)) == len(contents(r)) - 1  # the rest: the near misses


def test_a_possessive_finds_the_name(store):
    r = find(store, "Where is Tomasz's dinner?")
    assert r["matching"] == "any word"
    assert "table for Tomasz" in contents(r)[0]  # before the dozen "dinner!" messages


def test_the_reply_to_a_well_matched_message_follows_it(store):
    r = find(store, "How do I get rid of aphids?")
    assert "Aphids all over my roses" in contents(r)[0]
    assert "Soapy water" in contents(r)[1] and r["results"][1]["found_as"] == "reply"
    assert all("get" in c for c in contents(r)[3:])  # "get milk please": below the answer


def test_small_words_are_those_of_the_query_language(store):
    # "dog" is a Danish stop word, but this is an English question: it is the word that counts
    r = find(store, "where is the dog")
    assert r["matching"] == "any word" and r["total"] == 1
    assert "The dog from the next plot" in contents(r)[0]


def test_a_word_that_is_small_in_the_message_language_does_not_count(store):
    # "son" is a rare word here, but in the French chat it means "his"
    r = find(store, "my son wants to study the sea")
    assert r["matching"] == "any word"
    assert "Leo wants to be a marine biologist" in contents(r)[0]


def test_only_small_words_found_still_ranks_them(store):
    # "rijwiel" (bicycle) is nowhere, "mijn" and "het" are Dutch function words: they still find
    r = find(store, "is mijn rijwiel weg")
    assert r["matching"] == "any word"
    assert "Mijn fiets is gestolen" in contents(r)[0]


@pytest.mark.parametrize("query", ["tent for the weekend", "Where is Tomasz's dinner?"])
def test_totals_count_every_any_word_match(store, query):
    r = find(store, query, limit=50)
    assert r["total"] == len(r["results"])
