"""Shared helpers for the WhatsApp importer tests."""

from __future__ import annotations

import os
from pathlib import Path

from chatmem.importers.whatsapp import WhatsAppImporter
from chatmem.records import Call, Chat, ImportOptions, Message, Problem, SourceState

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "whatsapp"
SHARED = Path(os.environ.get("CHATMEM_SHARED", REPO.parent / "shared"))
OWNER_NAMES = ["Sam Rivera"]


def read(path: Path, **options) -> list:
    """All records of one import, with the fixtures' owner unless told otherwise."""
    options.setdefault("owner_names", OWNER_NAMES)
    return list(WhatsAppImporter().read(Path(path), ImportOptions(**options)))


def read_text(tmp_path: Path, text: str | bytes, name: str = "WhatsApp Chat with Anna Berg.txt",
              **options) -> list:
    """Records of a chat text written to a temporary file first."""
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return read(path, **options)


def messages(records: list) -> list:
    """Messages and calls in file order."""
    return [r for r in records if isinstance(r, (Message, Call))]


def only(records: list, kind: type) -> list:
    return [r for r in records if isinstance(r, kind)]


def chat_of(records: list) -> Chat:
    (chat,) = only(records, Chat)
    return chat


def state_of(records: list) -> SourceState:
    (state,) = only(records, SourceState)
    return state


def problems(records: list) -> list[Problem]:
    return only(records, Problem)


def local(record) -> str:
    """A message's or call's local wall-clock time, ISO, as the export wrote it."""
    when = record.sent_at if isinstance(record, Message) else record.started_at
    return when.replace(tzinfo=None).isoformat()


def by_line(records: list, line: int):
    """The message or call that starts on `line` (1-based)."""
    (hit,) = [r for r in messages(records) if r.line == line]
    return hit
