"""Getting a WhatsApp chat's text out of what the user has: a .txt, or a .zip with media.

Zips are read in memory, never extracted. A member name with `..` or an absolute path is
refused, as is a chat text that would inflate past `MAX_TEXT_BYTES` or `MAX_RATIO` times its
compressed size (a zip bomb). A zip that holds no chat text but a zip is opened in turn.
"""

from __future__ import annotations

import io
import os
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from chatmem.errors import FormatError
from chatmem.records import export_file

from .whatsapp_header import for_matching, match_header, may_start_header

MAX_TEXT_BYTES = 2 * 1024**3  # a chat text larger than 2 GiB is not an export
MAX_RATIO = 200  # chat text compresses ~3-10x; far beyond this is a bomb
RATIO_FLOOR = 1024**2  # ratios are only checked for members above 1 MiB
MAX_NESTED_ZIP_BYTES = 512 * 1024**2
MAX_ZIP_DEPTH = 3
SNIFF_BYTES = 16 * 1024
# What zipfile raises on opening a damaged archive: BadZipFile, but also NotImplementedError
# ("zip file version 24.4" from a flipped byte), a member name that is not UTF-8, EOFError.
ZIP_OPEN_ERRORS = (zipfile.BadZipFile, NotImplementedError, ValueError, EOFError)

# "WhatsApp Chat with NAME.txt" in the app languages we know; iOS zips are "WhatsApp Chat - NAME.zip".
_CHAT_FILE_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^WhatsApp[ _]Chat[ _](?:with|mit|-)[ _](?P<name>.+)$",
        r"^Chat[ _]de[ _]WhatsApp[ _]con[ _](?P<name>.+)$",
        r"^Discussion[ _]WhatsApp[ _]avec[ _](?P<name>.+)$",
        r"^Conversa[ _](?:do|no)[ _]WhatsApp[ _]com[ _](?P<name>.+)$",
        r"^Chat[ _]WhatsApp[ _]con[ _](?P<name>.+)$",
        r"^WhatsApp[ _-]chat[ _]met[ _](?P<name>.+)$",
        r"^Чат[ _]WhatsApp[ _]с[ _](?P<name>.+)$",
        r"^(?P<name>.+?)[ _]ile[ _]WhatsApp[ _]Sohbeti$",
    )
]
CHAT_TEXT_NAME = "_chat.txt"  # iOS always names the text this inside its zip


def chat_name_from_filename(filename: str) -> str | None:
    """The chat's name as the export's file name gives it, or None.

    >>> chat_name_from_filename("WhatsApp Chat with Anna Berg.txt")
    'Anna Berg'
    >>> chat_name_from_filename("WhatsApp Chat - Book Club (2).zip"), chat_name_from_filename("_chat.txt")
    ('Book Club', None)
    """
    stem = unicodedata.normalize("NFC", for_matching(filename))
    for ext in (".txt", ".zip"):
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
    stem = re.sub(r"\s*\(\d{1,3}\)$", "", stem).strip()  # "name (2).zip" from a second download
    for pattern in _CHAT_FILE_PATTERNS:
        m = pattern.match(stem)
        if m:
            name = m.group("name").replace("_", " ").strip()
            return name or None
    return None


@dataclass
class ChatText:
    """One chat text ready to parse, with where it came from. Its bytes are read as a stream
    (`open()`, as often as a parser needs a pass), never held whole."""

    where: str  # for messages: "file.txt" or "Export.zip!_chat.txt"
    name_hint: str | None  # the chat name the file names give, if any
    stem: str  # a last-resort chat name
    opener: Callable[[], BinaryIO]  # a fresh binary stream of the text, from its first byte
    notes: list[str] = field(default_factory=list)
    members: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # basename -> (path, size)
    folder: Path | None = None  # a loose .txt's folder, where its media may lie

    def open(self) -> BinaryIO:
        return self.opener()

    @property
    def text(self) -> str:
        """The whole text decoded (for small texts and tests; parsers stream instead)."""
        with self.open() as fh:
            return decode(fh.read(), self.where)[0]

    def find_attachment(self, name: str) -> tuple[str, int | None, bool] | None:
        """(locator, size, present) of the attachment file `name` where the export has it (a
        link leading out of the export folder has a locator but is not present)."""
        hit = self.members.get(name)
        if hit is not None:
            return hit[0], hit[1], True
        if self.folder is None:
            return None
        locator, size, inside = export_file(self.folder, name)
        return (locator, size, inside) if locator else None


# ----------------------------------------------------------------------------- decoding

def decode(data: bytes, where: str) -> tuple[str, list[str]]:
    """Text of an export and notes about its encoding. Never fails on bytes.

    UTF-8 (a BOM stays in the text, as exported); UTF-16 when a BOM or the NUL pattern says
    so; otherwise UTF-8 with the few bad bytes replaced, or cp1252 / Latin-1 when most
    non-ASCII bytes are not UTF-8.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace"), []
    head = data[:400]
    if head.count(0) > len(head) // 4:
        enc = "utf-16-le" if head[1::2].count(0) > head[0::2].count(0) else "utf-16-be"
        return data.decode(enc, errors="replace"), [f"{where}: read as {enc} (no byte-order mark)"]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    good = sum(1 for ch in text if ord(ch) > 127) - text.count("\ufffd")
    if good >= bad:
        return text, [f"{where}: {bad} byte sequence(s) that are not UTF-8 were replaced by U+FFFD"]
    try:
        return data.decode("cp1252"), [f"{where}: not UTF-8; read as Windows-1252"]
    except UnicodeDecodeError:
        return data.decode("latin-1"), [f"{where}: not UTF-8; read as Latin-1"]


def looks_like_chat(text: str) -> bool:
    """True when one of the first non-empty lines is a WhatsApp header."""
    seen = 0
    for line in text.splitlines():
        line = line.strip("\r")
        if not line.strip():
            continue
        if line and may_start_header(line[0]):
            h = match_header(for_matching(line))
            if h is not None and (h.layout != "colon" or seen == 0):
                return True
        seen += 1
        if seen >= 5:
            return False
    return False


# ----------------------------------------------------------------------------- sources

def chat_texts(path: Path) -> Iterator[ChatText]:
    """The chat texts in `path` (a .txt, or a .zip possibly holding a zip)."""
    if path.is_dir():
        raise FormatError(f"{path}: is a folder; import the chat's .txt or .zip inside it")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                yield from _zip_texts(zf, path.name, path.name, 1, f"zip:{path.resolve()}")
            return
        with path.open("rb"):
            pass
    except FormatError:
        raise
    except ZIP_OPEN_ERRORS as e:
        raise FormatError(f"{path}: damaged zip ({e})") from e
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e.strerror or e})") from e
    if path.suffix.lower() == ".zip":
        raise FormatError(f"{path}: not a readable zip (truncated or damaged)")
    name_hint, stem = chat_name_from_filename(path.name), path.stem
    if path.name.lower() == CHAT_TEXT_NAME:  # an unzipped iOS export: the folder has the name
        folder = path.resolve().parent.name
        name_hint, stem = chat_name_from_filename(folder + ".zip"), folder
    yield ChatText(
        where=path.name,
        name_hint=name_hint,
        stem=stem,
        opener=lambda: path.open("rb"),
        folder=path.parent,
    )


def _check_member_name(name: str, label: str) -> None:
    pure = PurePosixPath(name.replace("\\", "/"))
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in pure.parts:
        raise FormatError(f"{label}: refusing unsafe member name {name!r} (absolute or '..')")


def _is_junk(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return name.startswith("__MACOSX/") or "/__MACOSX/" in name or base.startswith("._") or base == ".DS_Store"


def _check_member_size(info: zipfile.ZipInfo, label: str, limit: int) -> None:
    where = f"{label}!{info.filename}"
    if info.file_size > limit:
        raise FormatError(f"{where}: {info.file_size} bytes uncompressed is more than the {limit}-byte limit")
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise FormatError(f"{where}: compression ratio above {MAX_RATIO} (zip bomb?)")


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, label: str, limit: int) -> bytes:
    where = f"{label}!{info.filename}"
    _check_member_size(info, label, limit)
    with _member_opener(zf, info, where, limit)() as fh:
        return fh.read()


def _sniff(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    try:
        with zf.open(info) as fh:
            head = fh.read(SNIFF_BYTES)
    except Exception:  # a damaged member is reported when it is read for real
        return False
    text, _ = decode(head, info.filename)
    return looks_like_chat(text)


def _chat_members(zf: zipfile.ZipFile, files: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
    """The chat texts among a zip's files: `_chat.txt`, else files named like a chat export,
    else any .txt that starts like one (other .txt files are attachments)."""
    texts = [i for i in files if i.filename.lower().endswith(".txt")]
    chosen = [i for i in texts if i.filename.rsplit("/", 1)[-1].lower() == CHAT_TEXT_NAME]
    if not chosen:
        chosen = [i for i in texts if chat_name_from_filename(i.filename.rsplit("/", 1)[-1])]
    if not chosen:
        chosen = [i for i in texts if _sniff(zf, i)]
    return chosen


def zip_has_chat(path: Path) -> bool:
    """True when the zip at `path` holds a chat text (directly or in a zip inside it)."""
    with zipfile.ZipFile(path) as zf:
        return _zip_has_chat(zf, 1)


def _zip_has_chat(zf: zipfile.ZipFile, depth: int) -> bool:
    files = [i for i in zf.infolist() if not i.is_dir() and not _is_junk(i.filename)]
    if _chat_members(zf, files):
        return True
    if depth >= MAX_ZIP_DEPTH:
        return False
    for info in files:
        if info.filename.lower().endswith(".zip") and info.file_size <= MAX_NESTED_ZIP_BYTES:
            with zf.open(info) as fh, zipfile.ZipFile(io.BytesIO(fh.read())) as inner:
                if _zip_has_chat(inner, depth + 1):
                    return True
    return False


def _zip_texts(zf: zipfile.ZipFile, label: str, zip_name: str, depth: int,
               locator: str) -> Iterator[ChatText]:
    """`locator`: how to reach this zip again (`chatmem.store.media`), for attachments."""
    try:
        infos = zf.infolist()
    except (*ZIP_OPEN_ERRORS, OSError) as e:
        raise FormatError(f"{label}: damaged zip ({e})") from e
    for info in infos:
        _check_member_name(info.filename, label)
    files = [i for i in infos if not i.is_dir() and not _is_junk(i.filename)]
    members: dict[str, tuple[str, int | None]] = {
        i.filename.rsplit("/", 1)[-1]: (f"{locator}!{i.filename}", i.file_size) for i in files
    }
    chosen = _chat_members(zf, files)
    if not chosen:
        nested = [i for i in files if i.filename.lower().endswith(".zip")]
        found = False
        if depth < MAX_ZIP_DEPTH:
            for info in nested:
                data = _read_member(zf, info, label, MAX_NESTED_ZIP_BYTES)
                try:
                    inner = zipfile.ZipFile(io.BytesIO(data))
                except ZIP_OPEN_ERRORS as e:
                    raise FormatError(f"{label}!{info.filename}: damaged zip ({e})") from e
                with inner:
                    for text in _zip_texts(inner, f"{label}!{info.filename}", info.filename, depth + 1,
                                           f"{locator}!{info.filename}"):
                        found = True
                        yield text
        if not found:
            raise FormatError(f"{label}: no WhatsApp chat text (.txt) inside this zip")
        return
    zip_hint = chat_name_from_filename(os.path.basename(zip_name))
    zip_stem = os.path.basename(zip_name).rsplit(".", 1)[0]
    for info in chosen:
        _check_member_size(info, label, MAX_TEXT_BYTES)
        where = f"{label}!{info.filename}"
        base = info.filename.rsplit("/", 1)[-1]
        yield ChatText(
            where=where,
            name_hint=chat_name_from_filename(base) or zip_hint,
            stem=zip_stem if base.lower() == CHAT_TEXT_NAME else base.rsplit(".", 1)[0],
            opener=_member_opener(zf, info, where, MAX_TEXT_BYTES),
            members=members,
        )


class _LimitedMember(io.RawIOBase):
    """A zip member's bytes, read as a stream: damage becomes a FormatError naming the member,
    and inflating past `limit` bytes (a zip bomb whose header lies) stops the read."""

    def __init__(self, fh: IO[bytes], where: str, limit: int) -> None:
        self.fh, self.where, self.limit, self.count = fh, where, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # noqa: ANN001 - a writable buffer
        try:
            data = self.fh.read(len(buffer))
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
            raise FormatError(f"{self.where}: damaged or truncated zip member ({e})") from e
        except RuntimeError as e:  # encrypted
            raise FormatError(f"{self.where}: cannot read ({e})") from e
        self.count += len(data)
        if self.count > self.limit:
            raise FormatError(f"{self.where}: inflates past the {self.limit}-byte limit (zip bomb?)")
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.fh.close()
        super().close()


def _member_opener(zf: zipfile.ZipFile, info: zipfile.ZipInfo, where: str,
                   limit: int) -> Callable[[], BinaryIO]:
    def opener() -> BinaryIO:
        try:
            fh = zf.open(info)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
            raise FormatError(f"{where}: damaged or truncated zip member ({e})") from e
        except RuntimeError as e:  # encrypted
            raise FormatError(f"{where}: cannot read ({e})") from e
        except NotImplementedError as e:
            raise FormatError(f"{where}: unsupported compression ({e})") from e
        return io.BufferedReader(_LimitedMember(fh, where, limit), 1 << 16)

    return opener
