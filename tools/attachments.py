"""read_attachment: an attachment's content, within bounds, for the seat asking.

- images come back scaled down (and re-encoded) to fit `max_bytes`, EXIF dropped — the
  location kept only for a seat that may see secrets; decompression bombs are refused;
- text documents and PDFs come back as text, a page at a time;
- audio and video as what is known of them (name, type, size, any transcript the source had);
- a file that is gone says so honestly (`present: false`).

An attachment in a chat outside the seat's scope is an unknown id; a seat whose config says
`attachments: false` gets the name and type but never the content. Text read from images and
audio on this machine (OCR, speech to text) is a later step: it plugs in at `local_text`.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from chatmem.config import Seat
from chatmem.errors import ArgumentError
from chatmem.store import Store
from chatmem.store.media import (
    AttachmentInfo,
    MediaMissing,
    MediaRefused,
    MediaUnreadable,
    attachment_info,
    attachment_type,
    read_bytes,
)

DEFAULT_MAX_BYTES = 400_000
MAX_MAX_BYTES = 4_000_000
TEXT_PAGE_CHARS = 12_000  # a page of a text document, at most (and never above max_bytes)
MAX_IMAGE_PIXELS = 60_000_000  # a larger image is refused as a possible decompression bomb
LONG_EDGE = 1568  # what assistants' vision models use at most
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/csv")
Kind = Literal["image", "text", "pdf", "audio", "video", "other"]


STRICT = ConfigDict(extra="forbid")


@with_config(STRICT)
class ImagePart(TypedDict):
    mime_type: str
    width: int
    height: int
    original_width: int
    original_height: int
    data: NotRequired[str]  # base64; the MCP server sends it as image content instead
    location: NotRequired[list[float]]  # [latitude, longitude] from EXIF, for seats that may see it


@with_config(STRICT)
class ReadAttachmentResult(TypedDict):
    ok: bool
    id: str
    name: NotRequired[str | None]
    mime_type: NotRequired[str | None]
    size: NotRequired[int | None]
    kind: NotRequired[Kind]
    present: NotRequired[bool]
    message: NotRequired[str]
    source: NotRequired[str]
    text: NotRequired[str]
    page: NotRequired[int]
    pages: NotRequired[int]
    has_more: NotRequired[bool]
    image: NotRequired[ImagePart]
    note: NotRequired[str]
    error: NotRequired[str]


_MEDIA_KINDS: dict[str, Kind] = {"image": "image", "audio": "audio", "video": "video"}


def _kind(mime: str | None, name: str | None) -> Kind:
    media = _MEDIA_KINDS.get(attachment_type(mime, name))
    if media is not None:
        return media
    mime = (mime or "").lower()
    ext = (name or "").rsplit(".", 1)[-1].lower() if name and "." in name else ""
    if mime == "application/pdf" or ext == "pdf":
        return "pdf"
    if mime.startswith(TEXT_TYPES) or ext in ("txt", "md", "csv", "json", "vcf", "ics", "log"):
        return "text"
    return "other"


def _check(attachment_id: Any, max_bytes: Any, page: Any) -> tuple[str, int, int]:
    if not isinstance(attachment_id, str) or not attachment_id.startswith("a_") or len(attachment_id) > 80:
        raise ArgumentError("attachment_id must be an attachment id (a_…), as read_raw_data or a "
                            "message's attachments give it")
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or not 1_000 <= max_bytes <= MAX_MAX_BYTES:
        raise ArgumentError(f"max_bytes must be a whole number from 1000 to {MAX_MAX_BYTES}")
    if not isinstance(page, int) or isinstance(page, bool) or page < 1:
        raise ArgumentError("page must be a whole number from 1")
    return attachment_id, max_bytes, page


def _lookup(store: Store, seat: Seat, attachment_id: str) -> AttachmentInfo | None:
    with store.reader() as r:
        row = r.attachment(attachment_id)
        found = r.message(seat, row.message_id) if row is not None else None
        if row is None or found is None:
            return None  # outside the seat's scope is the same as unknown
        return attachment_info(row, found[0].chat_id)


def _bytes(store: Store, info: AttachmentInfo) -> bytes:
    if info.copied:
        copy = store.home / "media" / info.copied
        if copy.is_file():
            return read_bytes(str(copy))
    if not info.locator:
        raise MediaMissing("the export did not include this file")
    return read_bytes(info.locator, key=info.key, size=info.size)


def attachment_bytes(store: Store, seat: Seat, attachment_id: str) -> tuple[AttachmentInfo, bytes]:
    """The original bytes, for `chatmem attachment --out`; errors in our words."""
    from chatmem.errors import NotFound

    attachment_id, _, _ = _check(attachment_id, DEFAULT_MAX_BYTES, 1)
    info = _lookup(store, seat, attachment_id)
    if info is None:
        raise NotFound(f"no attachment with id {attachment_id!r}")
    if not seat.attachments:
        raise ArgumentError(f"seat {seat.name!r} may not read attachment content "
                            "(`attachments: true` in its config allows it)")
    try:
        return info, _bytes(store, info)
    except MediaMissing as e:
        raise NotFound(f"{info.name or attachment_id}: not present on this machine ({e})") from None


def _gps(exif: Any) -> list[float] | None:
    try:
        gps = exif.get_ifd(0x8825)
        lat, lat_ref, lon, lon_ref = gps.get(2), gps.get(1), gps.get(4), gps.get(3)
        if not (lat and lon):
            return None

        def deg(v: Any) -> float:
            return float(v[0]) + float(v[1]) / 60 + float(v[2]) / 3600

        return [round(deg(lat) * (-1 if lat_ref == "S" else 1), 6),
                round(deg(lon) * (-1 if lon_ref == "W" else 1), 6)]
    except (KeyError, TypeError, ValueError, ZeroDivisionError, IndexError, AttributeError):
        return None


def _image(data: bytes, max_bytes: int, keep_location: bool) -> ImagePart:
    from PIL import Image, ImageOps

    try:
        from pillow_heif import register_heif_opener  # HEIC photos from iPhones, when installed

        register_heif_opener()
    except ImportError:
        pass
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img: Image.Image = Image.open(io.BytesIO(data))
            width, height = img.size
            if width * height > MAX_IMAGE_PIXELS:
                raise MediaUnreadable(f"the image is {width}×{height} pixels: refused as a "
                                      "possible decompression bomb")
            location = _gps(img.getexif()) if keep_location else None
            img.draft("RGB", (LONG_EDGE, LONG_EDGE))  # JPEG: decode at a smaller scale
            img = ImageOps.exif_transpose(img)
            img.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise MediaUnreadable("the image is too large to open safely (a possible decompression bomb)") from None
    except MediaUnreadable:
        raise
    except (OSError, ValueError, SyntaxError, Image.UnidentifiedImageError) as e:
        raise MediaUnreadable(f"not a readable image ({e})") from None
    img = img.convert("RGB")
    edge = LONG_EDGE
    while True:
        shown = img.copy()
        shown.thumbnail((edge, edge))
        out = io.BytesIO()
        # re-encoded without the EXIF block: camera, time and location never leave unasked
        shown.save(out, "JPEG", quality=82, optimize=True)
        encoded = base64.b64encode(out.getvalue()).decode("ascii")
        if len(encoded) <= max_bytes or edge <= 64:
            break
        edge = int(edge * 0.7)
    if len(encoded) > max_bytes:
        raise MediaUnreadable(f"even a 64-pixel copy of the image is above max_bytes ({max_bytes})")
    part: ImagePart = {"mime_type": "image/jpeg", "width": shown.width, "height": shown.height,
                       "original_width": width, "original_height": height, "data": encoded}
    if location:
        part["location"] = location
    return part


def _text_page(text: str, page: int, chars: int) -> tuple[str, int]:
    pages = max(1, -(-len(text) // chars))
    return text[(page - 1) * chars: page * chars], pages


def _pdf(data: bytes, page: int, chars: int) -> tuple[str, int]:
    """Text of PDF page `page` (1-based), cut to `chars`; and the number of pages."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = len(reader.pages)
        if page > max(pages, 1):
            raise ArgumentError(f"page {page} is past the document's {pages} pages")
        text = reader.pages[page - 1].extract_text() if pages else ""
    except ArgumentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, RecursionError, OSError) as e:
        raise MediaUnreadable(f"not a readable PDF ({e.__class__.__name__}: {e})") from None
    return text[:chars], pages


def local_text(kind: Kind, data: bytes) -> str | None:
    """Text this machine could read out of an image (OCR) or a recording (speech to text).
    No such reader ships yet, so there is none; one plugs in here, and its text then shows
    in `text` like a transcript the source carried."""
    return None


def read_attachment(store: Store, seat: Seat, attachment_id: str,
                    max_bytes: int = DEFAULT_MAX_BYTES, page: int = 1) -> ReadAttachmentResult:
    """An attachment's content within `max_bytes`: an image scaled to fit, a document's text
    a page at a time, or what is known of audio and video. Text is masked like every other
    read for a seat that may not see secrets."""
    from .secrets import masker

    result = _read_attachment(store, seat, attachment_id, max_bytes, page)
    if "text" in result:
        result["text"] = masker(seat)(result["text"])
    return result


def _read_attachment(store: Store, seat: Seat, attachment_id: str, max_bytes: int,
                     page: int) -> ReadAttachmentResult:
    attachment_id, max_bytes, page = _check(attachment_id, max_bytes, page)
    info = _lookup(store, seat, attachment_id)
    if info is None:
        return {"ok": False, "id": attachment_id,
                "error": f"no attachment with id {attachment_id!r} (ids come from a message's "
                         "attachments in search results and conversations)"}
    kind = _kind(info.mime_type, info.name)
    result: ReadAttachmentResult = {
        "ok": True, "id": info.id, "name": info.name, "mime_type": info.mime_type,
        "size": info.size, "kind": kind, "present": False, "message": info.message_id,
        "source": info.chat_id}
    if info.text:
        result["text"] = info.text
    if not seat.attachments:
        result["present"] = bool(info.present)
        result["note"] = (f"this seat ({seat.name}) may not read attachment content; "
                          "its name and type are above")
        return result
    try:
        data = _bytes(store, info)
    except MediaMissing as e:
        result["note"] = f"not present on this machine: {e}"
        return result
    except MediaRefused as e:
        result["note"] = f"refused: {e}"
        return result
    except MediaUnreadable as e:
        result["present"] = True
        result["note"] = f"present but unreadable: {e}"
        return result
    result["present"] = True
    if result.get("size") is None:
        result["size"] = len(data)
    chars = min(TEXT_PAGE_CHARS, max_bytes // 4)  # UTF-8 takes at most 4 bytes a character
    try:
        if kind == "image":
            result["image"] = _image(data, max_bytes, keep_location=seat.reveal_secrets)
        elif kind == "pdf":
            text, pages = _pdf(data, page, chars)
            result["text"], result["page"], result["pages"] = text, page, pages
            result["has_more"] = page < pages
        elif kind == "text":
            decoded = data.decode("utf-8", errors="replace")
            if decoded.startswith("\ufeff"):
                decoded = decoded[1:]
            text, pages = _text_page(decoded, page, chars)
            if page > pages:
                raise ArgumentError(f"page {page} is past the document's {pages} pages")
            result["text"], result["page"], result["pages"] = text, page, pages
            result["has_more"] = page < pages
        if kind in ("image", "audio", "video") and not info.text:
            found = local_text(kind, data)
            if found:
                result["text"] = found
        if kind in ("audio", "video", "other"):
            result["note"] = (f"{kind} content is not turned into text here; "
                              + ("its transcript is above" if info.text else "no transcript came with it"))
    except MediaUnreadable as e:
        result["note"] = f"present but unreadable: {e}"
    return result
