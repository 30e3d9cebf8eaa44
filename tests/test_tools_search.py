"""search_memory over imported WhatsApp, Signal, iMessage and Telegram fixtures."""

from __future__ import annotations

import pytest
from tool_helpers import LONG_CHAT_MESSAGES, chat_source, valid

from chatmem.errors import ArgumentError, QueryError
from chatmem.tools.search import search_memory

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, seats


def search(store, seat, query, **kw):
    return valid("search_memory", search_memory(store, seat, query, **kw))


def test_words_are_anded_and_ranked_across_platforms(loaded, seats):
    r = search(loaded, seats["owner"], "coffee")
    platforms = {x["platform"] for x in r["results"]}
    assert {"signal", "telegram"} <= platforms
    assert r["total"] == len(r["results"])
    scores = [x["score"] for x in r["results"]]
    assert scores == sorted(scores, reverse=True)
    assert r["matching"] == "all words"
    # one message has both words: fewer than a handful, so any word is ranked, both words first
    both = search(loaded, seats["owner"], "thermos coffee")
    assert both["matching"] == "any word"
    assert both["results"][0]["sender"] == "Ben Ortiz"
    assert both["total"] == r["total"]  # every coffee message, the thermos one on top


def test_filtered_search_finds_every_match_and_totals_are_exact(loaded, seats):
    owner = seats["owner"]
    everything = search(loaded, owner, "lorem", limit=50)
    # 40 in the long chat, 1 in Family, 1 in Dentist reminders
    assert everything["total"] == LONG_CHAT_MESSAGES + 2
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    r = search(loaded, owner, "lorem", source=lena, limit=5)
    assert r["total"] == LONG_CHAT_MESSAGES and r["has_more"] and len(r["results"]) == 5
    # a date window: updates 1..40 are on Jan 11 .. Feb 19; since Feb 1 leaves 22..40 (19) in this chat
    r = search(loaded, owner, "lorem", source=lena, since="2024-02-01", limit=50)
    assert r["total"] == 19 and not r["has_more"]
    # a date alone as `until` includes that whole day: Feb 1 .. Feb 10 are updates 22..31
    r = search(loaded, owner, "lorem", source=lena, since="2024-02-01", until="2024-02-10", limit=3)
    assert r["total"] == 10 and r["has_more"]
    assert all("2024-02-01" <= x["date"][:10] <= "2024-02-10" for x in r["results"])


def test_sender_group_and_platform_filters(loaded, seats):
    owner = seats["owner"]
    mine = search(loaded, owner, "lorem", sender="me", limit=50)
    assert mine["total"] == LONG_CHAT_MESSAGES // 2
    assert {x["sender"] for x in mine["results"]} == {"me"}
    groups = search(loaded, owner, "lorem", group=True, limit=50)
    assert [x["chat"] for x in groups["results"]] == ["Family"]
    assert search(loaded, owner, "coffee", platform="signal")["results"][0]["platform"] == "signal"
    assert search(loaded, owner, "coffee", platform="imessage")["total"] == 0


def test_phrases_or_exclusion_and_prefix(loaded, seats):
    owner = seats["owner"]
    assert search(loaded, owner, '"thermos of coffee"')["total"] == 1
    assert search(loaded, owner, '"coffee of thermos"')["total"] == 0
    either = search(loaded, owner, "thermos OR zugspitze")
    assert either["total"] == 2
    without = search(loaded, owner, "coffee -thermos")
    assert without["total"] >= 1
    assert all("thermos" not in x["content"].lower() for x in without["results"])
    prefix = search(loaded, owner, "pineco*")
    assert prefix["total"] == 1
    assert "**Pinecone**" in prefix["results"][0]["snippet"]


@pytest.mark.parametrize("query", ['"unclosed phrase', "(coffee", "-coffee", "*", "a*", "*ffee", "NOT coffee"])
def test_unreadable_query_gets_a_clear_error(loaded, seats, query):
    with pytest.raises(QueryError, match="query"):
        search_memory(loaded, seats["owner"], query)


@pytest.mark.parametrize(("kw", "name"), [
    ({"limit": 0}, "limit"), ({"limit": 51}, "limit"), ({"sort": "olderst"}, "sort"),
    ({"since": "yesterday"}, "since"), ({"until": "31/12/2024"}, "until"), ({"group": "yes"}, "group"),
])
def test_argument_errors_name_the_argument_and_range(loaded, seats, kw, name):
    with pytest.raises(ArgumentError, match=name):
        search_memory(loaded, seats["owner"], "coffee", **kw)
    with pytest.raises(ArgumentError, match="query"):
        search_memory(loaded, seats["owner"], "   ")


def test_limit_range_is_named(loaded, seats):
    with pytest.raises(ArgumentError, match="from 1 to 50"):
        search_memory(loaded, seats["owner"], "coffee", limit=99)


def test_sort_newest(loaded, seats):
    r = search(loaded, seats["owner"], "lorem", sort="newest", limit=10)
    stamps = [x["timestamp"] for x in r["results"]]
    assert stamps[0].startswith("2024-06-10")  # the dentist reminder is the newest
    dates = [x["date"] for x in r["results"]]
    assert dates == sorted(dates, reverse=True)


def test_snippets_are_highlighted_and_masked_for_seats_without_secrets(loaded, seats):
    r = search(loaded, seats["owner"], "verification")
    assert "482913" in r["results"][0]["content"]
    assert "**verification**" in r["results"][0]["snippet"]
    masked = search(loaded, seats["assistant"], "verification")
    hit = masked["results"][0]
    assert "482913" not in hit["content"] and "482913" not in hit["snippet"]
    assert "G-[masked]" in hit["content"]


def test_calls_are_found_by_summary_and_transcript(loaded, seats):
    r = search(loaded, seats["owner"], "garmisch")
    assert r["results"][0]["kind"] == "call" and r["results"][0]["id"].startswith("c_")
    r = search(loaded, seats["owner"], "basket")
    assert r["results"][0]["kind"] == "call"


def test_a_date_range_with_no_match_finds_nothing(loaded, seats):
    """Regression: an empty set of in-range documents was read by Whoosh as no filter at all,
    so a date range that matched nothing returned every match of the words."""
    owner = seats["owner"]
    assert search(loaded, owner, "garden")["total"] > 0
    empty = search(loaded, owner, "garden", since="1999-01-01", until="1999-12-31")
    assert empty["total"] == 0 and empty["results"] == [] and empty["has_more"] is False
