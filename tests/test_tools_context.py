"""get_context, get_conversation_context, get_conversation_history, agent sessions and memory."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update
from tool_helpers import LONG_CHAT_MESSAGES, chat_source, valid

from chatmem.errors import ArgumentError, NotFound, PermissionDenied
from chatmem.store.models import Chat
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.history import (
    get_conversation_history,
    history_to_messages,
    log_conversation_turn,
    start_conversation,
)
from chatmem.tools.memory import pause_memory, save_memory
from chatmem.tools.neighbours import get_context
from chatmem.tools.search import search_memory

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, fresh, seats


def first_hit(store, seat, query, **kw):
    return search_memory(store, seat, query, **kw)["results"][0]


# ---------------------------------------------------------------------- get_context


def test_context_is_by_position_oldest_first_with_one_hit(loaded, seats):
    hit = first_hit(loaded, seats["owner"], '"update number 20"')
    r = valid("get_context", get_context(loaded, seats["owner"], hit["id"], before=3, after=2))
    texts = [m["content"] for m in r["messages"]]
    assert [t.split("number ")[1].split(" ")[0] for t in texts] == ["17", "18", "19", "20", "21", "22"]
    assert [m["hit"] for m in r["messages"]] == [False, False, False, True, False, False]
    # a week between messages: neighbours are by position, not by a time window
    assert r["messages"][0]["date"][:10] == "2024-01-27"


def test_context_orders_messages_of_the_same_instant_by_position(loaded, seats):
    hit = first_hit(loaded, seats["owner"], '"second of three"')
    r = get_context(loaded, seats["owner"], hit["id"], before=1, after=1)
    assert [m["content"].split(": ")[1] for m in r["messages"]] == [
        "first of three at once", "second of three at once", "third of three at once"]


def test_context_zero_neighbours_and_chat_edges(loaded, seats):
    hit = first_hit(loaded, seats["owner"], '"update number 1 about"')
    r = get_context(loaded, seats["owner"], hit["id"], before=50, after=0)
    assert len(r["messages"]) == 1 and r["messages"][0]["hit"]


def test_context_of_a_signal_call_and_errors(loaded, seats):
    call = first_hit(loaded, seats["owner"], "garmisch")
    r = valid("get_context", get_context(loaded, seats["owner"], call["id"]))
    assert sum(m["hit"] for m in r["messages"]) == 1
    with pytest.raises(NotFound, match="m_nope"):
        get_context(loaded, seats["owner"], "m_nope")
    for kw in ({"before": -1}, {"after": 51}):
        with pytest.raises(ArgumentError, match="0 to 50"):
            get_context(loaded, seats["owner"], call["id"], **kw)


# ---------------------------------------------------------------------- get_conversation_context


def item_cost(item):
    """SPEC: ceil(bytes / 4) of the compact UTF-8 JSON the client receives."""
    return math.ceil(len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) / 4)


@pytest.mark.parametrize("budget", [50, 120, 300, 700, 2000, 100_000])
def test_conversation_context_fits_the_budget_exactly(loaded, seats, budget):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    r = valid("get_conversation_context",
              get_conversation_context(loaded, seats["owner"], lena, token_budget=budget))
    assert r["approx_tokens"] == sum(item_cost(i) for i in r["items"]) <= budget
    assert r["items_included"] == len(r["items"])
    total = LONG_CHAT_MESSAGES + 5
    assert r["items_included"] + r["items_omitted"] == total
    assert r["has_more_older"] == (r["items_omitted"] > 0)
    stamps = [datetime.fromisoformat(i["timestamp"]) for i in r["items"]]
    assert stamps == sorted(stamps, reverse=True)
    assert "memory" not in r


def test_conversation_context_query_pulls_older_matches_and_since_bounds(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    plain = get_conversation_context(loaded, seats["owner"], lena, token_budget=300)
    assert all("number 3 " not in i["text"] for i in plain["items"])
    r = get_conversation_context(loaded, seats["owner"], lena, token_budget=300, query='"number 3"')
    assert any("update number 3 " in i["text"] for i in r["items"])
    assert r["approx_tokens"] <= 300
    since = get_conversation_context(loaded, seats["owner"], lena, since="2024-02-19", token_budget=100_000)
    assert since["items_omitted"] == 0 and not since["has_more_older"]
    assert all(i["timestamp"] >= "2024-02-19" for i in since["items"])


def test_conversation_context_calls_carry_summary_or_transcript_excerpt(loaded, seats):
    family = chat_source(loaded, "Family", "whatsapp")
    r = valid("get_conversation_context", get_conversation_context(loaded, seats["owner"], family))
    call = next(i for i in r["items"] if i["type"] == "call")
    assert call["direction"] == "missed" and call["text"].startswith("No summary here")
    assert len(call["text"]) <= 600 and call["text"].endswith("…")
    hiking = chat_source(loaded, "Hiking club", "telegram")
    r = get_conversation_context(loaded, seats["owner"], hiking)
    assert any(i["type"] == "call" and "cable car" in i["text"] for i in r["items"])


def test_conversation_context_unknown_and_argument_errors(loaded, seats):
    with pytest.raises(NotFound, match="s_nope"):
        get_conversation_context(loaded, seats["owner"], "s_nope")
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    with pytest.raises(ArgumentError, match="token_budget must be from 50 to 100000"):
        get_conversation_context(loaded, seats["owner"], lena, token_budget=10)
    with pytest.raises(ArgumentError, match="since"):
        get_conversation_context(loaded, seats["owner"], lena, since="last week")


def test_memory_statuses_never_fail_the_call(fresh, seats):
    owner = seats["owner"]
    hiking = chat_source(fresh, "Hiking club", "telegram")

    def memory():
        r = valid("get_conversation_context",
                  get_conversation_context(fresh, owner, hiking, include_memory=True))
        return r["memory"]

    assert memory() == {"status": "missing"}
    ctx = get_conversation_context(fresh, owner, hiking)
    newest = ctx["items"][0]["call_id"]
    older = ctx["items"][2]["id"]
    saved = valid("save_memory", save_memory(fresh, owner, hiking, "Hike: meet at the cable car.", [older]))
    assert saved["version"] == 1
    m = memory()
    # just saved: fresh, though two items are newer than what it cites (SPEC "Memory")
    assert m["status"] == "ok" and m["freshness"]["messages_since"] == 0 and m["cites"] == [older]
    save_memory(fresh, owner, hiking, "Hike moved: meet at the cable car at 8:30.", [older, newest])
    m = memory()
    assert m["status"] == "ok" and m["version"] == 2 and m["freshness"]["messages_since"] == 0
    assert m["token_count"] == math.ceil(len(m["text"]) / 4)
    valid("pause_memory", pause_memory(fresh, owner, hiking))
    assert memory() == {"status": "paused"}
    pause_memory(fresh, owner, hiking, paused=False)
    assert memory()["status"] == "ok"
    off = valid("get_conversation_context",
                get_conversation_context(fresh, seats["assistant"], hiking, include_memory=True))
    assert off["memory"]["status"] == "ok"  # the assistant seat has memory on
    from dataclasses import replace

    no_memory = replace(seats["assistant"], memory=False)
    assert get_conversation_context(fresh, no_memory, hiking, include_memory=True)["memory"] == {"status": "off"}


def test_save_memory_rules(fresh, seats):
    owner = seats["owner"]
    hiking = chat_source(fresh, "Hiking club", "telegram")
    lena = chat_source(fresh, "Lena Vogel", "whatsapp")
    other = first_hit(fresh, owner, "lorem", source=lena)["id"]
    with pytest.raises(ArgumentError, match="cites"):
        save_memory(fresh, owner, hiking, "text", [other])
    with pytest.raises(ArgumentError, match="cites"):
        save_memory(fresh, owner, hiking, "text", [])
    with pytest.raises(PermissionDenied):
        save_memory(fresh, seats["assistant"], hiking, "text", [other])


def test_memory_text_is_masked_for_seats_without_secrets(fresh, seats):
    lena = chat_source(fresh, "Lena Vogel", "whatsapp")
    cite = first_hit(fresh, seats["owner"], "wifi")["id"]
    save_memory(fresh, seats["owner"], lena, "Cabin wifi password: Sommer2024!", [cite])
    notebook = get_conversation_context(fresh, seats["notebook"], lena, include_memory=True)["memory"]
    assert "Sommer2024" not in notebook["text"] and "password: [masked]" in notebook["text"]
    owner = get_conversation_context(fresh, seats["owner"], lena, include_memory=True)["memory"]
    assert "Sommer2024!" in owner["text"]


# ---------------------------------------------------------------------- history and agent sessions


def test_history_of_an_imported_chat(loaded, seats):
    family = chat_source(loaded, "Family", "whatsapp")
    r = valid("get_conversation_history", get_conversation_history(loaded, seats["owner"], family, max_turns=3))
    assert r["totalTurns"] == 4 and r["subject"] == "Family" and not r["isExpired"]
    assert [t["turnNumber"] for t in r["turns"]] == [2, 3, 4]
    assert [t["role"] for t in r["turns"]] == ["system", "user", "system"]  # event, message, call
    assert r["turns"][1]["content"].startswith("Dad: G-482913")
    assert r["turns"][1]["refs"][0].startswith("m_") and r["turns"][2]["refs"][0].startswith("c_")
    assert history_to_messages(r["turns"]) == [{"role": "user", "content": r["turns"][1]["content"]}]


def test_history_unknown_conversation_is_empty_not_an_error(loaded, seats):
    r = valid("get_conversation_history", get_conversation_history(loaded, seats["owner"], "s_unknown"))
    assert r == {"turns": [], "totalTurns": 0, "subject": None, "isExpired": False}
    with pytest.raises(ArgumentError, match="max_turns must be from 1 to 50"):
        get_conversation_history(loaded, seats["owner"], "s_unknown", max_turns=0)


def test_agent_session_turns_are_logged_searchable_and_expire(fresh, seats):
    notebook = seats["notebook"]
    started = valid("start_conversation", start_conversation(fresh, notebook, subject="Trip planning"))
    cid = started["conversation_id"]
    ref = first_hit(fresh, notebook, "thermos")["id"]
    turns = [("system", "You plan trips."), ("user", "What did Ben bring to the Zugspitze hike?"),
             ("assistant", "Ben brought a thermos of quinoa-flavoured coffee.")]
    for n, (role, content) in enumerate(turns, 1):
        logged = valid("log_conversation_turn",
                       log_conversation_turn(fresh, notebook, cid, role, content, refs=[ref]))
        assert logged["turnNumber"] == n and logged["id"].startswith("t_")
    h = valid("get_conversation_history", get_conversation_history(fresh, notebook, cid))
    assert [t["role"] for t in h["turns"]] == ["system", "user", "assistant"]
    assert h["totalTurns"] == 3 and h["subject"] == "Trip planning" and h["turns"][2]["refs"] == [ref]
    assert [m["role"] for m in history_to_messages(h["turns"])] == ["user", "assistant"]
    found = search_memory(fresh, notebook, "quinoa")
    assert found["total"] == 1 and found["results"][0]["platform"] == "agent"
    assert found["results"][0]["source"] == cid

    # past the retention period: no turns, isExpired, subject kept
    with fresh.write() as conn:
        conn.execute(update(Chat).where(Chat.id == cid).values(
            created_at=datetime.utcnow() - timedelta(days=fresh.config.retention_days + 1)))
    h = valid("get_conversation_history", get_conversation_history(fresh, notebook, cid))
    assert h["turns"] == [] and h["isExpired"] and h["subject"] == "Trip planning"


def test_agent_session_write_rules(fresh, seats):
    with pytest.raises(PermissionDenied):
        start_conversation(fresh, seats["assistant"])
    cid = start_conversation(fresh, seats["notebook"])["conversation_id"]
    with pytest.raises(ArgumentError, match="role must be one of user, assistant, system"):
        log_conversation_turn(fresh, seats["notebook"], cid, "robot", "hi")
    with pytest.raises(ArgumentError, match="refs"):
        log_conversation_turn(fresh, seats["notebook"], cid, "user", "hi", refs="m_1")
    with pytest.raises(NotFound):
        log_conversation_turn(fresh, seats["notebook"], "s_unknown", "user", "hi")
