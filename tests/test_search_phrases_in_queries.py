"""A quoted phrase where it sits in the query: in an OR branch it is one way to match, after a
minus it excludes only the messages holding the phrase; a phrase is found where the words are
neighbours as people read them (a file name "plan draft.pdf"), and in a poll's question and
options, which the search reads as the message's words; and in what the index read of a call (a
call with no summary is its direction and media, "incoming video call")."""

from __future__ import annotations

import pytest
from test_search_phrases import find as find_in
from tool_helpers import jsonl_store_fixture

CHAT = "Weekend"
FILE = "see attached [plan draft.pdf, application/pdf]"  # as a result shows the message with a file
TEXTS = {
    "festival": "the lantern festival starts at dusk",
    "apart": "a festival without a lantern, sadly",
    "marathon": "we run a marathon on sunday",
    "the plan": "the plan is ready",
    "apart plan": "plan to go early, the weather decides",
    "plan draft": "here is the plan draft.pdf for you",
    "plain": "nothing about it here",
}


def _msg(i: int, text: str, **more) -> dict:
    return {"platform": "whatsapp", "chat": CHAT, "sender": "Ada" if i % 2 else "Bo",
            "timestamp": f"2024-03-{1 + i:02d}T10:00:00+00:00", "text": text, **more}


def _records() -> list[dict]:
    out: list[dict] = [{"type": "chat", "platform": "whatsapp", "chat": CHAT, "group": True,
                        "participants": ["Ada", "Bo"]}]
    out += [_msg(i, t) for i, t in enumerate(TEXTS.values())]
    out.append(_msg(20, "see attached", attachments=[{"name": "plan draft.pdf", "mime_type": "application/pdf"}]))
    out.append(_msg(21, "", extra={"poll": {"question": "Where do we meet on saturday?",
                                            "options": [{"text": "harbour cafe", "votes": 2},
                                                        {"text": "old lighthouse", "votes": 1}]}}))
    out.append({"type": "call", "platform": "whatsapp", "chat": CHAT, "timestamp": "2024-03-25T18:00:00+00:00",
                "direction": "incoming", "media": "video", "peer": "Ada"})
    out.append({"type": "call", "platform": "whatsapp", "chat": CHAT, "timestamp": "2024-03-26T18:00:00+00:00",
                "direction": "outgoing", "media": "voice", "peer": "Bo",
                "summary": "Bo booked the ferry tickets for saturday"})
    return out


store = jsonl_store_fixture("phrase-tree", _records)


def find(store, query: str) -> dict:
    return find_in(store, query, limit=20)


def contents(result: dict) -> set[str]:
    """The texts found (the content reads "Sender: text")."""
    return {x["content"].split(": ", 1)[1] for x in result["results"]}


def test_a_phrase_in_an_or_branch_is_one_way_to_match(store):
    r = find(store, '"lantern festival" OR marathon')
    assert contents(r) == {TEXTS["festival"], TEXTS["marathon"]}
    assert r["total"] == 2 and "total_is_estimate" not in r
    r = find(store, 'marathon OR ("lantern festival" dusk)')
    assert contents(r) == {TEXTS["festival"], TEXTS["marathon"]}


def test_a_minus_phrase_excludes_only_the_messages_holding_the_phrase(store):
    r = find(store, 'plan -"the plan"')
    assert contents(r) == {TEXTS["apart plan"], FILE}
    assert r["total"] == 2
    r = find(store, 'festival -"lantern festival"')
    assert contents(r) == {TEXTS["apart"]}
    r = find(store, 'festival NOT ("lantern festival" dusk)')
    assert contents(r) == {TEXTS["apart"]}


def test_a_phrase_required_beside_an_or_still_holds(store):
    r = find(store, '"the plan" (ready OR weather)')
    assert contents(r) == {TEXTS["the plan"]}


def test_a_phrase_ending_in_the_first_part_of_a_file_name_is_found(store):
    r = find(store, '"plan draft"')
    assert contents(r) == {TEXTS["plan draft"], FILE}
    assert contents(find(store, '"the plan draft pdf"')) == {TEXTS["plan draft"]}
    assert contents(find(store, '"draft pdf for"')) == {TEXTS["plan draft"]}
    assert find(store, '"draft plan"')["total"] == 0


def test_a_phrase_of_a_poll_question_or_option_is_found(store):
    assert find(store, '"old lighthouse"')["total"] == 1
    assert find(store, '"where do we meet"')["total"] == 1
    assert find(store, '"lighthouse old"')["total"] == 0


def test_a_phrase_is_found_in_what_the_index_read_of_a_call(store):
    r = find(store, '"incoming video call"')  # no summary: the call is its direction and media
    assert r["total"] == 1 and r["results"][0]["kind"] == "call"
    assert find(store, '"video incoming"')["total"] == 0
    r = find(store, '"ferry tickets"')  # its summary
    assert r["total"] == 1 and r["results"][0]["kind"] == "call"
    assert find(store, '"tickets ferry"')["total"] == 0


@pytest.mark.parametrize("query", ['"the plan" zzq*', "plan zzq*", "zzq* plan", "plan (zzq* OR qqz*)",
                                   '"lantern festival" (zzq* OR qqz*)'])
def test_a_part_that_matches_nothing_makes_its_and_match_nothing(store, query):
    # a prefix no word starts with is a part like any other: all parts must hold
    r = find(store, query)
    assert r["results"] == [] and r["total"] == 0 and r["matching"] == "all words"


def test_an_or_branch_that_matches_nothing_leaves_the_other_branch(store):
    r = find(store, '("lantern festival" zzq*) OR marathon')
    assert contents(r) == {TEXTS["marathon"]}
    assert contents(find(store, "(plan zzq*) OR marathon")) == {TEXTS["marathon"]}
    assert contents(find(store, "marathon OR zzq*")) == {TEXTS["marathon"]}


def test_excluding_what_matches_nothing_excludes_nothing(store):
    plans = {TEXTS["the plan"], TEXTS["apart plan"], TEXTS["plan draft"]}
    assert contents(find(store, "plan -zzq*")) >= plans
    assert contents(find(store, "plan -(zzq* OR marathon)")) >= plans
