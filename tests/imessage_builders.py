"""Builders for iMessage test data, written by us: typedstream blobs (a small NSArchiver-style
writer), message_summary_info plists, chat.db files in three schema generations, an iOS backup
folder with Manifest.db, and CallHistory.storedata.

Used by tests/test_imessage*.py and by fixtures/imessage/build_fixture.py.
"""

from __future__ import annotations

import hashlib
import plistlib
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

APPLE_EPOCH = datetime(2001, 1, 1, tzinfo=timezone.utc)

# ------------------------------------------------------------------ typedstream writer

_HEADER = b"\x04\x0bstreamtyped\x81\xe8\x03"
_NEW, _NIL, _END = 0x84, 0x85, 0x86
_FIRST_REFERENCE = -110


class TypedStreamWriter:
    """Writes the subset of typedstream that Messages uses for attributedBody."""

    def __init__(self) -> None:
        self.out = bytearray(_HEADER)
        self.strings: dict[bytes, int] = {}  # shared string table
        self.objects: list[Any] = []  # object table: objects, classes, C strings
        self.classes: dict[str, int] = {}
        self.c_strings: dict[bytes, int] = {}

    def integer(self, n: int) -> None:
        if -110 <= n <= 127:
            self.out += (n & 0xFF).to_bytes(1, "little")
        elif -(2**15) <= n < 2**15:
            self.out += b"\x81" + n.to_bytes(2, "little", signed=True)
        else:
            self.out += b"\x82" + n.to_bytes(4, "little", signed=True)

    def length(self, n: int) -> None:
        if n <= 127:
            self.out.append(n)
        elif n < 2**16:
            self.out += b"\x81" + n.to_bytes(2, "little")
        else:
            self.out += b"\x82" + n.to_bytes(4, "little")

    def reference(self, index: int) -> None:
        self.integer(index + _FIRST_REFERENCE)

    def shared_string(self, s: bytes) -> None:
        if s in self.strings:
            self.reference(self.strings[s])
            return
        self.out.append(_NEW)
        self.length(len(s))
        self.out += s
        self.strings[s] = len(self.strings)

    def class_chain(self, chain: list[tuple[str, int]]) -> None:
        """[(name, version), ...] from the class up to its root."""
        for name, version in chain:
            if name in self.classes:
                self.reference(self.classes[name])
                return
            self.out.append(_NEW)
            self.shared_string(name.encode())
            self.integer(version)
            self.classes[name] = len(self.objects)
            self.objects.append(name)
        self.out.append(_NIL)

    def begin_object(self, chain: list[tuple[str, int]]) -> None:
        self.out.append(_NEW)
        self.objects.append(object())
        self.class_chain(chain)

    def end_object(self) -> None:
        self.out.append(_END)

    def ns_string(self, text: str) -> None:
        self.shared_string(b"@")
        self.begin_object([("NSString", 1), ("NSObject", 0)])
        self.shared_string(b"+")
        data = text.encode("utf-8")
        self.length(len(data))
        self.out += data
        self.end_object()

    def ns_number(self, n: int) -> None:
        self.shared_string(b"@")
        self.begin_object([("NSNumber", 0), ("NSValue", 0), ("NSObject", 0)])
        self.shared_string(b"*")
        if b"q" in self.c_strings:
            self.reference(self.c_strings[b"q"])
        else:
            self.out.append(_NEW)
            self.shared_string(b"q")
            self.c_strings[b"q"] = len(self.objects)
            self.objects.append(b"q")
        self.shared_string(b"q")
        self.integer(n)
        self.end_object()

    def value(self, v: Any) -> None:
        if isinstance(v, str):
            self.ns_string(v)
        elif isinstance(v, int):
            self.ns_number(v)
        else:
            raise TypeError(v)

    def dictionary(self, attrs: dict[str, Any]) -> None:
        self.shared_string(b"@")
        self.begin_object([("NSDictionary", 0), ("NSObject", 0)])
        self.shared_string(b"i")
        self.integer(len(attrs))
        for k, v in attrs.items():
            self.ns_string(k)
            self.value(v)
        self.end_object()


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def attributed_body(text: str, runs: list[tuple[int, dict[str, Any]]] | None = None) -> bytes:
    """NSMutableAttributedString bytes: `text` plus attribute runs [(length in UTF-16, attrs)].

    By default one run over the whole text marked as message part 0, as Messages writes it.
    """
    if runs is None:
        runs = [(utf16_len(text), {"__kIMMessagePartAttributeName": 0})] if text else []
    w = TypedStreamWriter()
    w.shared_string(b"@")
    w.begin_object([("NSMutableAttributedString", 0), ("NSAttributedString", 0), ("NSObject", 0)])
    w.ns_string(text)
    ids: dict[str, int] = {}
    for length, attrs in runs:
        key = repr(sorted(attrs.items()))
        new = key not in ids
        if new:
            ids[key] = len(ids) + 1
        w.shared_string(b"iI")
        w.integer(ids[key])
        w.length(length)
        if new:
            w.dictionary(attrs)
    w.end_object()
    return bytes(w.out)


def attachment_body(text_before: str, guid: str, text_after: str = "", **extra: Any) -> bytes:
    """A body with one attachment (U+FFFC) between two texts."""
    runs = []
    if text_before:
        runs.append((utf16_len(text_before), {"__kIMMessagePartAttributeName": 0}))
    runs.append((1, {"__kIMFileTransferGUIDAttributeName": guid,
                     "__kIMMessagePartAttributeName": 1 if text_before else 0, **extra}))  # fmt: skip
    if text_after:
        runs.append((utf16_len(text_after), {"__kIMMessagePartAttributeName": 2}))
    return attributed_body(text_before + "\ufffc" + text_after, runs)


def mention_body(before: str, name: str, handle: str, after: str) -> bytes:
    runs = [(utf16_len(before), {"__kIMMessagePartAttributeName": 0}),
            (utf16_len(name), {"__kIMMessagePartAttributeName": 0,
                               "__kIMMentionConfirmedMention": handle}),
            (utf16_len(after), {"__kIMMessagePartAttributeName": 0})]  # fmt: skip
    return attributed_body(before + name + after, runs)


def summary_info(edits: dict[int, list[tuple[str, datetime]]] | None = None,
                 parts: int = 1, unsent: list[int] | None = None) -> bytes:  # fmt: skip
    """A message_summary_info binary plist: edit history per part, unsent part indexes."""
    plist: dict[str, Any] = {"ust": True, "otr": {str(i): {"lo": i, "le": 1} for i in range(parts)}}
    if edits:
        plist["ec"] = {
            str(part): [{"t": attributed_body(t), "d": (when - APPLE_EPOCH).total_seconds()}
                        for t, when in versions]
            for part, versions in edits.items()
        }  # fmt: skip
        plist["ep"] = sorted(edits)
    if unsent:
        plist["rp"] = unsent
    return plistlib.dumps(plist, fmt=plistlib.FMT_BINARY)


# ------------------------------------------------------------------ chat.db schemas

# macOS 10.13 / iOS 11 (the earliest generation we read): no replies, no edits.
GEN_2017 = "macos10.13"
# macOS 11 / iOS 14: thread_originator_guid (inline replies).
GEN_2020 = "macos11"
# macOS 14 / iOS 17: edits, unsends, Recently Deleted, custom emoji tapbacks.
GEN_2023 = "macos14"
GENERATIONS = (GEN_2017, GEN_2020, GEN_2023)

_MESSAGE_2017 = """ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
 replace INTEGER DEFAULT 0, service_center TEXT, handle_id INTEGER DEFAULT 0, subject TEXT,
 country TEXT, attributedBody BLOB, version INTEGER DEFAULT 0, type INTEGER DEFAULT 0,
 service TEXT, account TEXT, account_guid TEXT, error INTEGER DEFAULT 0, date INTEGER,
 date_read INTEGER, date_delivered INTEGER, is_delivered INTEGER DEFAULT 0,
 is_finished INTEGER DEFAULT 0, is_emote INTEGER DEFAULT 0, is_from_me INTEGER DEFAULT 0,
 is_empty INTEGER DEFAULT 0, is_delayed INTEGER DEFAULT 0, is_auto_reply INTEGER DEFAULT 0,
 is_prepared INTEGER DEFAULT 0, is_read INTEGER DEFAULT 0, is_system_message INTEGER DEFAULT 0,
 is_sent INTEGER DEFAULT 0, has_dd_results INTEGER DEFAULT 0, is_service_message INTEGER DEFAULT 0,
 is_forward INTEGER DEFAULT 0, was_downgraded INTEGER DEFAULT 0, is_archive INTEGER DEFAULT 0,
 cache_has_attachments INTEGER DEFAULT 0, cache_roomnames TEXT, was_data_detected INTEGER DEFAULT 0,
 was_deduplicated INTEGER DEFAULT 0, is_audio_message INTEGER DEFAULT 0, is_played INTEGER DEFAULT 0,
 date_played INTEGER, item_type INTEGER DEFAULT 0, other_handle INTEGER DEFAULT 0,
 group_title TEXT, group_action_type INTEGER DEFAULT 0, share_status INTEGER DEFAULT 0,
 share_direction INTEGER DEFAULT 0, is_expirable INTEGER DEFAULT 0, expire_state INTEGER DEFAULT 0,
 message_action_type INTEGER DEFAULT 0, message_source INTEGER DEFAULT 0,
 associated_message_guid TEXT, associated_message_type INTEGER DEFAULT 0, balloon_bundle_id TEXT,
 payload_data BLOB, expressive_send_style_id TEXT, associated_message_range_location INTEGER DEFAULT 0,
 associated_message_range_length INTEGER DEFAULT 0, time_expressive_send_played INTEGER,
 message_summary_info BLOB"""
_MESSAGE_2020 = _MESSAGE_2017 + """, ck_sync_state INTEGER DEFAULT 0, ck_record_id TEXT,
 ck_record_change_tag TEXT, destination_caller_id TEXT, sr_ck_sync_state INTEGER DEFAULT 0,
 sr_ck_record_id TEXT, sr_ck_record_change_tag TEXT, is_corrupt INTEGER DEFAULT 0,
 reply_to_guid TEXT, sort_id INTEGER, is_spam INTEGER DEFAULT 0, has_unseen_mention INTEGER DEFAULT 0,
 thread_originator_guid TEXT, thread_originator_part TEXT"""
_MESSAGE_2023 = _MESSAGE_2020 + """, syndication_ranges TEXT, synced_syndication_ranges TEXT,
 was_delivered_quietly INTEGER DEFAULT 0, did_notify_recipient INTEGER DEFAULT 0,
 date_retracted INTEGER DEFAULT 0, date_edited INTEGER DEFAULT 0, was_detonated INTEGER DEFAULT 0,
 part_count INTEGER, is_stewie INTEGER DEFAULT 0, is_kt_verified INTEGER DEFAULT 0,
 is_sos INTEGER DEFAULT 0, is_critical INTEGER DEFAULT 0, bia_reference_id TEXT DEFAULT NULL,
 fallback_hash TEXT DEFAULT NULL, associated_message_emoji TEXT DEFAULT NULL"""

_COMMON_DDL = """
CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL,
  country TEXT, service TEXT NOT NULL, uncanonicalized_id TEXT{handle_extra}, UNIQUE (id, service));
CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, style INTEGER,
  state INTEGER, account_id TEXT, properties BLOB, chat_identifier TEXT, service_name TEXT,
  room_name TEXT, account_login TEXT, is_archived INTEGER DEFAULT 0, last_addressed_handle TEXT,
  display_name TEXT, group_id TEXT, is_filtered INTEGER DEFAULT 0, successful_query INTEGER);
CREATE TABLE chat_handle_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
  handle_id INTEGER REFERENCES handle (ROWID) ON DELETE CASCADE, UNIQUE(chat_id, handle_id));
CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
  message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE{cmj_extra},
  PRIMARY KEY (chat_id, message_id));
CREATE TABLE attachment (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL,
  created_date INTEGER DEFAULT 0, start_date INTEGER DEFAULT 0, filename TEXT, uti TEXT,
  mime_type TEXT, transfer_state INTEGER DEFAULT 0, is_outgoing INTEGER DEFAULT 0, user_info BLOB,
  transfer_name TEXT, total_bytes INTEGER DEFAULT 0, is_sticker INTEGER DEFAULT 0,
  sticker_user_info BLOB, attribution_info BLOB, hide_attachment INTEGER DEFAULT 0);
CREATE TABLE message_attachment_join (message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE,
  attachment_id INTEGER REFERENCES attachment (ROWID) ON DELETE CASCADE, UNIQUE(message_id, attachment_id));
CREATE TABLE deleted_messages (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, guid TEXT NOT NULL);
CREATE INDEX chat_message_join_idx_message_id_only ON chat_message_join(message_id);
CREATE INDEX message_attachment_join_idx_message_id ON message_attachment_join(message_id);
CREATE INDEX message_idx_handle ON message(handle_id, date);
"""

_RECENTLY_DELETED_DDL = """
CREATE TABLE chat_recoverable_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
  message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, delete_date INTEGER,
  ck_sync_state INTEGER DEFAULT 0, PRIMARY KEY (chat_id, message_id), CHECK (delete_date != 0));
CREATE TABLE recoverable_message_part (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
  message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, part_index INTEGER,
  delete_date INTEGER, part_text BLOB NOT NULL, ck_sync_state INTEGER DEFAULT 0,
  PRIMARY KEY (chat_id, message_id, part_index), CHECK (delete_date != 0));
"""


def ddl(generation: str) -> str:
    message = {GEN_2017: _MESSAGE_2017, GEN_2020: _MESSAGE_2020, GEN_2023: _MESSAGE_2023}[generation]
    newer = generation != GEN_2017
    script = f"CREATE TABLE message ({message});\n" + _COMMON_DDL.format(
        handle_extra=", person_centric_id TEXT" if newer else "",
        cmj_extra=", message_date INTEGER DEFAULT 0" if newer else "",
    )
    if generation == GEN_2023:
        script += _RECENTLY_DELETED_DDL
    return script


def apple_ns(when: datetime) -> int:
    delta = when - APPLE_EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def apple_s(when: datetime) -> int:
    return int((when - APPLE_EPOCH).total_seconds())


class ChatDbBuilder:
    """Writes a chat.db of one generation; columns the generation lacks are refused."""

    def __init__(self, path: Path, generation: str, page_size: int | None = None) -> None:
        self.generation = generation
        path.unlink(missing_ok=True)
        self.conn = sqlite3.connect(path)
        if page_size:  # small pages keep committed fixtures small
            self.conn.execute(f"PRAGMA page_size = {page_size}")
        self.conn.executescript(ddl(generation))
        self.message_columns = {r[1] for r in self.conn.execute("PRAGMA table_info(message)")}
        self.seconds_dates = False  # write `date` in seconds (pre-10.13 rows)

    def has(self, column: str) -> bool:
        return column in self.message_columns

    def date(self, when: datetime) -> int:
        return apple_s(when) if self.seconds_dates else apple_ns(when)

    def handle(self, ident: str, service: str = "iMessage") -> int:
        cur = self.conn.execute("INSERT INTO handle (id, service, uncanonicalized_id) VALUES (?, ?, ?)",
                                (ident, service, ident))  # fmt: skip
        return cur.lastrowid  # type: ignore[return-value]

    def chat(self, guid: str, handles: list[int], identifier: str, group: bool,
             display_name: str = "") -> int:  # fmt: skip
        cur = self.conn.execute(
            "INSERT INTO chat (guid, style, chat_identifier, service_name, display_name) "
            "VALUES (?, ?, ?, 'iMessage', ?)",
            (guid, 43 if group else 45, identifier, display_name),
        )
        chat = cur.lastrowid
        for h in handles:
            self.conn.execute("INSERT INTO chat_handle_join VALUES (?, ?)", (chat, h))
        return chat  # type: ignore[return-value]

    def message(self, guid: str, when: datetime, chat: int | None, handle: int = 0,
                from_me: bool = False, text: str | None = None, body: bytes | None = None,
                **columns: Any) -> int:  # fmt: skip
        values: dict[str, Any] = {
            "guid": guid, "text": text, "attributedBody": body, "handle_id": handle,
            "is_from_me": int(from_me), "date": self.date(when), "service": "iMessage",
            "is_finished": 1, "is_sent": int(from_me), "is_delivered": 1,
        }  # fmt: skip
        values.update(columns)
        unknown = [c for c in values if c not in self.message_columns]
        if unknown:
            raise ValueError(f"{self.generation} has no message column(s) {unknown}")
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        rowid = self.conn.execute(f"INSERT INTO message ({cols}) VALUES ({marks})",
                                  list(values.values())).lastrowid  # fmt: skip
        if chat is not None:
            if self.generation == GEN_2017:
                self.conn.execute("INSERT INTO chat_message_join VALUES (?, ?)", (chat, rowid))
            else:
                self.conn.execute("INSERT INTO chat_message_join VALUES (?, ?, ?)",
                                  (chat, rowid, values["date"]))  # fmt: skip
        return rowid  # type: ignore[return-value]

    def attachment(self, message: int, guid: str, filename: str, mime_type: str | None,
                   transfer_name: str, total_bytes: int, uti: str | None = None) -> None:  # fmt: skip
        cur = self.conn.execute(
            "INSERT INTO attachment (guid, filename, mime_type, uti, transfer_name, total_bytes) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (guid, filename, mime_type, uti, transfer_name, total_bytes),
        )
        self.conn.execute("INSERT INTO message_attachment_join VALUES (?, ?)", (message, cur.lastrowid))
        self.conn.execute("UPDATE message SET cache_has_attachments = 1 WHERE ROWID = ?", (message,))

    def recently_deleted(self, message: int, chat: int, when: datetime, text: str) -> None:
        """Moves a message to Recently Deleted the way Messages does: out of its chat's join,
        into chat_recoverable_message_join, its text kept as a recoverable part."""
        self.conn.execute("DELETE FROM chat_message_join WHERE message_id = ?", (message,))
        self.conn.execute("INSERT INTO chat_recoverable_message_join (chat_id, message_id, delete_date) "
                          "VALUES (?, ?, ?)", (chat, message, apple_ns(when)))  # fmt: skip
        self.conn.execute(
            "INSERT INTO recoverable_message_part (chat_id, message_id, part_index, delete_date, part_text) "
            "VALUES (?, ?, 0, ?, ?)",
            (chat, message, apple_ns(when), attributed_body(text)),
        )

    def close(self) -> None:
        self.conn.commit()
        self.conn.execute("VACUUM")
        self.conn.close()


# ------------------------------------------------------------------ the standard scenario

ANNA = "+15550100001"
BEN = "ben@example.com"
CARLA = "+15550100003"  # writes once, in no chat (an orphan message)


def t(minute: int) -> datetime:
    """2023-05-06 09:00 UTC plus `minute` minutes."""
    return datetime(2023, 5, 6, 9, minute, tzinfo=timezone.utc)


@dataclass
class Scenario:
    """What the standard chat.db holds, for assertions."""

    generation: str
    path: Path
    anna_chat: str = "iMessage;-;" + ANNA
    group_chat: str = "iMessage;+;chat100200300"
    group_name: str = ""
    guids: dict[str, str] = field(default_factory=dict)


def build_chat_db(path: Path, generation: str, attachments_dir: str = "~/Library/Messages/Attachments"
                  ) -> Scenario:  # fmt: skip
    """The standard conversation, with every case the generation's schema can hold:
    text in `text`, text only in attributedBody, tapbacks, replies, edits, unsends, group events,
    attachments, an orphan message and an undecodable body."""
    db = ChatDbBuilder(path, generation)
    sc = Scenario(generation, path)
    g = sc.guids
    newer = generation != GEN_2017
    latest = generation == GEN_2023

    anna = db.handle(ANNA)
    ben = db.handle(BEN)
    carla = db.handle(CARLA, "SMS")
    c1 = db.chat(sc.anna_chat, [anna], ANNA, group=False)
    sc.group_name = "Weekend trip" if newer else ""
    grp = db.chat(sc.group_chat, [anna, ben], "chat100200300", group=True, display_name=sc.group_name)

    def guid(name: str) -> str:
        g[name] = f"{generation.upper()}-{name.upper()}-0000-0000-000000000000"
        return g[name]

    # 1:1 with Anna.
    if generation == GEN_2017:
        db.seconds_dates = True  # rows written before macOS 10.13 keep dates in seconds
    db.message(guid("hello"), t(0), c1, anna, text="Hi Sam, are we still on for Saturday?")
    db.seconds_dates = False
    # Text only in attributedBody: NULL on newer systems, '' on some older ones.
    db.message(guid("body_only"), t(1), c1, from_me=True, text="" if not newer else None,
               body=attributed_body("Yes! See you at 10"))  # fmt: skip
    db.message(guid("love"), t(2), c1, anna, text="Loved “Yes! See you at 10”",
               associated_message_guid="p:0/" + g["body_only"], associated_message_type=2000)  # fmt: skip
    db.message(guid("like"), t(3), c1, from_me=True, text="Liked “Hi Sam…”",
               associated_message_guid="p:0/" + g["hello"], associated_message_type=2001)  # fmt: skip
    db.message(guid("unlike"), t(4), c1, from_me=True, text="Removed a like",
               associated_message_guid="p:0/" + g["hello"], associated_message_type=3001)  # fmt: skip
    reply = {"thread_originator_guid": g["body_only"], "thread_originator_part": "0:0:18"} if newer else {}
    db.message(guid("reply"), t(5), c1, anna, text="Great, I'll bring coffee", **reply)
    photo = db.message(guid("photo"), t(6), c1, from_me=True, text="\ufffc",
                       body=attachment_body("", "at_0_" + g["hello"]))  # fmt: skip
    db.attachment(photo, "at_0_" + g["hello"], f"{attachments_dir}/ab/01/ATT1/IMG_0001.jpeg",
                  "image/jpeg", "IMG_0001.jpeg", 12345, "public.jpeg")  # fmt: skip
    doc = db.message(guid("doc"), t(7), c1, anna, text="\ufffcthe plan",
                     body=attachment_body("", "at_0_" + g["photo"], "the plan"))  # fmt: skip
    db.attachment(doc, "at_0_" + g["photo"], f"{attachments_dir}/cd/02/ATT2/plan.pdf", None,
                  "plan.pdf", 2048, "com.adobe.pdf")  # fmt: skip

    # The group.
    db.message(guid("added"), t(10), grp, from_me=True, item_type=1, group_action_type=0,
               other_handle=ben)  # fmt: skip
    db.message(guid("group_hi"), t(11), grp, ben, text="Hello everyone")
    db.message(guid("renamed"), t(12), grp, anna, item_type=2, group_title="Weekend trip")
    db.message(guid("icon"), t(13), grp, anna, item_type=3, group_action_type=1)
    db.message(guid("icon_removed"), t(14), grp, from_me=True, item_type=3, group_action_type=2)
    if newer:
        db.message(guid("mention"), t(15), grp, from_me=True, text=None,
                   body=mention_body("Thanks ", "Anna", ANNA, "!"))  # fmt: skip
    db.message(guid("removed"), t(16), grp, anna, item_type=1, group_action_type=1, other_handle=ben)
    db.message(guid("left"), t(17), grp, anna, item_type=3, group_action_type=0)

    # Orphan: no chat joins it.
    db.message(guid("orphan"), t(20), None, carla, text="Your table is ready", service="SMS")
    # Undecodable body, no text: kept, counted.
    db.message(guid("broken"), t(21), c1, anna, text=None,
               body=attributed_body("x")[:-6] + b"\x84\x01")  # fmt: skip

    if latest:
        db.message(guid("edited"), t(30), c1, anna, text="See you at 11",
                   body=attributed_body("See you at 11"), date_edited=apple_ns(t(32)),
                   message_summary_info=summary_info({0: [("See you at 10", t(30)),
                                                          ("See you at 11", t(32))]}))  # fmt: skip
        db.message(guid("unsent"), t(33), c1, from_me=True, text=None, body=attributed_body(""),
                   date_retracted=apple_ns(t(34)), date_edited=apple_ns(t(34)),
                   message_summary_info=summary_info(parts=1, unsent=[0]))  # fmt: skip
        db.message(guid("partly_unsent"), t(35), c1, from_me=True, text="first part",
                   body=attributed_body("first part"), date_retracted=apple_ns(t(36)),
                   message_summary_info=summary_info(parts=2, unsent=[1]))  # fmt: skip
        db.message(guid("party"), t(37), grp, anna, text="Reacted 🎉 to “Hello everyone”",
                   associated_message_guid="p:0/" + g["group_hi"], associated_message_type=2006,
                   associated_message_emoji="🎉")  # fmt: skip
        db.message(guid("sticker"), t(38), grp, from_me=True, text=None,
                   associated_message_guid="bp:" + g["group_hi"], associated_message_type=2007)  # fmt: skip
        voice = db.message(guid("voice"), t(39), c1, anna, text="\ufffc", is_audio_message=1,
                           body=attachment_body("", "at_0_VOICE",
                                                IMAudioTranscription="Running late, sorry"))  # fmt: skip
        db.attachment(voice, "at_0_VOICE", f"{attachments_dir}/ef/03/ATT3/Audio Message.caf",
                      "audio/x-caf", "Audio Message.caf", 4096)  # fmt: skip
        gone = db.message(guid("recently_deleted"), t(40), c1, from_me=True, text=None, body=None)
        db.recently_deleted(gone, c1, t(41), "oops wrong chat")
    db.close()
    return sc


# ------------------------------------------------------------------ call history, backups

_CALL_DDL = """
CREATE TABLE ZCALLRECORD (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
  ZANSWERED INTEGER, ZCALLTYPE INTEGER, ZDISCONNECTED_CAUSE INTEGER, ZFACE_TIME_DATA INTEGER,
  ZNUMBER_AVAILABILITY INTEGER, ZORIGINATED INTEGER, ZREAD INTEGER, ZDATE TIMESTAMP,
  ZDURATION FLOAT, ZADDRESS VARCHAR, ZDEVICE_ID VARCHAR, ZISO_COUNTRY_CODE VARCHAR, ZNAME VARCHAR,
  ZSERVICE_PROVIDER VARCHAR, ZUNIQUE_ID VARCHAR);
CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
"""


@dataclass
class CallSpec:
    address: str | bytes
    when: datetime
    originated: bool
    answered: bool
    duration: float
    call_type: int = 1  # 1 phone, 8 FaceTime video, 16 FaceTime audio
    unique_id: str = ""


STANDARD_CALLS = [
    CallSpec(ANNA.encode(), t(50), originated=True, answered=True, duration=125.4,
             unique_id="CALL-0001"),  # fmt: skip
    CallSpec("(555) 010-0001", t(52), originated=False, answered=False, duration=0,
             unique_id="CALL-0002"),  # fmt: skip
    CallSpec(BEN, t(54), originated=False, answered=True, duration=61, call_type=8,
             unique_id="CALL-0003"),  # fmt: skip
]


def build_call_history(path: Path, calls: list[CallSpec] | None = None,
                       page_size: int | None = None) -> None:  # fmt: skip
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    if page_size:
        conn.execute(f"PRAGMA page_size = {page_size}")
    conn.executescript(_CALL_DDL)
    for c in STANDARD_CALLS if calls is None else calls:
        conn.execute(
            "INSERT INTO ZCALLRECORD (Z_ENT, Z_OPT, ZANSWERED, ZCALLTYPE, ZORIGINATED, ZDATE, "
            "ZDURATION, ZADDRESS, ZSERVICE_PROVIDER, ZUNIQUE_ID) VALUES (2, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
            (int(c.answered), c.call_type, int(c.originated), (c.when - APPLE_EPOCH).total_seconds(),
             c.duration, c.address, "com.apple.Telephony", c.unique_id),
        )  # fmt: skip
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def _file_id(domain: str, relative: str) -> str:
    return hashlib.sha1(f"{domain}-{relative}".encode()).hexdigest()


def build_backup(folder: Path, generation: str = GEN_2023, encrypted: bool = False) -> Scenario:
    """An unencrypted iOS backup: Manifest.db, Manifest.plist, sms.db, one attachment file,
    CallHistory.storedata, each stored under its file id."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = sqlite3.connect(folder / "Manifest.db")
    manifest.executescript(
        "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB);"
        "CREATE INDEX FilesDomainIdx ON Files(domain); CREATE INDEX FilesRelativePathIdx ON Files(relativePath);"
    )

    def store(domain: str, relative: str) -> Path:
        fid = _file_id(domain, relative)
        manifest.execute("INSERT INTO Files VALUES (?, ?, ?, 1, NULL)", (fid, domain, relative))
        target = folder / fid[:2] / fid
        target.parent.mkdir(exist_ok=True)
        return target

    sms = store("HomeDomain", "Library/SMS/sms.db")
    scenario = build_chat_db(sms, generation, attachments_dir="~/Library/SMS/Attachments")
    store("MediaDomain", "Library/SMS/Attachments/ab/01/ATT1/IMG_0001.jpeg").write_bytes(b"\xff\xd8jpeg")
    build_call_history(store("HomeDomain", "Library/CallHistoryDB/CallHistory.storedata"))
    manifest.commit()
    manifest.close()
    (folder / "Manifest.plist").write_bytes(
        plistlib.dumps({"IsEncrypted": encrypted, "Version": "10.0"}, fmt=plistlib.FMT_BINARY)
    )
    return scenario


# ------------------------------------------------------------------ the committed fixture

SAM = "+15550100000"  # the owner, Sam Rivera (fixtures/config.yaml)


def build_fixture(folder: Path) -> tuple[Path, Path]:
    """fixtures/imessage: chat.db (a 1:1 with Anna Berg, a group with Anna and Ben Ortiz) and
    CallHistory.storedata, in the newest schema, with small pages so they stay a few KB; the
    photo's file is in Attachments/ beside chat.db, as in a copied ~/Library/Messages."""
    folder.mkdir(parents=True, exist_ok=True)
    from media_samples import photo

    photo_file = folder / "Attachments/4f/15/F0000001-PHOTO/route-map.jpeg"
    photo_file.parent.mkdir(parents=True, exist_ok=True)
    photo_file.write_bytes(photo("route-map"))
    db = ChatDbBuilder(folder / "chat.db", GEN_2023, page_size=512)
    anna = db.handle(ANNA)
    ben = db.handle(BEN)
    one = db.chat("iMessage;-;" + ANNA, [anna], ANNA, group=False)
    crew = db.chat("iMessage;+;chat555000111", [anna, ben], "chat555000111", group=True,
                   display_name="Climbing crew")  # fmt: skip
    day = datetime(2024, 3, 8, 18, 0, tzinfo=timezone.utc)

    def at(minutes: int) -> datetime:
        return day.replace(minute=minutes)

    mine = {"destination_caller_id": SAM}
    db.message("F0000001-0000-4000-8000-000000000001", at(0), one, anna,
               text="Hi Sam! Are we still on for the climbing gym on Saturday?")  # fmt: skip
    db.message("F0000001-0000-4000-8000-000000000002", at(2), one, from_me=True, text=None,
               body=attributed_body("Yes! 10am works for me."), **mine)  # fmt: skip
    db.message("F0000001-0000-4000-8000-000000000003", at(3), one, anna,
               text="Loved \u201cYes! 10am works for me.\u201d", associated_message_type=2000,
               associated_message_guid="p:0/F0000001-0000-4000-8000-000000000002")  # fmt: skip
    db.message("F0000001-0000-4000-8000-000000000004", at(4), one, anna,
               text="Great, I'll book the bouldering wall",
               thread_originator_guid="F0000001-0000-4000-8000-000000000002",
               thread_originator_part="0:0:23")  # fmt: skip
    photo = db.message("F0000001-0000-4000-8000-000000000005", at(6), one, from_me=True,
                       text="\ufffcroute map", body=attachment_body("", "at_0_F0000001-PHOTO", "route map"),
                       **mine)  # fmt: skip
    db.attachment(photo, "at_0_F0000001-PHOTO",
                  "~/Library/Messages/Attachments/4f/15/F0000001-PHOTO/route-map.jpeg",
                  "image/jpeg", "route-map.jpeg", 48213, "public.jpeg")  # fmt: skip
    db.message("F0000001-0000-4000-8000-000000000006", at(8), one, anna,
               text="See you at the north entrance", body=attributed_body("See you at the north entrance"),
               date_edited=apple_ns(at(9)),
               message_summary_info=summary_info({0: [("See you at the south entrance", at(8)),
                                                      ("See you at the north entrance", at(9))]}))  # fmt: skip

    db.message("F0000002-0000-4000-8000-000000000001", at(20), crew, from_me=True, item_type=1,
               group_action_type=0, other_handle=ben, **mine)  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000002", at(21), crew, from_me=True, item_type=2,
               group_title="Climbing crew", **mine)  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000003", at(22), crew, ben,
               text="Thanks for adding me! Can I bring my own shoes?")  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000004", at(23), crew, anna,
               text="Sure, and rentals are only 5 dollars")  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000005", at(24), crew, ben,
               text="Liked \u201cSure, and rentals are only 5 dollars\u201d", associated_message_type=2001,
               associated_message_guid="p:0/F0000002-0000-4000-8000-000000000004")  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000006", at(26), crew, from_me=True, text=None,
               body=mention_body("See you both there, ", "Ben", BEN, "!"), **mine)  # fmt: skip
    db.message("F0000002-0000-4000-8000-000000000007", at(27), crew, ben, text=None,
               body=attributed_body(""), date_edited=apple_ns(at(28)), date_retracted=apple_ns(at(28)),
               message_summary_info=summary_info(unsent=[0]))  # fmt: skip
    db.close()
    build_call_history(folder / "CallHistory.storedata", [
        CallSpec(ANNA, at(40), originated=True, answered=True, duration=184.0, unique_id="F-CALL-1"),
        CallSpec(BEN, at(45), originated=False, answered=False, duration=0.0, call_type=16,
                 unique_id="F-CALL-2"),
    ], page_size=512)  # fmt: skip
    return folder / "chat.db", folder / "CallHistory.storedata"


def plain_records(records: list) -> list[dict]:
    """Records as JSON-able dicts for golden files: without `raw` (the row as the database
    wrote it), without paths of this machine, and without the hashes of the file's pages a
    state keeps (they follow the bytes SQLite wrote, not what the database says)."""
    import dataclasses
    import json

    out = []
    for r in records:
        d = dataclasses.asdict(r)
        d.pop("raw", None)
        if type(r).__name__ == "Chat":  # fields only agent sessions set
            for key in ("created_at", "memory_paused"):
                if d.get(key) is None:
                    d.pop(key)
        if "where" in d:
            d["where"] = Path(d["where"]).name
        if isinstance(d.get("state"), dict):
            d["state"].pop("pages", None)
        for a in d.get("attachments") or []:  # where the file is, without this machine's folders
            if a.get("path") and "Attachments/" in a["path"]:
                a["path"] = a["path"][a["path"].index("Attachments/"):]
        out.append({"record": type(r).__name__, **d})
    return json.loads(json.dumps(out, default=lambda o: o.isoformat(), ensure_ascii=False))
