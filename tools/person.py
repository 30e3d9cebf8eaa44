"""get_person: one person across platforms, as the seat asking may see them — the handles each
platform knows them by, their chats, how many messages they wrote where, and the first and last
message with them. Their messages themselves are a search: search_memory(query="", person=id,
sort="oldest"), a page at a time."""

from __future__ import annotations

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from chatmem.config import Seat
from chatmem.errors import ArgumentError, NotFound
from chatmem.store import Store
from chatmem.store.activity import PersonOverview, person_overview

from .chats import chat_info
from .lookup import check_text
from .records import message_record
from .secrets import masker
from .types import ChatInfo, MessageRecord

STRICT = ConfigDict(extra="forbid")
MAX_PERSON_CHARS = 200


@with_config(STRICT)
class PlatformPresence(TypedDict):
    platform: str
    handles: list[str]  # phone numbers, e-mails, ids they wrote from there, most used first
    names: list[str]  # the names that platform showed for them, most used first
    messages: int  # messages from them on this platform
    chats: int


@with_config(STRICT)
class PersonResult(TypedDict):
    person: str  # person id
    name: str
    messages: int  # messages from them, every platform
    platforms: list[PlatformPresence]
    chats: list[ChatInfo]  # newest activity first
    first: MessageRecord | None  # the first message with them (from them, or to them alone)
    last: MessageRecord | None


def get_person(store: Store, seat: Seat, person: str) -> PersonResult:
    """One person (a person id, a name, a phone number or an e-mail) across platforms."""
    text = check_text(person, "person", MAX_PERSON_CHARS)
    if not text.strip():
        raise ArgumentError("person must be a person id, a name, a phone number or an e-mail")
    tz = store.config.timezone
    mask = masker(seat)
    with store.reader() as r:
        visible = r.readable_chat_ids(seat)
        found: list[tuple[str, str, PersonOverview]] = []
        for pid, name in r.resolve_people(text.strip()):
            overview = person_overview(r.conn, pid, visible)
            if overview.chat_ids:  # someone this seat has no chat with is no one to it
                found.append((pid, name, overview))
        if not found:
            raise NotFound(f"no person matches {text!r} (the people list shows who is there)")
        if len(found) > 1:
            raise ArgumentError(f"{text!r} means {len(found)} people: "
                                + "; ".join(f"{name} ({pid})" for pid, name, _ in found)
                                + " — ask again with a person id")
        pid, name, overview = found[0]
        names = r.names()
        rows = [row for cid in overview.chat_ids if (row := r.chat(seat, cid)) is not None]
        rows.sort(key=lambda row: (row.last_at is None, -(row.last_at.timestamp() if row.last_at else 0)))
        shown = r.handle_names([p for row in rows for p in (row.participants or [])])
        chats = [chat_info(row, names, shown, tz) for row in rows]

        def record(message_id: str | None) -> MessageRecord | None:
            found_row = r.message(seat, message_id) if message_id else None
            if found_row is None:
                return None
            row, chat = found_row
            extra = r.message_extras([row]).get(row.id)
            item = message_record(row, chat, tz, names, extra, mask)
            return {**item, "content": mask(item["content"])}

        per_chat: dict[str, int] = {}
        for row in rows:
            per_chat[row.platform] = per_chat.get(row.platform, 0) + 1
        platforms: list[PlatformPresence] = [
            {"platform": p, "handles": overview.handles.get(p, []), "names": overview.names.get(p, []),
             "messages": overview.messages.get(p, 0), "chats": per_chat.get(p, 0)}
            for p in sorted(set(overview.handles) | set(overview.messages) | set(per_chat))]
        return {"person": pid, "name": names[pid] if pid in names else name,
                "messages": sum(overview.messages.values()), "platforms": platforms,
                "chats": chats, "first": record(overview.first_id), "last": record(overview.last_id)}
