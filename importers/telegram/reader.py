"""One streamed pass over a Telegram Desktop export: chats, messages, calls, contacts.

Memory stays flat as the file grows: one message is held at a time (a personal chat exported
alone holds at most PENDING_LIMIT until its owner is known), a chat's message ids are a bitmap,
and a chat's record is yielded at its head and again at its end with everyone who wrote in it.
Forum groups keep a message id -> topic map for as long as the chat lasts.
"""

from __future__ import annotations

import json
import os
import zlib
from array import array
from base64 import b64decode, b64encode
from bisect import bisect_left
from collections.abc import Iterator
from datetime import datetime, timezone
from itertools import accumulate
from pathlib import Path
from typing import Any

from chatmem.records import (
    OWNER,
    RESUME_STATE,
    Attachment,
    Call,
    Chat,
    Contact,
    Estimate,
    ImportOptions,
    Message,
    Problem,
    Reaction,
    Record,
    SourceState,
    call_id,
    export_file,
    message_id_from_guid,
)

from ..estimate import count_matches
from ..json_scan import new_digest
from ..resume_blocks import OnlyChanged
from .scan import (
    Block,
    ChatEnd,
    ChatHead,
    ChatMessage,
    From,
    NotAChat,
    Skip,
    Span,
    parts,
)
from .service import plain_text, service_text

PLATFORM = "telegram"
DIGEST_HEX = 32  # the hex digits of json_scan.new_digest's XXH3-128 (an earlier SHA-256 has 64)
CHAT_TYPES = ("personal_chat", "bot_chat", "saved_messages", "replies", "private_group",
              "private_supergroup", "public_supergroup", "private_channel", "public_channel")
ONE_TO_ONE = {"personal_chat", "bot_chat", "saved_messages", "replies"}
KEY_PREFIX = "telegram:"  # chat keys: Telegram's own chat id, named as this reader's
SAVED_MESSAGES = "Saved Messages"
DELETED_ACCOUNT = "Deleted Account"  # what Telegram shows for a `from` of null
MISSED_REASONS = {"missed", "busy"}  # phone_call.discard_reason of a call nobody took
TIME_MEDIA = ("voice_message", "video_message", "audio_file", "video_file", "animation")


def _skipped(value: Any) -> bool:
    """A file the export left out: '(File not included. Change data exporting settings...)'."""
    return isinstance(value, str) and value.startswith("(") and value.endswith(")")


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _ref(value: Any) -> int | str | None:
    """A message id as the export writes it (a number), or None for anything else."""
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


CHATS_VERSION = 2  # of the per-chat byte state below


def read_export(path: Path, options: ImportOptions) -> Iterator[Record]:
    """The records of an export. A re-import decodes only the chats whose bytes changed since
    the last import (a chat that only grew: its new messages), and of those gives the store only
    the blocks of messages that changed (see importers/resume_blocks.py)."""
    only = OnlyChanged(options.state, "telegram")
    return only.feed(_Run(path, options, only).records())


class _Ids:
    """The message ids of one chat read so far, in a bitmap (an 8-millionth of the memory of a
    set per id: a chat's ids are a dense run of numbers); ids past MAX_BITMAP_ID in a set. The
    ids of the part of a chat the last import read (a chat that grew) are a sorted array."""

    MAX_BITMAP_ID = 1 << 27  # 16 MB of bitmap at most

    def __init__(self, earlier: array | None = None) -> None:
        self.bits = bytearray()
        self.others: set[Any] = set()
        self.order = array("q")  # every int id, in the order read
        self.earlier = earlier if earlier is not None else array("q")

    def add(self, native: Any) -> None:
        if isinstance(native, int) and 0 <= native < self.MAX_BITMAP_ID:
            byte = native >> 3
            if byte >= len(self.bits):
                self.bits.extend(bytes(max(byte + 1 - len(self.bits), len(self.bits))))
            self.bits[byte] |= 1 << (native & 7)
            self.order.append(native)
        else:
            self.others.add(native)

    def __contains__(self, native: Any) -> bool:
        if isinstance(native, int) and 0 <= native < self.MAX_BITMAP_ID:
            byte = native >> 3
            if byte < len(self.bits) and self.bits[byte] & (1 << (native & 7)):
                return True
            at = bisect_left(self.earlier, native)
            return at < len(self.earlier) and self.earlier[at] == native
        return native in self.others

    def packed(self, earlier: list[str]) -> list[str]:
        """The ids for the next import: `earlier` (the packed chunks of the ids read before)
        and a chunk of the ids read now; one chunk of every id when they are not all past the
        earlier ones or past MAX_CHUNKS."""
        order = self.order
        ascending = all(a < b for a, b in zip(order, order[1:]))
        if (earlier and len(earlier) < MAX_CHUNKS and ascending
                and (not len(order) or not len(self.earlier) or order[0] > self.earlier[-1])):
            return [*earlier, _pack(order)] if len(order) else list(earlier)
        return [_pack(sorted(set(order).union(self.earlier)))]


MAX_CHUNKS = 16


def _pack(ids: Any) -> str:
    """Sorted ids as deltas (the first from 0), compressed."""
    deltas = array("q", ids)
    if len(deltas) > 1:
        deltas[1:] = array("q", (b - a for a, b in zip(ids, ids[1:])))
    return b64encode(zlib.compress(deltas.tobytes(), 6)).decode("ascii")


def unpack_ids(chunks: list[str]) -> array:
    out = array("q")
    for text in chunks:
        deltas = array("q")
        deltas.frombytes(zlib.decompress(b64decode(text)))
        out.extend(accumulate(deltas))
    return out


class _ChatState:
    """What one chat's messages need while they stream past."""

    def __init__(self, record: Chat, kind: str, native_id: Any, where: str) -> None:
        self.record, self.kind, self.where = record, kind, where
        self.peer = f"user{native_id}"  # a personal chat's id is the other person's user id
        self.owners: set[str] = set()
        self.decided = False  # whether `owners` is final
        self.pending: list[tuple[int, dict[str, Any]]] = []  # messages held until it is
        self.authors: dict[str, Any] = {}  # from_id / actor_id -> name, while undecided
        self.senders: dict[str, str] = {}  # from_id -> name of everyone but the owner
        self.ids = _Ids()
        self.topics: dict[Any, str] = {}  # topic_created message id -> title (forum groups)
        self.topic_of: dict[Any, str] = {}  # message id -> its topic (forum groups only)
        self.key = ""  # the chat in the resume state ("chats:<id>")
        self.missing_at = self.lookups_at = 0  # the run's counts when the chat began
        self.settled = True  # the owner was known before the chat's end
        self.ids_before: list[str] = []  # the packed ids of the part the last import read


class _Run:
    PENDING_LIMIT = 1000  # messages held at most while a personal chat's owner is unknown

    def __init__(self, path: Path, options: ImportOptions, only: OnlyChanged | None = None) -> None:
        self.path, self.options = path, options
        self.folder = path.parent
        self.where = str(path)
        self.notes: list[str] = []
        self.owner_ids: set[str] = set()
        self.owner_names = {n.casefold() for n in options.owner_names}
        self.phones: dict[str, str] = {}  # from_id → phone, from the account's contact list
        self.missing_files = 0
        self.lookups = 0  # files of the export looked up (their presence is part of a record)
        self.chats = 0
        self.account = False
        self.only = only
        resume = options.state.get(RESUME_STATE)
        earlier = resume.get("chats") if (only is not None and only.resumed and isinstance(resume, dict)
                                          and resume.get("tg") == CHATS_VERSION) else None
        self.earlier: dict[str, Any] = earlier if isinstance(earlier, dict) else {}
        self.earlier_files: dict[str, Any] = (resume.get("files") or {}) if self.earlier else {}  # type: ignore[union-attr]
        self.kept: dict[str, Any] = {}  # the per-chat state for the next import
        self.seen: set[str] = set()
        self._context: str | None = None
        self._files_same: bool | None = None
        self.skipped = self.grown = self.decoded = 0

    # ---------------------------------------------------------------- the pass

    def records(self) -> Iterator[Record]:
        if not self.earlier:  # messages and service messages, counted by their "type" in one fast read
            yield Estimate(count_matches([self.path], rb'"type":\s*"(?:message|service)"'))
        state: _ChatState | None = None
        for part in parts(self.path):
            if isinstance(part, Block):
                yield from self._block(part.key, part.value)
            elif isinstance(part, ChatHead):
                self.chats += 1
                state = self._head(part.label, part.head)
                if state is not None:
                    self._plan(state, part)
                    if not isinstance(part.plan, Skip):
                        yield state.record
            elif isinstance(part, ChatMessage):
                if state is None:  # the chat had no id: its messages are kept raw
                    yield Problem(self.where, part.row, "a message of a chat without an id",
                                  _dump(part.value))
                else:
                    yield from self._take(state, part.row, part.value)
            elif isinstance(part, ChatEnd):
                if part.skipped:
                    pass
                elif state is not None:
                    yield from self._end(state)
                    self._keep(state, part.span)
                else:
                    yield Problem(f"{self.where} {part.label}".rstrip(), None,
                                  "a chat without an id or a message list",
                                  _dump({k: v for k, v in part.head.items() if k != "messages"}))
                state = None
            elif isinstance(part, NotAChat):
                self.chats += 1
                yield Problem(f"{self.where} {part.label}", None, "not a chat object", _dump(part.value))
        if self.account and not self.chats:
            self.notes.append("the export holds no chats (was 'Personal chats' ticked?)")
        if self.missing_files:
            self.notes.append(f"{self.missing_files} media file(s) not included in the export "
                              "(Telegram's export settings left them out)")
        kept: dict[str, Any] = {"tg": CHATS_VERSION, "chats": self.kept}
        if any(c.get("f") for c in self.kept.values()):
            kept["files"] = {"folder": str(self.folder.absolute()), "listing": self._listing()}
        if self.earlier and self.only is not None:
            self.only.how = (f"of {self.chats:,} chat(s), {self.skipped:,} unchanged were not decoded, "
                             f"{self.grown:,} that only grew had their new messages decoded, "
                             f"{self.decoded:,} were decoded whole")
        yield SourceState(state={RESUME_STATE: kept},
                          notes=[f"Telegram Desktop export: {self.chats} chat(s)", *self.notes])

    # ---------------------------------------------------------------- re-imports

    def context(self, like: Any = None) -> str:
        """What a chat's records depend on besides its bytes: the owner, the contacts' phones,
        the options (its files' presence is checked apart). `like`: a kept context, made the
        same way (see new_digest)."""
        said = json.dumps([sorted(self.owner_ids), sorted(self.owner_names), sorted(self.phones.items()),
                           str(self.options.timezone)], ensure_ascii=False).encode("utf-8", "surrogatepass")
        if isinstance(like, str) and len(like) == 64:  # kept by an earlier version
            return new_digest(said, like).hexdigest()
        if self._context is None:
            self._context = new_digest(said).hexdigest()
        return self._context

    def _listing(self, like: str | None = None) -> str:
        """The export folder's files (names, sizes, links) but result.json: what decides whether
        a file a message names is found."""
        h = new_digest(like=like)
        here = self.path.absolute()
        for top, dirs, files in os.walk(self.folder, followlinks=False):
            dirs.sort()
            for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(top, d))]):
                full = os.path.join(top, name)
                if full == str(here):
                    continue
                try:
                    st = os.lstat(full)
                    link = os.readlink(full) if os.path.islink(full) else ""
                except OSError:
                    continue
                h.update(f"{os.path.relpath(full, self.folder)}\0{st.st_size}\0{link}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def _files_unchanged(self) -> bool:
        if self._files_same is None:
            files = self.earlier_files
            kept = files.get("listing") if isinstance(files, dict) else None
            self._files_same = (isinstance(files, dict) and files.get("folder") == str(self.folder.absolute())
                                and isinstance(kept, str) and kept == self._listing(kept))
        return self._files_same

    def _plan(self, state: _ChatState, part: ChatHead) -> None:
        """Whether the chat's bytes are those the last import read (skip it), or start with them
        (decode its new messages only), from the digests the last import kept."""
        key = state.key
        was = self.earlier.get(key)
        first_time = key not in self.seen
        self.seen.add(key)
        if not isinstance(was, dict) or not first_time or was.get("c") != self.context(was.get("c")) or (
                was.get("f") and not self._files_unchanged()):
            self.decoded += 1
            return
        data, start = part.data, part.start
        size = len(data)
        grown = bool(was.get("ok") and was.get("n")) and start + was["P"] <= size
        # one read of the bytes the last import had: the hash of its messages' part (`P` bytes,
        # what a chat that only grew starts with) is taken on the way to the whole chat's (`L`)
        head = None
        if start + was["L"] <= size:
            whole = new_digest(like=was["d"])
            if grown and 0 <= was["P"] <= was["L"] and len(was["p"]) == len(was["d"]):
                data.hash_into(whole, start, start + was["P"])
                head = whole.copy()
                data.hash_into(whole, start + was["P"], start + was["L"])
            else:
                data.hash_into(whole, start, start + was["L"])
            same = whole.hexdigest() == was["d"]
        else:
            same = False
        if same:
            part.plan = Skip(was["L"])
            self.skipped += 1
            self.missing_files += was.get("miss", 0)
            self.kept[key] = was
            assert self.only is not None
            self.only.carry(state.record.id)
            return
        if head is None and grown:
            head = new_digest(like=was["p"])
            data.hash_into(head, start, start + was["P"])
        if grown and head is not None and head.hexdigest() == was["p"]:
            # (the scanner goes on hashing from there: a digest of the kind it makes)
            part.plan = From(was["P"], was["n"], hashed=head if len(was["p"]) == DIGEST_HEX else None)
            self.grown += 1
            state.owners = set(was.get("own") or [])
            state.decided = True
            state.senders = {i: n for i, n in was.get("snd") or []}
            state.ids = _Ids(unpack_ids(was["ids"]))
            state.ids_before = was["ids"]
            self.missing_files += was.get("miss", 0)
            self.lookups += was.get("f", 0)
            assert self.only is not None
            self.only.resume(state.record.id, self.only.carry(state.record.id))
            return
        self.decoded += 1

    def _keep(self, state: _ChatState, span: Span | None) -> None:
        """What the next import compares this chat with."""
        if span is None or not state.key:
            return
        ids = state.ids
        self.kept[state.key] = {
            "c": self.context(), "L": span.end - span.start, "d": span.digest,
            "P": span.last - span.start, "p": span.prefix_digest, "n": span.rows,
            "ok": state.settled and not state.topics and not state.topic_of and not ids.others,
            "own": sorted(state.owners), "snd": list(state.senders.items()), "ids": ids.packed(state.ids_before),
            "miss": self.missing_files - state.missing_at, "f": self.lookups - state.lookups_at}

    def _block(self, key: str, value: Any) -> Iterator[Record]:
        """A top-level block of an account export: who the owner is, their contacts."""
        self.account = True
        self._context = None
        if key == "personal_information" and isinstance(value, dict):
            if _int(value.get("user_id")):
                self.owner_ids.add(f"user{value['user_id']}")
            name = " ".join(p for p in (value.get("first_name"), value.get("last_name"))
                            if isinstance(p, str) and p)
            if name:
                self.owner_names.add(name.casefold())
        elif key == "contacts" and isinstance(value, dict):
            for c in value.get("list") or [] if isinstance(value.get("list"), list) else []:
                if not isinstance(c, dict):
                    continue
                name = " ".join(p for p in (c.get("first_name"), c.get("last_name")) if isinstance(p, str) and p)
                phone = c.get("phone_number") if isinstance(c.get("phone_number"), str) else ""
                if _int(c.get("user_id")) and phone:
                    self.phones[f"user{c['user_id']}"] = phone
                if name and phone:
                    yield Contact(name=name, phones=[phone], raw=json.dumps(c, ensure_ascii=False))

    # ---------------------------------------------------------------- chats

    def _head(self, label: str, head: dict[str, Any]) -> _ChatState | None:
        """The chat record as its head tells it (its people are completed at its end)."""
        native = head.get("id")
        if native is None or isinstance(native, (dict, list, bool)):
            return None
        kind = head_type if isinstance(head_type := head.get("type"), str) else ""
        name = given if isinstance(given := head.get("name"), str) and given else (
            SAVED_MESSAGES if kind == "saved_messages" else f"Telegram chat {native}")
        group = kind not in ONE_TO_ONE
        peer = f"user{native}"
        record = Chat(PLATFORM, f"{KEY_PREFIX}{native}", name, group=group,
                      participants=[] if group or kind == "saved_messages" else [name],
                      handles=[self.phones[peer]] if not group and peer in self.phones else [])
        state = _ChatState(record, kind, native, f"{self.where} {label}".rstrip())
        state.key = f"{label.partition('[')[0]}:{native}"
        state.missing_at, state.lookups_at = self.missing_files, self.lookups
        state.owners = set(self.owner_ids)
        # the owner is known now unless this is a personal chat exported alone without owner names
        state.decided = kind != "personal_chat" or bool(self.owner_ids)
        return state

    def _take(self, state: _ChatState, row: int, m: Any) -> Iterator[Record]:
        if isinstance(m, dict):
            for id_key, name_key in (("from_id", "from"), ("actor_id", "actor")):
                author = m.get(id_key)
                if isinstance(author, str):
                    self._author(state, author, m.get(name_key))
        if not state.decided:
            state.pending.append((row, m))
            if len(state.pending) >= self.PENDING_LIMIT:
                yield from self._flush(state)
            return
        if state.pending:  # decided by this message: those held go first
            yield from self._flush(state)
        yield from self._one(state, row, m)

    def _author(self, state: _ChatState, author: str, name: Any) -> None:
        if isinstance(name, str) and name.casefold() in self.owner_names:
            state.owners.add(author)
        if state.kind == "saved_messages":
            state.owners.add(author)
        if not state.decided:
            state.authors.setdefault(author, name)
            if author == state.peer and len(state.authors) == 2 or state.owners:
                self._decide(state)

    def _decide(self, state: _ChatState) -> None:
        """A personal chat exported alone: the owner is the sender who is not the other person
        (not the chat's user id; failing that, not the chat's name)."""
        state.decided = True
        if state.owners:
            return
        authors = state.authors
        not_them = [i for i in authors if i != state.peer] if state.peer in authors else [
            i for i, n in authors.items() if n != state.record.name]
        named = isinstance(authors.get(not_them[0]) if not_them else None, str)  # the owner is no deleted account
        if len(not_them) == 1 and len(authors) == 2 and named and authors[not_them[0]]:
            state.owners.add(not_them[0])
            self.notes.append(f"chat {state.record.name!r}: the owner taken to be {authors[not_them[0]]!r} "
                              "(the other sender); set owner.names in the config to be sure")

    def _flush(self, state: _ChatState) -> Iterator[Record]:
        if not state.decided:
            self._decide(state)
        pending, state.pending = state.pending, []
        for row, m in pending:
            yield from self._one(state, row, m)

    def _one(self, state: _ChatState, row: int, m: Any) -> Iterator[Record]:
        record = state.record
        if not isinstance(m, dict):
            yield Problem(state.where, row, "not a message object", _dump(m), record.id)
            return
        from_id = m.get("from_id")
        if isinstance(from_id, str) and from_id not in state.owners and from_id not in state.senders:
            who = m.get("from")
            state.senders[from_id] = who if isinstance(who, str) and who else DELETED_ACCOUNT
        try:
            found = self._message(m, state)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            yield Problem(state.where, row, f"unexpected message ({e})", _dump(m), record.id)
            return
        finally:
            native = _ref(m.get("id"))
            if native is not None:
                state.ids.add(native)
        if isinstance(found, str):
            yield Problem(state.where, row, found, _dump(m), record.id)
        else:
            yield found

    def _end(self, state: _ChatState) -> Iterator[Record]:
        """The chat's last message is read: the held ones go, and its people are complete."""
        state.settled = state.decided
        yield from self._flush(state)
        record = state.record
        others = [n for i, n in state.senders.items() if i not in state.owners]
        people = list(dict.fromkeys(others))
        handles = [self.phones[i] for i in state.senders if i in self.phones and i not in state.owners]
        if people and people != record.participants or [h for h in handles if h not in record.handles]:
            yield Chat(PLATFORM, record.key, record.name, group=record.group,
                       participants=people or record.participants,
                       handles=list(dict.fromkeys([*record.handles, *handles])))

    # ---------------------------------------------------------------- messages

    def _when(self, m: dict[str, Any]) -> datetime:
        stamp = _int(m.get("date_unixtime"))
        if stamp is not None:
            return datetime.fromtimestamp(stamp, tz=timezone.utc)
        local = datetime.fromisoformat(m["date"])
        return local if local.tzinfo else local.replace(tzinfo=self.options.timezone)

    def _who(self, from_id: Any, name: Any, owners: set[str]) -> tuple[str, str | None]:
        if from_id in owners or (isinstance(name, str) and name.casefold() in self.owner_names):
            return OWNER, None
        return (name if isinstance(name, str) and name else DELETED_ACCOUNT), self.phones.get(from_id)

    def _message(self, m: dict[str, Any], state: _ChatState) -> Message | Call | str:
        chat, owners = state.record, state.owners
        native = _ref(m.get("id"))
        if native is None:
            return "a message without an id"
        kind = m.get("type")
        if kind == "unsupported":
            return "a message Telegram Desktop could not export (type 'unsupported')"
        sent = self._when(m)
        raw = json.dumps(m, ensure_ascii=False)
        key = f"{chat.key}/{native}"
        if kind == "service" and m.get("action") in ("phone_call", "group_call"):
            return self._call(m, chat, owners, sent, key, raw)
        msg = Message(id=message_id_from_guid(PLATFORM, key), platform=PLATFORM, chat_id=chat.id,
                      sent_at=sent, sender=OWNER, guid=key, raw=raw)
        links: list[str] = []
        msg.text = plain_text(m.get("text"), links)
        if links:
            msg.extra["links"] = links
        self._topic_and_reply(m, msg, state)
        if kind == "service":
            msg.sender, msg.sender_handle = self._who(m.get("actor_id"), m.get("actor"), owners)
            msg.kind, msg.extra["event"] = "system", m.get("action") or "service"
            msg.text = service_text(m, msg.sender) if not msg.text else msg.text
            pinned = _ref(m.get("message_id"))  # pin_message: which message
            if m.get("action") == "pin_message" and pinned is not None and pinned in state.ids:
                msg.reply_to = message_id_from_guid(PLATFORM, f"{chat.key}/{pinned}")
            return msg
        if kind != "message":
            return f"unknown message type {kind!r}"
        msg.sender, msg.sender_handle = self._who(m.get("from_id"), m.get("from"), owners)
        if m.get("edited") or m.get("edited_unixtime"):
            msg.edited = True
            stamp = _int(m.get("edited_unixtime"))
            msg.extra["edited_at"] = (datetime.fromtimestamp(stamp, tz=timezone.utc).isoformat()
                                      if stamp is not None else m.get("edited"))
        for field in ("forwarded_from", "saved_from", "via_bot", "author"):
            if m.get(field):
                msg.extra[field] = m[field]
        if "forwarded_from" in m and m["forwarded_from"] is None:
            msg.extra["forwarded_from"] = DELETED_ACCOUNT  # forwarded from an account deleted since
        buttons = [b.get("text") for row in m.get("inline_bot_buttons") or [] if isinstance(row, list)
                   for b in row if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if buttons:
            msg.extra["buttons"] = buttons
        self._media(m, msg)
        self._reactions(m, msg, owners)
        return msg

    def _topic_and_reply(self, m: dict, msg: Message, state: _ChatState) -> None:
        """A reply to a topic's first message puts the message in that topic (forum groups)."""
        chat, topics, topic_of = state.record, state.topics, state.topic_of
        native, target = _ref(m.get("id")), _ref(m.get("reply_to_message_id"))
        if m.get("action") == "topic_created" and native is not None:
            topics[native] = str(m.get("title") or "")
        if native in topics:
            topic_of[native] = topics[native]
        if target is None:
            if topics and native not in topics:
                topic_of[native] = "General"  # a forum's messages outside any topic
        elif target in topics:
            topic_of[native] = topics[target]
        else:
            if target in topic_of:
                topic_of[native] = topic_of[target]
            if target in state.ids and m.get("reply_to_peer_id") is None:
                msg.reply_to = message_id_from_guid(PLATFORM, f"{chat.key}/{target}")
            else:
                msg.extra["reply_to_message"] = {"id": target, "chat": m.get("reply_to_peer_id")}
        if native in topic_of:
            msg.extra["topic"] = topic_of[native]

    def _file(self, relative: Any) -> tuple[str | None, bool]:
        """(locator, present) of a file the export names ('../../etc/passwd' in a hostile
        export is no file of the export; a link leading out of it is not present)."""
        if not isinstance(relative, str) or not relative or _skipped(relative):
            if _skipped(relative):
                self.missing_files += 1
            return None, False
        self.lookups += 1
        path, _size, present = export_file(self.folder, relative)
        return path, present

    def _media(self, m: dict[str, Any], msg: Message) -> None:
        if "photo" in m:
            name = m["photo"].rsplit("/", 1)[-1] if isinstance(m["photo"], str) and not _skipped(m["photo"]) else None
            path, present = self._file(m["photo"])
            msg.attachments.append(Attachment(name=name, mime_type="image/jpeg", size=_int(m.get("photo_file_size")),
                                              path=path, present=present))
        if "file" in m:
            name = m.get("file_name") or (m["file"].rsplit("/", 1)[-1]
                                          if isinstance(m["file"], str) and not _skipped(m["file"]) else None)
            path, present = self._file(m["file"])
            msg.attachments.append(Attachment(name=name, mime_type=m.get("mime_type"),
                                              size=_int(m.get("file_size")), path=path, present=present))
        media_type = m.get("media_type")
        if media_type == "sticker":
            msg.extra["sticker"] = {"emoji": m.get("sticker_emoji")}
        elif media_type:
            msg.extra["media_type"] = media_type
            if media_type == "voice_message":
                msg.extra["voice_note"] = True
        if media_type in TIME_MEDIA and _int(m.get("duration_seconds")) is not None:
            msg.extra["duration_seconds"] = _int(m["duration_seconds"])
        if m.get("self_destruct_period_seconds"):
            msg.extra["view_once"] = True
        if m.get("media_spoiler") is True:
            msg.extra["spoiler"] = True
        contact = m.get("contact_information")
        if isinstance(contact, dict):
            who = " ".join(p for p in (contact.get("first_name"), contact.get("last_name")) if p)
            msg.extra["contact"] = {"name": who, "phones": [contact.get("phone_number")]}
            msg.text = msg.text or f"Contact: {', '.join(x for x in (who, contact.get('phone_number')) if x)}"
        place = m.get("location_information")
        if isinstance(place, dict):
            msg.extra["location"] = {"latitude": place.get("latitude"), "longitude": place.get("longitude"),
                                     "name": m.get("place_name"), "address": m.get("address")}
            words = [m.get("place_name"), m.get("address"), f"{place.get('latitude')}, {place.get('longitude')}"]
            msg.text = msg.text or "Location: " + " — ".join(w for w in words if w)
        poll = m.get("poll")
        if isinstance(poll, dict):
            msg.extra["poll"] = {
                "question": poll.get("question") or "",
                "options": [{"text": a.get("text") or "", "votes": _int(a.get("voters"))}
                            for a in poll.get("answers") or [] if isinstance(a, dict)],
                "closed": bool(poll.get("closed"))}
            msg.text = msg.text or poll.get("question") or ""
        for field in ("game_title", "invoice_information"):
            if m.get(field):
                msg.extra[field] = m[field]
        if msg.attachments or media_type or isinstance(contact, dict) or isinstance(place, dict):
            msg.kind = "media"

    def _reactions(self, m: dict[str, Any], msg: Message, owners: set[str]) -> None:
        counts = []
        for r in m.get("reactions") or []:
            if not isinstance(r, dict):
                continue
            emoji = r.get("emoji") or ("custom emoji" if r.get("type") == "custom_emoji" else r.get("type") or "?")
            recent = [x for x in r.get("recent") or [] if isinstance(x, dict)]
            for x in recent:
                sender, handle = self._who(x.get("from_id"), x.get("from"), owners)
                msg.reactions.append(Reaction(emoji=emoji, sender=sender, sender_handle=handle,
                                              timestamp=self._reaction_time(x)))
            count = _int(r.get("count"))
            if count is not None and count > len(recent):
                counts.append({"emoji": emoji, "count": count})
        if counts:
            msg.extra["reaction_counts"] = counts  # reactions the export does not name people for

    def _reaction_time(self, reaction: dict[str, Any]) -> datetime | None:
        try:
            return self._when(reaction) if reaction.get("date_unixtime") or reaction.get("date") else None
        except (TypeError, ValueError, OverflowError):
            return None  # the reaction stays; only its time is unreadable

    def _call(self, m: dict, chat: Chat, owners: set[str], sent: datetime, key: str, raw: str) -> Call:
        caller = m.get("actor_id") in owners or (isinstance(m.get("actor"), str)
                                                  and m["actor"].casefold() in self.owner_names)
        group = m.get("action") == "group_call"
        duration = _int(m.get("duration") if group else m.get("duration_seconds"))
        missed = not group and m.get("discard_reason") in MISSED_REASONS and not duration
        if missed and not caller:
            direction = "missed"
        else:
            direction = "outgoing" if caller else "incoming"
        return Call(id=call_id(PLATFORM, key), platform=PLATFORM, chat_id=chat.id, started_at=sent,
                    direction=direction, media="video" if group else "voice", duration=duration,
                    answered=bool(duration) if duration is not None or missed else None,
                    peer=None if chat.group else chat.name, raw=raw)
