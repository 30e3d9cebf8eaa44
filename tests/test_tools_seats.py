"""Seats: an out-of-scope chat leaks through no tool, by content, id, count or snippet, and an
out-of-scope id gets exactly the answer an unknown id gets."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import select
from tool_helpers import LONG_CHAT_MESSAGES, valid

from chatmem.errors import ChatmemError, NotFound
from chatmem.store.models import Attachment, Call, Chat, Message
from chatmem.tools.api import READ_TOOLS, TOOLS
from chatmem.tools.chats import list_chats
from chatmem.tools.search import search_memory

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, fresh, seats

# words only the hidden chats contain: the dentist reminders (both platforms) and iMessage chats
HIDDEN_WORDS = ["Zahnstein", "739201", "Praxis Weiss", "Dr. Weiss", "Dentist"]


def hidden(store, seat):
    """Every id and every message text of the chats `seat` may not read."""
    from chatmem.store.scope import chat_filter

    with store.read() as conn:
        chats = conn.execute(select(Chat.id, Chat.name).where(~chat_filter(seat))).all()
        chat_ids = [c.id for c in chats]
        msgs = conn.execute(select(Message.id, Message.text).where(Message.chat_id.in_(chat_ids))).all()
        calls = [r.id for r in conn.execute(select(Call.id).where(Call.chat_id.in_(chat_ids)))]
        atts = [r.id for r in conn.execute(select(Attachment.id).where(
            Attachment.message_id.in_([m.id for m in msgs])))]
    return chats, [m.id for m in msgs], calls, atts, [m.text for m in msgs if len(m.text) > 12]


def every_read(store, seat, visible_source):
    """Results of every read tool, with queries that would find the hidden chats."""
    out = []
    for q in ["lorem", "code", "zahnstein", "appointment", "dentist", "weiss", "reminder*", "climbing", "hi"]:
        try:
            out.append(search_memory(store, seat, q, limit=50))
        except ChatmemError:
            pass
    out.append(list_chats(store, seat, limit=500))
    out.append(list_chats(store, seat, query="dentist"))
    for tool, kw in [("get_conversation_context", {"conversation_id": visible_source, "token_budget": 100_000,
                                                   "include_memory": True}),
                     ("get_conversation_history", {"conversation_id": visible_source, "max_turns": 50})]:
        out.append(TOOLS[tool](store, seat, **kw))
    return out


def test_the_assistant_sees_nothing_of_excluded_chats(loaded, seats):
    seat = seats["assistant"]
    chats, msg_ids, call_ids, att_ids, texts = hidden(loaded, seat)
    names = {c.name for c in chats}
    assert {"Dentist reminders", "Climbing crew"} <= names  # excluded by name, and iMessage by platform
    visible = [c["source"] for c in list_chats(loaded, seat, limit=500)["chats"]]
    blob = json.dumps([every_read(loaded, seat, s) for s in visible], ensure_ascii=False)
    for value in [*(c.id for c in chats), *msg_ids, *call_ids, *att_ids, *texts, *HIDDEN_WORDS]:
        assert value not in blob, value
    # counts too: lorem is in the long chat, Family and the excluded dentist chat
    assert search_memory(loaded, seat, "lorem", limit=50)["total"] == LONG_CHAT_MESSAGES + 1
    assert search_memory(loaded, seats["owner"], "lorem", limit=50)["total"] == LONG_CHAT_MESSAGES + 2
    assert search_memory(loaded, seat, "zahnstein")["total"] == 0
    assert all(c["platform"] in seat.platforms for c in list_chats(loaded, seat, limit=500)["chats"])


def _answer(fn, arg):
    try:
        return ("result", fn(arg))
    except ChatmemError as e:
        return (type(e).__name__, str(e))


def _same_answer(a, b, id_a, id_b):
    """Two answers are the same once the id asked about is replaced by a placeholder."""
    return json.dumps(a).replace(id_a, "ID") == json.dumps(b).replace(id_b, "ID")


def test_out_of_scope_ids_answer_exactly_like_unknown_ids(fresh, seats):
    owner = seats["owner"]
    # a restricted seat that may write, so the write tools are checked too
    seat = replace(seats["assistant"], write=True, memory=True, platforms=["whatsapp", "signal", "telegram",
                                                                           "agent"])
    chats, msg_ids, call_ids, att_ids, _ = hidden(fresh, seat)
    dentist = next(c.id for c in chats if c.name == "Dentist reminders")
    with fresh.read() as conn:
        dentist_msg = conn.execute(select(Message.id).where(Message.chat_id == dentist)).scalars().first()
    # something the owner saved there, so a memory id exists out of scope
    mem = TOOLS["save_memory"](fresh, owner, dentist, "Cleaning booked", [dentist_msg])["id"]
    # every kind of id: chat, message, call, attachment, memory (and the fake ones of the same shape)
    cases = [(dentist, "s_0000000000000000"), (dentist_msg, "m_0000000000000000"),
             (msg_ids[-1], "m_1111111111111111"),
             (call_ids[0], "c_0000000000000000"), (att_ids[0], "a_0000000000000000"),
             (mem, "mem_0000000000000000")]
    for hidden_id, unknown_id in cases:
        for name, call in [
            ("get_context", lambda i: TOOLS["get_context"](fresh, seat, i)),
            ("read_raw_data", lambda i: TOOLS["read_raw_data"](fresh, seat, i)),
            ("get_conversation_context", lambda i: TOOLS["get_conversation_context"](fresh, seat, i,
                                                                                     include_memory=True)),
            ("get_conversation_history", lambda i: TOOLS["get_conversation_history"](fresh, seat, i)),
            ("search_memory", lambda i: TOOLS["search_memory"](fresh, seat, "lorem OR code", source=i)),
            ("save_memory", lambda i: TOOLS["save_memory"](fresh, seat, i, "x", [i])),
            ("log_conversation_turn", lambda i: TOOLS["log_conversation_turn"](fresh, seat, i, "user", "x")),
        ]:
            a, b = _answer(call, hidden_id), _answer(call, unknown_id)
            if a[0] == "result":
                a[1].pop("server_ms", None)
                b[1].pop("server_ms", None)
            assert _same_answer(a, b, hidden_id, unknown_id), (name, hidden_id, a, b)
    # and the owner does read them
    assert TOOLS["read_raw_data"](fresh, owner, msg_ids[0])["ok"]
    with pytest.raises(NotFound):
        TOOLS["get_context"](fresh, seat, msg_ids[0])


def test_every_read_tool_is_registered(seats):
    assert READ_TOOLS <= set(TOOLS)
    assert {"start_conversation", "log_conversation_turn", "save_memory"} <= set(TOOLS) - READ_TOOLS


def test_masking_applies_in_every_tool_for_seats_without_secrets(loaded, seats):
    seat = seats["assistant"]
    wifi = search_memory(loaded, seats["owner"], "wifi")["results"][0]
    assert "Sommer2024!" in wifi["content"]
    results = [
        valid("search_memory", search_memory(loaded, seat, "wifi")),
        valid("get_context", TOOLS["get_context"](loaded, seat, wifi["id"])),
        valid("get_conversation_context", TOOLS["get_conversation_context"](loaded, seat, wifi["source"])),
        valid("get_conversation_history", TOOLS["get_conversation_history"](loaded, seat, wifi["source"])),
        valid("read_raw_data", TOOLS["read_raw_data"](loaded, seat, wifi["id"])),
    ]
    blob = json.dumps(results, ensure_ascii=False)
    assert "Sommer2024" not in blob and "password: [masked]" in blob
