"""What an import reports, per source and per chat (no database needed to make one)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ChatReport:
    chat_id: str
    name: str = ""
    platform: str = ""
    new: int = 0
    unchanged: int = 0
    updated: int = 0
    unparsed: int = 0
    problems: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "source": self.chat_id, "chat": self.name, "platform": self.platform,
            "new": self.new, "unchanged": self.unchanged, "updated": self.updated,
            "unparsed": self.unparsed, "first_problems": self.problems,
        }


@dataclass
class Report:
    path: str
    platform: str
    status: str = "ok"
    chats: dict[str, ChatReport] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=lambda: {"new": 0, "unchanged": 0, "updated": 0})
    reactions: int = 0
    contacts: int = 0
    unparsed: int = 0
    problems: list[dict] = field(default_factory=list)  # problems not tied to a chat
    notes: list[str] = field(default_factory=list)
    run_id: int | None = None
    seconds: float = 0.0

    def chat(self, chat_id: str) -> ChatReport:
        cr = self.chats.get(chat_id)
        if cr is None:
            cr = self.chats[chat_id] = ChatReport(chat_id)
        return cr

    def totals(self) -> dict[str, int]:
        t = {"new": 0, "unchanged": 0, "updated": 0}
        for c in self.chats.values():
            for k in t:
                t[k] += getattr(c, k)
        return t

    def as_dict(self) -> dict:
        return {
            "path": self.path, "platform": self.platform, "status": self.status,
            "run_id": self.run_id, "seconds": round(self.seconds, 3),
            "messages": self.totals(), "calls": self.calls, "reactions": self.reactions,
            "contacts": self.contacts, "unparsed": self.unparsed,
            "chats": [c.as_dict() for c in self.chats.values()],
            "problems": self.problems, "notes": self.notes,
        }
