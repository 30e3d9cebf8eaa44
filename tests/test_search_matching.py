"""What search_memory matches, as a user sees it: word forms, folding, CJK, URLs, compounds,
emoji, operators, the any-word fallback, fuzzy words, exact totals with filters. On a real
index built by importing our own JSON Lines archive."""

from __future__ import annotations

import pytest
from tool_helpers import jsonl_store, valid

from chatmem.config import load_config
from chatmem.errors import ArgumentError, QueryError
from chatmem.store import Store
from chatmem.tools.search import search_memory

EN, DE, ZH = "Weekend crew", "Familie Müller", "上海同事"


def _msg(chat, sender, day, text, **extra):
    return {"platform": "whatsapp", "chat": chat, "sender": sender,
            "timestamp": f"2024-03-{day:02d}T10:00:00+01:00", "text": text, **extra}


RECORDS = [
    {"type": "chat", "platform": "whatsapp", "chat": EN, "group": True,
     "participants": ["Ben Ortiz", "Harz Fan"]},
    _msg(EN, "Ben Ortiz", 1, "I was running late, sorry! The children were slow this morning"),
    _msg(EN, "Ben Ortiz", 2, "The new coffee-shop on the corner does end-to-end delivery"),
    _msg(EN, "Harz Fan", 3, "Directions: https://maps.google.com/place/Brocken we meet there 🥾"),
    _msg(EN, "me", 4, "Don't forget the tickets, we're going to the concert tomorrow"),
    _msg(EN, "Ben Ortiz", 5, "Great hike 👍🏽 see you next weekend"),
    _msg(EN, "me", 6, "The dentist appointment moved to Thursday afternoon"),
    _msg(EN, "Harz Fan", 7, "Photos from the hike", attachments=[{"name": "brocken-summit.jpg",
                                                                  "mime_type": "image/jpeg"}]),
    _msg(EN, "Ben Ortiz", 8, "this message was about the secret cave", deleted=True),
    _msg(EN, "me", 9, "we should run the marathon in spring, a long run"),
    _msg(EN, "Ben Ortiz", 10, "the last trip to the Harz was lovely"),
    {"type": "chat", "platform": "signal", "chat": DE, "group": True,
     "participants": ["Jürgen Müller", "Søren"]},
    {"platform": "signal", "chat": DE, "sender": "Jürgen Müller", "timestamp": "2024-03-11T09:00:00+01:00",
     "text": "Wir treffen uns in der Goethestraße bei Müller, ich habe die Häuser gesehen"},
    {"platform": "signal", "chat": DE, "sender": "Søren", "timestamp": "2024-03-12T09:00:00+01:00",
     "text": "Søren hier: das ist nicht mein Haus, aber es ist schön und ich bin dabei"},
    {"type": "chat", "platform": "signal", "chat": ZH, "participants": ["李伟"]},
    {"platform": "signal", "chat": ZH, "sender": "李伟", "timestamp": "2024-03-13T09:00:00+01:00",
     "text": "我们明天下午去喝咖啡吧"},
    {"platform": "signal", "chat": ZH, "sender": "李伟", "timestamp": "2024-03-13T09:05:00+01:00",
     "text": "我的猫今天很可爱"},
    {"platform": "signal", "chat": ZH, "sender": "me", "timestamp": "2024-03-13T09:06:00+01:00",
     "text": "着いたら駅で待ってるね"},
    {"platform": "signal", "chat": ZH, "sender": "me", "timestamp": "2024-03-13T09:07:00+01:00",
     "text": "내일 밥먹자 ㅎㅎ"},
]
# a background of near misses: they share words with the queries but never all of them
RECORDS += [_msg(EN, "Ben Ortiz", 14 + i % 10, f"plain note {i} about coffee and the weather")
            for i in range(12)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = jsonl_store(tmp_path_factory.mktemp("matching"), RECORDS, "timezone: Europe/Berlin\n")
    yield s
    s.close()


def find(store, query, **kw):
    return valid("search_memory", search_memory(store, store.config.seat(None), query, **kw))


def texts(result) -> list[str]:
    return [r["content"] for r in result["results"]]


@pytest.mark.parametrize(("query", "expected"), [
    ("run", "running late"),  # a stem finds another form
    ("child", "The children"),  # irregular plural
    ("Mueller", "bei Müller"),  # transliteration
    ("muller", "bei Müller"),  # near spelling of the folded form (fuzzy, 1 edit)
    ("Strasse", None),  # only inside a compound: no hit, but no error
    ("Goethestrasse", "Goethestraße"),
    ("Soeren", "Søren hier"),
    ("Haus", "die Häuser"),  # a German chat is stemmed in German
    ("咖啡", "喝咖啡"),  # inside a Chinese sentence
    ("google", "maps.google.com"),
    ("maps.google.com", "maps.google.com"),
    ("Brocken", "maps.google.com/place/Brocken"),
    ("coffee-shop", "coffee-shop on the corner"),
    ("shop", "coffee-shop on the corner"),
    ("end-to-end", "end-to-end delivery"),
    ("dont", None),
    ("don't", "Don't forget"),
    ("👍", "Great hike"),
    ("🥾", "we meet there"),
    ("dentist?", "dentist appointment"),
    ("summit", "Photos from the hike"),  # attachment names are searched
])
def test_word_forms_folding_and_compounds(store, query, expected):
    r = find(store, query)
    if expected is None:
        return
    assert any(expected in c for c in texts(r)), (query, texts(r))


@pytest.mark.parametrize(("query", "expected"), [
    ("猫", "我的猫今天很可爱"),  # a one-character Chinese word inside a sentence
    ("駅", "駅で待ってるね"),  # a one-kanji Japanese word
    ("밥", "내일 밥먹자"),  # a one-syllable Korean word written with the next one
    ("喝", "去喝咖啡吧"),
])
def test_a_one_character_cjk_word_is_found_inside_a_run(store, query, expected):
    r = find(store, query)
    assert r["total"] == 1 and expected in r["results"][0]["content"], (query, texts(r))
    assert f"**{query}**" in r["results"][0]["snippet"]  # that character is the one in bold


def test_cjk_queries_of_several_characters_still_ask_for_their_pairs(store):
    assert find(store, "狗")["total"] == 0  # a character found nowhere finds nothing
    assert texts(find(store, "咖啡")) == ["李伟: 我们明天下午去喝咖啡吧"]
    assert find(store, "可爱")["total"] == 1  # "爱可" would not be a pair of that text
    assert find(store, "爱可")["total"] == 0


def test_stems_rank_the_exact_form_first(store):
    r = find(store, "run")
    assert r["matching"] == "all words" and r["total"] == 2
    assert "long run" in r["results"][0]["content"]  # "run" itself beats "running"


def test_names_of_chats_and_senders_are_not_message_text(store):
    # "Harz Fan" sends, but only one message *says* Harz
    r = find(store, "harz")
    assert texts(r) == ["Ben Ortiz: the last trip to the Harz was lovely"]
    assert find(store, "Weekend crew")["total"] == 1  # "see you next weekend": any word
    assert find(store, "text:harz")["total"] == 1


def test_a_question_falls_back_to_any_word_and_says_so(store):
    r = find(store, "when is the dentist appointment?")
    assert r["matching"] == "any word"
    assert "dentist appointment" in r["results"][0]["content"]
    # function words alone do not make a match; a reply to a matching question is shown as one
    assert all("dentist" in h["content"] or "appointment" in h["content"] or h.get("found_as") == "reply"
               for h in r["results"])
    assert any(h.get("found_as") == "reply" for h in r["results"])


def test_all_words_answer_when_there_are_enough(store):
    r = find(store, "coffee weather")
    assert r["matching"] == "all words" and r["total"] == 12


def test_a_misspelt_word_is_tried_with_near_spellings_and_said(store):
    r = find(store, "marathn")
    assert r["fuzzy"] == {"marathn": ["marathon"]}
    assert "marathon" in r["results"][0]["content"]
    assert "fuzzy" not in find(store, "marathon")
    assert find(store, "xq")["total"] == 0  # short words are not guessed


def test_phrases_use_word_order(store):
    assert find(store, '"end-to-end delivery"')["total"] == 1
    assert find(store, '"the new coffee-shop"')["total"] == 1
    assert find(store, '"new the coffee-shop"')["total"] == 0
    assert find(store, '"late running"')["total"] == 0


@pytest.mark.parametrize(("query", "total"), [
    ("from:ben hike", 1),
    ("from:Harz hike", 1),
    ("in:familie haus", 2),  # Häuser and Haus
    ("in:weekend haus", 0),
    ("with:søren haus", 2),
    ("with:soren haus", 2),
    ("with:ben haus", 0),
    ("coffee after:2024-03-20", 4),
    ("coffee before:2024-03-13", 1),
    ("coffee before:2024-03-14", 3),  # the whole of that day
    ("hike has:attachment", 1),
    ("cave is:deleted", 1),
    ("platform:signal haus", 2),
    ("platform:whatsapp haus", 0),
])
def test_operators_filter_like_the_arguments(store, query, total):
    assert find(store, query)["total"] == total


def test_operators_and_arguments_agree(store):
    by_op = find(store, "coffee after:2024-03-20 platform:whatsapp")
    by_arg = find(store, "coffee", since="2024-03-20", platform="whatsapp")
    assert by_op["total"] == by_arg["total"] and texts(by_op) == texts(by_arg)
    with pytest.raises(ArgumentError, match="nobody"):  # as the sender argument does
        find(store, "from:nobody coffee")


def test_totals_are_exact_with_filters(store):
    everything = find(store, "coffee", limit=3)
    assert everything["total"] == 13 and everything["has_more"] and len(everything["results"]) == 3
    ben = find(store, "coffee", sender="Ben Ortiz", limit=3)
    assert ben["total"] == 13  # all coffee messages are Ben's
    assert find(store, "coffee", since="2024-03-20", until="2024-03-21", limit=1)["total"] == 2
    assert find(store, "coffee", platform="signal")["total"] == 0


def test_empty_store_searches_find_nothing(tmp_path):
    """Regression: a date filter on an empty store raised Whoosh's NotImplementedError."""
    (tmp_path / "config.yaml").write_text("timezone: UTC\n")
    with Store.open(tmp_path / "home", load_config(tmp_path / "config.yaml")) as empty:
        r = search_memory(empty, empty.config.seat(None), "coffee", since="2024-01-01")
        assert r["total"] == 0 and r["results"] == []


@pytest.mark.parametrize("query", ["has:everything coffee", "is:happy coffee", "platform:icq coffee"])
def test_unknown_operator_values_are_named(store, query):
    with pytest.raises(QueryError, match=query.split()[0].split(":")[0]):
        find(store, query)


def test_a_prefix_is_bounded_and_highlighted(store):
    r = find(store, "mara*")
    assert r["total"] == 1 and "**marathon**" in r["results"][0]["snippet"]


@pytest.mark.parametrize("query", [
    "coffee", "coffee weather", "coffee OR tea", "coffee -weather", "cof*", '"the new coffee-shop"',
    "when is the dentist appointment", "running", "end-to-end",
])
@pytest.mark.parametrize("sort", ["relevance", "newest", "oldest"])
@pytest.mark.parametrize("any_word", [False, True])
@pytest.mark.parametrize("dense", [0, 10**9])
def test_posting_arrays_find_what_whoosh_matchers_find(store, query, sort, any_word, dense, monkeypatch):
    """The array evaluation (store/postings.py) gives the totals and the order that Whoosh's own
    matchers give, document by document, on the same index; with a filter on the columns too;
    for the all-word query and for its any-word fallback (function words optional, scored
    only where the content words match); with lists merged by binary search and over dense
    arrays (what long lists at a million messages take)."""
    from datetime import datetime

    from chatmem.store import postings
    from chatmem.store import search as S

    monkeypatch.setattr(postings, "DENSE_SHARE", dense)

    parsed = S.parse_query(query)
    for flt in (S.SearchFilter(), S.SearchFilter(since=datetime(2024, 1, 1), platforms=["whatsapp"])):
        with store.index.reading() as searcher:
            plan = S._Plan(searcher.reader(), store.index.languages().values())
            keys, check = S._filter_parts(store, flt)
            q = plan.build(parsed.root, any_word=any_word)
            q = S.Q.And([q, keys]) if keys is not None else q
            arrays = S._collect_arrays(store, searcher, q.normalize(), check, 50, sort)
            matchers = S._collect_matchers(store, searcher, q.normalize(), check, 50, sort)
        assert arrays[1] == matchers[1]  # the exact total
        assert [d for d, _ in arrays[0]] == [d for d, _ in matchers[0]]
        assert [round(s, 3) for _, s in arrays[0]] == [round(s, 3) for _, s in matchers[0]]


def test_scores_and_totals_follow_the_messages_an_import_adds(tmp_path):
    """What a search remembers of the index it read (how many messages hold each word) belongs
    to that index: after an import adds messages holding a word, a search counts them and
    scores the word as Whoosh's own matchers score it on the new index."""
    import json

    from chatmem.importers import find_sources
    from chatmem.store import search as S

    chat = {"type": "chat", "platform": "whatsapp", "chat": "Paddlers", "group": True,
            "participants": ["Ida", "Leo"]}
    first = [chat] + [_msg("Paddlers", "Ida" if i % 2 else "Leo", 1 + i, text) for i, text in enumerate([
        "the kayak trip is on saturday", "bring the dry bags", "kayak rental opens at nine",
        "lunch at the lake", "who has the car keys"])]
    more = [_msg("Paddlers", "Ida", 10 + i, f"kayak number {i} is booked for the trip") for i in range(6)]
    store = jsonl_store(tmp_path, first, "timezone: UTC\n")
    seat = store.config.seat(None)
    before = search_memory(store, seat, "kayak", mode="keyword")
    path = tmp_path / "more.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [chat] + more), encoding="utf-8")
    store.import_sources(find_sources(path, "jsonl"))
    after = search_memory(store, seat, "kayak", mode="keyword", limit=20)
    with store.index.reading() as searcher:
        q = S._Plan(searcher.reader(), ["en"]).build(S.parse_query("kayak").root).normalize()
        arrays = S._collect_arrays(store, searcher, q, None, 20, "relevance")
        matchers = S._collect_matchers(store, searcher, q, None, 20, "relevance")
    store.close()
    assert before["total"] == 2 and after["total"] == 8
    assert [round(sc, 4) for _, sc in arrays[0]] == [round(sc, 4) for _, sc in matchers[0]]


def test_every_chinese_japanese_and_korean_character_is_told_as_the_index_class_says() -> None:
    """Whether a word holds a CJK character is asked without compiling the class's regex (it
    takes ~10 ms); over every code point the answer is the class's own."""
    import re

    from chatmem.store import analysis

    cls = re.compile(f"[{analysis._CJK}]")
    differ = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
              and analysis._is_cjk(chr(cp)) != bool(cls.match(chr(cp)))]
    assert differ == []
    assert analysis._has_cjk("ok猫") and not analysis._has_cjk("Müller’s") and not analysis._has_cjk("plain")
