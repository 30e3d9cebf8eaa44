"""Issue 15, what a seat may count and reach: exact search totals and paging, seat-scoped
`people` and `stats` on the CLI, memory staleness, expired agent sessions gone from every tool,
validated `refs`, history paging."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from sqlalchemy import update
from tool_helpers import CONFIG, LONG_CHAT_MESSAGES, chat_source, valid

from chatmem.errors import ArgumentError, NotFound
from chatmem.importers import find_sources
from chatmem.store.models import Chat
from chatmem.tools.chats import list_chats
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.history import (
    get_conversation_history,
    log_conversation_turn,
    start_conversation,
)
from chatmem.tools.memory import save_memory
from chatmem.tools.neighbours import get_context
from chatmem.tools.raw import read_raw_data
from chatmem.tools.search import search_memory

pytest_plugins = ["tool_helpers"]  # fixtures: loaded, fresh, seats


# ---------------------------------------------------------------------- search totals and paging


def all_pages(store, seat, query, **kw) -> tuple[list[str], int]:
    ids, offset, total = [], 0, None
    while True:
        r = valid("search_memory", search_memory(store, seat, query, limit=7, offset=offset, **kw))
        total = r["total"] if total is None else total
        assert r["total"] == total
        ids += [x["id"] for x in r["results"]]
        if not r["has_more"]:
            return ids, total
        assert r["results"], "has_more promised a page that is empty"
        offset += len(r["results"])


def test_search_total_counts_only_what_the_seat_can_reach(loaded, seats):
    """Regression: `--seat assistant search dentist` said total 1, has_more true, and no rows."""
    # (chat names are no longer message text: the word is one the excluded chat's message says)
    r = valid("search_memory", search_memory(loaded, seats["assistant"], "zahnstein"))
    assert r == {**r, "results": [], "total": 0, "has_more": False}
    owner = search_memory(loaded, seats["owner"], "zahnstein")
    assert owner["total"] == len(owner["results"]) >= 1
    # a platform outside the seat counts nothing either
    r = search_memory(loaded, seats["assistant"], "lorem", platform="imessage")
    assert (r["total"], r["has_more"], r["results"]) == (0, False, [])
    # a word the seat's excluded platform does have: Whoosh counted what AndNot excluded
    assert search_memory(loaded, seats["owner"], "climbing", platform="imessage")["total"] > 0
    r = search_memory(loaded, seats["assistant"], "climbing", platform="imessage")
    assert (r["total"], r["has_more"], r["results"]) == (0, False, [])


def test_every_page_of_a_search_reaches_exactly_total_results(loaded, seats):
    for seat in ("owner", "assistant"):
        ids, total = all_pages(loaded, seats[seat], "lorem")
        assert len(ids) == total == len(set(ids)) and total > 7
    owner_ids, _ = all_pages(loaded, seats["owner"], "lorem")
    assistant_ids, _ = all_pages(loaded, seats["assistant"], "lorem")
    assert len(owner_ids) == len(assistant_ids) + 1  # the Dentist reminder


def test_oldest_first_finds_who_mentioned_it_first(loaded, seats):
    r = search_memory(loaded, seats["owner"], "lorem", sort="oldest", limit=50)
    stamps = [x["timestamp"] for x in r["results"]]
    assert stamps == sorted(stamps, key=lambda s: datetime.fromisoformat(s))
    newest = search_memory(loaded, seats["owner"], "lorem", sort="newest", limit=1)["results"][0]
    assert r["results"][-1]["id"] == newest["id"] or r["has_more"]
    assert r["results"][0]["content"].endswith("lorem update number 1 about the garden")
    assert search_memory(loaded, seats["owner"], "lorem", sort="Oldest", limit=1)["results"][0] == r["results"][0]
    with pytest.raises(ArgumentError, match="offset"):
        search_memory(loaded, seats["owner"], "lorem", offset=-1)


# ---------------------------------------------------------------------- CLI --seat


def cli_json(store, *args):
    from chatmem.tools.cli import cli

    if store.engine.url.get_backend_name() != "sqlite":
        pytest.skip("the CLI opens the store's SQLite file")
    r = CliRunner().invoke(cli, ["--home", str(store.home), "--config", str(CONFIG), *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_cli_people_and_stats_count_only_the_seats_chats(loaded):
    everyone = {p["name"]: p for p in cli_json(loaded, "people")["people"]}
    seen = {p["name"]: p for p in cli_json(loaded, "--seat", "assistant", "people")["people"]}
    assert "Praxis Weiss" in everyone and "Praxis Weiss" not in seen  # only in the excluded chat
    assert all(p["handles"] == [] for p in seen.values())  # phone numbers other platforms gave
    assert all(set(p["platforms"]) <= {"whatsapp", "signal", "telegram"} for p in seen.values())
    assert seen["me"]["messages"] < everyone["me"]["messages"]
    owner, assistant = cli_json(loaded, "stats"), cli_json(loaded, "--seat", "assistant", "stats")
    assert "imessage" in owner["platforms"] and "imessage" not in assistant["platforms"]
    assert assistant["messages"] < owner["messages"] and assistant["indexed"] is None


# ---------------------------------------------------------------------- memory staleness


def add_future_message(store, tmp_path, minutes: int = 60) -> None:
    when = datetime.now(timezone.utc) + timedelta(minutes=minutes)
    path = tmp_path / "later.jsonl"
    path.write_text(json.dumps({"platform": "telegram", "chat": "Hiking club", "sender": "Anna Berg",
                                "timestamp": when.isoformat(), "text": "Back home safe"}) + "\n",
                    encoding="utf-8")
    store.import_sources(find_sources(path, "jsonl"))


def test_a_memory_just_saved_is_fresh_until_newer_messages_arrive(fresh, seats, tmp_path):
    """Regression: a memory saved a second ago was `stale` with "10 messages since"."""
    owner = seats["owner"]
    hiking = chat_source(fresh, "Hiking club", "telegram")
    oldest = get_conversation_context(fresh, owner, hiking)["items"][-1]
    save_memory(fresh, owner, hiking, "The hike is planned.", [oldest.get("id") or oldest["call_id"]])
    m = get_conversation_context(fresh, owner, hiking, include_memory=True)["memory"]
    assert m["status"] == "ok" and m["freshness"]["messages_since"] == 0
    add_future_message(fresh, tmp_path)
    m = get_conversation_context(fresh, owner, hiking, include_memory=True)["memory"]
    assert m["status"] == "stale" and m["freshness"]["messages_since"] == 1


# ---------------------------------------------------------------------- expired agent sessions


def test_an_expired_session_is_gone_from_every_tool(fresh, seats):
    owner = seats["owner"]
    sid = start_conversation(fresh, owner, "Tax questions")["conversation_id"]
    turn = log_conversation_turn(fresh, owner, sid, "user", "kumquat budget for the tax return")["id"]
    assert search_memory(fresh, owner, "kumquat")["total"] == 1
    with fresh.write() as conn:
        conn.execute(update(Chat.__table__).where(Chat.__table__.c.id == sid).values(
            created_at=datetime.now(timezone.utc).replace(tzinfo=None) - timedelta(days=owner.retention_days + 1)))
    h = valid("get_conversation_history", get_conversation_history(fresh, owner, sid))
    assert h["isExpired"] and h["turns"] == [] and h["subject"] == "Tax questions"
    with pytest.raises(NotFound):
        get_conversation_context(fresh, owner, sid)
    with pytest.raises(NotFound):
        get_context(fresh, owner, turn)
    for query, kw in (("kumquat", {}), ("kumquat", {"platform": "agent"})):
        r = search_memory(fresh, owner, query, **kw)
        assert (r["results"], r["total"], r["has_more"]) == ([], 0, False)
    assert read_raw_data(fresh, owner, turn)["ok"] is False
    assert read_raw_data(fresh, owner, sid)["ok"] is False
    assert sid not in {c["source"] for c in list_chats(fresh, owner, limit=500)["chats"]}
    with pytest.raises(ArgumentError, match="expired"):
        log_conversation_turn(fresh, owner, sid, "user", "more")


# ---------------------------------------------------------------------- refs


def test_refs_must_name_records_the_seat_can_read(fresh, seats):
    owner = seats["owner"]
    sid = start_conversation(fresh, owner)["conversation_id"]
    with pytest.raises(ArgumentError, match="m_doesnotexist"):
        log_conversation_turn(fresh, owner, sid, "assistant", "see there", refs=["m_doesnotexist"])
    hit = search_memory(fresh, owner, "Zahnstein")["results"][0]
    dentist = hit["source"]
    ok = log_conversation_turn(fresh, owner, sid, "assistant", "see there", refs=[hit["id"], dentist])
    assert ok["turnNumber"] == 1
    # the notebook seat reads everything; a seat that cannot read the Dentist chat may not cite it
    from dataclasses import replace

    scoped = replace(seats["notebook"], exclude_chats=["Dentist reminders"])
    with pytest.raises(ArgumentError, match=dentist):
        log_conversation_turn(fresh, scoped, sid, "assistant", "see there", refs=[dentist])


# ---------------------------------------------------------------------- history paging


def test_history_offset_pages_back_through_the_turns(loaded, seats):
    lena = chat_source(loaded, "Lena Vogel", "whatsapp")
    total = LONG_CHAT_MESSAGES + 5
    first = get_conversation_history(loaded, seats["owner"], lena, max_turns=10)
    second = valid("get_conversation_history",
                   get_conversation_history(loaded, seats["owner"], lena, max_turns=10, offset=10))
    assert [t["turnNumber"] for t in first["turns"]] == list(range(total - 9, total + 1))
    assert [t["turnNumber"] for t in second["turns"]] == list(range(total - 19, total - 9))
    last = get_conversation_history(loaded, seats["owner"], lena, max_turns=50, offset=40)
    assert [t["turnNumber"] for t in last["turns"]] == list(range(1, total - 39))


def test_messages_since_counts_across_months_and_not_the_cited_minute(tmp_path):
    """The memory's `messages_since` (read from the chat's month counts): messages strictly
    after the newest cited one, over many months, not one sent at the same instant."""
    from tool_helpers import jsonl_store

    cited = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    chat = "Long haul"

    def msg(when: datetime, who: str, text: str) -> dict:
        return {"platform": "telegram", "chat": chat, "sender": who, "timestamp": when.isoformat(),
                "text": text}

    records = [{"type": "chat", "platform": "telegram", "chat": chat, "group": True,
                "participants": ["Anna Berg", "Ben Ortiz"]}]
    records += [msg(cited - timedelta(days=9 * k), "Anna Berg", f"before {k}") for k in range(1, 40)]
    records += [msg(cited, "Anna Berg", "the cited one"), msg(cited, "Ben Ortiz", "at the same instant")]
    records += [msg(cited + timedelta(days=11 * k, minutes=k), "Ben Ortiz", f"after {k}") for k in range(1, 21)]
    store = jsonl_store(tmp_path, records, "timezone: UTC\n")
    try:
        owner = store.config.seat(None)
        source = chat_source(store, chat, "telegram")
        found = search_memory(store, owner, '"the cited one"', mode="keyword")["results"][0]
        save_memory(store, owner, source, "A long haul.", [found["id"]])
        m = get_conversation_context(store, owner, source, include_memory=True)["memory"]
        assert m["status"] == "stale" and m["freshness"]["messages_since"] == 20
    finally:
        store.close()
