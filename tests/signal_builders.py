"""Build small Signal Desktop databases from DDL, in two schema versions, for tests and fixtures.

One scenario (`SCENARIO`: owner Sam Rivera, 1:1 chats with Anna Berg and Ben Ortiz, group
"Hiking Club"), written as each schema stores it:

- `old` (user_version 67, Signal Desktop 5.x): sender in `source` (e164) + `sourceUuid`,
  conversations.uuid, everything in messages.json (attachments too), calls in
  json.callHistoryDetails, quote authors as authorUuid.
- `new` (user_version 1380, Signal Desktop 7.x): sender in `sourceServiceId`,
  conversations.serviceId, message columns no longer repeated in json, attachments in
  `message_attachments`, calls in `callsHistory`, quote authors as authorAci.

Both must import to the same records (fixtures/signal/expected.json).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from media_samples import SIGNAL_FIXTURE_KEY, pdf_document, photo, signal_encrypt

T0 = int(datetime(2024, 3, 2, 9, 0, tzinfo=timezone.utc).timestamp() * 1000)
MINUTE = 60_000


def at(minutes: float) -> int:
    return T0 + int(minutes * MINUTE)


@dataclass
class Person:
    conv: str  # conversation id
    aci: str  # service id
    e164: str
    profile: str  # profile full name
    name: str | None = None  # saved contact name


SAM = Person(
    "c5a00000-0000-4000-8000-00000000005a",
    "5a5a5a5a-0000-4000-8000-00000000005a",
    "+15550100000",
    "Sam Rivera",
)
ANNA = Person(
    "c0a00000-0000-4000-8000-0000000000a1",
    "a1a1a1a1-0000-4000-8000-0000000000a1",
    "+15550100001",
    "Anna Berg",
)
BEN = Person(
    "c0b00000-0000-4000-8000-0000000000b2",
    "b2b2b2b2-0000-4000-8000-0000000000b2",
    "+15550100002",
    "Benny O",
    name="Ben Ortiz",
)
GROUP_CONV = "c0900000-0000-4000-8000-000000000090"
GROUP_NAME = "Hiking Club"
PEOPLE = (SAM, ANNA, BEN)


@dataclass
class Msg:
    """A message in schema-neutral form; `to_row` writes it for one schema."""

    id: str
    conv: str
    type: str
    sent_at: int
    body: str | None = None
    author: Person | None = None  # for incoming messages
    quote: tuple[str, Person] | None = None  # (quoted Msg.id, its author) — or unknown sent_at
    quote_missing: tuple[int, Person, str] | None = None  # (sent_at, author, text) not in the db
    reactions: list[tuple[Person, str, int]] = field(default_factory=list)
    edits: list[tuple[str, int]] = field(default_factory=list)  # newest first, current included
    deleted: bool = False  # deletedForEveryone
    erased: bool = False  # isErased
    attachments: list[dict[str, Any]] = field(default_factory=list)
    call: dict[str, Any] | None = None  # callsHistory-shaped
    extra: dict[str, Any] = field(default_factory=dict)  # more json fields


def _msg_id(n: int) -> str:
    return f"00000000-5160-4000-8000-{n:012d}"


SCENARIO: list[Msg] = [
    # Anna Berg, 1:1
    Msg(_msg_id(1), ANNA.conv, "incoming", at(0), "Are we still on for Saturday?", ANNA),
    Msg(
        _msg_id(2),
        ANNA.conv,
        "outgoing",
        at(1),
        "Yes! Trailhead at 9.",
        reactions=[(ANNA, "👍", at(2))],
    ),
    Msg(
        _msg_id(3),
        ANNA.conv,
        "incoming",
        at(3),
        "Perfect, I'll bring coffee ☕",
        ANNA,
        quote=(_msg_id(2), SAM),
    ),
    Msg(
        _msg_id(4),
        ANNA.conv,
        "outgoing",
        at(4),
        "See you at 9:30 then",
        edits=[("See you at 9:30 then", at(6)), ("See you at 9 then", at(4))],
    ),
    Msg(
        _msg_id(5),
        ANNA.conv,
        "call-history",
        at(10),
        call={
            "callId": "7001",
            "peerId": ANNA.aci,
            "mode": "Direct",
            "type": "Audio",
            "direction": "Incoming",
            "status": "Accepted",
            "timestamp": at(10),
            "endedTimestamp": at(10) + 95_000,
        },
    ),
    Msg(_msg_id(6), ANNA.conv, "incoming", at(20), None, ANNA, deleted=True),
    Msg(
        _msg_id(7),
        ANNA.conv,
        "incoming",
        at(30),
        "The view from the top",
        ANNA,
        attachments=[
            {
                "contentType": "image/jpeg",
                "size": 48211,
                "fileName": "trail.jpg",
                "path": "ab/abcdef0123",
                "width": 800,
                "height": 600,
                # newer Signal Desktop: the file on disk is encrypted with this key
                "localKey": SIGNAL_FIXTURE_KEY,
                "version": 2,
                "caption": "The view from the top",
            }
        ],
    ),
    Msg(_msg_id(8), ANNA.conv, "story", at(31), "a story, not chat history", ANNA),
    # Ben Ortiz, 1:1
    Msg(_msg_id(9), BEN.conv, "outgoing", at(40), "Ben, can you drive on Saturday?"),
    Msg(
        _msg_id(10),
        BEN.conv,
        "call-history",
        at(41),
        call={
            "callId": "7002",
            "peerId": BEN.aci,
            "mode": "Direct",
            "type": "Video",
            "direction": "Incoming",
            "status": "Missed",
            "timestamp": at(41),
            "endedTimestamp": None,
        },
    ),
    Msg(
        _msg_id(11),
        BEN.conv,
        "incoming",
        at(42),
        "Sorry, missed your call. Yes, I can drive.",
        BEN,
        reactions=[(SAM, "❤️", at(43))],
    ),
    Msg(_msg_id(12), BEN.conv, "keychange", at(44), extra={"key_changed": BEN.aci}),
    Msg(
        _msg_id(13),
        BEN.conv,
        "profile-change",
        at(45),
        extra={
            "changedId": BEN.conv,
            "profileChange": {"type": "name", "oldName": "Benny", "newName": "Benny O"},
        },
    ),
    Msg(
        _msg_id(14),
        BEN.conv,
        "incoming",
        at(46),
        None,
        BEN,
        attachments=[
            {"contentType": "audio/aac", "size": 20480, "flags": 1, "path": "cd/cdef012345"}
        ],
    ),
    # Hiking Club, group
    Msg(
        _msg_id(15),
        GROUP_CONV,
        "group-v2-change",
        at(50),
        extra={"groupV2Change": {"from": SAM.aci, "details": [{"type": "create"}]}},
    ),
    Msg(
        _msg_id(16),
        GROUP_CONV,
        "group-v2-change",
        at(51),
        extra={
            "groupV2Change": {
                "from": SAM.aci,
                "details": [
                    {"type": "member-add", "aci": ANNA.aci},
                    {"type": "member-add", "aci": BEN.aci},
                ],
            }
        },
    ),
    Msg(
        _msg_id(17),
        GROUP_CONV,
        "group-v2-change",
        at(52),
        extra={
            "groupV2Change": {
                "from": ANNA.aci,
                "details": [{"type": "title", "newTitle": GROUP_NAME}],
            }
        },
    ),
    Msg(
        _msg_id(18),
        GROUP_CONV,
        "incoming",
        at(53),
        "Hi all 👋",
        ANNA,
        reactions=[(BEN, "😂", at(54)), (SAM, "👍", at(55))],
    ),
    Msg(_msg_id(19), GROUP_CONV, "incoming", at(56), "Hello!", BEN, quote=(_msg_id(18), ANNA)),
    Msg(
        _msg_id(20),
        GROUP_CONV,
        "outgoing",
        at(57),
        "Route map attached",
        attachments=[
            {
                "contentType": "application/pdf",
                "size": 120400,
                "fileName": "route.pdf",
                "path": "ef/ef01234567",
            }
        ],
    ),
    Msg(
        _msg_id(21),
        GROUP_CONV,
        "timer-notification",
        at(58),
        extra={"expirationTimerUpdate": {"expireTimer": 604800, "sourceServiceId": ANNA.aci}},
    ),
    Msg(_msg_id(22), GROUP_CONV, "incoming", at(59), None, BEN, erased=True),
    Msg(
        _msg_id(23),
        GROUP_CONV,
        "incoming",
        at(60),
        "\ufffc can you bring the map?",
        ANNA,
        extra={"bodyRanges": [{"start": 0, "length": 1, "mentionAci": BEN.aci}]},
    ),
    Msg(
        _msg_id(24),
        GROUP_CONV,
        "incoming",
        at(61),
        "Yes, that one",
        BEN,
        quote_missing=(at(-600), ANNA, "an older message"),
    ),
]

# ---------------------------------------------------------------------------------- DDL

OLD_DDL = """
CREATE TABLE conversations(
    id STRING PRIMARY KEY ASC, json TEXT, active_at INTEGER, type STRING, members TEXT,
    name TEXT, profileName TEXT, profileFamilyName TEXT, profileFullName TEXT, e164 TEXT,
    uuid TEXT, groupId TEXT, profileLastFetchedAt INTEGER);
CREATE TABLE messages(
    rowid INTEGER PRIMARY KEY ASC, id STRING UNIQUE, json TEXT, readStatus INTEGER,
    expires_at INTEGER, sent_at INTEGER, schemaVersion INTEGER, conversationId STRING,
    received_at INTEGER, source STRING, sourceDevice STRING, hasAttachments INTEGER,
    hasFileAttachments INTEGER, hasVisualMediaAttachments INTEGER, expireTimer INTEGER,
    expirationStartTimestamp INTEGER, type STRING, body TEXT, messageTimer INTEGER,
    messageTimerStart INTEGER, messageTimerExpiresAt INTEGER, isErased INTEGER,
    isViewOnce INTEGER, sourceUuid TEXT, serverGuid STRING NULL, storyId STRING,
    isStory INTEGER GENERATED ALWAYS AS (type = 'story'));
CREATE TABLE items(id STRING PRIMARY KEY ASC, json TEXT);
CREATE INDEX messages_conversation ON messages (conversationId, received_at);
PRAGMA user_version = 67;
"""

NEW_DDL = """
CREATE TABLE conversations(
    id STRING PRIMARY KEY ASC, json TEXT, active_at INTEGER, type STRING, members TEXT,
    name TEXT, profileName TEXT, profileFamilyName TEXT, profileFullName TEXT, e164 TEXT,
    serviceId TEXT, groupId TEXT, profileLastFetchedAt INTEGER,
    expireTimerVersion INTEGER NOT NULL DEFAULT 1);
CREATE TABLE messages(
    rowid INTEGER PRIMARY KEY ASC, id STRING UNIQUE, json TEXT, readStatus INTEGER,
    expires_at INTEGER, sent_at INTEGER, schemaVersion INTEGER, conversationId STRING,
    received_at INTEGER, hasAttachments INTEGER, hasFileAttachments INTEGER,
    hasVisualMediaAttachments INTEGER, expireTimer INTEGER, expirationStartTimestamp INTEGER,
    type STRING, body TEXT, messageTimer INTEGER, messageTimerStart INTEGER,
    messageTimerExpiresAt INTEGER, isErased INTEGER, isViewOnce INTEGER,
    sourceServiceId TEXT, serverGuid STRING NULL, sourceDevice INTEGER, storyId STRING,
    isStory INTEGER GENERATED ALWAYS AS (type IS 'story'),
    callId TEXT GENERATED ALWAYS AS (json_extract(json, '$.callId')),
    timestamp INTEGER, received_at_ms INTEGER, unidentifiedDeliveryReceived INTEGER,
    serverTimestamp INTEGER, source TEXT);
CREATE TABLE callsHistory(
    callId TEXT PRIMARY KEY, peerId TEXT NOT NULL, ringerId TEXT DEFAULT NULL,
    mode TEXT NOT NULL, type TEXT NOT NULL, direction TEXT NOT NULL, status TEXT NOT NULL,
    timestamp INTEGER NOT NULL, startedById TEXT DEFAULT NULL, endedTimestamp INTEGER DEFAULT NULL,
    UNIQUE (callId, peerId) ON CONFLICT FAIL);
CREATE TABLE message_attachments(
    messageId TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    editHistoryIndex INTEGER NOT NULL, attachmentType TEXT NOT NULL,
    orderInMessage INTEGER NOT NULL, conversationId TEXT NOT NULL, sentAt INTEGER NOT NULL,
    size INTEGER NOT NULL, contentType TEXT NOT NULL, path TEXT, fileName TEXT,
    height INTEGER, width INTEGER, flags INTEGER, localKey TEXT, version INTEGER, caption TEXT,
    PRIMARY KEY (messageId, editHistoryIndex, attachmentType, orderInMessage)) STRICT;
CREATE TABLE items(id STRING PRIMARY KEY ASC, json TEXT);
PRAGMA user_version = 1380;
"""

# Fields that schema 1270+ keeps in columns and no longer in json.
NEW_COLUMN_FIELDS = {
    "id",
    "body",
    "conversationId",
    "sent_at",
    "source",
    "sourceServiceId",
    "type",
    "timestamp",
    "serverTimestamp",
    "isErased",
    "received_at",
}


def _conversation_rows(version: str) -> list[tuple]:
    sid = "uuid" if version == "old" else "serviceId"
    member_key = "uuid" if version == "old" else "aci"
    rows = []
    for p in PEOPLE:
        first, _, family = p.profile.partition(" ")
        rows.append(
            {
                "id": p.conv,
                "type": "private",
                "name": p.name,
                "profileName": first,
                "profileFamilyName": family,
                "profileFullName": p.profile,
                "e164": p.e164,
                sid: p.aci,
                "json": json.dumps({"id": p.conv, "type": "private"}),
            }
        )
    members = [{member_key: p.aci, "role": 1} for p in PEOPLE]
    rows.append(
        {
            "id": GROUP_CONV,
            "type": "group",
            "name": GROUP_NAME,
            "groupId": "Z3JvdXA=",
            "json": json.dumps(
                {"id": GROUP_CONV, "type": "group", "name": GROUP_NAME, "membersV2": members}
            ),
        }
    )
    return rows


def _message_json(m: Msg, version: str) -> dict[str, Any]:
    old = version == "old"
    data: dict[str, Any] = {
        "id": m.id,
        "conversationId": m.conv,
        "type": m.type,
        "sent_at": m.sent_at,
        "timestamp": m.sent_at,
        "received_at": 1000,
    }
    if m.body is not None:
        data["body"] = m.body
    if m.author is not None:
        data["source"] = m.author.e164
        data["sourceUuid" if old else "sourceServiceId"] = m.author.aci
    author_key = "authorUuid" if old else "authorAci"
    if m.quote is not None:
        target = next(t for t in SCENARIO if t.id == m.quote[0])
        data["quote"] = {
            "id": target.sent_at,
            author_key: m.quote[1].aci,
            "text": target.body,
            "attachments": [],
            "referencedMessageNotFound": False,
        }
    if m.quote_missing is not None:
        sent, author, text = m.quote_missing
        data["quote"] = {
            "id": sent,
            author_key: author.aci,
            "text": text,
            "attachments": [],
            "referencedMessageNotFound": True,
        }
    if m.reactions:
        data["reactions"] = [
            {"emoji": e, "fromId": p.conv, "targetTimestamp": m.sent_at, "timestamp": ts}
            for p, e, ts in m.reactions
        ]
    if m.edits:
        data["editHistory"] = [{"body": b, "timestamp": ts, "attachments": []} for b, ts in m.edits]
        data["editMessageTimestamp"] = m.edits[0][1]
    if m.deleted:
        data["deletedForEveryone"] = True
    if m.attachments and old:
        data["attachments"] = m.attachments
    if m.call is not None:
        if old:
            c = m.call
            accepted = c["status"] == "Accepted"
            data["callHistoryDetails"] = {
                "callMode": c["mode"],
                "wasIncoming": c["direction"] == "Incoming",
                "wasVideoCall": c["type"] == "Video",
                "wasDeclined": c["status"] == "Declined",
                "acceptedTime": c["timestamp"] if accepted else None,
                "endedTime": c["endedTimestamp"],
            }
        else:
            data["callId"] = m.call["callId"]
    data.update(m.extra)
    if not old:
        data = {k: v for k, v in data.items() if k not in NEW_COLUMN_FIELDS}
    return data


def _message_row(rowid: int, m: Msg, version: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "rowid": rowid,
        "id": m.id,
        "json": json.dumps(_message_json(m, version)),
        "sent_at": m.sent_at,
        "conversationId": m.conv,
        "received_at": 1000 + rowid,
        "type": m.type,
        "body": m.body,
        "isErased": int(m.erased),
        "hasAttachments": int(bool(m.attachments)),
        "schemaVersion": 13,
    }
    if m.author is not None:
        row["source"] = m.author.e164
        row["sourceUuid" if version == "old" else "sourceServiceId"] = m.author.aci
    if version == "new":
        row["timestamp"] = m.sent_at
    return row


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    cols = ", ".join(row)
    conn.execute(
        f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' * len(row))})", list(row.values())
    )


def build_database(path: Path, version: str = "new", messages: list[Msg] | None = None) -> Path:
    """Write a Signal Desktop database in schema `version` ("old" or "new") to `path`."""
    if version not in ("old", "new"):
        raise ValueError(version)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")  # keeps the committed fixture a few KB
    conn.executescript(OLD_DDL if version == "old" else NEW_DDL)
    for row in _conversation_rows(version):
        _insert(conn, "conversations", row)
    _insert(
        conn,
        "items",
        {"id": "uuid_id", "json": json.dumps({"id": "uuid_id", "value": f"{SAM.aci}.1"})},
    )
    _insert(
        conn,
        "items",
        {"id": "number_id", "json": json.dumps({"id": "number_id", "value": f"{SAM.e164}.1"})},
    )
    for rowid, m in enumerate(messages if messages is not None else SCENARIO, 1):
        _insert(conn, "messages", _message_row(rowid, m, version))
        if version == "new" and m.call is not None:
            _insert(conn, "callsHistory", m.call)
        if version == "new":
            for order, a in enumerate(m.attachments):
                _insert(
                    conn,
                    "message_attachments",
                    {
                        "messageId": m.id,
                        "editHistoryIndex": -1,
                        "attachmentType": "attachment",
                        "orderInMessage": order,
                        "conversationId": m.conv,
                        "sentAt": m.sent_at,
                        "size": a["size"],
                        "contentType": a["contentType"],
                        "path": a.get("path"),
                        "fileName": a.get("fileName"),
                        "flags": a.get("flags"),
                        "width": a.get("width"),
                        "height": a.get("height"),
                        "localKey": a.get("localKey"),
                        "version": a.get("version"),
                        "caption": a.get("caption"),
                    },
                )
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    write_attachment_files(path.parent / "attachments.noindex")
    return path


# The files of the scenario's attachments, as Signal Desktop keeps them in attachments.noindex:
# the photo encrypted (version 2, with its localKey), the PDF as an older version left it
# (plain), and the voice note missing (never downloaded).
ATTACHMENT_FILES = {
    "ab/abcdef0123": lambda: signal_encrypt(photo("trail")),
    "ef/ef01234567": lambda: pdf_document(["Hiking Club route: Brocken via Eckerloch",
                                           "Return: Harz narrow-gauge railway from the summit"]),
}


def write_attachment_files(folder: Path) -> None:
    for relative, make in ATTACHMENT_FILES.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(make())
