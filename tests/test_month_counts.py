"""The messages per chat and month that deep conversation reads count from (`message_months`)
equal a fresh count of the messages after every kind of change: a first import, an unchanged
re-import, a newer export that adds, edits a time into another month and moves a message to
another chat, agent turns, forgetting a source and forgetting a chat, on SQLite and PostgreSQL;
and a store whose counts were kept by triggers (schema 2) is counted once when opened."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta

from sqlalchemy import select

from chatmem.importers import find_sources
from chatmem.store import Store
from chatmem.store.models import Message, MessageMonth
from chatmem.tools.history import (
    get_conversation_history,
    log_conversation_turn,
    start_conversation,
)

START = datetime(2023, 1, 20, 9, 0)


def kept(store: Store) -> Counter:
    mm = MessageMonth.__table__
    with store.read() as conn:
        return Counter({(c, mo): n for c, mo, n in conn.execute(select(mm.c.chat_id, mm.c.month, mm.c.n)) if n})


def counted(store: Store) -> Counter:
    mt = Message.__table__
    with store.read() as conn:
        return Counter((c, f"{t:%Y-%m}") for c, t in conn.execute(select(mt.c.chat_id, mt.c.sent_at)))


def assert_months_true(store: Store) -> None:
    assert kept(store) == counted(store)


def record(i: int, chat: str = "Anna Berg", when: datetime | None = None, text: str | None = None) -> dict:
    when = when or START + timedelta(days=4 * i, minutes=i)
    return {"platform": "whatsapp", "chat": chat, "sender": "Anna Berg" if i % 2 else "Sam Rivera",
            "guid": f"g-{i}", "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S+00:00"),
            "text": text or f"note {i} about the boat"}


def write(path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_month_counts_equal_a_fresh_count_after_every_change(any_backend, tmp_path, config):
    home = tmp_path / "home"
    src, other = tmp_path / "chats.jsonl", tmp_path / "other.jsonl"
    with Store.open(home, config) as store:
        first = [record(i) for i in range(60)] + [record(i, chat="Boat Club") for i in range(60, 75)]
        write(src, first)
        store.import_sources(find_sources(src))
        assert_months_true(store)
        assert len(counted(store)) > 8  # months of two chats

        store.import_sources(find_sources(src), force=True)  # the same records again
        assert_months_true(store)

        # a newer export: 10 more, one message's time corrected into another month, one moved
        # to the other chat, one edited in place
        newer = [record(i) for i in range(70)] + [record(i, chat="Boat Club") for i in range(60, 75)]
        newer[5] = record(5, when=START + timedelta(days=200))
        newer[6] = record(6, chat="Boat Club")
        newer[7] = record(7, text="note 7, edited")
        write(src, newer)
        before = counted(store)
        report = store.import_sources(find_sources(src))[0]
        assert report.as_dict()["messages"]["updated"] == 3
        after = counted(store)
        assert after != before
        assert_months_true(store)

        write(other, [record(i, chat="Anna Berg") for i in range(500, 520)])  # another source, same chat
        store.import_sources(find_sources(other))
        assert_months_true(store)

        seat = store.config.seat(None)
        session = start_conversation(store, seat, "months")["conversation_id"]
        for i in range(3):
            log_conversation_turn(store, seat, session, "user", f"turn {i}")
        assert_months_true(store)

        store.forget(source_path=str(other.resolve()))
        assert_months_true(store)
        mt = Message.__table__
        with store.read() as conn:
            boat = conn.execute(select(mt.c.chat_id).where(mt.c.text == "note 60 about the boat")).scalar_one()
        store.forget(chat_id=boat)
        assert_months_true(store)
        assert not any(c == boat for c, _ in kept(store))

        # a deep read counts from the kept months: history at an offset shows the right page
        with store.read() as conn:
            anna = conn.execute(select(mt.c.chat_id).where(mt.c.text == "note 1 about the boat")).scalar_one()
            rows = conn.execute(select(mt.c.text, mt.c.sent_at, mt.c.ordinal, mt.c.id)
                                .where(mt.c.chat_id == anna)).all()
        newest_first = [r.text for r in sorted(rows, key=lambda r: (r.sent_at, r.ordinal, r.id), reverse=True)]
        for offset in (0, 9, 30, len(rows) - 2):
            got = get_conversation_history(store, seat, anna, max_turns=4, offset=offset)
            shown = [t["content"].split(": ", 1)[1] for t in reversed(got["turns"])]
            assert shown == newest_first[offset:offset + 4], offset


def test_a_store_whose_counts_triggers_kept_is_counted_once_and_loses_them(tmp_path, config):
    """Schema 2 kept the counts by triggers on `messages` (or not at all, before them): opened
    by this version, the triggers are dropped and every month counted once; imports after that
    count each message once."""
    src = tmp_path / "chats.jsonl"
    write(src, [record(i) for i in range(40)])
    home = tmp_path / "home"
    with Store.open(home, config) as store:
        store.import_sources(find_sources(src))
        with store.write() as conn:  # as schema 2 left it: triggers, and counts gone astray
            conn.exec_driver_sql(
                "CREATE TRIGGER message_months_insert AFTER INSERT ON messages BEGIN "
                "INSERT INTO message_months (chat_id, month, n) VALUES (new.chat_id, substr(new.sent_at, 1, 7), 1) "
                "ON CONFLICT (chat_id, month) DO UPDATE SET n = n + 1; END")
            conn.exec_driver_sql("DELETE FROM message_months")
            conn.exec_driver_sql("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with Store.open(home, config) as store:
        assert_months_true(store)
        with store.read() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").scalar() == 0
        write(src, [record(i) for i in range(55)])
        assert store.import_sources(find_sources(src))[0].as_dict()["messages"]["new"] == 15
        assert_months_true(store)
