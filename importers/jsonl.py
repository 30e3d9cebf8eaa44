"""JSON Lines in the normalized shape: the canonical way to bring in any other source, and
the format `chatmem export` writes (so export -> import reproduces ids and contents).

One JSON object per line; `type` is `message` (the default), `call`, `chat`, `person` or
`memory` (the last two are what `chatmem export` writes so that people, with their hand-made
merges, and saved memories survive an export and import):

    {"type": "message", "platform": "whatsapp", "chat": "Anna Berg", "sender": "Anna Berg",
     "timestamp": "2024-03-01T09:15:00+01:00", "text": "Coffee at 10?"}

Optional message fields: id, source, chat_key, group, kind, guid, sender_handle, deleted,
edited, reply_to, reactions [{emoji, sender, timestamp?, removed?}], attachments [{name,
mime_type, size, path}], versions [{text, timestamp}], extra {}, raw. `date` and `content` are
derived fields and ignored on input. A timestamp without an offset is read in --timezone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, overload

from chatmem.errors import FormatError
from chatmem.importers.estimate import count_lines
from chatmem.records import (
    CALL_DIRECTIONS,
    KINDS,
    Attachment,
    Call,
    Chat,
    Estimate,
    ImportOptions,
    Message,
    Occurrences,
    Person,
    Problem,
    Reaction,
    Record,
    SavedMemory,
    Version,
    call_id,
    chat_id,
    message_id_from_content,
    message_id_from_guid,
)

SUFFIXES = (".jsonl", ".ndjson")
PLATFORM_NAME = re.compile(r"[a-z][a-z0-9_-]{0,15}")


class BadRecord(ValueError):
    """One line that is JSON but not a valid record."""


class JsonlImporter:
    platform = "jsonl"

    def detect(self, path: Path) -> bool:
        if not path.is_file() or path.suffix.lower() not in SUFFIXES:
            return False
        try:
            with path.open("rb") as f:
                for line in f:
                    if line.strip():
                        return isinstance(json.loads(line), dict)
        except (OSError, ValueError):
            return False
        return False

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        reader = _Reader(path, options)
        try:
            f = path.open("rb")
        except OSError as e:
            raise FormatError(f"{path}: cannot read it: {e.strerror}") from e
        with f:
            yield Estimate(count_lines([path]))  # so that progress can say the time left
            seen_good = False
            for lineno, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8").rstrip("\r\n")
                except UnicodeDecodeError as e:
                    yield Problem(str(path), lineno, f"not UTF-8: {e.reason}",
                                  raw.decode("utf-8", "replace").rstrip("\r\n"))
                    continue
                try:
                    obj = json.loads(text)
                except json.JSONDecodeError as e:
                    if not seen_good and lineno == 1:
                        raise FormatError(f"{path} line 1: not JSON Lines ({e.msg})") from e
                    yield Problem(str(path), lineno, f"not JSON: {e.msg}", text)
                    continue
                if _HALF_CHARACTER.search(text) and not _encodable(obj):
                    yield Problem(str(path), lineno, "a \\u escape that is half a character "
                                  "(a lone UTF-16 surrogate)", text)
                    continue
                try:
                    yield from reader.record(obj, text, lineno)
                    seen_good = True
                except BadRecord as e:
                    yield Problem(str(path), lineno, str(e), text, reader.last_chat)


_HALF_CHARACTER = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: valid only in pairs


def _encodable(obj: Any) -> bool:
    """False when a string in `obj` holds a lone surrogate (json.loads accepts "\\ud800")."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _get(obj: dict, key: str, kind: type | tuple, default: Any = None, required: bool = False) -> Any:
    value = obj.get(key, default)
    if value is None:
        if required:
            raise BadRecord(f"missing {key!r}")
        return default
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise BadRecord(f"{key!r} must be {names}, not {type(value).__name__}")
    return value


class _Reader:
    def __init__(self, path: Path, options: ImportOptions):
        self.path = path
        self.options = options
        self.chats: dict[str, Chat] = {}
        self.occurrences = Occurrences()
        self.last_chat: str | None = None

    @overload
    def when(self, obj: dict, key: str, required: Literal[True] = True) -> datetime: ...
    @overload
    def when(self, obj: dict, key: str, required: bool) -> datetime | None: ...
    def when(self, obj: dict, key: str, required: bool = True) -> datetime | None:
        value = _get(obj, key, str, required=required)
        if value is None:
            return None
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as e:
            raise BadRecord(f"{key!r} is not an ISO 8601 time: {value!r}") from e
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=self.options.timezone)
        return dt

    def chat(self, obj: dict) -> Iterator[Chat]:
        platform = _get(obj, "platform", str, "jsonl")
        if not PLATFORM_NAME.fullmatch(platform):
            raise BadRecord(f"'platform' must be a lower-case name like whatsapp, not {platform!r}")
        name = _get(obj, "chat", str)
        source = _get(obj, "source", str)
        if not name and not source:
            raise BadRecord("missing 'chat' (or 'source')")
        key = _get(obj, "chat_key", str) or name or source
        cid = source or chat_id(platform, key)
        chat = self.chats.get(cid)
        group = _get(obj, "group", bool)
        participants = _get(obj, "participants", list, [])
        if chat is None or (obj.get("type") == "chat"):
            chat = Chat(platform=platform, key=key, name=name or (chat.name if chat else key),
                        group=bool(group) if group is not None else (chat.group if chat else False),
                        participants=[str(p) for p in participants] or (chat.participants if chat else []),
                        handles=[str(h) for h in _get(obj, "handles", list, [])],
                        id=cid, created_at=self.when(obj, "created_at", required=False),
                        memory_paused=_get(obj, "memory_paused", bool))
            self.chats[cid] = chat
            yield chat
        self.last_chat = cid
        self.current = chat

    def record(self, obj: Any, line_text: str, lineno: int) -> Iterator[Record]:
        if not isinstance(obj, dict):
            raise BadRecord(f"a record must be a JSON object, not {type(obj).__name__}")
        rtype = _get(obj, "type", str, "message")
        if rtype == "chat":
            yield from self.chat(obj)
        elif rtype == "message":
            yield from self.chat(obj)
            yield self.message(obj, line_text, lineno)
        elif rtype == "call":
            yield from self.chat(obj)
            yield self.call(obj, line_text, lineno)
        elif rtype == "person":
            yield self.person(obj)
        elif rtype == "memory":
            yield self.memory(obj)
        else:
            raise BadRecord(f"'type' must be chat, message, call, person or memory, not {rtype!r}")

    def person(self, obj: dict) -> Person:
        handles = []
        for h in _get(obj, "handles", list, []):
            if not isinstance(h, dict):
                raise BadRecord("'handles' must be a list of objects")
            handles.append((_get(h, "kind", str, required=True), _get(h, "value", str, required=True),
                            _get(h, "source", str, "seen")))
        return Person(id=_get(obj, "person", str, required=True), name=_get(obj, "name", str, required=True),
                      handles=handles, manual=bool(_get(obj, "manual", bool, False)),
                      from_contact=bool(_get(obj, "from_contact", bool, False)))

    def memory(self, obj: dict) -> SavedMemory:
        cites = _get(obj, "cites", list, [])
        if not all(isinstance(c, str) for c in cites):
            raise BadRecord("'cites' must be a list of ids")
        version = _get(obj, "version", int, required=True)
        return SavedMemory(
            id=_get(obj, "id", str, required=True), chat_id=_get(obj, "source", str, required=True),
            version=version, text=_get(obj, "text", str, required=True), cites=cites,
            created_at=self.when(obj, "created_at"), newest_cited_at=self.when(obj, "newest_cited_at", required=False),
            seat=_get(obj, "seat", str))

    def message(self, obj: dict, line_text: str, lineno: int) -> Message:
        chat = self.current
        sent_at = self.when(obj, "timestamp")
        sender = _get(obj, "sender", str, required=True)
        text = _get(obj, "text", str, "")
        kind = _get(obj, "kind", str, "text")
        if kind not in KINDS:
            raise BadRecord(f"'kind' must be one of {', '.join(KINDS)}, not {kind!r}")
        guid = _get(obj, "guid", str)
        mid = _get(obj, "id", str)
        if not mid:
            if guid:
                mid = message_id_from_guid(chat.platform, guid)
            else:
                written = obj["timestamp"]
                occ = self.occurrences.next((chat.id, written, sender, text))
                mid = message_id_from_content(chat.platform, chat.key, written, sender, text, occ)
        reactions = []
        for r in _get(obj, "reactions", list, []):
            if not isinstance(r, dict):
                raise BadRecord("'reactions' must be a list of objects")
            reactions.append(Reaction(emoji=_get(r, "emoji", str, required=True),
                                      sender=_get(r, "sender", str, required=True),
                                      timestamp=self.when(r, "timestamp", required=False),
                                      removed=bool(_get(r, "removed", bool, False))))
        attachments = []
        for a in _get(obj, "attachments", list, []):
            if not isinstance(a, dict):
                raise BadRecord("'attachments' must be a list of objects")
            attachments.append(Attachment(name=_get(a, "name", str), mime_type=_get(a, "mime_type", str),
                                          size=_get(a, "size", int), path=_get(a, "path", str),
                                          guid=_get(a, "guid", str)))
        versions = []
        for v in _get(obj, "versions", list, []):
            if not isinstance(v, dict):
                raise BadRecord("'versions' must be a list of objects")
            versions.append(Version(text=_get(v, "text", str, ""),
                                    timestamp=self.when(v, "timestamp", required=False)))
        return Message(
            id=mid, platform=chat.platform, chat_id=chat.id, sent_at=sent_at, sender=sender,
            text=text, kind=kind, sender_handle=_get(obj, "sender_handle", str), guid=guid,
            deleted=bool(_get(obj, "deleted", bool, False)), edited=bool(_get(obj, "edited", bool, False)),
            versions=versions, reply_to=_get(obj, "reply_to", str), reactions=reactions,
            attachments=attachments, raw=_get(obj, "raw", str) or line_text,
            extra=_get(obj, "extra", dict, {}), line=lineno,
        )

    def call(self, obj: dict, line_text: str, lineno: int) -> Call:
        chat = self.current
        started = self.when(obj, "timestamp")
        direction = _get(obj, "direction", str, required=True)
        if direction not in CALL_DIRECTIONS:
            raise BadRecord(f"'direction' must be one of {', '.join(CALL_DIRECTIONS)}")
        cid = _get(obj, "id", str) or call_id(chat.platform, chat.key, obj["timestamp"], direction)
        return Call(
            id=cid, platform=chat.platform, chat_id=chat.id, started_at=started, direction=direction,
            media=_get(obj, "media", str, "voice"), duration=_get(obj, "duration", int),
            answered=_get(obj, "answered", bool), peer=_get(obj, "peer", str),
            summary=_get(obj, "summary", str), transcript=_get(obj, "transcript", str),
            raw=_get(obj, "raw", str) or line_text, line=lineno,
        )
