"""Who is who in a Signal Desktop database: conversations, the owner, display names.

A person is a private conversation. Messages name people by service id (ACI), by the old
`sourceUuid`, by phone number (`source` in old schemas) or, in reactions, by conversation id;
`People.find` accepts any of these.
"""

from __future__ import annotations

import json
from typing import Any

from chatmem.records import OWNER, Chat

from .common import PLATFORM
from .desktop_db import column_names

# Columns read from `conversations` when the schema has them (`uuid` became `serviceId` in 6.x).
CONVERSATION_COLUMNS = (
    "id",
    "json",
    "type",
    "name",
    "profileName",
    "profileFamilyName",
    "profileFullName",
    "e164",
    "serviceId",
    "uuid",
    "groupId",
    "members",
)
NOTE_TO_SELF = "Note to Self"  # what Signal calls the owner's chat with themselves


def _phone_key(value: str) -> str:
    """'+7 999 333 44 55' → '+79993334455' (Signal writes e164 without spaces; copies may not)."""
    return "+" + "".join(ch for ch in value if ch.isdigit())


def sender_key(value: Any) -> Any:
    """A sender column's value as an id `People.find` takes.

    `source STRING` has numeric affinity in SQLite, so old rows hold the e164 number as an
    integer without its '+' (Signal's own migration 1270 adds it back):

    >>> sender_key(15550100002), sender_key("b2b2-…")
    ('+15550100002', 'b2b2-…')
    """
    return f"+{value}" if isinstance(value, int) else value


def _device_less(value: Any) -> str | None:
    """'b22b….2' (ACI or number "." deviceId, as items.uuid_id holds it) → 'b22b…'."""
    if not isinstance(value, str) or not value:
        return None
    return value.rsplit(".", 1)[0] if "." in value else value


class People:
    def __init__(self, conn: Any, tables: set[str]) -> None:
        cols = set(column_names(conn, "conversations"))
        wanted = [c for c in CONVERSATION_COLUMNS if c in cols]
        self.conversations: dict[str, dict[str, Any]] = {}
        self._index: dict[str, str] = {}  # any id / handle → conversation id
        for values in conn.execute(f"SELECT {', '.join(wanted)} FROM conversations"):
            row = dict(zip(wanted, values))
            conv = self._merge_json(row)
            self.conversations[conv["id"]] = conv
            for key in (conv.get("serviceId"), conv.get("uuid"), conv.get("pni"), conv.get("e164")):
                if isinstance(key, str) and key:
                    self._index.setdefault(key.lower(), conv["id"])
            if isinstance(conv.get("e164"), str):
                self._index.setdefault(_phone_key(conv["e164"]), conv["id"])
        self.owner_aci, self.owner_e164 = (
            self._owner_ids(conn) if "items" in tables else (None, None)
        )
        owner = self.find(self.owner_aci) or self.find(self.owner_e164)
        self.owner_conversation: str | None = owner["id"] if owner else None

    @staticmethod
    def _merge_json(row: dict[str, Any]) -> dict[str, Any]:
        """Columns over the row's json (older schemas keep some fields only in json)."""
        try:
            conv = json.loads(row.get("json") or "{}")
        except ValueError:
            conv = {}
        if not isinstance(conv, dict):
            conv = {}
        conv.update({k: v for k, v in row.items() if k != "json" and v is not None})
        return conv

    @staticmethod
    def _owner_ids(conn: Any) -> tuple[str | None, str | None]:
        rows = dict(conn.execute("SELECT id, json FROM items WHERE id IN ('uuid_id', 'number_id')"))

        def value(item: str) -> str | None:
            try:
                return _device_less(json.loads(rows.get(item) or "{}").get("value"))
            except (ValueError, AttributeError):
                return None

        return value("uuid_id"), value("number_id")

    def find(self, key: Any) -> dict[str, Any] | None:
        """The conversation of a person given any of their ids, or None."""
        if not isinstance(key, str) or not key:
            return None
        conv = self.conversations.get(key)
        if conv is not None:
            return conv
        cid = self._index.get(key.lower())
        if cid is None and key[:1] == "+":
            cid = self._index.get(_phone_key(key))
        return self.conversations.get(cid) if cid else None

    def is_owner(self, key: Any) -> bool:
        if key == OWNER:
            return True
        conv = self.find(key)
        return conv is not None and conv["id"] == self.owner_conversation

    def name(self, key: Any) -> str:
        """Display name for any id: 'me' for the owner, the id itself when unknown."""
        if self.is_owner(key):
            return OWNER
        conv = self.find(key)
        if conv is None:
            return str(key) if key else "Unknown"
        return display_name(conv)

    def handle(self, key: Any) -> str | None:
        conv = self.find(key)
        if conv is None:
            return key if isinstance(key, str) and key else None
        return conv.get("e164") or conv.get("serviceId") or conv.get("uuid")

    def chat(self, conversation_id: str) -> Chat:
        conv = self.conversations.get(conversation_id)
        if conv is None:  # messages of a conversation row that is gone: keep them, named by id
            return Chat(PLATFORM, conversation_id, f"Unknown chat {conversation_id[:8]}")
        if conv.get("type") == "group":
            members = self._members(conv)
            others = [m for m in members if not self.is_owner(m)]
            return Chat(
                PLATFORM,
                conversation_id,
                conv.get("name") or "Unnamed group",
                group=True,
                participants=[self.name(m) for m in others],
                handles=[h for h in (self.handle(m) for m in others) if h],
            )
        if conversation_id == self.owner_conversation:
            return Chat(PLATFORM, conversation_id, NOTE_TO_SELF, handles=self._handles(conv))
        name = display_name(conv)
        return Chat(
            PLATFORM, conversation_id, name, participants=[name], handles=self._handles(conv)
        )

    @staticmethod
    def _handles(conv: dict[str, Any]) -> list[str]:
        return [h for h in (conv.get("e164"), conv.get("serviceId") or conv.get("uuid")) if h]

    @staticmethod
    def _members(conv: dict[str, Any]) -> list[str]:
        v2 = conv.get("membersV2")
        if isinstance(v2, list) and v2:
            return [str(m.get("aci") or m.get("uuid")) for m in v2
                    if isinstance(m, dict) and (m.get("aci") or m.get("uuid"))]
        members = conv.get("members")
        if isinstance(members, str):  # the column: ids separated by spaces
            return members.split()
        return [m for m in members if isinstance(m, str)] if isinstance(members, list) else []


def display_name(conv: dict[str, Any]) -> str:
    """The name Signal shows: the saved contact name, then the profile name, then the number.

    >>> display_name({"profileName": "Eeeee", "profileFamilyName": "Eeee", "e164": "+7"})
    'Eeeee Eeee'
    """
    profile = conv.get("profileFullName") or " ".join(
        p for p in (conv.get("profileName"), conv.get("profileFamilyName")) if p
    )
    return (
        conv.get("name")
        or profile
        or conv.get("e164")
        or conv.get("serviceId")
        or conv.get("uuid")
        or conv.get("id")
        or "Unknown"
    )
