"""A chat with hundreds of calls among its messages reads the same turns and items as the
chat order says, at every depth: the history's window at an offset (found without reading the
skipped turns) and the conversation context's calls (read a page at a time, older calls only
as many as the budget can take). Order of a chat: newest first; at the same time a message
comes before a call, messages by ordinal, calls by id."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select
from tool_helpers import jsonl_store, jsonl_store_fixture

from chatmem.config import load_config
from chatmem.store import Store
from chatmem.store.models import Call, Message
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.history import get_conversation_history

START = datetime(2024, 1, 30, 8, 0)



def _lines() -> list[dict]:
    """450 messages and 330 calls over three months: calls at a message's very minute, two calls
    at one minute, runs of calls with no message between them."""
    out: list[dict] = []
    for i in range(450):
        when = START + timedelta(hours=5 * i)
        out.append({"platform": "whatsapp", "chat": "Anna Berg", "sender": "Anna Berg" if i % 2 else "Sam Rivera",
                    "guid": f"m-{i}", "timestamp": f"{when:%Y-%m-%dT%H:%M:%S}+00:00",
                    "text": f"message {i} about the garden"})
        calls = 1 if i % 3 else 0
        if i % 7 == 0:
            calls += 2  # two calls in the same minute as the message
        if 100 <= i < 130:
            calls += 3  # a run of calls between two messages
        for k in range(calls):
            at = when + timedelta(minutes=0 if i % 7 == 0 else 30 + k)
            out.append({"type": "call", "platform": "whatsapp", "chat": "Anna Berg",
                        "id": f"c_{i:04d}{k}", "timestamp": f"{at:%Y-%m-%dT%H:%M:%S}+00:00",
                        "direction": ("incoming", "outgoing", "missed")[(i + k) % 3],
                        "peer": "Anna Berg", "summary": f"call {i}.{k} about seedlings"})
    return out


store = jsonl_store_fixture("calls", _lines)


def chat_order(store: Store) -> tuple[str, list[str]]:
    """(chat id, every message and call id of the chat, newest first) from the tables."""
    mt, ct = Message.__table__, Call.__table__
    with store.read() as conn:
        rows = conn.execute(select(mt.c.chat_id, mt.c.id, mt.c.sent_at, mt.c.ordinal)).all()
        chat_id = rows[0].chat_id
        keyed = [((r.sent_at, 1, r.ordinal, r.id), r.id) for r in rows]
        keyed += [((c.started_at, 0, 0, c.id), c.id) for c in conn.execute(select(ct.c.id, ct.c.started_at))]
    return chat_id, [i for _, i in sorted(keyed, reverse=True)]


@pytest.mark.parametrize("max_turns", [1, 10, 50])
def test_history_at_every_depth_is_the_chat_order(store, max_turns):
    chat_id, order = chat_order(store)
    total = len(order)
    offsets = sorted({0, 1, 2, 3, 7, 49, 50, 199, 200, 333, 480, 517, 650, total - 51, total - 10, total - 1})
    for offset in offsets:
        r = get_conversation_history(store, store.config.seat(None), chat_id, max_turns=max_turns, offset=offset)
        assert r["totalTurns"] == total
        got = [t["refs"][0] for t in reversed(r["turns"])]  # newest first
        assert got == order[offset:offset + max_turns], offset
        numbers = [t["turnNumber"] for t in r["turns"]]
        assert numbers == list(range(total - offset - len(got) + 1, total - offset + 1))


def test_context_shows_every_call_when_the_budget_allows(store):
    chat_id, order = chat_order(store)
    r = get_conversation_context(store, store.config.seat(None), chat_id, token_budget=100_000)
    ids = [i.get("id") or i.get("call_id") for i in r["items"]]
    assert ids == order  # more calls than one page of reads: all of them, in chat order
    assert r["items_omitted"] == 0


def test_context_window_deep_in_a_chat_of_many_calls(store):
    chat_id, order = chat_order(store)
    anchor = order[400]
    r = get_conversation_context(store, store.config.seat(None), chat_id, token_budget=600, before=anchor)
    ids = [i.get("id") or i.get("call_id") for i in r["items"]]
    older = order[401:]
    assert ids and set(ids) <= set(older)
    # the newest older items come first, then older calls that also deserve a place
    newest = [i for i in older if i in ids]
    assert ids == newest
    assert ids[:3] == older[:3]
    assert r["items_included"] + r["items_omitted"] == len(older)
    assert r["approx_tokens"] <= 600
    assert r["has_more_older"]


def test_context_before_a_call_counts_and_shows_only_what_is_older(store):
    chat_id, order = chat_order(store)
    # calls at a message's minute, several in one minute (c_0007k: three at message 7's minute)
    anchors = [i for i in order if i.startswith("c_")][::37] + ["c_00070", "c_00071", "c_00072", "c_01052", "c_03501"]
    for anchor in anchors:
        older = order[order.index(anchor) + 1:]
        r = get_conversation_context(store, store.config.seat(None), chat_id, token_budget=800, before=anchor)
        ids = [i.get("id") or i.get("call_id") for i in r["items"]]
        assert ids and set(ids) <= set(older), anchor
        assert ids[:2] == older[:2], anchor
        assert r["items_included"] + r["items_omitted"] == len(older), anchor


def _gaps() -> list[dict]:
    """Messages in January and March only, a February of calls alone, calls before the first
    and after the last message, several calls at one message's time."""
    out: list[dict] = []

    def message(i: int, when: datetime) -> None:
        out.append({"platform": "whatsapp", "chat": "Ines Vogel", "sender": "Ines Vogel" if i % 2 else "Sam Rivera",
                    "guid": f"g-{i}", "timestamp": f"{when:%Y-%m-%dT%H:%M:%S}+00:00", "text": f"note {i}"})

    def call(k: int, when: datetime) -> None:
        out.append({"type": "call", "platform": "whatsapp", "chat": "Ines Vogel", "id": f"c_g{k:03d}",
                    "timestamp": f"{when:%Y-%m-%dT%H:%M:%S}+00:00", "direction": "incoming", "peer": "Ines Vogel"})

    call(0, datetime(2023, 12, 31, 23, 59))
    for i in range(20):
        message(i, datetime(2024, 1, 3 + i, 9, 0))
        if i % 4 == 0:
            for k in range(3):  # three calls at the message's very time
                call(10 + 3 * i + k, datetime(2024, 1, 3 + i, 9, 0))
    for k in range(12):
        call(100 + k, datetime(2024, 2, 1 + 2 * k, 18, 0))
    for i in range(20, 35):
        message(i, datetime(2024, 3, 1, 8, 0) + timedelta(days=i - 20))
    call(200, datetime(2024, 3, 31, 23, 0))
    return out


gaps = jsonl_store_fixture("gaps", _gaps)


def test_history_at_every_offset_across_months_of_calls_alone(gaps):
    chat_id, order = chat_order(gaps)
    total = len(order)
    for max_turns in (1, 4):
        for offset in range(total + 2):
            r = get_conversation_history(gaps, gaps.config.seat(None), chat_id, max_turns=max_turns, offset=offset)
            got = [t["refs"][0] for t in reversed(r["turns"])]
            assert got == order[offset:offset + max_turns], (max_turns, offset)


def test_a_store_from_before_the_calls_index_reads_the_same_and_gets_it(tmp_path):
    from sqlalchemy import inspect, text

    s = jsonl_store(tmp_path, _gaps(), "timezone: UTC\n")
    chat_id, order = chat_order(s)
    with s.engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_calls_chat_time"))  # as a store written before it
    s.close()
    db = tmp_path / "home" / "chatmem.db"
    db.chmod(0o400)  # read-only: the index cannot be made, reads go on without it
    try:
        ro = Store.open(tmp_path / "home", load_config(tmp_path / "config.yaml"), create=False)
        assert ro.read_only
        r = get_conversation_history(ro, ro.config.seat(None), chat_id, max_turns=5, offset=17)
        assert [t["refs"][0] for t in reversed(r["turns"])] == order[17:22]
        ro.close()
    finally:
        db.chmod(0o600)
    rw = Store.open(tmp_path / "home", load_config(tmp_path / "config.yaml"), create=False)  # a read
    with rw.engine.connect() as conn:
        assert "ix_calls_chat_time" in {ix["name"] for ix in inspect(conn).get_indexes("calls")}
    r = get_conversation_history(rw, rw.config.seat(None), chat_id, max_turns=5, offset=17)
    assert [t["refs"][0] for t in reversed(r["turns"])] == order[17:22]
    rw.close()
