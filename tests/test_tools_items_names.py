"""Issue 15, dead ends: names as people say them, items that say what they are, one naming
everywhere, reading older windows of a conversation, and the MCP arguments checked in our words."""

from __future__ import annotations

import math
from datetime import datetime

import anyio
import pytest
from mcp import Client
from tool_helpers import LONG_CHAT_MESSAGES, chat_source, valid

from chatmem.errors import ArgumentError
from chatmem.tools.chats import list_chats
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.history import get_conversation_history
from chatmem.tools.mcp.server import build_server
from chatmem.tools.memory import save_memory
from chatmem.tools.neighbours import get_context
from chatmem.tools.raw import read_raw_data
from chatmem.tools.search import search_memory
from chatmem.tools.tokens import approx_tokens, compact

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, fresh, seats

# ---------------------------------------------------------------------- names


@pytest.mark.parametrize("said", ["Anna", "anna", "ANNA BERG", "berg", "+1 555 010 0001", "0100001"])
def test_a_person_by_first_name_part_handle_or_any_case(loaded, seats, said):
    """Regression: `person: "Anna"` silently returned nothing; only the full name worked."""
    full = search_memory(loaded, seats["owner"], "", person="Anna Berg", limit=50)
    r = valid("search_memory", search_memory(loaded, seats["owner"], "", person=said, limit=50))
    assert r["total"] == full["total"] > 0
    assert r["people_matched"] == [{"person": full["people_matched"][0]["person"], "name": "Anna Berg"}]


def test_accents_and_senders_by_first_name(loaded, seats):
    r = search_memory(loaded, seats["owner"], "", person="chloe")
    assert [p["name"] for p in r["people_matched"]] == ["Chloé Dubois"] and r["total"] >= 1
    lena = search_memory(loaded, seats["owner"], "lorem", sender="Lena")
    assert lena["total"] > 0 and {x["sender"] for x in lena["results"]} == {"Lena Vogel"}


def test_the_owner_by_configured_name_is_me(loaded, seats):
    """Regression: once the config names the owner, only `sender: "me"` found their messages."""
    me = search_memory(loaded, seats["owner"], "lorem", sender="me", limit=50)
    by_name = search_memory(loaded, seats["owner"], "lorem", sender="Sam Rivera", limit=50)
    assert by_name["total"] == me["total"] > 0
    assert by_name["people_matched"] == [{"person": "me", "name": "me"}]


def test_nobody_by_that_name_is_an_error_naming_the_closest(loaded, seats):
    with pytest.raises(ArgumentError, match="Lena Vogel"):
        search_memory(loaded, seats["owner"], "lorem", person="Lenna Vogl")
    with pytest.raises(ArgumentError, match="nobody called 'Zzyzx'"):
        search_memory(loaded, seats["owner"], "lorem", sender="Zzyzx")


# ---------------------------------------------------------------------- items that say something


def message_id(store, text: str) -> str:
    return search_memory(store, store.config.seat(None), f'"{text}"')["results"][0]["id"]


def test_media_deleted_replies_and_system_notices_say_what_they_are(loaded, seats):
    owner = seats["owner"]
    photo = message_id(loaded, "The view from the top")
    around = valid("get_context", get_context(loaded, owner, photo, before=50, after=50))["messages"]
    hit = next(m for m in around if m["hit"])
    assert hit["kind"] == "media" and {"name": "trail.jpg", "type": "image/jpeg"} in [
        {k: a[k] for k in ("name", "type")} for a in hit["attachments"]]
    assert "trail.jpg" in hit["content"]
    deleted = [m for m in around if m["deleted"]]
    assert deleted and all(m["kind"] == "deleted" and "(deleted)" in m["content"] for m in deleted)
    replies = [m for m in around if "reply_to" in m]
    assert replies and all(m["reply_to"]["id"].startswith("m_") and m["reply_to"]["quote"] for m in replies)

    family = chat_source(loaded, "Family", "whatsapp")
    ctx = valid("get_conversation_context", get_conversation_context(loaded, owner, family))
    notice = next(i for i in ctx["items"] if i.get("kind") == "system")
    assert notice["sender"] == "system" and notice["text"] == "Dad added Lena Vogel"
    assert all(i["kind"] == "call" for i in ctx["items"] if i["type"] == "call")


def test_one_naming_everywhere(loaded, seats):
    """Regression: read_raw_data said "+15550100001 in +15550100001", list_chats listed handles."""
    owner = seats["owner"]
    crew = next(c for c in list_chats(loaded, owner, query="Climbing")["chats"])
    assert "Anna Berg" in crew["participants"] and "+15550100001" not in crew["participants"]
    msg = search_memory(loaded, owner, "", person="Anna Berg", platform="imessage", limit=1)["results"][0]
    title = read_raw_data(loaded, owner, msg["id"])["title"]
    assert title.startswith(f"Anna Berg in {msg['chat']}") and "+1555" not in title


# ---------------------------------------------------------------------- conversation windows and budgets


def test_older_windows_lead_all_the_way_back(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    seen, before = [], None
    for _ in range(50):
        r = valid("get_conversation_context",
                  get_conversation_context(loaded, seats["owner"], lena, token_budget=300, before=before))
        assert r["items"], "has_more_older promised a window that is empty"
        seen += [i["id"] for i in r["items"]]
        if not r["has_more_older"]:
            break
        before = r["items"][-1]["id"]
    assert len(seen) == len(set(seen)) == LONG_CHAT_MESSAGES + 5


def test_a_date_range_of_a_conversation(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    r = get_conversation_context(loaded, seats["owner"], lena, since="2024-01-20", before="2024-01-25",
                                 token_budget=100_000)
    days = sorted(datetime.fromisoformat(i["timestamp"]).day for i in r["items"])
    assert days == [20, 21, 22, 23, 24] and not r["has_more_older"]
    with pytest.raises(ArgumentError, match="before"):
        get_conversation_context(loaded, seats["owner"], lena, before="m_notinthischat")


def test_counts_are_utf8_not_ascii_escaped(fresh, seats, tmp_path):
    """Regression: Cyrillic counted as \\u escapes (6 characters a letter) returned nothing at 50."""
    from chatmem.importers import find_sources

    path = tmp_path / "ru.jsonl"
    lines = [{"type": "chat", "platform": "telegram", "chat": "Дача", "group": False}]
    lines += [{"platform": "telegram", "chat": "Дача", "sender": "Ольга", "timestamp": f"2024-05-0{d}T10:00:00+03:00",
               "text": "Привет, мы едем на дачу в субботу"} for d in range(1, 6)]
    path.write_text("".join(compact(x) + "\n" for x in lines), encoding="utf-8")
    fresh.import_sources(find_sources(path, "jsonl"))
    dacha = chat_source(fresh, "Дача", "telegram")
    r = get_conversation_context(fresh, seats["owner"], dacha, token_budget=100)
    assert r["items_included"] >= 1
    assert r["approx_tokens"] == sum(math.ceil(len(compact(i).encode()) / 4) for i in r["items"]) <= 100


def test_the_memory_text_counts_in_the_budget(fresh, seats):
    owner = seats["owner"]
    lena = chat_source(fresh, "Lena Vogel", "whatsapp")
    cite = get_conversation_context(fresh, owner, lena)["items"][0]["id"]
    save_memory(fresh, owner, lena, "Lena plans the garden; " * 40, [cite])
    r = get_conversation_context(fresh, owner, lena, token_budget=400, include_memory=True)
    memory_cost = approx_tokens(compact(r["memory"]))
    assert r["approx_tokens"] == memory_cost + sum(approx_tokens(compact(i)) for i in r["items"]) <= 400
    tiny = get_conversation_context(fresh, owner, lena, token_budget=50, include_memory=True)
    # the memory alone is over the budget: it comes shortened (down to what it is), and says so
    assert tiny["approx_tokens"] <= 50 and tiny["memory"]["text_cut"] is True
    assert tiny["memory"]["status"] == "ok" and tiny["memory"].get("text", "…").endswith("…")
    mid = get_conversation_context(fresh, owner, lena, token_budget=150, include_memory=True)
    assert mid["approx_tokens"] <= 150 and mid["memory"]["text_cut"] is True
    assert mid["memory"]["text"].startswith("Lena plans") and mid["memory"]["text"].endswith("…")


# ---------------------------------------------------------------------- MCP arguments in our words


def mcp_calls(store, seat, calls: list[tuple[str, dict]]) -> list:
    async def go():
        async with Client(build_server(store, seat)) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return listed, [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_arguments_are_checked_in_our_words(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    listed, (camel, typo_name, typo_platform, any_case, bad_type, bad_sort) = mcp_calls(loaded, seats["owner"], [
        ("get_conversation_history", {"conversationId": lena, "maxTurns": 2}),
        ("get_conversation_history", {"conversation_id": lena, "max_turn": 2}),
        ("list_chats", {"platform": "imesage"}),
        ("list_chats", {"platform": "iMessage"}),
        ("search_memory", {"query": "lorem", "limit": "5"}),
        ("search_memory", {"query": "lorem", "sort": "olderst"}),
    ])
    # the seed's camelCase names work, and maxTurns is honoured (regression: 10 turns came back)
    assert not camel.is_error and len(camel.structured_content["turns"]) == 2
    errors = [typo_name, typo_platform, bad_type, bad_sort]
    assert all(e.is_error for e in errors)
    texts = [e.content[0].text for e in errors]
    assert not any("pydantic" in t for t in texts)
    assert "no argument 'max_turn'" in texts[0] and "max_turns" in texts[0]
    assert "did you mean 'imessage'" in texts[1]
    assert "limit must be a whole number from 1 to 50" in texts[2]
    assert "sort must be one of relevance, newest, oldest" in texts[3]
    assert not any_case.is_error and {c["platform"] for c in any_case.structured_content["chats"]} == {"imessage"}
    platform = listed["list_chats"].input_schema["properties"]["platform"]
    assert {"imessage", "whatsapp", "signal", "agent"} <= set(platform["anyOf"][0]["enum"])


def test_library_platform_checks_for_the_cli_too(loaded, seats):
    assert {c["platform"] for c in list_chats(loaded, seats["owner"], platform="WhatsApp")["chats"]} == {"whatsapp"}
    with pytest.raises(ArgumentError, match="did you mean 'whatsapp'"):
        search_memory(loaded, seats["owner"], "lorem", platform="whatsap")
    assert get_conversation_history(loaded, seats["owner"], "s_none", offset=3)["turns"] == []
