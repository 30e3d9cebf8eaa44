"""A JSON Lines archive may give its messages and calls ids of its own ("call-7", "42"), which
chatmem keeps. Those ids work wherever an id is asked for: as `before=` of the conversation
context and in read_raw_data, as the m_/c_ ids of the other importers do."""

from __future__ import annotations

import pytest
from tool_helpers import jsonl_store_fixture

from chatmem.errors import ArgumentError
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.raw import read_raw_data


def _lines() -> list[dict]:
    out: list[dict] = [{"type": "chat", "platform": "whatsapp", "chat": "Anna Berg"}]
    for i in range(12):
        out.append({"platform": "whatsapp", "chat": "Anna Berg", "id": f"{40 + i}",
                    "sender": "Anna Berg" if i % 2 else "me",
                    "timestamp": f"2024-02-{i + 1:02d}T10:00:00+00:00", "text": f"note {i} about the garden"})
        if i in (3, 8):
            out.append({"type": "call", "platform": "whatsapp", "chat": "Anna Berg", "id": f"call-{i}",
                        "timestamp": f"2024-02-{i + 1:02d}T12:00:00+00:00", "direction": "incoming",
                        "peer": "Anna Berg", "summary": f"call {i} about seedlings"})
    return out


store = jsonl_store_fixture("own_ids", _lines)


def _chat(store) -> str:
    from chatmem.tools.chats import list_chats
    return list_chats(store, store.config.seat(None))["chats"][0]["source"]


def _ids(result: dict) -> list[str]:
    return [i.get("id") or i.get("call_id") for i in result["items"]]


def test_a_call_id_of_the_file_is_a_place_in_the_conversation(store):
    r = get_conversation_context(store, store.config.seat(None), _chat(store), token_budget=2000, before="call-8")
    ids = _ids(r)
    assert "call-8" not in ids and "48" in ids and "49" not in ids  # what is older than the call, only
    assert ids[0] == "48" and "call-3" in ids


def test_a_message_id_of_the_file_is_a_place_in_the_conversation(store):
    r = get_conversation_context(store, store.config.seat(None), _chat(store), token_budget=2000, before="45")
    assert _ids(r)[:3] == ["44", "call-3", "43"] and "45" not in _ids(r)


def test_neither_an_id_nor_a_time_says_both(store):
    with pytest.raises(ArgumentError, match="id of an item of this conversation or an ISO time"):
        get_conversation_context(store, store.config.seat(None), _chat(store), before="call-99")


def test_read_raw_data_reads_a_call_by_the_id_its_file_gave(store):
    r = read_raw_data(store, store.config.seat(None), "call-3")
    assert r["type"] == "call" and "call 3 about seedlings" in r["content"]
