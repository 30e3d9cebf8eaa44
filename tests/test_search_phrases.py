"""Phrases as a user sees them: word by word across punctuation, and the total of a phrase of
common words — exact while few messages hold all its words, an estimate said so beyond that,
and an estimate near the real count (not the share of the best-ranked messages, which are the
short ones where words are neighbours far more often)."""

from __future__ import annotations

from tool_helpers import jsonl_store_fixture, valid

from chatmem.store.search import PHRASE_EXACT
from chatmem.tools.search import search_memory

CHAT = "Planning"
PHRASE_HOLDERS = 60  # short messages saying "the plan"
NEAR_MISSES = 1200  # longer ones with both words, never next to each other
FEW = 30  # "lantern" next to "festival" in 30 messages, apart in 40


def _msg(i: int, text: str) -> dict:
    return {"platform": "whatsapp", "chat": CHAT, "sender": "Ada" if i % 2 else "Bo",
            "timestamp": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00+00:00",
            "text": text}


def _records() -> list[dict]:
    out: list[dict] = [{"type": "chat", "platform": "whatsapp", "chat": CHAT, "group": True,
                        "participants": ["Ada", "Bo"]}]
    texts = []
    for i in range(NEAR_MISSES):
        texts.append(f"plan number {i} for saturday, we went over it again and the weather looked fine")
        if i % 20 == 0:  # one in twenty near misses is followed by a phrase holder
            k = i // 20
            texts.append(f"the plan {k} works" if k % 2 else f"ok, the PLAN! {k}")
    for i in range(FEW):
        texts.append(f"the lantern festival {i} starts at dusk")
    for i in range(40):
        texts.append(f"a festival without a lantern {i}")
    texts += ["running late, sorry! the children were slow", "we run a marathon"]
    out += [_msg(i, t) for i, t in enumerate(texts)]
    out.append({**_msg(len(texts), "see attached"),
                "attachments": [{"name": "harbour plan draft.pdf", "mime_type": "application/pdf"}]})
    return out


store = jsonl_store_fixture("phrases", _records)


def find(store, query, **kw):
    return valid("search_memory", search_memory(store, store.config.seat(None), query, mode="keyword", **kw))


def test_a_phrase_crosses_punctuation_but_not_other_words(store):
    assert find(store, '"late sorry"')["total"] == 1  # "late, sorry!"
    assert find(store, '"running late sorry the children"')["total"] == 1
    assert find(store, '"late the"')["total"] == 0  # a word between them
    assert find(store, '"plan the"')["total"] == 0  # the other order


def test_a_phrase_in_a_file_name_is_found(store):
    r = find(store, '"attached harbour plan"')  # the text, then the file's name
    assert r["total"] == 1 and "see attached" in r["results"][0]["content"]


def test_a_phrase_few_messages_hold_the_words_of_has_an_exact_total(store):
    r = find(store, '"lantern festival"', limit=50)
    assert r["total"] == FEW and "total_is_estimate" not in r
    assert len(r["results"]) == FEW
    assert all("lantern festival" in x["content"] for x in r["results"])


def test_a_phrase_of_common_words_has_an_estimated_total_said_so(store):
    both = find(store, "the plan")["total"]
    assert both > PHRASE_EXACT  # so many hold both words that not all are read
    r = find(store, '"the plan"')
    assert r.get("total_is_estimate") is True
    # near the real count (60), not the share among the best-ranked (short) messages
    assert PHRASE_HOLDERS / 2 <= r["total"] <= PHRASE_HOLDERS * 2, r["total"]
    assert len(r["results"]) == 10 and r["has_more"]
    assert all("the plan" in x["content"].lower() for x in r["results"])


def test_the_next_page_of_a_common_phrase_holds_other_matches(store):
    first = find(store, '"the plan"')
    second = find(store, '"the plan"', offset=10)
    assert len(second["results"]) == 10
    assert all("the plan" in x["content"].lower() for x in second["results"])
    assert not {x["id"] for x in first["results"]} & {x["id"] for x in second["results"]}


def test_excluding_a_common_phrase_keeps_messages_with_its_words_apart(store):
    r = find(store, 'plan -"the plan"')
    assert r.get("total_is_estimate") is True  # more than PHRASE_EXACT messages say "plan"
    # the near misses and the file's name, not the phrase holders
    assert NEAR_MISSES * 0.9 <= r["total"] <= (NEAR_MISSES + 1) * 1.1, r["total"]
    assert len(r["results"]) == 10
    assert not any("the plan" in x["content"].lower() for x in r["results"])


def test_a_common_phrase_or_a_rare_word_finds_both(store):
    r = find(store, 'marathon OR "the plan"', limit=50)
    assert PHRASE_HOLDERS / 2 <= r["total"] - 1 <= PHRASE_HOLDERS * 2, r["total"]
    texts = [x["content"].lower() for x in r["results"]]
    assert any("marathon" in t for t in texts)
    assert all("marathon" in t or "the plan" in t for t in texts)
