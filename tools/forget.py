"""forget: remove a chat, or everything one imported source brought, for good (the owner only).

What is forgotten stays gone on `chatmem sync`; importing its source again on purpose brings
it back."""

from __future__ import annotations

from pathlib import Path

from typing_extensions import TypedDict

from chatmem.config import Seat
from chatmem.errors import NotFound, PermissionDenied
from chatmem.store import Store


class ForgetPlan(TypedDict):
    target: str
    kind: str  # chat | source
    name: str
    chat_id: str | None
    source_path: str | None
    messages: int


class ForgetResult(TypedDict):
    target: str
    chats: int
    messages: int
    calls: int


def plan_forget(store: Store, seat: Seat, target: str) -> ForgetPlan:
    """What `target` (a chat's source id, or the path of an imported export) names."""
    if not (seat.unrestricted and seat.write):
        raise PermissionDenied(f"seat {seat.name!r} may not forget anything; only the owner may")
    with store.reader() as r:
        if target.startswith("s_"):
            chat = r.chat(seat, target)
            if chat is None:
                raise NotFound(f"no chat with id {target!r} (`chatmem chats` lists them)")
            return {"target": target, "kind": "chat", "name": f"{chat.name} ({chat.platform})",
                    "chat_id": chat.id, "source_path": None, "messages": chat.message_count or 0}
        wanted = str(Path(target).expanduser().resolve())
        for src in r.sources():
            if src.path == wanted:
                return {"target": target, "kind": "source", "name": f"{src.path} ({src.platform})",
                        "chat_id": None, "source_path": src.path, "messages": -1}
    raise NotFound(f"{target!r} is neither a chat's source id (s_…) nor an imported export's "
                   "path (`chatmem doctor` lists the sources)")


def forget(store: Store, seat: Seat, target: str) -> ForgetResult:
    plan = plan_forget(store, seat, target)
    gone = store.forget(chat_id=plan["chat_id"], source_path=plan["source_path"])
    return {"target": target, "chats": gone["chats"], "messages": gone["messages"], "calls": gone["calls"]}
