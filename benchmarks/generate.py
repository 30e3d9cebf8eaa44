"""Deterministic archives in the real source formats, for the benchmark.

    python benchmarks/generate.py --size 100k            # all three formats, base + extended
    python benchmarks/generate.py --size 1m --format chatdb

Writes under `benchmarks/data/<size>/` (git-ignored):

- `whatsapp/WhatsApp Chat with Family and Friends.txt`: an Android-layout export (D/M/Y, 24 h,
  no seconds) of one group chat: multi-line messages, `<Media omitted>`, deleted and edited
  messages, system events (encryption notice, created, added, left).
- `chat.db`: the macOS 13+ schema (the builder in tests/imessage_builders.py), N rows over 300
  chats: ~30% with `text` NULL and the text only in `attributedBody` (a typedstream written by
  that builder), tapbacks, inline replies, attachments, group renames; dates in ns since 2001.
- `signal.sqlite`: a plain Signal Desktop database in the 7.x schema (tests/signal_builders.py):
  conversations, messages (body, json with reactions and quotes), items (the owner).

Each also exists as `*-plus1pct` (same first N messages, 1% newer ones appended), for the
"import 1% new messages into the full store" measurement. Every message is drawn in order from
one seeded RNG whose use per message does not depend on N, so the extended archive is the base
one plus new rows; it is written by copying the base file and appending.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # the iMessage / Signal schema builders

import imessage_builders as ib  # noqa: E402
import signal_builders as sb  # noqa: E402
from textgen import (  # noqa: E402
    EMOJI,
    OWNER_NAME,
    TextMaker,
    Vocabulary,
    guid,
    person_names,
    zipf_cum,
    zipf_index,
)

DATA = HERE / "data"
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
NEW_FRACTION = 0.01
SEED = 8  # issue 8
FORMATS = ("whatsapp", "chatdb", "signal")
START = datetime(2015, 1, 1, 8, 0, tzinfo=timezone.utc)
SPAN = timedelta(days=3650)  # the base N messages cover ten years; new ones continue after
CHATS = 300
PEOPLE = 400
BATCH = 20_000

WHATSAPP_NAME = "WhatsApp Chat with Family and Friends.txt"
WHATSAPP_MEMBERS = 25
E2E_NOTICE = ("Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
              "WhatsApp, can read or listen to them. Tap to learn more.")


def n_extended(n: int) -> int:
    return n + int(n * NEW_FRACTION)


def paths(size: str) -> dict[str, tuple[Path, Path]]:
    """format -> (base archive, extended archive)."""
    d = DATA / size
    return {
        "whatsapp": (d / "whatsapp" / WHATSAPP_NAME, d / "whatsapp-plus1pct" / WHATSAPP_NAME),
        "chatdb": (d / "chat.db", d / "chat-plus1pct.db"),
        "signal": (d / "signal.sqlite", d / "signal-plus1pct.sqlite"),
    }


def moment(i: int, n_base: int, rng: random.Random) -> datetime:
    """Message i of a base of n: evenly spread over SPAN, jittered, never before message i-1."""
    step = SPAN.total_seconds() / n_base
    return START + timedelta(seconds=int(i * step + rng.random() * step * 0.9))


# ---------------------------------------------------------------------------------- WhatsApp

def whatsapp_lines(n_base: int, n_total: int) -> Iterator[tuple[int, str]]:
    """(message index, export lines) for messages 0..n_total-1; index -1 for the header lines."""
    rng = random.Random(SEED * 1000 + 1)
    maker = TextMaker(Vocabulary(SEED))
    members = person_names(random.Random(SEED), WHATSAPP_MEMBERS)
    everyone = [OWNER_NAME, *members]
    local = timezone(timedelta(hours=1))  # wall-clock times as the phone wrote them

    def stamp(t: datetime) -> str:
        t = t.astimezone(local)
        return f"{t.day:02d}/{t.month:02d}/{t.year}, {t.hour:02d}:{t.minute:02d}"

    first = stamp(START)
    yield -1, f"{first} - {E2E_NOTICE}\n{first} - {OWNER_NAME} created group \"Family and Friends\"\n"
    for i in range(n_total):
        when = stamp(moment(i, n_base, rng))
        author = everyone[min(int(rng.expovariate(0.15)), len(everyone) - 1)]
        r = rng.random()
        if r < 0.003:
            who = rng.choice(members)
            line = f"{when} - {author} added {who}" if rng.random() < 0.7 else f"{when} - {who} left"
        elif r < 0.043:
            line = f"{when} - {author}: <Media omitted>"
        elif r < 0.048:
            line = f"{when} - {author}: This message was deleted"
        else:
            text = maker.text(rng)
            if r > 0.995:
                text += " <This message was edited>"
            line = f"{when} - {author}: {text}"
        yield i, line + "\n"


def write_whatsapp(path: Path, n_base: int, n_total: int, start: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if start else "w", encoding="utf-8", newline="") as f:
        buf: list[str] = []
        for i, lines in whatsapp_lines(n_base, n_total):
            if i >= start or (i == -1 and start == 0):
                buf.append(lines)
                if len(buf) >= BATCH:
                    f.write("".join(buf))
                    buf.clear()
        f.write("".join(buf))


# ---------------------------------------------------------------------------------- chat.db

@dataclass
class ChatSpec:
    rowid: int
    guid: str
    members: list[int]  # handle ROWIDs
    group: bool
    recent: list[str]  # last message GUIDs, targets for tapbacks and replies


def imessage_people(rng: random.Random) -> tuple[list[str], list[ChatSpec]]:
    handles = []
    for k in range(PEOPLE):
        if rng.random() < 0.2:
            handles.append(f"friend{k}@example.com")
        else:
            handles.append(f"+1555{rng.randrange(10**7):07d}")
    handles = list(dict.fromkeys(handles))
    chats = []
    for c in range(CHATS):
        if rng.random() < 0.3:
            members = sorted(rng.sample(range(1, len(handles) + 1), 2 + rng.randrange(10)))
            chats.append(ChatSpec(c + 1, f"iMessage;+;chat{rng.randrange(10**9):09d}", members, True, []))
        else:
            h = 1 + c % len(handles)
            chats.append(ChatSpec(c + 1, f"iMessage;-;{handles[h - 1]}", [h], False, []))
    return handles, chats


TAPBACK_VERBS = {2000: "Loved", 2001: "Liked", 2002: "Disliked", 2003: "Laughed at",
                 2004: "Emphasized", 2005: "Questioned"}
MESSAGE_COLUMNS = ("ROWID", "guid", "text", "attributedBody", "handle_id", "service", "is_from_me",
                   "date", "date_read", "date_delivered", "is_finished", "is_sent", "is_delivered",
                   "associated_message_guid", "associated_message_type", "thread_originator_guid",
                   "thread_originator_part", "item_type", "group_action_type", "group_title",
                   "cache_has_attachments")


def chatdb_rows(n_base: int, n_total: int, start: int) -> Iterator[tuple[int, tuple, tuple | None]]:
    """(chat ROWID, message row, attachment row or None) for ROWIDs start+1..n_total."""
    rng = random.Random(SEED * 1000 + 2)
    maker = TextMaker(Vocabulary(SEED))
    _, chats = imessage_people(random.Random(SEED * 1000 + 3))
    cum = zipf_cum(len(chats))
    for i in range(n_total):
        chat = chats[zipf_index(rng, cum)]
        when = ib.apple_ns(moment(i, n_base, rng))
        from_me = rng.random() < 0.4
        handle = 0 if from_me else rng.choice(chat.members)
        g = guid(rng)
        r = rng.random()
        text: str | None
        body: bytes | None
        assoc_guid = reply = None
        assoc_type = item_type = action = has_att = 0
        group_title = None
        attachment = None
        if r < 0.03 and chat.recent:
            target = rng.choice(chat.recent)
            assoc_type = 2000 + rng.randrange(6)
            assoc_guid = f"p:0/{target}"
            text = f"{TAPBACK_VERBS[assoc_type]} “{maker.text(rng, False)}”"
            body = None  # filled below
        elif r < 0.06:
            att_guid = guid(rng)
            name = f"IMG_{rng.randrange(10000):04d}.jpeg"
            text = "\ufffc"
            if i >= start:
                body = ib.attachment_body("", att_guid)
                attachment = (att_guid, f"~/Library/Messages/Attachments/{att_guid[:2]}/{att_guid}/{name}",
                              "image/jpeg", "public.jpeg", name, 50_000 + rng.randrange(3_000_000))
            else:
                rng.randrange(3_000_000)
            has_att = 1
        elif r < 0.0605 and chat.group:
            item_type, action = 2, 0
            group_title = " ".join(maker.vocab.draw(rng, 2)).title() + " " + rng.choice(EMOJI)
            text = body = None
        else:
            text = maker.text(rng, True)
            if chat.recent and rng.random() < 0.03:
                reply = rng.choice(chat.recent)
        if text is not None and not has_att and i >= start:
            body = ib.attributed_body(text)
        if text is not None and not has_att and rng.random() < 0.3:
            text = None  # macOS 13+: the text only in attributedBody
        chat.recent.append(g)
        if len(chat.recent) > 20:
            del chat.recent[0]
        if i < start:
            continue
        yield chat.rowid, (
            i + 1, g, text, body, handle, "iMessage", int(from_me), when, when + 5_000_000_000 if not from_me else 0,
            when + 1_000_000_000, 1, int(from_me), 1, assoc_guid, assoc_type, reply,
            "0:0:10" if reply else None, item_type, action, group_title, has_att,
        ), attachment


def write_chatdb(path: Path, n_base: int, n_total: int, start: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if start == 0:
        path.unlink(missing_ok=True)
        conn = sqlite3.connect(path)
        conn.executescript(ib.ddl(ib.GEN_2023))
        handles, chats = imessage_people(random.Random(SEED * 1000 + 3))
        conn.executemany("INSERT INTO handle (ROWID, id, service, uncanonicalized_id) VALUES (?, ?, 'iMessage', ?)",
                         [(k, h, h) for k, h in enumerate(handles, 1)])
        names = iter(person_names(random.Random(SEED + 1), CHATS))
        for c in chats:
            ident = c.guid.split(";")[-1]
            name = next(names).split()[0] + "'s crew" if c.group and c.rowid % 3 else ""
            conn.execute("INSERT INTO chat (ROWID, guid, style, chat_identifier, service_name, display_name) "
                         "VALUES (?, ?, ?, ?, 'iMessage', ?)", (c.rowid, c.guid, 43 if c.group else 45, ident, name))
            conn.executemany("INSERT INTO chat_handle_join VALUES (?, ?)", [(c.rowid, h) for h in c.members])
    else:
        conn = sqlite3.connect(path)
    conn.commit()
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    insert_msg = (f"INSERT INTO message ({', '.join(MESSAGE_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(MESSAGE_COLUMNS))})")
    att_id = conn.execute("SELECT coalesce(max(ROWID), 0) FROM attachment").fetchone()[0]
    msgs, joins, atts, att_joins = [], [], [], []

    def flush() -> None:
        conn.executemany(insert_msg, msgs)
        conn.executemany("INSERT INTO chat_message_join VALUES (?, ?, ?)", joins)
        conn.executemany("INSERT INTO attachment (ROWID, guid, filename, mime_type, uti, transfer_name, "
                         "total_bytes) VALUES (?, ?, ?, ?, ?, ?, ?)", atts)
        conn.executemany("INSERT INTO message_attachment_join VALUES (?, ?)", att_joins)
        for x in (msgs, joins, atts, att_joins):
            x.clear()

    for chat_rowid, row, attachment in chatdb_rows(n_base, n_total, start):
        msgs.append(row)
        joins.append((chat_rowid, row[0], row[7]))
        if attachment:
            att_id += 1
            atts.append((att_id, *attachment))
            att_joins.append((row[0], att_id))
        if len(msgs) >= BATCH:
            flush()
    flush()
    conn.commit()
    conn.close()


# ---------------------------------------------------------------------------------- Signal

def signal_people(rng: random.Random) -> tuple[list[dict], list[dict]]:
    """(people, conversations); people[0] is the owner."""
    names = person_names(random.Random(SEED + 2), PEOPLE)
    people = [{"aci": str(_uuid(rng)), "e164": f"+1555{rng.randrange(10**7):07d}", "name": n}
              for n in [OWNER_NAME, *names]]
    for p in people:
        p["conv"] = str(_uuid(rng))
    convs = []
    vocab = Vocabulary(SEED)
    for c in range(CHATS):
        if rng.random() < 0.3:
            members = rng.sample(people[1:], 2 + rng.randrange(10))
            convs.append({"id": str(_uuid(rng)), "group": True, "members": members,
                          "name": " ".join(x.title() for x in vocab.draw(rng, 2))})
        else:
            p = people[1 + c % PEOPLE]
            convs.append({"id": p["conv"], "group": False, "members": [p], "name": p["name"]})
    return people, convs


def _uuid(rng: random.Random) -> str:
    return guid(rng).lower()


SIGNAL_COLUMNS = ("rowid", "id", "json", "sent_at", "conversationId", "received_at", "type", "body",
                  "isErased", "hasAttachments", "schemaVersion", "sourceServiceId", "timestamp",
                  "readStatus", "sourceDevice")


def signal_rows(n_base: int, n_total: int, start: int) -> Iterator[tuple]:
    rng = random.Random(SEED * 1000 + 4)
    maker = TextMaker(Vocabulary(SEED))
    people, convs = signal_people(random.Random(SEED * 1000 + 5))
    cum = zipf_cum(len(convs))
    recent: dict[str, list[tuple[int, str, str]]] = {}
    for i in range(n_total):
        conv = convs[zipf_index(rng, cum)]
        sent = int(moment(i, n_base, rng).timestamp() * 1000)
        outgoing = rng.random() < 0.4
        author = people[0] if outgoing else rng.choice(conv["members"])
        text = maker.text(rng)
        data: dict = {"readStatus": 0, "seenStatus": 2, "expirationStartTimestamp": None,
                      "sourceDevice": 1, "unidentifiedDeliveries": []}
        mine = recent.setdefault(conv["id"], [])
        r = rng.random()
        if r < 0.04 and mine:
            q_sent, q_author, q_text = rng.choice(mine)
            data["quote"] = {"id": q_sent, "authorAci": q_author, "text": q_text[:100], "attachments": [],
                             "referencedMessageNotFound": False}
        if rng.random() < 0.05:
            who = rng.choice(conv["members"] + [people[0]])
            data["reactions"] = [{"emoji": rng.choice(EMOJI[:6]), "fromId": who["conv"],
                                  "targetTimestamp": sent, "timestamp": sent + 60_000}]
        mine.append((sent, author["aci"], text))
        if len(mine) > 20:
            del mine[0]
        if i < start:
            continue
        yield (i + 1, _uuid(random.Random(i * 7919 + SEED)), json.dumps(data, ensure_ascii=False), sent,
               conv["id"], 1_000_000 + i, "outgoing" if outgoing else "incoming", text, 0, 0, 13,
               None if outgoing else author["aci"], sent, 0, 1)


def write_signal(path: Path, n_base: int, n_total: int, start: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if start == 0:
        path.unlink(missing_ok=True)
        conn = sqlite3.connect(path)
        conn.executescript(sb.NEW_DDL)
        conn.execute("CREATE INDEX messages_conversation ON messages (conversationId, received_at)")
        people, convs = signal_people(random.Random(SEED * 1000 + 5))
        owner = people[0]
        for c in convs:
            if c["group"]:
                row = (c["id"], "group", c["name"], None, None, None,
                       json.dumps({"id": c["id"], "type": "group", "name": c["name"],
                                   "membersV2": [{"aci": p["aci"], "role": 1} for p in c["members"]]}))
            else:
                p = c["members"][0]
                row = (c["id"], "private", p["name"], p["name"], p["e164"], p["aci"],
                       json.dumps({"id": c["id"], "type": "private"}))
            conn.execute("INSERT INTO conversations (id, type, name, profileFullName, e164, serviceId, json) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", row)
        conn.execute("INSERT INTO items VALUES ('uuid_id', ?)",
                     (json.dumps({"id": "uuid_id", "value": f"{owner['aci']}.1"}),))
        conn.execute("INSERT INTO items VALUES ('number_id', ?)",
                     (json.dumps({"id": "number_id", "value": f"{owner['e164']}.1"}),))
    else:
        conn = sqlite3.connect(path)
    conn.commit()
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    insert = f"INSERT INTO messages ({', '.join(SIGNAL_COLUMNS)}) VALUES ({', '.join('?' * len(SIGNAL_COLUMNS))})"
    rows = []
    for row in signal_rows(n_base, n_total, start):
        rows.append(row)
        if len(rows) >= BATCH:
            conn.executemany(insert, rows)
            rows.clear()
    conn.executemany(insert, rows)
    conn.commit()
    conn.close()


# ---------------------------------------------------------------------------------- driver

WRITERS = {"whatsapp": write_whatsapp, "chatdb": write_chatdb, "signal": write_signal}


def ensure(size: str, fmt: str, log=print) -> tuple[Path, Path]:
    """Generate (once) the base and extended archive of one format; returns their paths."""
    n = SIZES[size]
    base, ext = paths(size)[fmt]
    done = base.parent / f".{base.name}.{fmt}.done"
    if not done.exists():
        t0 = time.perf_counter()
        WRITERS[fmt](base, n, n)
        ext.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base, ext)
        WRITERS[fmt](ext, n, n_extended(n), start=n)
        done.write_text("ok\n")
        log(f"generated {fmt} {size} in {time.perf_counter() - t0:.1f} s: {base}")
    return base, ext


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=[*SIZES, "all"], default="100k")
    ap.add_argument("--format", choices=[*FORMATS, "all"], default="all")
    args = ap.parse_args(argv)
    for size in (["100k", "1m"] if args.size == "all" else [args.size]):
        for fmt in (FORMATS if args.format == "all" else [args.format]):
            ensure(size, fmt)


if __name__ == "__main__":
    main()
