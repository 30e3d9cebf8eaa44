"""Phone and FaceTime calls from `CallHistory.storedata` (a Core Data SQLite file).

Table ZCALLRECORD: ZDATE seconds since 2001, ZDURATION seconds, ZADDRESS the other party
(text, or UTF-8 bytes in some versions), ZORIGINATED 1 = outgoing, ZANSWERED, ZCALLTYPE
(1 phone, 8 FaceTime video, 16 FaceTime audio), ZSERVICE_PROVIDER for third-party apps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError
from chatmem.records import Call, Chat, Record, call_id, raw_json

from . import sqlite
from .dates import apple_time

PLATFORM = "imessage"
CALL_TABLE = "ZCALLRECORD"
REQUIRED_COLUMNS = ("Z_PK", "ZDATE", "ZADDRESS")
OPTIONAL_COLUMNS = ("ZUNIQUE_ID", "ZDURATION", "ZORIGINATED", "ZANSWERED", "ZCALLTYPE",
                    "ZSERVICE_PROVIDER", "ZNAME")  # fmt: skip
CALL_TYPE_PHONE = 1
CALL_TYPE_FACETIME_VIDEO = 8
CALL_TYPE_FACETIME_AUDIO = 16


def is_call_history(conn: sqlite3.Connection) -> bool:
    return CALL_TABLE in sqlite.tables(conn)


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace").strip("\x00")
    return "" if value is None else str(value)


class CallHistory:
    def __init__(self, path: Path, display: str | None = None) -> None:
        self.path = path
        self.display = display or str(path)
        self.conn = sqlite.open_readonly(path)
        try:
            if not is_call_history(self.conn):
                raise FormatError(
                    f"{self.display}: not a CallHistory database (no {CALL_TABLE} table)"
                )
            cols = set(sqlite.columns(self.conn, CALL_TABLE))
        except sqlite3.Error as e:
            self.conn.close()
            raise sqlite.translate(path, e) from e
        except FormatError:
            self.conn.close()
            raise
        missing = [c for c in REQUIRED_COLUMNS if c not in cols]
        if missing:
            self.conn.close()
            raise FormatError(f"{self.display}: {CALL_TABLE} lacks column(s) {', '.join(missing)}")
        self.columns = list(REQUIRED_COLUMNS) + [c for c in OPTIONAL_COLUMNS if c in cols]
        self.max_pk = 0
        self.count = 0

    def close(self) -> None:
        self.conn.close()

    def records(self, state: dict[str, Any], chat_for: Callable[[str], Chat],
                announce: Callable[[Chat], Chat | None]) -> Iterator[Record]:  # fmt: skip
        """Calls with Z_PK above the last import's, each after its chat (when new)."""
        since = int(state.get("calls_max_pk") or 0)
        self.max_pk = since
        sql = f"SELECT {', '.join(self.columns)} FROM {CALL_TABLE} WHERE Z_PK > ? ORDER BY Z_PK"
        try:
            rows = self.conn.execute(sql, (since,))
            for values in rows:
                row = dict(zip(self.columns, values))
                yield from self._call(row, chat_for, announce)
                self.max_pk = max(self.max_pk, row["Z_PK"])
        except sqlite3.Error as e:
            raise sqlite.translate(self.path, e) from e

    def _call(self, row: dict[str, Any], chat_for: Callable[[str], Chat],
              announce: Callable[[Chat], Chat | None]) -> tuple[Record, ...]:  # fmt: skip
        address = _text(row["ZADDRESS"]).strip()
        started = apple_time(row["ZDATE"])
        if started is None:
            return ()
        chat = chat_for(address)
        new_chat = announce(chat)
        answered = bool(row.get("ZANSWERED"))
        if row.get("ZORIGINATED"):
            direction = "outgoing"
        else:
            direction = "incoming" if answered else "missed"
        duration = row.get("ZDURATION")
        natural = row.get("ZUNIQUE_ID") or f"pk:{row['Z_PK']}"
        raw_row = {**row, "ZADDRESS": address}
        call = Call(
            id=call_id(PLATFORM, natural),
            platform=PLATFORM,
            chat_id=chat.id,
            started_at=started,
            direction=direction,
            media="video" if row.get("ZCALLTYPE") == CALL_TYPE_FACETIME_VIDEO else "voice",
            duration=int(round(duration)) if isinstance(duration, (int, float)) else None,
            answered=answered,
            peer=_text(row.get("ZNAME")) or address or None,
            raw=raw_json(raw_row),
            line=row["Z_PK"],
        )
        self.count += 1
        return (new_chat, call) if new_chat is not None else (call,)
