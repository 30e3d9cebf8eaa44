"""The text of `message.attributedBody` (an NSAttributedString in a typedstream) and the
attributes Messages puts on it: attachment GUIDs at U+FFFC, mentions, links, transcriptions.

    >>> decode_attributed_body(bytes.fromhex(
    ...     "040b73747265616d747970656481e803840140848484124e5341747472696275746564537472696e6700"
    ...     "8484084e534f626a656374008592848484084e53537472696e67019484012b0568656c6c6f8686")).text
    'hello'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .typedstream import (
    END_OF_OBJECT_BYTE,
    ArchivedObject,
    TypedStreamError,
    parse,
    parse_root_head,
)

# Attribute names Messages uses on the body.
ATTR_ATTACHMENT_GUID = "__kIMFileTransferGUIDAttributeName"
ATTR_FILENAME = "__kIMFilenameAttributeName"
ATTR_MENTION = "__kIMMentionConfirmedMention"
ATTR_LINK = "__kIMLinkAttributeName"
ATTR_PART = "__kIMMessagePartAttributeName"
ATTR_TRANSCRIPTION = "IMAudioTranscription"

OBJECT_REPLACEMENT = "\ufffc"  # where an attachment sits in the text
APP_BALLOON = "\ufffd"  # where an app message (balloon) sits


@dataclass
class Mention:
    handle: str  # phone or e-mail of the person mentioned
    text: str  # the mentioned name as it appears in the text
    start: int  # index into Body.text (Python characters)


@dataclass
class Body:
    """A decoded attributedBody.

    `attachments` are (index in text, attachment GUID) for each U+FFFC carrying one.
    """

    text: str
    attachments: list[tuple[int, str]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    transcription: str | None = None
    parts: list[tuple[int, int, int]] = field(default_factory=list)  # (start, end, part index)


def to_python(value: Any, depth: int = 0) -> Any:
    """Foundation objects as plain values: NSString → str, NSNumber → number, NSDictionary →
    dict, NSArray → list, NSURL → its string, NSData → bytes; other objects stay as they are."""
    if not isinstance(value, ArchivedObject) or value.cls is None or depth > 8:
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return value
    cls, vals = value.cls, value.values
    if cls.is_a("NSString"):
        raw = next((v for v in vals if isinstance(v, bytes)), b"")
        return raw.decode("utf-8", "replace")
    if cls.is_a("NSNumber") or cls.is_a("NSValue"):
        return vals[-1] if vals else None
    if cls.is_a("NSDictionary") and vals and isinstance(vals[0], int):
        items = vals[1:]
        return {
            _key(to_python(items[i], depth + 1)): to_python(items[i + 1], depth + 1)
            for i in range(0, len(items) - 1, 2)
        }
    if cls.is_a("NSArray") or cls.is_a("NSSet"):
        return [to_python(v, depth + 1) for v in vals[1:]]
    if cls.is_a("NSURL"):
        for v in vals:
            if isinstance(v, ArchivedObject):
                return to_python(v, depth + 1)
        return None
    if cls.is_a("NSData"):
        return next((v for v in vals if isinstance(v, bytes)), b"")
    return value


def _key(k: Any) -> Any:
    return k if isinstance(k, (str, int, float, bool, type(None))) else repr(k)


def _python_index(utf16: bytes, offset: int) -> int:
    """A UTF-16 offset (what NSAttributedString ranges count) as a Python string index."""
    return len(utf16[: 2 * offset].decode("utf-16-le", "ignore"))


# Names of the attributes whose values Body holds. An attribute name is an NSString written
# out in full the first time it occurs, so when none of these is in the bytes after the text,
# the rest of the blob (formatting, message parts) holds nothing Body keeps.
_BODY_ATTRIBUTE_MARKERS = (
    ATTR_ATTACHMENT_GUID.encode(),
    ATTR_MENTION.encode(),
    ATTR_LINK.encode(),
    ATTR_TRANSCRIPTION.encode(),
)


def _plain_text(data: bytes) -> str | None:
    """The text of an attributed string whose remaining bytes hold none of the attributes
    Body keeps, read by the same reader up to the end of the text; None otherwise."""
    if not data or data[-1] != END_OF_OBJECT_BYTE:  # truncated: let the full read say where
        return None
    head = parse_root_head(data)
    if head is None:
        return None
    root, pos = head
    if root.cls is None or not root.cls.is_a("NSAttributedString") or not root.values:
        return None
    text = to_python(root.values[0]) if isinstance(root.values[0], ArchivedObject) else None
    if not isinstance(text, str):
        return None
    for marker in _BODY_ATTRIBUTE_MARKERS:
        if data.find(marker, pos) >= 0:
            return None
    return text


def decode_attributed_body(data: bytes, *, complete: bool = False) -> Body:
    """attributedBody bytes → Body; TypedStreamError when they cannot be decoded.

    An attributed string encodes its NSString, then runs of (attribute id, length) in UTF-16
    units, each followed by the attribute dictionary the first time its id appears. Unless
    `complete`, reading stops after the text when the rest holds no attribute Body keeps
    (most messages: this halves the work on a large import).
    """
    data = bytes(data)
    if not complete:
        text = _plain_text(data)
        if text is not None:
            return Body(text)
    roots = parse(data)
    root = roots[0] if roots else None
    if not isinstance(root, ArchivedObject) or root.cls is None:
        raise TypedStreamError("no object in the typedstream")
    if root.cls.is_a("NSString"):
        return Body(to_python(root))
    if not root.cls.is_a("NSAttributedString"):
        raise TypedStreamError(f"root object is {root.cls.name}, not an attributed string")
    vals = root.values
    if not vals or not isinstance(vals[0], ArchivedObject):
        raise TypedStreamError("attributed string without its string")
    text = to_python(vals[0])
    if not isinstance(text, str):
        raise TypedStreamError("attributed string whose string is not an NSString")
    body = Body(text)
    if len(vals) == 1:
        return body
    utf16 = text.encode("utf-16-le", "surrogatepass")
    dictionaries: dict[int, dict[Any, Any]] = {}
    offset, i = 0, 1
    while i + 1 < len(vals):
        run_id, length = vals[i], vals[i + 1]
        i += 2
        if not isinstance(run_id, int) or not isinstance(length, int):
            raise TypedStreamError("attribute run without an (id, length) pair")
        if i < len(vals) and isinstance(vals[i], ArchivedObject):
            attrs = to_python(vals[i])
            dictionaries[run_id] = attrs if isinstance(attrs, dict) else {}
            i += 1
        attrs = dictionaries.get(run_id, {})
        _apply(body, attrs, utf16, offset, length)
        offset += length
    return body


def _apply(body: Body, attrs: dict[Any, Any], utf16: bytes, offset: int, length: int) -> None:
    if not attrs:
        return
    start = _python_index(utf16, offset)
    end = _python_index(utf16, offset + length)
    guid = attrs.get(ATTR_ATTACHMENT_GUID)
    if isinstance(guid, str):
        body.attachments.append((start, guid))
    handle = attrs.get(ATTR_MENTION)
    if isinstance(handle, str):
        body.mentions.append(Mention(handle, body.text[start:end], start))
    link = attrs.get(ATTR_LINK)
    if isinstance(link, str) and link not in body.links:
        body.links.append(link)
    transcription = attrs.get(ATTR_TRANSCRIPTION)
    if isinstance(transcription, str):
        body.transcription = transcription
    part = attrs.get(ATTR_PART)
    if isinstance(part, int):
        body.parts.append((start, end, part))
