"""Our own reader of NSArchiver "typedstream" data, the format of `message.attributedBody`.

A typedstream is a header followed by groups of values, each group prefixed by its Objective-C
type encoding ("@" an object, "iI" two integers, "+" raw bytes...). Objects are a class chain
then groups of values up to an end marker. Strings used as type encodings and class names go
into a *shared string table*; objects, classes and C strings go into an *object table*; both can
be referred back to later by number. Everything is little-endian in the "streamtyped" variant
that Messages writes.

    >>> blob = bytes.fromhex("040b73747265616d747970656481e803") + b"\\x84\\x01i\\x07"
    >>> parse(blob)
    [7]

`decode_attributed_body` reads an NSAttributedString and returns its text and the attributes
Messages puts on it (attachment GUIDs at U+FFFC, mentions, links, audio transcriptions).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

HEADER_PREFIX = b"\x04\x0bstreamtyped"  # streamer version 4, 11-byte little-endian signature
STREAMER_VERSION = 4
SIGNATURE = b"streamtyped"

# Tags: single signed bytes in the range -128..-111 that are not literal integers.
TAG_INTEGER_2 = -127  # 0x81: the next 2 bytes are the integer
TAG_INTEGER_4 = -126  # 0x82: the next 4 bytes are the integer
TAG_FLOAT = -125  # 0x83: the next 4 or 8 bytes are an IEEE float / double
TAG_NEW = -124  # 0x84: a literal string, class or object follows
TAG_NIL = -123  # 0x85
TAG_END_OF_OBJECT = -122  # 0x86
FIRST_TAG, LAST_TAG = -128, -111
FIRST_REFERENCE = LAST_TAG + 1  # -110 (0x92) is back-reference number 0

MAX_DEPTH = 200  # nested objects; deeper input is malformed (and would exhaust the stack)

# Attribute names Messages uses on the body.
ATTR_ATTACHMENT_GUID = "__kIMFileTransferGUIDAttributeName"
ATTR_FILENAME = "__kIMFilenameAttributeName"
ATTR_MENTION = "__kIMMentionConfirmedMention"
ATTR_LINK = "__kIMLinkAttributeName"
ATTR_PART = "__kIMMessagePartAttributeName"
ATTR_TRANSCRIPTION = "IMAudioTranscription"

OBJECT_REPLACEMENT = "\ufffc"  # where an attachment sits in the text
APP_BALLOON = "\ufffd"  # where an app message (balloon) sits


class TypedStreamError(ValueError):
    """The bytes are not a typedstream we can read (truncated, corrupt, unknown type)."""


@dataclass(eq=False)
class ArchivedClass:
    name: str
    version: int
    superclass: ArchivedClass | None = None

    def is_a(self, name: str) -> bool:
        """True when this class or one of its superclasses is called `name`."""
        cls: ArchivedClass | None = self
        for _ in range(64):  # class chains are short; a cycle would be malformed input
            if cls is None:
                return False
            if cls.name == name:
                return True
            cls = cls.superclass
        return False


@dataclass(eq=False)
class ArchivedObject:
    """An object: its class and the values it encoded, in order (groups flattened)."""

    cls: ArchivedClass | None = None
    values: list[Any] = field(default_factory=list)

    def __repr__(self) -> str:
        name = self.cls.name if self.cls else "?"
        return f"<{name} {len(self.values)} values>"


_TYPE_CACHE: dict[bytes, tuple[bytes, ...]] = {}


def split_types(encoding: bytes) -> tuple[bytes, ...]:
    """One type encoding string → the single types in it.

    >>> split_types(b"iI{_NSRange=QQ}[4c]@")
    (b'i', b'I', b'{_NSRange=QQ}', b'[4c]', b'@')
    """
    cached = _TYPE_CACHE.get(encoding)
    if cached is not None:
        return cached
    types: list[bytes] = []
    i, n = 0, len(encoding)
    while i < n:
        start = i
        c = encoding[i]
        if c in b"{[(":
            close = {ord("{"): ord("}"), ord("["): ord("]"), ord("("): ord(")")}[c]
            depth = 0
            while i < n:
                if encoding[i] == c:
                    depth += 1
                elif encoding[i] == close:
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            if i >= n:
                raise TypedStreamError(f"unbalanced type encoding {encoding!r}")
            i += 1
        elif c == ord("^"):  # a pointer: '^' then the pointed-to type
            i += 1 + len(split_types(encoding[i + 1 :])[0]) if i + 1 < n else 1
        else:
            i += 1
        types.append(encoding[start:i])
        while i < n and encoding[i] in b"0123456789":  # offsets in method signatures
            i += 1
    if len(_TYPE_CACHE) < 4096:
        _TYPE_CACHE[encoding] = tuple(types)
    return tuple(types)


class _Reader:
    """Reads one typedstream; `values()` returns the top-level values."""

    __slots__ = ("data", "pos", "strings", "objects", "depth")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.strings: list[bytes] = []  # shared string table
        self.objects: list[Any] = []  # object table: objects, classes, C strings
        self.depth = 0

    # ---------------------------------------------------------------- low level

    def fail(self, why: str) -> TypedStreamError:
        return TypedStreamError(f"{why} at byte {self.pos}")

    def take(self, n: int) -> bytes:
        p = self.pos
        end = p + n
        if n < 0 or end > len(self.data):
            raise self.fail(f"needs {n} more bytes, {len(self.data) - p} left")
        self.pos = end
        return self.data[p:end]

    def head(self) -> int:
        p = self.pos
        if p >= len(self.data):
            raise self.fail("unexpected end of data")
        self.pos = p + 1
        b = self.data[p]
        return b - 256 if b > 127 else b

    def integer(self, head: int, signed: bool = True) -> int:
        if head < FIRST_TAG or head > LAST_TAG:
            return head if signed else head & 0xFF
        if head == TAG_INTEGER_2:
            return int.from_bytes(self.take(2), "little", signed=signed)
        if head == TAG_INTEGER_4:
            return int.from_bytes(self.take(4), "little", signed=signed)
        raise self.fail(f"tag 0x{head & 0xFF:02x} where an integer belongs")

    def floating(self, head: int, size: int) -> float:
        if head == TAG_FLOAT:
            return struct.unpack("<f" if size == 4 else "<d", self.take(size))[0]
        return float(self.integer(head))

    def unshared_string(self, head: int) -> bytes | None:
        if head == TAG_NIL:
            return None
        return self.take(self.integer(head, signed=False))

    def shared_string(self, head: int) -> bytes | None:
        if head == TAG_NIL:
            return None
        if head == TAG_NEW:
            s = self.unshared_string(self.head())
            if s is None:
                raise self.fail("nil literal shared string")
            self.strings.append(s)
            return s
        return self._lookup(self.strings, self.integer(head), "string")

    def _lookup(self, table: list[Any], number: int, what: str) -> Any:
        index = number - FIRST_REFERENCE
        if index < 0 or index >= len(table):
            raise self.fail(f"reference to unknown {what} #{index}")
        return table[index]

    # ---------------------------------------------------------------- values

    def c_string(self, head: int) -> bytes | None:
        if head == TAG_NIL:
            return None
        if head == TAG_NEW:
            s = self.shared_string(self.head())
            if s is None:
                raise self.fail("nil literal C string")
            self.objects.append(s)
            return s
        value = self._lookup(self.objects, self.integer(head), "C string")
        if not isinstance(value, bytes):
            raise self.fail("C string reference points to an object")
        return value

    def archived_class(self, head: int) -> ArchivedClass | None:
        chain: list[ArchivedClass] = []
        while head == TAG_NEW:
            name = self.shared_string(self.head())
            if name is None:
                raise self.fail("nil class name")
            cls = ArchivedClass(name.decode("utf-8", "replace"), self.integer(self.head()))
            self.objects.append(cls)
            chain.append(cls)
            head = self.head()
        if head == TAG_NIL:
            tail = None
        else:
            tail = self._lookup(self.objects, self.integer(head), "class")
            if not isinstance(tail, ArchivedClass):
                raise self.fail("class reference points to something else")
        for sub, sup in zip(chain, chain[1:]):
            sub.superclass = sup
        if chain:
            chain[-1].superclass = tail
            return chain[0]
        return tail

    def archived_object(self, head: int) -> ArchivedObject | None:
        if head == TAG_NIL:
            return None
        if head != TAG_NEW:
            value = self._lookup(self.objects, self.integer(head), "object")
            if not isinstance(value, ArchivedObject):
                raise self.fail("object reference points to a class or string")
            return value
        obj = ArchivedObject()
        self.objects.append(obj)  # registered before its contents: they may refer to it
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail("objects nested too deeply")
        obj.cls = self.archived_class(self.head())
        values = obj.values
        while True:
            head = self.head()
            if head == TAG_END_OF_OBJECT:
                break
            self.group(head, values)
        self.depth -= 1
        return obj

    def group(self, head: int, out: list[Any]) -> None:
        """A type encoding (shared string) and one value per type in it, appended to `out`."""
        encoding = self.shared_string(head)
        if not encoding:
            raise self.fail("missing type encoding")
        for t in split_types(encoding):
            out.append(self.value(t))

    def value(self, t: bytes) -> Any:
        c = t[0]
        if c == 64:  # '@'
            return self.archived_object(self.head())
        if c in b"iIlLqQsS":
            return self.integer(self.head(), signed=c in b"ilqs")
        if c == 43:  # '+' raw bytes with a length
            return self.unshared_string(self.head())
        if c == 99 or c == 67:  # 'c' 'C': chars are always one literal byte
            b = self.take(1)[0]
            return b - 256 if c == 99 and b > 127 else b
        if c == 66:  # 'B' bool: one literal byte
            return self.take(1)[0] != 0
        if c == 42:  # '*' C string
            return self.c_string(self.head())
        if c == 102:  # 'f'
            return self.floating(self.head(), 4)
        if c == 100:  # 'd'
            return self.floating(self.head(), 8)
        if c == 35:  # '#' class
            return self.archived_class(self.head())
        if c == 37 or c == 58:  # '%' atom, ':' selector
            return self.shared_string(self.head())
        if c == 33:  # '!' an ignored int: the type is written, no data
            return None
        if c == 91:  # '[' array: [<count><type>]
            inner = t[1:-1]
            digits = len(inner) - len(inner.lstrip(b"0123456789"))
            if not digits:
                raise self.fail(f"array type without a length {t!r}")
            count, element = int(inner[:digits]), inner[digits:]
            if element in (b"c", b"C"):
                return self.take(count)
            if count > len(self.data) - self.pos:  # every element takes at least one byte
                raise self.fail(f"array of {count} does not fit the data")
            return [self.value(element) for _ in range(count)]
        if c == 123:  # '{' struct: {name=types}
            body = t[1:-1]
            eq = body.find(b"=")
            return [self.value(ft) for ft in split_types(body[eq + 1 :])] if eq >= 0 else []
        raise self.fail(f"unknown type encoding {t!r}")

    def values(self) -> list[Any]:
        if self.take(len(HEADER_PREFIX)) != HEADER_PREFIX:
            raise TypedStreamError("not a typedstream (header is not 04 0B 'streamtyped')")
        self.integer(self.head(), signed=False)  # system version, 1000 on macOS
        out: list[Any] = []
        while self.pos < len(self.data):
            self.group(self.head(), out)
        return out


def parse(data: bytes) -> list[Any]:
    """All top-level values of a typedstream; TypedStreamError when it cannot be read."""
    try:
        return _Reader(bytes(data)).values()
    except RecursionError as e:
        raise TypedStreamError("objects nested too deeply") from e


# --------------------------------------------------------------------- attributed strings


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


def decode_attributed_body(data: bytes) -> Body:
    """attributedBody bytes → Body; TypedStreamError when they cannot be decoded.

    An attributed string encodes its NSString, then runs of (attribute id, length) in UTF-16
    units, each followed by the attribute dictionary the first time its id appears.
    """
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
