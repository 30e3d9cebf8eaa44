"""Reaching an attachment's bytes from what the importer recorded (its locator).

A locator is one of:
- an absolute path of a file on disk (a chat.db Attachments folder, an iOS backup's hashed
  file, a signal-export `media/` file, a file next to a WhatsApp text export, a Signal
  Desktop `attachments.noindex` file);
- `zip:<absolute path of a zip>!<member>`, with further `!<member>` steps for a zip inside
  the zip (WhatsApp "Export chat" with media);
- `file:["<export folder>", "<path inside it>"]` (JSON; `chatmem.records.export_file`): a file
  of an export folder, read only while it stays inside that folder — a symbolic link leading
  out of the export is refused (MediaRefused), whatever it points at;
- `mms:["<SMS Backup & Restore XML>", <mms element number>, <part number>, "<mms date>",
  "<part name>"]`: the base64 data of an MMS part, found again by streaming the XML (never
  loaded whole), checked to be the same message and file.

A Signal Desktop attachment written by newer versions is encrypted on disk: the file is
IV (16 bytes) + AES-256-CBC ciphertext + HMAC-SHA256 (32 bytes) over IV and ciphertext, with
the 64-byte key (32 for AES, 32 for the MAC) kept base64 in the message's attachment record
(`localKey`); the plaintext is cut to the attachment's recorded size.

Sources are only ever read. Nothing here writes outside the store's own media folder.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select

from chatmem.errors import ChatmemError

from . import models as m
from .permissions import open_private

MAX_READ_BYTES = 256 * 1024**2  # never read more than this of one attachment into memory

# What an attachment is, for the type filter (`has:image`, attachment_type=...) and for how
# read_attachment returns it: by its MIME type, else by its file name's extension.
ATTACHMENT_TYPES = ("image", "video", "audio", "document", "other")
_EXTENSIONS = {
    "image": ("jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "bmp", "tif", "tiff", "tgs"),
    "video": ("mp4", "mov", "3gp", "webm", "mkv", "avi", "m4v"),
    "audio": ("opus", "ogg", "oga", "mp3", "m4a", "aac", "amr", "wav", "caf", "flac"),
    "document": ("pdf", "txt", "md", "csv", "json", "vcf", "ics", "log", "doc", "docx", "xls",
                 "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "pages", "numbers", "key",
                 "epub", "html", "htm", "xml"),
}
_DOCUMENT_TYPES = ("text/", "application/pdf", "application/json", "application/xml",
                   "application/csv", "application/msword", "application/rtf", "application/epub",
                   "application/vnd.openxmlformats", "application/vnd.ms-", "application/vnd.oasis",
                   "application/vnd.apple", "application/x-iwork")


def attachment_type(mime: str | None, name: str | None) -> str:
    """image, video, audio, document or other (one of ATTACHMENT_TYPES)."""
    mime = (mime or "").lower().strip()
    for kind in ("image", "video", "audio"):
        if mime.startswith(kind + "/"):
            return kind
    if mime.startswith(_DOCUMENT_TYPES):
        return "document"
    ext = name.rsplit(".", 1)[-1].lower() if name and "." in name else ""
    for kind, extensions in _EXTENSIONS.items():
        if ext in extensions:
            return kind
    return "other"


class MediaMissing(ChatmemError):
    """The file is not where the import found it (or never was): not present on this machine."""


class MediaUnreadable(ChatmemError):
    """The file is there but cannot be read as it should (damaged, wrong key, too large)."""


class MediaRefused(MediaUnreadable):
    """The file is not read on purpose: a symbolic link leading out of its export."""


def shown_path(locator: str | None) -> str:
    """Where a locator points, as a person reads it: a file's path, zip:…!member as it is, an
    MMS part as '<backup> (MMS n, part m)'."""
    if not locator:
        return ""
    try:
        if locator.startswith("file:"):
            root, relative = json.loads(locator[len("file:"):])
            return str(Path(root) / relative)
        if locator.startswith("mms:"):
            path, mms_no, part_no, *_ = json.loads(locator[len("mms:"):])
            return f"{path} (MMS {mms_no + 1}, part {part_no + 1})"
    except (ValueError, TypeError):
        pass
    return locator


def _export_path(locator: str) -> Path:
    """The file a `file:` locator names, checked to be inside its export folder."""
    try:
        root_text, relative = json.loads(locator[len("file:"):])
        root = Path(root_text)
        parts = [p for p in str(relative).split("/") if p not in ("", ".")]
    except (ValueError, TypeError):
        raise MediaUnreadable(f"{locator[:200]}: not a locator this version reads") from None
    if not root.is_absolute() or not parts or ".." in parts:
        raise MediaRefused(f"{relative!r} is not a path inside the export {root}")
    target = root.joinpath(*parts)
    try:
        real = target.resolve()
        if not real.is_relative_to(root.resolve()):
            raise MediaRefused(f"{target} is a symbolic link leading outside the export ({root}) "
                               f"to {real}: not followed")
    except RuntimeError:
        raise MediaRefused(f"{target} is a loop of symbolic links: not followed") from None
    except OSError as e:
        raise MediaUnreadable(f"cannot read {target}: {e.strerror or e}") from None
    return real


def _read_file(path: Path, limit: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise MediaUnreadable(f"{path.name} is {size:,} bytes, more than the {limit:,} read at most")
        with path.open("rb") as f:
            return f.read(limit + 1)
    except FileNotFoundError:
        raise MediaMissing(f"{path} is not on this machine (any more)") from None
    except IsADirectoryError:
        raise MediaMissing(f"{path} is a folder, not the attachment") from None
    except OSError as e:
        raise MediaUnreadable(f"cannot read {path}: {e.strerror or e}") from None


def _read_zip(locator: str, limit: int) -> bytes:
    outer, *members = locator[len("zip:"):].split("!")
    if not members:
        raise MediaUnreadable(f"{locator}: names no member of the zip")
    try:
        data: bytes | None = None
        zf = zipfile.ZipFile(outer)
        for depth, member in enumerate(members):
            with zf:
                try:
                    info = zf.getinfo(member)
                except KeyError:
                    raise MediaMissing(f"{member} is not in {outer} (any more)") from None
                if info.file_size > limit:
                    raise MediaUnreadable(f"{member} is {info.file_size:,} bytes, more than the "
                                          f"{limit:,} read at most")
                with zf.open(info) as f:
                    data = f.read(limit + 1)
            if len(data) > limit:
                raise MediaUnreadable(f"{member}: more than {limit:,} bytes once unpacked")
            if depth < len(members) - 1:
                zf = zipfile.ZipFile(io.BytesIO(data))
        assert data is not None
        return data
    except FileNotFoundError:
        raise MediaMissing(f"{outer} is not on this machine (any more)") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as e:
        raise MediaUnreadable(f"{outer}: damaged zip ({e})") from None
    except OSError as e:
        raise MediaUnreadable(f"cannot read {outer}: {e.strerror or e}") from None


class _Stop(Exception):
    pass


MMS_CHUNK = 1 << 18


def read_mms_part(locator: str, limit: int) -> bytes:
    """The bytes of an MMS part kept base64 inside an SMS Backup & Restore XML file: the file
    is streamed (expat, 256 KB at a time) up to that part and no further, and no more than
    `limit` bytes of it are decoded."""
    import binascii
    import xml.parsers.expat

    try:
        path_text, mms_no, part_no, date, *named = json.loads(locator[len("mms:"):])
        path = Path(path_text)
    except (ValueError, TypeError):
        raise MediaUnreadable(f"{locator[:200]}: not a locator this version reads") from None
    state: dict[str, Any] = {"depth": 0, "mms": -1, "in": False, "part": -1, "data": None,
                             "start": 0}
    parser = xml.parsers.expat.ParserCreate()

    def start(name: str, attrs: dict[str, str]) -> None:
        state["depth"] += 1
        if state["depth"] == 2 and name == "mms":
            state["mms"] += 1
            if state["mms"] == mms_no:
                if attrs.get("date") != date:
                    raise MediaMissing(f"{path} changed since it was imported (its MMS number "
                                       f"{mms_no + 1} is another message now); import it again")
                state["in"], state["start"] = True, parser.CurrentByteIndex
        elif state["in"] and name == "part":
            state["part"] += 1
            if state["part"] == part_no:
                if named and named[0] not in (attrs.get("name"), attrs.get("fn"), attrs.get("cl")):
                    raise MediaMissing(f"{path} changed since it was imported (that MMS holds "
                                       "another file now); import it again")
                state["data"] = attrs.get("data") or ""
                raise _Stop

    def end(name: str) -> None:
        state["depth"] -= 1
        if state["in"] and state["depth"] == 1:
            raise _Stop  # the message ended without that part

    parser.StartElementHandler, parser.EndElementHandler = start, end
    most = limit * 4 // 3 + MMS_CHUNK * 2  # base64 of `limit` bytes, and the part around it
    try:
        with path.open("rb") as f:
            while True:
                chunk = f.read(MMS_CHUNK)
                if state["in"] and f.tell() - state["start"] > most:
                    raise MediaUnreadable(f"an MMS part of {path.name} is larger than the "
                                          f"{limit:,} bytes read at most")
                parser.Parse(chunk, not chunk)
                if not chunk:
                    break
    except _Stop:
        pass
    except FileNotFoundError:
        raise MediaMissing(f"{path} is not on this machine (any more)") from None
    except xml.parsers.expat.ExpatError as e:
        raise MediaUnreadable(f"{path}: line {e.lineno}: not well-formed XML ({e})") from None
    except OSError as e:
        raise MediaUnreadable(f"cannot read {path}: {e.strerror or e}") from None
    data = state["data"]
    if data is None:
        raise MediaMissing(f"{path} no longer holds that MMS part; import it again")
    if not data:
        raise MediaMissing(f"{path}: the backup kept this MMS part without its data")
    if len(data) * 3 // 4 > limit + 3:
        raise MediaUnreadable(f"the MMS part is {len(data) * 3 // 4:,} bytes, more than the "
                              f"{limit:,} read at most")
    packed = "".join(data.split())
    try:
        return base64.b64decode(packed + "=" * (-len(packed) % 4))
    except (binascii.Error, ValueError):
        raise MediaUnreadable(f"{path}: the MMS part's data is not valid base64") from None


def decrypt_signal_v2(data: bytes, key_b64: str, size: int | None) -> bytes:
    """Signal Desktop's on-disk attachment encryption (see the module docstring)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    try:
        keys = base64.b64decode(key_b64, validate=True)
    except (ValueError, TypeError):
        raise MediaUnreadable("the attachment's key is not valid base64") from None
    if len(keys) != 64:
        raise MediaUnreadable(f"the attachment's key has {len(keys)} bytes, not 64")
    if len(data) < 16 + 16 + 32 or (len(data) - 48) % 16:
        raise MediaUnreadable("the encrypted attachment file is too short or cut")
    aes_key, mac_key = keys[:32], keys[32:]
    body, mac = data[:-32], data[-32:]
    if not hmac.compare_digest(hmac.new(mac_key, body, hashlib.sha256).digest(), mac):
        raise MediaUnreadable("the attachment file does not match its key (damaged or replaced)")
    decryptor = Cipher(algorithms.AES(aes_key), modes.CBC(body[:16])).decryptor()
    plain = decryptor.update(body[16:]) + decryptor.finalize()
    if size is not None and 0 <= size <= len(plain):
        return plain[:size]
    pad = plain[-1] if plain else 0
    if 1 <= pad <= 16 and plain.endswith(bytes([pad]) * pad):
        return plain[:-pad]
    return plain


def read_bytes(locator: str, *, key: str | None = None, size: int | None = None,
               limit: int = MAX_READ_BYTES) -> bytes:
    """The attachment's bytes (decrypted when `key` is given). MediaMissing when the file
    is not there, MediaUnreadable when it cannot be read as recorded."""
    if locator.startswith("zip:"):
        data = _read_zip(locator, limit)
    elif locator.startswith("file:"):
        data = _read_file(_export_path(locator), limit + 64)
    elif locator.startswith("mms:"):
        data = read_mms_part(locator, limit)
    else:
        path = Path(locator)
        if not path.is_absolute():
            raise MediaMissing(f"{locator}: recorded without a full path by an older import; "
                               "import its source again (--force) to find it")
        data = _read_file(path, limit + 64)
    if key:
        data = decrypt_signal_v2(data, key, size)
    if len(data) > limit:
        raise MediaUnreadable(f"more than the {limit:,} bytes read at most")
    return data


def copy_into(store_media: Path, name: str, data: bytes) -> str:
    """Write a copy of an attachment into the store's media folder (0600); its file name."""
    store_media.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = store_media / name
    tmp = target.with_name(name + ".partial")
    with open_private(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, target)
    return name



@dataclass(frozen=True)
class AttachmentInfo:
    """One attachment as recorded, with where its message is."""

    id: str
    message_id: str
    chat_id: str
    name: str | None
    mime_type: str | None
    size: int | None
    locator: str | None
    present: bool | None
    key: str | None
    text: str | None
    copied: str | None


def attachment_info(row: Any, chat_id: str) -> AttachmentInfo:
    """An attachments row (see `Reader.attachment`) as what read_attachment needs."""
    return AttachmentInfo(row.id, row.message_id, chat_id, row.name, row.mime_type, row.size,
                          row.path, row.present, row.key, row.text, row.copied)


def copy_media(store, limit: int = MAX_READ_BYTES) -> tuple[int, int, list[str]]:
    """Copy every present attachment not copied yet into the store's media/ folder (decrypted),
    so it stays readable when the export is gone. (copied, bytes, problems)."""
    at = m.Attachment.__table__
    folder = store.home / "media"
    with store.read() as conn:
        todo = conn.execute(select(at.c.id, at.c.name, at.c.path, at.c.key, at.c.size).where(
            at.c.present.is_(True) & at.c.copied.is_(None) & at.c.path.is_not(None))).all()
    copied, total, problems = 0, 0, []
    for row in todo:
        try:
            data = read_bytes(row.path, key=row.key, size=row.size, limit=limit)
        except (MediaMissing, MediaUnreadable) as e:
            problems.append(f"{row.name or row.id}: {e}")
            continue
        name = copy_into(folder, row.id, data)
        with store.write() as conn:
            conn.execute(at.update().where(at.c.id == row.id).values(copied=name))
        copied += 1
        total += len(data)
    return copied, total, problems
