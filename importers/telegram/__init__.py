"""Telegram Desktop's JSON export (`result.json`) → records; its HTML export (the app's default
format: messages.html, messages2.html...) is read by html_export.py.

Two layouts: one chat ("Export chat history": `{"name", "type", "id", "messages": [...]}`) or the
whole account ("Export Telegram data": `{"about", "personal_information", "contacts",
"chats": {"list": [...]}, "left_chats": {"list": [...]}}`). Each message:

    {"id": 12, "type": "message", "date": "2024-03-02T10:03:00", "date_unixtime": "1709370180",
     "from": "Anna Berg", "from_id": "user1001", "reply_to_message_id": 11,
     "text": ["Perfect, I'll bring ", {"type": "bold", "text": "coffee"}]}
      → Message(sender="Anna Berg", sent_at=2024-03-02 09:03 UTC, text="Perfect, I'll bring coffee",
                reply_to=<id of message 11>)

Ids: a message is (chat id, message id) in Telegram, both stable across exports of the same
account; a chat is its id. `date_unixtime` (UTC) is used when present, else `date` is a local
time of the exporting machine, read in the configured time zone. Media and files are paths
relative to the export folder (or a "(File not included...)" note). Service messages are
system events, phone and group calls are calls, topics in forum groups are `extra["topic"]`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chatmem.records import ImportOptions, Record

from ..estimate import head_text
from .html_export import detect_html, read_html_export
from .reader import CHAT_TYPES, read_export

PLATFORM = "telegram"
HEAD_BYTES = 4096


class TelegramImporter:
    platform = PLATFORM

    def detect(self, path: Path) -> bool:
        path = Path(path)
        if path.suffix.lower() != ".json" or not path.is_file():
            return detect_html(path)
        try:
            head = head_text(path, HEAD_BYTES)
        except OSError:
            return False
        if '"personal_information"' in head or ('"about"' in head and "Telegram" in head):
            return True
        return '"messages"' in head and any(f'"type": "{t}"' in head for t in CHAT_TYPES)

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        """Streamed (see stream.py): a broken file is a FormatError when the reading reaches
        the break, and the store keeps nothing of that import. The HTML export (a chat's
        folder, one of its pages, or the account's folder) is read by html_export.py."""
        path = Path(path)
        if path.is_dir() or path.suffix.lower() in (".html", ".htm"):
            return read_html_export(path, options)
        return read_export(path, options)


__all__ = ["PLATFORM", "TelegramImporter"]
