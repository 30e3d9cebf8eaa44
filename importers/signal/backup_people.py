"""Who is who in Signal's own export (the backup frames as JSON): recipients and chats.

The frames follow Signal's `Backup.proto` (signalapp/Signal-Message-Backup-Tests,
`src/main/proto/Backup.proto`) in the protobuf JSON mapping: field names in lowerCamelCase,
64-bit integers as strings, bytes as base64, enums by name. Helpers here accept both the JSON
forms and plain numbers, so a hand-written or re-encoded export reads the same.

    {"recipient": {"id": "4", "contact": {"aci": "AAoRzgAAQACAAAAAAAAAAQ==",
                                          "e164": "16105550101", "profileGivenName": "Alice"}}}
      → a person "Alice", handles ["000a11ce-0000-4000-8000-000000000001", "+16105550101"]
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from typing import Any

from chatmem.records import OWNER, Chat

from .common import PLATFORM

KEY_PREFIX = "signal-backup:"  # chat keys: the backup's own chat ids change from one export to the next
NOTE_TO_SELF = "Note to Self"
RELEASE_NOTES = "Signal"


def as_int(value: Any) -> int | None:
    """A uint64 as the JSON mapping writes it (a string) or as a number; None when absent.

    >>> as_int("1715636551000"), as_int(7), as_int(None), as_int("x")
    (1715636551000, 7, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def as_dict(value: Any) -> dict[str, Any]:
    """A message field as an object; {} when absent or not an object.

    >>> as_dict({"body": "hi"}), as_dict(None), as_dict("x")
    ({'body': 'hi'}, {}, {})
    """
    return value if isinstance(value, dict) else {}


def as_bytes(value: Any) -> bytes:
    """Protobuf JSON bytes (standard or URL-safe base64) → bytes; b'' when unreadable.

    >>> as_bytes("AAoRzgAAQACAAAAAAAAAAQ==").hex()
    '000a11ce000040008000000000000001'
    """
    if not isinstance(value, str) or not value:
        return b""
    text = value.strip().replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return b""


def service_id(value: Any) -> str | None:
    """An ACI as 16 base64 bytes → its UUID text, as Signal Desktop shows service ids.

    >>> service_id("AAoRzgAAQACAAAAAAAAAAQ==")
    '000a11ce-0000-4000-8000-000000000001'
    """
    raw = as_bytes(value)
    return str(uuid.UUID(bytes=raw)) if len(raw) == 16 else None


def enum_name(value: Any, names: dict[int, str]) -> str:
    """An enum by name, or by number (as some encoders write it)."""
    if isinstance(value, str) and not value.isdigit():
        return value
    number = as_int(value)
    return names.get(number or 0, "") if number is not None else names.get(0, "")


def _joined(*parts: Any) -> str:
    return " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())


@dataclass
class Person:
    """One recipient: a contact, a group, the owner, or Signal's release notes."""

    id: int
    kind: str  # contact | group | self | releaseNotes | distributionList | callLink
    name: str
    aci: str | None = None
    e164: str | None = None
    members: list[str] = field(default_factory=list)  # group members' ACIs
    key: str = ""  # the chat key this recipient's chat gets


class People:
    def __init__(self) -> None:
        self.by_id: dict[int, Person] = {}
        self.by_aci: dict[str, Person] = {}
        self.self_id: int | None = None
        self.owner_aci: str | None = None  # learnt from group membership when the owner is in one

    def add(self, frame: dict[str, Any]) -> Person | None:
        rid = as_int(frame.get("id"))
        if rid is None:
            return None
        person = self._person(rid, frame)
        self.by_id[rid] = person
        if person.aci:
            self.by_aci[person.aci] = person
        if person.kind == "self":
            self.self_id = rid
        return person

    @staticmethod
    def _person(rid: int, frame: dict[str, Any]) -> Person:
        contact = frame.get("contact")
        if isinstance(contact, dict):
            aci = service_id(contact.get("aci"))
            number = as_int(contact.get("e164"))
            e164 = f"+{number}" if number else None
            nick = as_dict(contact.get("nickname"))
            name = (
                _joined(nick.get("given"), nick.get("family"))
                or _joined(contact.get("systemGivenName"), contact.get("systemFamilyName"))
                or _joined(contact.get("systemNickname"))
                or _joined(contact.get("profileGivenName"), contact.get("profileFamilyName"))
                or e164
                or _joined(contact.get("username"))
                or aci
                or f"Unknown {rid}"
            )
            key = f"aci:{aci}" if aci else (f"e164:{e164}" if e164 else f"recipient:{rid}")
            return Person(rid, "contact", name, aci, e164, key=KEY_PREFIX + key)
        group = frame.get("group")
        if isinstance(group, dict):
            snapshot = as_dict(group.get("snapshot"))
            title = as_dict(snapshot.get("title"))
            members = [
                s
                for s in (service_id(m.get("userId")) for m in snapshot.get("members") or []
                          if isinstance(m, dict))
                if s
            ]
            master = group.get("masterKey") if isinstance(group.get("masterKey"), str) else ""
            return Person(rid, "group", _joined(title.get("title")) or "Unnamed group",
                          members=members, key=KEY_PREFIX + f"group:{master or rid}")
        if "self" in frame:
            return Person(rid, "self", NOTE_TO_SELF, key=KEY_PREFIX + "self")
        if "releaseNotes" in frame:
            return Person(rid, "releaseNotes", RELEASE_NOTES, key=KEY_PREFIX + "release-notes")
        kind = next((k for k in ("distributionList", "callLink") if k in frame), "unknown")
        return Person(rid, kind, f"{kind} {rid}", key=KEY_PREFIX + f"{kind}:{rid}")

    def is_owner(self, rid: Any) -> bool:
        return rid is not None and as_int(rid) == self.self_id

    def name(self, rid: Any) -> str:
        """Display name of a recipient id: 'me' for the owner."""
        number = as_int(rid)
        if number is not None and number == self.self_id:
            return OWNER
        person = self.by_id.get(number) if number is not None else None
        return person.name if person is not None else f"Unknown {rid}"

    def name_of_aci(self, value: Any) -> str:
        """Display name of an ACI given as base64 bytes (group updates, mentions)."""
        aci = service_id(value)
        if aci is None:
            return "someone"
        if aci == self.owner_aci:
            return OWNER
        person = self.by_aci.get(aci)
        return person.name if person is not None else aci

    def handle(self, rid: Any) -> str | None:
        person = self.by_id.get(as_int(rid) or -1)
        if person is None or person.kind != "contact":
            return None
        return person.e164 or person.aci

    def chat(self, recipient_id: Any) -> Chat | None:
        person = self.by_id.get(as_int(recipient_id) or -1)
        if person is None:
            return None
        if person.kind == "group":
            others = [self.by_aci[a] for a in person.members if a in self.by_aci]
            if self.owner_aci is None:
                # the one member who is no known contact is the owner, when there is exactly one
                unknown = [a for a in person.members if a not in self.by_aci]
                if len(unknown) == 1:
                    self.owner_aci = unknown[0]
            return Chat(PLATFORM, person.key, person.name, group=True,
                        participants=[p.name for p in others],
                        handles=[h for p in others for h in (p.e164 or p.aci,) if h])
        if person.kind == "contact":
            return Chat(PLATFORM, person.key, person.name, participants=[person.name],
                        handles=[h for h in (person.e164, person.aci) if h])
        return Chat(PLATFORM, person.key, person.name)
