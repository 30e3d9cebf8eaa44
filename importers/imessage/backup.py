"""An unencrypted iOS backup folder (Finder / iTunes / idevicebackup2).

The backup stores each file under its SHA-1 file id, `<id[:2]>/<id>` (flat `<id>` before
iOS 10); `Manifest.db` maps ids to `(domain, relativePath)`:

    HomeDomain  Library/SMS/sms.db                           → 3d/3d0d7e5fb2ce288813306e4d4636395e047a3d28
    MediaDomain Library/SMS/Attachments/ab/11/GUID/IMG.jpeg  → attachments
    HomeDomain  Library/CallHistoryDB/CallHistory.storedata  → calls
"""

from __future__ import annotations

import hashlib
import plistlib
import sqlite3
from pathlib import Path

from chatmem.errors import FormatError

from . import sqlite

MANIFEST_DB = "Manifest.db"
MANIFEST_PLIST = "Manifest.plist"
HOME_DOMAIN = "HomeDomain"
MEDIA_DOMAIN = "MediaDomain"
SMS_DB_PATH = "Library/SMS/sms.db"
CALL_HISTORY_PATH = "Library/CallHistoryDB/CallHistory.storedata"
SMS_PREFIX = "Library/SMS/"  # attachments: chat.db says ~/Library/SMS/Attachments/...


def file_id(domain: str, relative_path: str) -> str:
    """The backup's name for a file: SHA-1 of 'domain-relativePath'.

    >>> file_id("HomeDomain", "Library/SMS/sms.db")
    '3d0d7e5fb2ce288813306e4d4636395e047a3d28'
    """
    return hashlib.sha1(f"{domain}-{relative_path}".encode()).hexdigest()


def is_backup(folder: Path) -> bool:
    try:
        return folder.is_dir() and (folder / MANIFEST_DB).is_file()
    except OSError:
        return False


class Backup:
    """Looks files up in a backup folder; FormatError for an encrypted or broken one."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._check_not_encrypted()
        self.conn = sqlite.open_readonly(folder / MANIFEST_DB)
        try:
            if "Files" not in sqlite.tables(self.conn):
                raise FormatError(
                    f"{folder / MANIFEST_DB}: not an iOS backup manifest (no Files table)"
                )
        except sqlite3.Error as e:
            raise sqlite.translate(folder / MANIFEST_DB, e) from e
        self._media: dict[str, str] | None = None

    def close(self) -> None:
        self.conn.close()

    def _check_not_encrypted(self) -> None:
        plist_path = self.folder / MANIFEST_PLIST
        if not plist_path.is_file():
            return
        try:
            manifest = plistlib.loads(plist_path.read_bytes())
        except Exception:  # a damaged Manifest.plist: Manifest.db decides
            return
        if isinstance(manifest, dict) and manifest.get("IsEncrypted"):
            raise FormatError(
                f"{self.folder}: this iOS backup is encrypted; make an unencrypted backup "
                "(Finder: untick 'Encrypt local backup') and import that"
            )

    def _stored(self, fid: str) -> Path | None:
        for candidate in (self.folder / fid[:2] / fid, self.folder / fid):
            if candidate.is_file():
                return candidate
        return None

    def lookup(self, domain: str, relative_path: str) -> Path | None:
        """Where the backup keeps this file, or None when it does not have it."""
        try:
            row = self.conn.execute(
                "SELECT fileID FROM Files WHERE domain = ? AND relativePath = ?",
                (domain, relative_path),
            ).fetchone()
        except sqlite3.Error as e:
            raise sqlite.translate(self.folder / MANIFEST_DB, e) from e
        return self._stored(row[0] if row else file_id(domain, relative_path))

    def sms_db(self) -> Path:
        found = self.lookup(HOME_DOMAIN, SMS_DB_PATH)
        if found is None:
            raise FormatError(
                f"{self.folder}: the backup holds no Messages database ({SMS_DB_PATH})"
            )
        return found

    def call_history(self) -> Path | None:
        return self.lookup(HOME_DOMAIN, CALL_HISTORY_PATH)

    def resolve_attachment(self, filename: str | None) -> str | None:
        """chat.db's attachment filename ('~/Library/SMS/Attachments/..') → file in the backup."""
        if not filename:
            return None
        at = filename.find(SMS_PREFIX)
        if at < 0:
            return None
        if self._media is None:
            self._media = dict(self.conn.execute(
                "SELECT relativePath, fileID FROM Files WHERE domain = ? AND relativePath LIKE ?",
                (MEDIA_DOMAIN, SMS_PREFIX + "%"),
            ))  # fmt: skip
        relative = filename[at:]
        fid = self._media.get(relative)
        found = self._stored(fid) if fid else None
        return str(found) if found else None
