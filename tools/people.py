"""People across platforms, and fixing what automatic matching got wrong (`chatmem people`).

The owner's administration, not MCP tools: merge, split and rename write through the store, so
every message that shows a changed name is indexed again.
"""

from __future__ import annotations

from typing import Any

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store

from .lookup import check_text
from .memory import require_write

MAX_NAME_CHARS = 200


def list_people(store: Store, seat: Seat, query: str | None = None, limit: int = 200) -> dict[str, Any]:
    """People with their handles, platforms and message counts, the owner first; for a seat
    that does not see everything, only the people of its chats, counted there, without handles."""
    query = check_text(query, "query", MAX_NAME_CHARS, optional=True)
    with store.reader() as r:
        return {"people": r.people(query or None, limit, seat=seat)}


def _name(value: Any, what: str) -> str:
    text = check_text(value, what, MAX_NAME_CHARS)
    if text is None or not text.strip():
        raise ArgumentError(f"{what} must not be empty")
    return text.strip()


def merge_people(store: Store, seat: Seat, person: str, other: str) -> dict[str, Any]:
    """`other` becomes part of `person` (names, handles or person ids); holds through re-imports."""
    require_write(seat, "merge people")
    person, other = _name(person, "person"), _name(other, "other")
    with store.writer() as w:
        return {"person": w.merge_people(person, other)}


def split_person(store: Store, seat: Seat, person: str, handle: str, name: str | None = None) -> dict[str, Any]:
    """One handle of `person` (and the messages it identifies) becomes a person of its own."""
    require_write(seat, "split a person")
    person, handle = _name(person, "person"), _name(handle, "handle")
    name = _name(name, "name") if name is not None else None
    with store.writer() as w:
        return {"person": w.split_person(person, handle, name)}


def rename_person(store: Store, seat: Seat, person: str, name: str) -> dict[str, Any]:
    """Give `person` the name `name` everywhere."""
    require_write(seat, "rename a person")
    person, name = _name(person, "person"), _name(name, "name")
    with store.writer() as w:
        return {"person": w.rename_person(person, name)}
