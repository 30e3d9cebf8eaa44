"""An SMS Backup & Restore file cut into blocks of raw element bytes, found without parsing
(issue 17): what lets a re-import parse only the blocks that are new or changed.

The file is one XML document, `<smses>` (or `<calls>`) holding one element per message
(`<sms .../>`, `<mms>...</mms>`, `<call .../>`). One read of its bytes:

- takes the prologue (XML declaration, comments) and the root element's start tag, and finds the
  root's end tag at the end of the file; a DOCTYPE, an encoding other than UTF-8 or a file that
  does not end with the root's end tag is not cut (the caller reads it whole, as before);
- cuts the bytes between them into blocks, before an element start whose `date` attribute's
  digits 4-6 from the right are CUT_DIGITS (a cut that depends on the element only, so that a
  message inserted in the middle changes one block, not every block after it; about one
  element in a thousand), and at the first element start past MAX_BLOCK_BYTES;
- digests each block's bytes (XXH3-128, written "xxh3:<hex>"; a state an earlier version
  wrote keys its blocks by BLAKE2b: `scan(..., legacy=True)` gives that digest beside, once).

Nothing of this trusts the cut: every block is parsed on its own (wrapped in the root element)
before its records count, and a block that does not parse alone (the cut fell inside a comment,
say) is parsed together with the next. A block whose bytes a later import finds again was so
parsed then, with the same prologue, so it is skipped.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .byte_digest import digest, hasher, marked

CHUNK = 1 << 20
HEAD_BYTES = 1 << 16
MAX_BLOCK_BYTES = 1 << 20
PIECE = 1 << 16  # bytes given to the parser at a time
BACK = 4096  # an element's `date` attribute is looked for this far into its start tag at most
CUT_DIGITS = b"417"
CUT_AT = re.compile(rb' date="\d{0,20}?' + CUT_DIGITS + rb'\d\d\d"')  # what a cut is (see _cuts)
# where a cut may be: CUT_DIGITS and three digits before a quote (a tenth of CUT_AT's time:
# no attempt at every ` date="` of the file); each is checked to end a `date` value (_cuts)
CUT_TAIL = re.compile(CUT_DIGITS + rb'\d\d\d"')
DATE_ATTR = b' date="'
ELEMENT_START = re.compile(rb"<(?:sms|mms|call)[\s/>]")
# A character outside the BMP written as two references to its UTF-16 halves ("&#55357;&#56832;"
# for 😀): Signal's and Silence's plaintext SMS exports in this format, and other Android
# writers, do so (kxml's serializer); XML forbids those code points and expat stops there.
# SMS Backup & Restore reads them, and so do we: a pair is the character, a half alone U+FFFD.
_HIGH = rb"(?:55(?:29[6-9]|[3-9]\d\d)|56(?:[0-2]\d\d|3[01]\d)|[xX][dD][89abAB][0-9a-fA-F]{2})"
_LOW = rb"(?:56(?:3[2-9]\d|[4-9]\d\d)|57(?:[0-2]\d\d|3[0-3]\d|34[0-3])|[xX][dD][c-fC-F][0-9a-fA-F]{2})"
SURROGATE_PAIR = re.compile(rb"&#(" + _HIGH + rb");&#(" + _LOW + rb");")
ANY_REF = re.compile(rb"&#[xX]?[0-9a-fA-F]{1,8};")
SURROGATE_HALF = re.compile(rb"&#(?:" + _HIGH + rb"|" + _LOW + rb");")
ROOT_START = re.compile(rb"<(smses|calls)(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"<]*\"|'[^'<]*'))*\s*>")
ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']""")
BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # a backup saved by a Windows shell's `>`
PROLOGUE = re.compile(rb"(?:\s|<\?(?:(?!\?>).)*\?>|<!--(?:(?!--).)*-->)*", re.S)


@dataclass
class Block:
    start: int  # byte offset of its first byte
    end: int  # byte offset after its last byte
    digest: str = ""
    legacy: str = ""  # BLAKE2b of the same bytes, when asked (an earlier version's key)


@dataclass
class Scan:
    root: str  # "smses" or "calls"
    count: int | None  # the root's `count` attribute
    context: str  # digest of what every block's parse depends on: the encoding, the root
    blocks: list[Block] = field(default_factory=list)


def _legacy_hasher() -> Any:
    """The block digest an earlier version keyed its state by (BLAKE2b, 10 bytes, unmarked)."""
    return hashlib.blake2b(digest_size=10)


def scan(path: Path, legacy: bool = False) -> tuple[Scan | None, str]:
    """The file's blocks, or None and why it is read whole instead; with `legacy`, each
    block's BLAKE2b digest beside its own (a state an earlier version wrote is keyed so)."""
    try:
        with path.open("rb") as f:
            return _scan(f, path, legacy)
    except OSError as e:
        return None, f"cannot read ({e})"


def _scan(f, path: Path, legacy: bool) -> tuple[Scan | None, str]:
    head = f.read(HEAD_BYTES)
    if head.startswith(UTF16_BOMS):
        return None, "UTF-16"
    if head.startswith(BOM):
        head = head[len(BOM):]
        offset = len(BOM)
    else:
        offset = 0
    m = ROOT_START.search(head)
    if m is None:
        return None, "no root element in its first 64 KB"
    prologue = head[:m.start()]
    if not PROLOGUE.fullmatch(prologue):
        return None, "a DOCTYPE or markup before the root element"
    enc = ENCODING.match(prologue)
    if enc and enc.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return None, f"encoding {enc.group(1).decode('ascii', 'replace')}"
    root = m.group(1).decode()
    count_m = re.search(rb"""\scount\s*=\s*["'](\d{1,12})["']""", m.group(0))
    body_start = offset + m.end()
    size = f.seek(0, 2)
    tail_at = max(body_start, size - HEAD_BYTES)
    f.seek(tail_at)
    tail = f.read()
    end_tag = tail.rfind(b"</" + root.encode())
    if end_tag < 0 or not re.fullmatch(rb"</" + root.encode() + rb"\s*>(?:\s|<!--(?:(?!--).)*-->|<\?(?:(?!\?>).)*\?>)*",
                                       tail[end_tag:], re.S):
        return None, "it does not end with the root element's end tag"
    body_end = tail_at + end_tag
    # the document without its body must be well-formed on its own (the prologue, the root)
    try:
        ET.fromstring(head[:m.end()] + tail[end_tag:])
    except ET.ParseError as e:
        return None, f"its prologue does not parse ({e})"
    # what the blocks' parse depends on: the encoding and the root (not the prologue's comments:
    # the app writes its creation time there, different in every backup)
    encoding = enc.group(1).lower().replace(b"_", b"-") if enc else b"utf-8"
    context = _legacy_hasher()  # a few bytes: kept as it was, so that older states still match
    context.update(encoding + b"\x00" + root.encode())
    out = Scan(root, int(count_m.group(1)) if count_m else None, context.hexdigest())
    _cut(f, body_start, body_end, out.blocks, legacy)
    return out, ""


def position(path: Path, offset: int) -> tuple[int, int]:
    """(line, column) of the byte at `offset`, as the XML parser counts them (1-based line,
    0-based column, a byte order mark not counted): asked only to report an error, so the
    scan does not count lines."""
    lines, last_newline = 0, -1
    with path.open("rb") as f:
        read = 0
        while read < offset:
            chunk = f.read(min(CHUNK, offset - read))
            if not chunk:
                break
            n = chunk.count(b"\n")
            if n:
                lines += n
                last_newline = read + chunk.rfind(b"\n")
            read += len(chunk)
        f.seek(0)
        bom = len(BOM) if not lines and f.read(len(BOM)) == BOM else 0
    return 1 + lines, offset - last_newline - 1 - bom


def _cuts(buf: bytes | bytearray, start: int, end: int | None = None) -> Iterator[int]:
    """Where CUT_AT.finditer(buf, start, end) matches (the blank before ` date="`), found from the
    cheaper CUT_TAIL: a tail counts when the digits before it, at most 20, follow ` date="`
    (CUT_AT's lazy `\\d{0,20}?` then the quote: the value's last six digits are the tail)."""
    for m in CUT_TAIL.finditer(buf, start, len(buf) if end is None else end):
        digits_at = m.start()
        floor = max(0, digits_at - 20)
        while digits_at > floor and 48 <= buf[digits_at - 1] <= 57:
            digits_at -= 1
        q = digits_at - len(DATE_ATTR)
        if q >= start and buf[q:digits_at] == DATE_ATTR:
            yield q


def _cut(f, body_start: int, body_end: int, blocks: list[Block], legacy: bool = False) -> None:
    """Cut [body_start, body_end) into blocks (see the module's text), digesting each."""
    f.seek(body_start)
    block = Block(body_start, body_start)
    h = hasher()
    old = _legacy_hasher() if legacy else None
    # one buffer read into again and again: the bytes kept from the last read (`rest` of them,
    # from file offset `carry_at`) first (a new bytes object per read, joined to those, cost
    # about as much as finding the cuts)
    buf = bytearray(CHUNK + 2 * BACK + 256)
    rest = 0
    carry_at = body_start
    read_to = body_start
    fed = body_start  # bytes before this are digested into the open block

    def feed(upto: int, buf: bytearray, base: int) -> None:
        nonlocal fed
        a, b = fed - base, upto - base
        h.update(memoryview(buf)[a:b])
        if old is not None:
            old.update(memoryview(buf)[a:b])
        fed = upto

    def done(at: int) -> None:
        block.end, block.digest = at, marked(h)
        if old is not None:
            block.legacy = old.hexdigest()
        blocks.append(block)

    def close(at: int, buf: bytearray, base: int) -> None:
        nonlocal block, h, old
        feed(at, buf, base)
        done(at)
        block = Block(at, at)
        h = hasher()
        old = _legacy_hasher() if legacy else None

    def cap(upto: int, buf: bytearray, base: int) -> None:
        """Cut a block past MAX_BLOCK_BYTES at its first element start there, before `upto`."""
        while upto - block.start > MAX_BLOCK_BYTES:
            at = ELEMENT_START.search(buf, max(block.start + MAX_BLOCK_BYTES, fed) - base, upto - base)
            if at is None:
                return
            close(base + at.start(), buf, base)

    while read_to < body_end:
        want = min(CHUNK, body_end - read_to)
        if len(buf) < rest + want:
            buf.extend(bytes(rest + want - len(buf)))
        n = f.readinto(memoryview(buf)[rest:rest + want])
        if not n:
            break
        read_to += n
        filled, base = rest + n, carry_at
        final = read_to >= body_end
        limit = filled if final else max(0, filled - 64)

        for q in _cuts(buf, max(0, fed - base), filled):
            if q >= limit:
                break
            lt = buf.rfind(b"<", max(0, q - BACK), q)
            if lt < 0 or not ELEMENT_START.match(buf, lt):
                continue
            cap(base + lt, buf, base)
            if base + lt > block.start and base + lt >= fed:
                close(base + lt, buf, base)
        cap(base + limit, buf, base)
        keep_from = max(fed - base, limit - BACK - 64, 0)
        feed(base + keep_from, buf, base)
        rest = filled - keep_from
        buf[:rest] = buf[keep_from:filled]
        carry_at = base + keep_from
    feed(min(body_end, carry_at + rest), buf, carry_at)
    done(body_end)


def read_block(path: Path, start: int, end: int) -> bytes:
    with path.open("rb") as f:
        f.seek(start)
        return f.read(end - start)


def _ref_value(ref: bytes) -> int:
    return int(ref[1:], 16) if ref[:1] in b"xX" else int(ref)


def _join_pair(m: re.Match[bytes]) -> bytes:
    high, low = _ref_value(m[1]), _ref_value(m[2])
    return b"&#%d;" % (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def joined_surrogates(data: bytes) -> bytes:
    """`data` with character references to UTF-16 halves made references to the character.

    >>> joined_surrogates(b'body="Yup &#55357;&#56396; &#xD83D;&#xDE00;"')
    b'body="Yup &#128076; &#128512;"'
    >>> joined_surrogates(b"&#55357; alone, &#56396; too, &#57344; &#55295; are fine")
    b'&#65533; alone, &#65533; too, &#57344; &#55295; are fine'
    >>> joined_surrogates(b"&#55357;&#55357;&#56832;")
    b'&#65533;&#128512;'
    """
    if b"&#" not in data:
        return data
    return SURROGATE_HALF.sub(b"&#65533;", SURROGATE_PAIR.sub(_join_pair, data))


class CleanStream(io.RawIOBase):
    """A backup's bytes as the parser is given them when the file is read whole: UTF-16
    (with its byte order mark) as UTF-8, and references to UTF-16 halves joined
    (`joined_surrogates`), also where a reference falls across two reads."""

    def __init__(self, f: io.BufferedReader) -> None:
        self.f = f
        start = f.read(2)
        self.decoder: codecs.IncrementalDecoder | None = None
        if start in UTF16_BOMS:
            self.decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
            self.decoder.decode(start)
            self.pending = b""
        else:
            self.pending = start
        self.out = b""
        self.done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.out and not self.done:
            chunk = self.f.read(CHUNK)
            if self.decoder is not None:
                chunk = self.decoder.decode(chunk, final=not chunk).encode("utf-8")
            data = self.pending + chunk
            if not chunk:
                self.done, keep = True, len(data)
            else:  # the last 32 bytes wait for the next read (a pair is 16 bytes at most),
                # and so does a whole pair that lies across that point
                keep = max(0, len(data) - 32)
                for pattern in (SURROGATE_PAIR, ANY_REF):
                    for m in pattern.finditer(data, max(0, keep - 32), keep + 32):
                        if m.start() < keep < m.end():
                            keep = m.start()
            self.out, self.pending = joined_surrogates(data[:keep]), data[keep:]
        n = min(len(buffer), len(self.out))
        buffer[:n] = self.out[:n]
        self.out = self.out[n:]
        return n


def open_clean(path: Path) -> io.BufferedReader:
    """`path` for reading whole, as `CleanStream` gives it."""
    return io.BufferedReader(CleanStream(path.open("rb")))


def elements(data: bytes, root: str) -> Iterator[ET.Element]:
    """The top-level elements of a block's bytes, parsed alone (wrapped in the root element),
    each as soon as it ends (cleared by the parser once the next one is asked for); raises
    ET.ParseError with its position in `data` (line 1 is the block's first line; the column on
    it counts from the block's first byte)."""
    wrap = f"<{root}>".encode()
    data = joined_surrogates(data)
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    depth = 0
    top: ET.Element | None = None
    try:
        parser.feed(wrap)
        pieces = [*range(0, len(data), PIECE), len(data)]
        for i in pieces:
            if i < len(data):
                parser.feed(data[i:i + PIECE])
            else:  # the end: the wrapper closed, every element must be
                parser.feed(f"</{root}>".encode())
                parser.close()
            for item in parser.read_events():
                event, element = cast("tuple[str, ET.Element]", item)  # "start"/"end": elements
                if event == "start":
                    depth += 1
                    if top is None:
                        top = element
                    continue
                depth -= 1
                if depth == 1:
                    yield element
                    assert top is not None
                    top.clear()  # what was read of the block does not stay in memory
    except ET.ParseError as e:
        line, column = e.position
        e.position = (line, column - len(wrap) if line == 1 else column)
        raise


def blocks_of(path: Path, found: Scan, chosen: list[int]) -> Iterator[tuple[int, bytes]]:
    """(index, bytes) of the blocks chosen, read again; a block whose bytes changed since the
    scan is an error (the file was rewritten while being imported)."""
    with path.open("rb") as f:
        for i in chosen:
            b = found.blocks[i]
            f.seek(b.start)
            data = f.read(b.end - b.start)
            if digest(data) != b.digest:
                raise OSError("the file changed while it was being imported; import it again once it is complete")
            yield i, data
