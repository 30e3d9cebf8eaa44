"""The reference: the same archives parsed into plain `sqlite3` with an FTS5 index.

A deliberately simple, fast importer (what a careful script would do, with none of chatmem's
ids, reconciliation, raw records or Whoosh), so chatmem's figures can be read as ratios that
hold on any machine. One table `messages(id, chat, sender, ts, text)`, an index on (chat, ts),
an external-content FTS5 table built in one `rebuild`.

    >>> db = build("whatsapp", Path("benchmarks/data/100k/whatsapp/WhatsApp Chat with ....txt"), out)
    >>> search(db, "word", "kafin", limit=10)["total"]
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

BATCH = 50_000
APPLE_EPOCH_S = 978_307_200  # 2001-01-01 in Unix seconds
NS = 1_000_000_000
LOCAL = timezone(timedelta(hours=1))
WHATSAPP_HEADER = re.compile(r"(\d\d)/(\d\d)/(\d{4}), (\d\d):(\d\d) - (?:([^:]+): )?(.*)")

SCHEMA = """
CREATE TABLE chats (id INTEGER PRIMARY KEY, key TEXT UNIQUE);
CREATE TABLE messages (id INTEGER PRIMARY KEY, chat INTEGER, sender TEXT, ts INTEGER, text TEXT, raw TEXT);
"""
INDEXES = """
CREATE INDEX messages_chat_ts ON messages (chat, ts);
CREATE INDEX messages_ts ON messages (ts);
CREATE VIRTUAL TABLE fts USING fts5(text, content='messages', content_rowid='id');
INSERT INTO fts(fts) VALUES ('rebuild');
"""


def whatsapp_rows(path: Path) -> Iterator[tuple]:
    """(chat, sender, unix ts, text, raw lines) per message; lines without a header continue."""
    cur: list | None = None
    with path.open(encoding="utf-8") as f:
        for line in f:
            m = WHATSAPP_HEADER.match(line)
            if m:
                if cur:
                    yield tuple(cur)
                d, mo, y, h, mi, sender, text = m.groups()
                ts = int(datetime(int(y), int(mo), int(d), int(h), int(mi), tzinfo=LOCAL).timestamp())
                cur = [path.name, sender or "", ts, text, line]
            elif cur:
                cur[3] += "\n" + line.rstrip("\n")
                cur[4] += line
    if cur:
        yield tuple(cur)


def typedstream_text(blob: bytes | None) -> str | None:
    """The common shortcut: the first NSString's bytes (enough for a reference)."""
    if not blob:
        return None
    i = blob.find(b"NSString")
    if i < 0:
        return None
    i += len(b"NSString") + 5
    n = blob[i]
    i += 1
    if n == 0x81:
        n = int.from_bytes(blob[i:i + 2], "little")
        i += 2
    elif n == 0x82:
        n = int.from_bytes(blob[i:i + 4], "little")
        i += 4
    return blob[i:i + n].decode("utf-8", "replace")


def chatdb_rows(path: Path) -> Iterator[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    handles = dict(conn.execute("SELECT ROWID, id FROM handle"))
    chats = dict(conn.execute("SELECT ROWID, guid FROM chat"))
    q = ("SELECT m.guid, m.text, m.attributedBody, m.handle_id, m.is_from_me, m.date, j.chat_id "
         "FROM message m LEFT JOIN chat_message_join j ON j.message_id = m.ROWID "
         "WHERE m.associated_message_type = 0 ORDER BY m.ROWID")
    for guid, text, body, handle, from_me, date, chat in conn.execute(q):
        if text is None:
            text = typedstream_text(body)
        ts = date // NS + APPLE_EPOCH_S if date > 10**11 else date + APPLE_EPOCH_S
        yield chats.get(chat, ""), "me" if from_me else handles.get(handle, ""), ts, text or "", guid
    conn.close()


def signal_rows(path: Path) -> Iterator[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    q = ("SELECT id, conversationId, type, sourceServiceId, sent_at, body FROM messages "
         "WHERE type IN ('incoming', 'outgoing') ORDER BY rowid")
    for mid, conv, typ, source, sent, body in conn.execute(q):
        yield conv, "me" if typ == "outgoing" else source or "", sent // 1000, body or "", mid
    conn.close()


READERS = {"whatsapp": whatsapp_rows, "chatdb": chatdb_rows, "signal": signal_rows}


def build(fmt: str, source: Path, db_path: Path) -> dict:
    """Parse `source` into a fresh database at `db_path`; returns seconds, messages, bytes."""
    started = time.perf_counter()
    db_path.unlink(missing_ok=True)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(SCHEMA)
    chat_ids: dict[str, int] = {}
    batch: list[tuple] = []
    n = 0

    def flush() -> None:
        conn.executemany("INSERT INTO messages (chat, sender, ts, text, raw) VALUES (?, ?, ?, ?, ?)", batch)
        batch.clear()

    for chat, sender, ts, text, raw in READERS[fmt](source):
        cid = chat_ids.get(chat)
        if cid is None:
            cid = chat_ids[chat] = len(chat_ids) + 1
            conn.execute("INSERT INTO chats VALUES (?, ?)", (cid, chat))
        batch.append((cid, sender, ts, text, raw))
        n += 1
        if len(batch) >= BATCH:
            flush()
    flush()
    conn.executescript(INDEXES)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {"seconds": time.perf_counter() - started, "messages": n,
            "bytes": sum(p.stat().st_size for p in db_path.parent.glob(db_path.name + "*"))}


def search(conn: sqlite3.Connection, query: str, chat: int | None = None, since: int | None = None,
           until: int | None = None, newest: bool = False, limit: int = 10, sender: str | None = None) -> dict:
    """The reference of search_memory: top `limit` rows with their text, and the total."""
    started = time.perf_counter()
    where, args = ["fts MATCH ?"], [query]
    if chat is not None:
        where.append("m.chat = ?")
        args.append(chat)
    if sender is not None:
        where.append("m.sender = ?")
        args.append(sender)
    if since is not None:
        where.append("m.ts >= ?")
        args.append(since)
    if until is not None:
        where.append("m.ts <= ?")
        args.append(until)
    cond = " AND ".join(where)
    order = "m.ts DESC" if newest else "fts.rank"
    rows = conn.execute(f"SELECT m.id, m.chat, m.sender, m.ts, m.text, snippet(fts, 0, '[', ']', '…', 12) "
                        f"FROM fts CROSS JOIN messages m ON m.id = fts.rowid WHERE {cond} ORDER BY {order} LIMIT ?",
                        [*args, limit]).fetchall()
    # CROSS JOIN keeps the full-text match as the outer loop: with a chat filter SQLite would
    # otherwise walk the chat's rows and run the MATCH once per row (seconds per query)
    total = conn.execute(f"SELECT count(*) FROM fts CROSS JOIN messages m ON m.id = fts.rowid WHERE {cond}",
                         args).fetchone()[0]
    return {"results": rows, "total": total, "server_ms": (time.perf_counter() - started) * 1000}


def fts_query(kind: str, words: list[str]) -> str:
    """Our query classes in FTS5 syntax: word, two words, "phrase", prefix*."""
    if kind == "phrase":
        return '"' + " ".join(words) + '"'
    if kind == "prefix":
        return words[0] + "*"
    return " ".join(words)


def main(argv: list[str] | None = None) -> None:
    """`python benchmarks/fts5_reference.py FORMAT SOURCE DB`: build the reference alone (for
    timing it as a whole process beside `chatmem import` of the same file)."""
    import argparse
    import json
    ap = argparse.ArgumentParser(description="build the FTS5 reference database of one archive")
    ap.add_argument("format", choices=sorted(READERS))
    ap.add_argument("source", type=Path)
    ap.add_argument("db", type=Path)
    args = ap.parse_args(argv)
    print(json.dumps(build(args.format, args.source, args.db)))


if __name__ == "__main__":
    main()
