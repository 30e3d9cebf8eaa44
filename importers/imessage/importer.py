"""IMessageImporter: chat.db (macOS), sms.db (iOS), an iOS backup folder, CallHistory.storedata."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, closing
from pathlib import Path

from chatmem.errors import FormatError
from chatmem.records import Chat, ImportOptions, Record, SourceState

from . import sqlite
from .backup import Backup, is_backup
from .calls import CALL_TABLE, CallHistory
from .chatdb import PLATFORM, ChatDb

CALL_HISTORY_NAME = "CallHistory.storedata"
CHAT_DB_NAMES = ("chat.db", "sms.db")
MAC_MESSAGES_DIR = "Library/Messages/"  # attachment filenames: ~/Library/Messages/Attachments/..


def _kind_of_sqlite(path: Path) -> str | None:
    """'chatdb', 'calls' or None for a SQLite file; never raises."""
    if not sqlite.is_sqlite(path):
        return None
    try:  # immutable: detection must not create -wal/-shm files beside a WAL database
        uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            names = sqlite.tables(conn)
    except (sqlite3.Error, OSError, ValueError):
        return None
    if {"message", "handle", "chat"} <= names:
        return "chatdb"
    if CALL_TABLE in names:
        return "calls"
    return None


def mac_attachment_resolver(db_path: Path):  # noqa: ANN201 - returns a resolver closure
    """chat.db attachment filename → an existing file: the path as written (with ~ expanded),
    or the same path under the folder that holds this chat.db (a copied ~/Library/Messages)."""
    base = db_path.resolve().parent

    def resolve(filename: str | None) -> str | None:
        if not filename:
            return None
        candidates = [os.path.expanduser(filename)]
        at = filename.find(MAC_MESSAGES_DIR)
        if at >= 0:
            candidates.append(str(base / filename[at + len(MAC_MESSAGES_DIR) :]))
        for candidate in candidates:
            if os.path.isfile(candidate):
                return os.path.abspath(candidate)
        return None

    return resolve


class IMessageImporter:
    """Reads Messages databases (iMessage, SMS, RCS) and call history."""

    platform = PLATFORM
    # a database read as it is on disk is read whole (sqlite_pages), its content digest on the way
    reads_whole = True

    def detect(self, path: Path) -> bool:
        try:
            path = Path(path)
            if path.is_dir():
                return is_backup(path)
            if not path.is_file():
                return False
            try:
                sqlite.sqlite_header(path)
            except PermissionError:
                # macOS without Full Disk Access: claim the files we know by name, so that
                # reading them explains what to do instead of "not recognised".
                return path.name in (*CHAT_DB_NAMES, CALL_HISTORY_NAME)
            return _kind_of_sqlite(path) is not None
        except Exception:  # detection must never raise
            return False

    def read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        path = Path(path)
        try:
            yield from self._read(path, options)
        except (sqlite3.Error, UnicodeDecodeError) as e:
            # a damaged page can surface in any query (the ROWID watermark read, attachments,
            # edits...): one message naming the file, whichever query met it
            raise sqlite.translate(path, e) from e

    def _read(self, path: Path, options: ImportOptions) -> Iterator[Record]:
        state = dict(options.state or {})
        with ExitStack() as stack:
            calls_path: Path | None = None
            if path.is_dir():
                if not is_backup(path):
                    raise FormatError(
                        f"{path}: a folder, but not an iOS backup (no Manifest.db in it)"
                    )
                backup = Backup(path)
                stack.callback(backup.close)
                db = ChatDb(backup.sms_db(), display=f"{path} (sms.db)",
                            resolve_attachment=backup.resolve_attachment)  # fmt: skip
                calls_path = backup.call_history()
            else:
                if not path.is_file():
                    raise FormatError(f"{path}: no such file")
                sqlite.check_readable(path)
                if not sqlite.is_sqlite(path):
                    raise FormatError(f"{path}: not a Messages database (not a SQLite file)")
                kind = _kind_of_sqlite(path)
                if kind == "calls":
                    yield from self._calls_only(path, state, stack)
                    return
                db = ChatDb(path, resolve_attachment=mac_attachment_resolver(path))
                sibling = path.parent / CALL_HISTORY_NAME
                calls_path = sibling if sibling.is_file() else None
            stack.callback(db.close)
            yield from db.records(state)
            new_state = db.state_after()
            notes = list(db.counts.notes)
            if calls_path is not None:
                calls = CallHistory(calls_path)
                stack.callback(calls.close)
                yield from calls.records(state, db.chat_for_handle, db.announce)
                new_state["calls_max_pk"] = calls.max_pk
                if calls.count:
                    notes.append(f"{calls.count} calls from {calls_path.name}")
            if db.counts.undecodable:
                notes.append(f"{db.counts.undecodable} attributedBody blob(s) could not be decoded "
                             "(messages kept with the text column)")  # fmt: skip
            if db.counts.skipped_duplicates:
                notes.append(f"{db.counts.skipped_duplicates} message(s) joined to a second chat "
                             "were kept in their first chat only")  # fmt: skip
            missing = [c for c in ("thread_originator_guid", "date_edited") if c not in db.has]
            if missing:
                notes.append("older Messages schema: no " + ", ".join(missing))
            yield SourceState(state=new_state, notes=notes)

    def _calls_only(self, path: Path, state: dict, stack: ExitStack) -> Iterator[Record]:
        """A CallHistory.storedata alone: calls go to the chats of a chat.db beside it when
        there is one, else to chats named after the other party."""
        calls = CallHistory(path)
        stack.callback(calls.close)
        db = None
        for name in CHAT_DB_NAMES:
            sibling = path.parent / name
            if sibling.is_file() and _kind_of_sqlite(sibling) == "chatdb":
                db = ChatDb(sibling)
                stack.callback(db.close)
                break
        announced: set[str] = set()

        def announce(chat: Chat) -> Chat | None:
            if chat.id in announced:
                return None
            announced.add(chat.id)
            return chat

        if db is not None:
            chat_for = db.chat_for_handle
        else:
            from .chatdb import ORPHAN_PREFIX

            def chat_for(address: str) -> Chat:
                return Chat(PLATFORM, key=ORPHAN_PREFIX + address, name=address or "Unknown",
                            participants=[address], handles=[address])  # fmt: skip

        yield from calls.records(state, chat_for, announce)
        yield SourceState(state={"calls_max_pk": calls.max_pk}, notes=[f"{calls.count} calls"])
