"""One pass over a parsed Telegram Desktop export: chats, messages, calls, contacts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from chatmem.records import (
    OWNER,
    Attachment,
    Call,
    Chat,
    Contact,
    ImportOptions,
    Message,
    Problem,
    Reaction,
    Record,
    SourceState,
    call_id,
    message_id_from_guid,
)

from .service import plain_text, service_text

PLATFORM = "telegram"
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


def _ref(value: Any) -> int | str | None:
    """A message id as the export writes it (a number), or None for anything else."""
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def read_export(path: Path, data: dict[str, Any], options: ImportOptions) -> Iterator[Record]:
    return _Run(path, data, options).records()


class _Run:
    def __init__(self, path: Path, data: dict[str, Any], options: ImportOptions) -> None:
        self.path, self.data, self.options = path, data, options
        self.folder = path.parent
        self.where = str(path)
        self.notes: list[str] = []
        me = data.get("personal_information") if isinstance(data.get("personal_information"), dict) else {}
        self.owner_ids = {f"user{me['user_id']}"} if _int(me.get("user_id")) else set()
        self.owner_names = {n.casefold() for n in options.owner_names}
        owner_name = " ".join(p for p in (me.get("first_name"), me.get("last_name")) if isinstance(p, str) and p)
        if owner_name:
            self.owner_names.add(owner_name.casefold())
        self.phones: dict[str, str] = {}  # from_id → phone, from the account's contact list
        self.missing_files = 0

    # ---------------------------------------------------------------- the pass

    def records(self) -> Iterator[Record]:
        if "chats" in self.data:
            yield from self._contacts()
            chats = []
            for section in ("chats", "left_chats"):
                block = self.data.get(section)
                listed = block.get("list") if isinstance(block, dict) else None
                if isinstance(listed, list):
                    chats += [(f"{section}[{i}]", c) for i, c in enumerate(listed)]
            if not chats:
                self.notes.append("the export holds no chats (was 'Personal chats' ticked?)")
        else:
            chats = [("", self.data)]
        for label, chat in chats:
            if not isinstance(chat, dict):
                yield Problem(f"{self.where} {label}", None, "not a chat object", json.dumps(chat)[:2000])
                continue
            yield from self._chat(chat, label)
        if self.missing_files:
            self.notes.append(f"{self.missing_files} media file(s) not included in the export "
                              "(Telegram's export settings left them out)")
        yield SourceState(notes=[f"Telegram Desktop export: {len(chats)} chat(s)", *self.notes])

    def _contacts(self) -> Iterator[Record]:
        block = self.data.get("contacts")
        for c in (block.get("list") if isinstance(block, dict) else None) or []:
            if not isinstance(c, dict):
                continue
            name = " ".join(p for p in (c.get("first_name"), c.get("last_name")) if isinstance(p, str) and p)
            phone = c.get("phone_number") if isinstance(c.get("phone_number"), str) else ""
            if _int(c.get("user_id")) and phone:
                self.phones[f"user{c['user_id']}"] = phone
            if name and phone:
                yield Contact(name=name, phones=[phone], raw=json.dumps(c, ensure_ascii=False))

    # ---------------------------------------------------------------- chats

    def _chat(self, chat: dict[str, Any], label: str) -> Iterator[Record]:
        where = f"{self.where} {label}".rstrip()
        kind = chat.get("type") if isinstance(chat.get("type"), str) else ""
        messages = chat.get("messages")
        if not isinstance(messages, list) or chat.get("id") is None:
            yield Problem(where, None, "a chat without an id or a message list",
                          json.dumps({k: v for k, v in chat.items() if k != "messages"})[:2000])
            return
        name = chat.get("name") if isinstance(chat.get("name"), str) and chat.get("name") else (
            SAVED_MESSAGES if kind == "saved_messages" else f"Telegram chat {chat['id']}")
        owners = self._owners(chat, name, kind, messages)
        senders: dict[str, str] = {}
        for m in messages:
            if isinstance(m, dict) and isinstance(m.get("from_id"), str) and m["from_id"] not in owners:
                who = m.get("from")
                senders.setdefault(m["from_id"], who if isinstance(who, str) and who else DELETED_ACCOUNT)
        group = kind not in ONE_TO_ONE
        others = list(dict.fromkeys(senders.values())) or ([] if group or kind == "saved_messages" else [name])
        record = Chat(PLATFORM, f"{KEY_PREFIX}{chat['id']}", name, group=group, participants=others,
                      handles=[self.phones[i] for i in senders if i in self.phones])
        yield record
        ids = {_ref(m.get("id")) for m in messages if isinstance(m, dict)} - {None}
        topics = {_ref(m.get("id")): str(m.get("title") or "") for m in messages
                  if isinstance(m, dict) and m.get("action") == "topic_created" and _ref(m.get("id"))}
        topic_of: dict[Any, str] = {}
        for row, m in enumerate(messages, 1):
            if not isinstance(m, dict):
                yield Problem(where, row, "not a message object", json.dumps(m)[:2000], record.id)
                continue
            try:
                found = self._message(m, record, owners, ids, topics, topic_of)
            except (KeyError, TypeError, ValueError, OverflowError) as e:
                yield Problem(where, row, f"unexpected message ({e})",
                              json.dumps(m, ensure_ascii=False), record.id)
                continue
            if isinstance(found, str):
                yield Problem(where, row, found, json.dumps(m, ensure_ascii=False), record.id)
            else:
                yield found

    def _owners(self, chat: dict, name: str, kind: str, messages: list) -> set[str]:
        """from_ids that are the owner: the account's own id, names from the config, and in a
        one-to-one chat exported alone, the one sender who is not the chat's other person."""
        found = set(self.owner_ids)
        authors = {m.get("from_id"): m.get("from") for m in messages
                   if isinstance(m, dict) and isinstance(m.get("from_id"), str)}
        authors.update({m.get("actor_id"): m.get("actor") for m in messages
                        if isinstance(m, dict) and isinstance(m.get("actor_id"), str)})
        found |= {i for i, n in authors.items() if isinstance(n, str) and n.casefold() in self.owner_names}
        if kind == "saved_messages":
            found |= set(authors)
        elif not found and kind == "personal_chat":
            not_them = [i for i, n in authors.items() if n != name]
            if len(not_them) == 1 and len(authors) == 2:
                found.add(not_them[0])
                self.notes.append(f"chat {name!r}: the owner taken to be {authors[not_them[0]]!r} "
                                  "(the other sender); set owner.names in the config to be sure")
        return found

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

    def _message(self, m: dict[str, Any], chat: Chat, owners: set[str], ids: set, topics: dict,
                 topic_of: dict) -> Message | Call | str:
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
        self._topic_and_reply(m, msg, chat, ids, topics, topic_of)
        if kind == "service":
            msg.sender, msg.sender_handle = self._who(m.get("actor_id"), m.get("actor"), owners)
            msg.kind, msg.extra["event"] = "system", m.get("action") or "service"
            msg.text = service_text(m, msg.sender) if not msg.text else msg.text
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
        self._media(m, msg)
        self._reactions(m, msg, owners)
        return msg

    def _topic_and_reply(self, m: dict, msg: Message, chat: Chat, ids: set, topics: dict,
                         topic_of: dict) -> None:
        """A reply to a topic's first message puts the message in that topic (forum groups)."""
        native, target = _ref(m.get("id")), _ref(m.get("reply_to_message_id"))
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
            if target in ids and m.get("reply_to_peer_id") is None:
                msg.reply_to = message_id_from_guid(PLATFORM, f"{chat.key}/{target}")
            else:
                msg.extra["reply_to_message"] = {"id": target, "chat": m.get("reply_to_peer_id")}
        if native in topic_of:
            msg.extra["topic"] = topic_of[native]

    def _file(self, relative: Any) -> str | None:
        if not isinstance(relative, str) or not relative or _skipped(relative):
            if _skipped(relative):
                self.missing_files += 1
            return None
        found = (self.folder / relative).resolve()
        if self.folder.resolve() not in found.parents:
            return None  # '../../etc/passwd' in a hostile export is not a file of the export
        return str(found) if found.is_file() else None

    def _media(self, m: dict[str, Any], msg: Message) -> None:
        if "photo" in m:
            name = m["photo"].rsplit("/", 1)[-1] if isinstance(m["photo"], str) and not _skipped(m["photo"]) else None
            path = self._file(m["photo"])
            msg.attachments.append(Attachment(name=name, mime_type="image/jpeg", size=_int(m.get("photo_file_size")),
                                              path=path, present=path is not None))
        if "file" in m:
            name = m.get("file_name") or (m["file"].rsplit("/", 1)[-1]
                                          if isinstance(m["file"], str) and not _skipped(m["file"]) else None)
            path = self._file(m["file"])
            msg.attachments.append(Attachment(name=name, mime_type=m.get("mime_type"),
                                              size=_int(m.get("file_size")), path=path, present=path is not None))
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
