"""Conversation reads by window: the per-chat counts the tools report stay equal to what the
store holds through imports, re-imports, newer exports with deleted messages, and agent turns."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from chatmem.importers import find_sources
from chatmem.store.models import Chat, Message
from chatmem.tools.conversation import get_conversation_context
from chatmem.tools.history import (
    get_conversation_history,
    log_conversation_turn,
    start_conversation,
)

START = datetime(2023, 3, 1, 8, 0)


def lines(n: int, start: int = 0, deleted: set[int] = frozenset()) -> list[str]:
    out = []
    for i in range(start, start + n):
        when = START + timedelta(minutes=7 * i)
        who = "Anna Berg" if i % 3 else "Sam Rivera"
        text = "This message was deleted" if i in deleted else f"message number {i} about the trip"
        out.append(f"{when:%d/%m/%Y, %H:%M} - {who}: {text}")
    return out


def write(path, rows: list[str]) -> None:
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def stored(store) -> dict[str, tuple[int, int, object, object]]:
    """chat id -> (kept count, counted rows, kept first/last == real first/last)."""
    mt, ct = Message.__table__, Chat.__table__
    out = {}
    with store.read() as conn:
        for chat in conn.execute(select(ct)):
            n, first, last = conn.execute(select(func.count(), func.min(mt.c.sent_at), func.max(mt.c.sent_at))
                                          .where(mt.c.chat_id == chat.id)).one()
            out[chat.id] = (chat.message_count, n, (chat.first_at, chat.last_at), (first, last))
    return out


def assert_counts_true(store) -> None:
    for chat_id, (kept, counted, kept_span, span) in stored(store).items():
        assert kept == counted, chat_id
        assert kept_span == span, chat_id


def test_counts_and_windows_follow_imports_reimports_and_deletions(store, tmp_path):
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, lines(120))
    store.import_sources(find_sources(src))
    assert_counts_true(store)
    (chat_id,) = stored(store)
    seat = store.config.seat(None)

    history = get_conversation_history(store, seat, chat_id, max_turns=5)
    assert history["totalTurns"] == 120
    assert [t["turnNumber"] for t in history["turns"]] == [116, 117, 118, 119, 120]
    assert history["turns"][-1]["content"].endswith("message number 119 about the trip")

    # the same export again: nothing changes; a newer export with 30 more and two deleted
    store.import_sources(find_sources(src), force=True)
    assert_counts_true(store)
    write(src, lines(150, deleted={10, 149}))
    store.import_sources(find_sources(src))
    assert_counts_true(store)
    history = get_conversation_history(store, seat, chat_id, max_turns=3)
    assert history["totalTurns"] == 150
    # the newest, deleted before we saw it: it says so (issue 15), no silent "Anna Berg: "
    assert history["turns"][-1]["content"].endswith(": (deleted)")

    context = get_conversation_context(store, seat, chat_id, token_budget=300)
    assert context["items_included"] + context["items_omitted"] == 150
    assert context["has_more_older"]


def test_context_since_counts_only_the_newer_messages(store, tmp_path):
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, lines(200))
    store.import_sources(find_sources(src))
    (chat_id,) = stored(store)
    seat = store.config.seat(None)
    for k in (0, 20, 100, 180, 199, 200):  # both sides of the count split, and the edges
        since = START + timedelta(minutes=7 * k)
        context = get_conversation_context(store, seat, chat_id, token_budget=100_000,
                                           since=since.isoformat())
        assert context["items_included"] + context["items_omitted"] == 200 - k, k
        assert context["items_omitted"] == 0


def test_agent_turns_keep_the_count(store):
    seat = store.config.seat(None)
    session = start_conversation(store, seat, "counting")["conversation_id"]
    for i in range(4):
        log_conversation_turn(store, seat, session, "user", f"turn {i}")
    assert_counts_true(store)
    history = get_conversation_history(store, seat, session, max_turns=2)
    assert history["totalTurns"] == 4
    assert [t["content"] for t in history["turns"]] == ["turn 2", "turn 3"]


def test_history_pages_by_offset_match_the_chat_order_ties_included(store, tmp_path):
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, lines(120))
    store.import_sources(find_sources(src))
    mt = Message.__table__
    with store.write() as conn:  # six messages at the same instant and ordinal: ordered by id
        ids = [r.id for r in conn.execute(select(mt.c.id).order_by(mt.c.sent_at).offset(50).limit(6))]
        conn.execute(mt.update().where(mt.c.id.in_(ids)).values(sent_at=START + timedelta(days=3), ordinal=7))
    with store.read() as conn:
        rows = conn.execute(select(mt.c.id, mt.c.chat_id, mt.c.sent_at, mt.c.ordinal)).all()
    newest_first = [r.id for r in sorted(rows, key=lambda r: (r.sent_at, r.ordinal, r.id), reverse=True)]
    seat = store.config.seat(None)
    for offset in [*range(0, 121, 7), 1, 2, 3, 4, 5, 6]:  # the tied six are the newest
        got = get_conversation_history(store, seat, rows[0].chat_id, max_turns=10, offset=offset)
        shown = [t["refs"][0] for t in reversed(got["turns"])]
        assert shown == newest_first[offset:offset + 10], offset


def test_a_long_window_reads_every_message_once_in_chat_order(store, tmp_path):
    """A window wider than one read of the chat (the first read is sized by the budget, the
    next ones by the page) holds the newest messages, each once, newest first, none skipped."""
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, [f"{START + timedelta(minutes=3 * i):%d/%m/%Y, %H:%M} - Anna Berg: ok {i}" for i in range(700)])
    store.import_sources(find_sources(src))
    (chat_id,) = stored(store)
    seat = store.config.seat(None)
    for budget in (300, 2000, 5000, 100_000):
        items = get_conversation_context(store, seat, chat_id, token_budget=budget)["items"]
        numbers = [int(i["text"].split()[1]) for i in items]
        assert numbers == list(range(699, 699 - len(numbers), -1)), budget
    assert len(items) == 700


def test_item_times_carry_the_owners_offset_across_a_change_of_clocks(store, tmp_path):
    """Europe/Berlin (the config's zone) moves from +01:00 to +02:00 at 02:00 on 31 March 2024:
    each item shows the time the phone wrote, with the offset in force then."""
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    written = [datetime(2024, 3, 30, 22, 0) + timedelta(minutes=25 * i) for i in range(30)]
    written = [t for t in written if t.hour != 2 or t.date() != datetime(2024, 3, 31).date()]  # never on a clock
    write(src, [f"{t:%d/%m/%Y, %H:%M} - Anna Berg: at {t:%H:%M}" for t in written])
    store.import_sources(find_sources(src))
    (chat_id,) = stored(store)
    items = get_conversation_context(store, store.config.seat(None), chat_id, token_budget=100_000)["items"]
    shown = {i["text"]: i["timestamp"] for i in items}
    for t in written:
        offset = "+01:00" if t < datetime(2024, 3, 31, 2, 0) else "+02:00"
        assert shown[f"at {t:%H:%M}"] == f"{t:%Y-%m-%dT%H:%M}{offset}"


def month_counts_true(store) -> None:
    """The kept messages per chat and month equal what the messages table holds."""
    with store.read() as conn:
        kept = {(c, mo): n for c, mo, n in conn.exec_driver_sql(
            "SELECT chat_id, month, n FROM message_months WHERE n != 0")}
        real = {(c, mo): n for c, mo, n in conn.exec_driver_sql(
            "SELECT chat_id, substr(sent_at, 1, 7), count(*) FROM messages GROUP BY 1, 2")}
    assert kept == real


def months_lines(n: int, deleted: set[int] = frozenset(), step: timedelta = timedelta(days=5, hours=3)) -> list[str]:
    out = []
    for i in range(n):
        when = START + step * i
        text = "This message was deleted" if i in deleted else f"note {i} on the plan"
        out.append(f"{when:%d/%m/%Y, %H:%M} - {'Anna Berg' if i % 2 else 'Sam Rivera'}: {text}")
    return out


def test_windows_deep_in_a_chat_count_what_is_older_across_months(store, tmp_path):
    """A window `before` a message, with and without `since`, reports as omitted exactly the
    older messages the chat holds; history pages by offset anywhere in a chat of many months."""
    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, months_lines(260))  # three years and a half, a message every five days
    store.import_sources(find_sources(src))
    write(src, months_lines(300, deleted={3, 150, 299}))  # a newer export: more, and some deleted
    store.import_sources(find_sources(src))
    month_counts_true(store)
    (chat_id,) = stored(store)
    seat = store.config.seat(None)
    mt = Message.__table__
    with store.read() as conn:
        rows = conn.execute(select(mt.c.id, mt.c.sent_at, mt.c.ordinal)).all()
    order = sorted(rows, key=lambda r: (r.sent_at, r.ordinal, r.id))
    for k in (0, 1, 37, 150, 151, 299):
        before = order[k]
        for since in (None, order[0].sent_at, order[20].sent_at, order[140].sent_at + timedelta(seconds=1)):
            older = [r for r in order[:k] if since is None or r.sent_at >= since]
            if since is not None and since >= before.sent_at:
                continue
            r = get_conversation_context(store, seat, chat_id, token_budget=300, before=before.id,
                                         since=f"{since.isoformat()}+00:00" if since else None)
            assert r["items_included"] + r["items_omitted"] == len(older), (k, since)
            assert [i["id"] for i in r["items"]] == [x.id for x in reversed(older)][:r["items_included"]]
    newest_first = [r.id for r in reversed(order)]
    for offset in (0, 5, 49, 50, 120, 290, 299, 300, 400):
        got = get_conversation_history(store, seat, chat_id, max_turns=10, offset=offset)
        assert [t["refs"][0] for t in reversed(got["turns"])] == newest_first[offset:offset + 10], offset


def test_a_store_from_before_the_month_counts_is_counted_when_opened(tmp_path, config):
    from chatmem.store import Store

    src = tmp_path / "WhatsApp Chat with Anna Berg.txt"
    write(src, months_lines(120))
    home = tmp_path / "home"
    with Store.open(home, config) as store:
        store.import_sources(find_sources(src))
        with store.write() as conn:  # as a schema 2 store from before the counts: none kept
            conn.exec_driver_sql("DROP TABLE message_months")
            conn.exec_driver_sql("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with Store.open(home, config) as store:
        month_counts_true(store)
        write(src, months_lines(140, deleted={0}))
        store.import_sources(find_sources(src))
        month_counts_true(store)
        (chat_id,) = stored(store)
        history = get_conversation_history(store, store.config.seat(None), chat_id, max_turns=3, offset=100)
        assert [t["content"].split(": ", 1)[1] for t in history["turns"]] == [f"note {i} on the plan" for i in (37, 38, 39)]
