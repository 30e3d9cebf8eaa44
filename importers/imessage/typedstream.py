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

`body.decode_attributed_body` turns the NSAttributedString in `message.attributedBody` into
its text and the attributes Messages puts on it.
"""

from __future__ import annotations

import struct
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

# The same tags as unsigned bytes, as the reader sees them.
_U_INTEGER_2, _U_INTEGER_4, _U_FLOAT = 0x81, 0x82, 0x83
_U_NEW, _U_NIL, _U_END_OF_OBJECT = 0x84, 0x85, 0x86
END_OF_OBJECT_BYTE = _U_END_OF_OBJECT  # the last byte of a complete archive of one object
_U_FIRST_TAG, _U_LAST_TAG = 0x80, 0x91

MAX_DEPTH = 200  # nested objects; deeper input is malformed (and would exhaust the stack)


class TypedStreamError(ValueError):
    """The bytes are not a typedstream we can read (truncated, corrupt, unknown type)."""


class ArchivedClass:
    """A class as archived: name, version, superclass (None at the root)."""

    __slots__ = ("name", "version", "superclass")

    def __init__(self, name: str, version: int, superclass: ArchivedClass | None = None) -> None:
        self.name = name
        self.version = version
        self.superclass = superclass

    def __repr__(self) -> str:
        return f"<class {self.name} v{self.version}>"

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


class ArchivedObject:
    """An object: its class and the values it encoded, in order (groups flattened)."""

    __slots__ = ("cls", "values")

    def __init__(self, cls: ArchivedClass | None = None) -> None:
        self.cls = cls
        self.values: list[Any] = []

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
    # Heads are handled as unsigned bytes (0x84 = TAG_NEW ...); running off the end raises
    # IndexError, which `parse` turns into a TypedStreamError.

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
        self.pos = p + 1
        return self.data[p]

    def integer(self, head: int, signed: bool = True) -> int:
        """A head byte (unsigned) and what follows it as an integer."""
        if head < _U_FIRST_TAG or head > _U_LAST_TAG:
            return head - 256 if signed and head > 127 else head
        if head == _U_INTEGER_2:
            return int.from_bytes(self.take(2), "little", signed=signed)
        if head == _U_INTEGER_4:
            return int.from_bytes(self.take(4), "little", signed=signed)
        raise self.fail(f"tag 0x{head:02x} where an integer belongs")

    def floating(self, head: int, size: int) -> float:
        if head == _U_FLOAT:
            return struct.unpack("<f" if size == 4 else "<d", self.take(size))[0]
        return float(self.integer(head))

    def unshared_string(self, head: int) -> bytes | None:
        if head == _U_NIL:
            return None
        if head < 128:  # the usual short length
            p = self.pos
            end = p + head
            if end > len(self.data):
                raise self.fail(f"needs {head} more bytes, {len(self.data) - p} left")
            self.pos = end
            return self.data[p:end]
        return self.take(self.integer(head, signed=False))

    def shared_string(self, head: int) -> bytes | None:
        if head == _U_NEW:
            s = self.unshared_string(self.head())
            if s is None:
                raise self.fail("nil literal shared string")
            self.strings.append(s)
            return s
        if head == _U_NIL:
            return None
        return self._lookup(self.strings, self.integer(head), "string")

    def _lookup(self, table: list[Any], number: int, what: str) -> Any:
        index = number - FIRST_REFERENCE
        if index < 0 or index >= len(table):
            raise self.fail(f"reference to unknown {what} #{index}")
        return table[index]

    # ---------------------------------------------------------------- values

    def c_string(self, head: int) -> bytes | None:
        if head == _U_NIL:
            return None
        if head == _U_NEW:
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
        if head != _U_NEW:
            if head == _U_NIL:
                return None
            tail = self._lookup(self.objects, self.integer(head), "class")
            if not isinstance(tail, ArchivedClass):
                raise self.fail("class reference points to something else")
            return tail
        # A literal class, then its superclass (literal, reference or nil), and so on up.
        name = self.shared_string(self.head())
        if name is None:
            raise self.fail("nil class name")
        cls = ArchivedClass(_class_name(name), self.integer(self.head()))
        self.objects.append(cls)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail("class chain too long")
        cls.superclass = self.archived_class(self.head())
        self.depth -= 1
        return cls

    def archived_object(self, head: int) -> ArchivedObject | None:
        if head != _U_NEW:
            if head == _U_NIL:
                return None
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
        data = self.data
        while True:
            head = data[self.pos]
            self.pos += 1
            if head == _U_END_OF_OBJECT:
                break
            self.group(head, values)
        self.depth -= 1
        return obj

    def group(self, head: int, out: list[Any]) -> None:
        """A type encoding (shared string) and one value per type in it, appended to `out`."""
        encoding = self.shared_string(head)
        if not encoding:
            raise self.fail("missing type encoding")
        types = _TYPE_CACHE.get(encoding) or split_types(encoding)
        for t in types:
            c = t[0]
            if c == 64:  # '@', the common case first
                out.append(self.archived_object(self.head()))
            else:
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

    def header(self) -> None:
        if self.take(len(HEADER_PREFIX)) != HEADER_PREFIX:
            raise TypedStreamError("not a typedstream (header is not 04 0B 'streamtyped')")
        self.integer(self.head(), signed=False)  # system version, 1000 on macOS

    def values(self) -> list[Any]:
        self.header()
        out: list[Any] = []
        while self.pos < len(self.data):
            self.group(self.head(), out)
        return out


_CLASS_NAMES: dict[bytes, str] = {}


def _class_name(raw: bytes) -> str:
    name = _CLASS_NAMES.get(raw)
    if name is None:
        name = raw.decode("utf-8", "replace")
        if len(_CLASS_NAMES) < 1024:
            _CLASS_NAMES[raw] = name
    return name


def parse(data: bytes) -> list[Any]:
    """All top-level values of a typedstream; TypedStreamError when it cannot be read."""
    reader = _Reader(bytes(data))
    try:
        return reader.values()
    except IndexError as e:
        raise TypedStreamError(f"unexpected end of data at byte {len(reader.data)}") from e
    except RecursionError as e:
        raise TypedStreamError("objects nested too deeply") from e


def parse_root_head(data: bytes) -> tuple[ArchivedObject, int] | None:
    """The first top-level object with only its class and its first group of values read,
    and the byte where reading stopped: for callers that may not need the rest. None when the
    stream does not start with a literal object.
    """
    reader = _Reader(bytes(data))
    try:
        reader.header()
        if reader.shared_string(reader.head()) != b"@" or reader.head() != _U_NEW:
            return None
        root = ArchivedObject()
        reader.objects.append(root)
        root.cls = reader.archived_class(reader.head())
        head = reader.head()
        if head != _U_END_OF_OBJECT:
            reader.group(head, root.values)
    except IndexError as e:
        raise TypedStreamError(f"unexpected end of data at byte {len(reader.data)}") from e
    except RecursionError as e:
        raise TypedStreamError("objects nested too deeply") from e
    return root, reader.pos
