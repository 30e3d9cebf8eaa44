"""JSON read from a file's bytes a value at a time (issue 17): the Telegram and Meta readers
find where things are in the bytes (a chat's span, a thread file's message list) while they
decode, so that a re-import can compare bytes with what the last import read and decode only what
is new.

A window of the file (256 KiB, more for a value that does not fit) is decoded to text, and each
value is one `json` C decode (`raw_decode`) at the window's cursor; the file is read where asked
(not mapped: a mapping's pages count in the process's memory as they are read)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import xxhash

from chatmem.errors import FormatError

WINDOW = 1 << 18  # bytes decoded at a time
CHUNK = 1 << 18  # bytes hashed at a time
MAX_VALUE = 1 << 26  # the window grows to hold one value up to this (64 MiB; a broken one stops there)
WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, as the json module reads it
_DECODER = json.JSONDecoder()


class Bytes:
    """The file's bytes, read where asked (not mapped: a mapping's pages count in the
    process's memory as they are read, and that would grow with the file)."""

    def __init__(self, f: BinaryIO) -> None:
        self.fd = f.fileno()
        self.size = os.fstat(self.fd).st_size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, at: slice) -> bytes:
        start, stop = max(at.start or 0, 0), min(self.size if at.stop is None else at.stop, self.size)
        return os.pread(self.fd, stop - start, start) if stop > start else b""

    def hash_into(self, h: Any, start: int, end: int) -> None:
        while start < end:
            chunk = os.pread(self.fd, min(CHUNK, end - start), start)
            if not chunk:
                return
            h.update(chunk)
            start += len(chunk)

    def count_lines(self, end: int) -> tuple[int, int]:
        """(newlines before byte `end`, offset just past the last of them)."""
        n, last, at = 0, 0, 0
        while at < end:
            chunk = self[at:min(at + CHUNK, end)]
            if not chunk:
                break
            k = chunk.count(b"\n")
            if k:
                n += k
                last = at + chunk.rfind(b"\n") + 1
            at += len(chunk)
        return n, last


def new_digest(data: bytes = b"", like: str | None = None) -> Any:
    """The digest byte spans are compared by: XXH3-128, 32 hex digits (not cryptographic: it
    tells the bytes a re-import read before from others, nobody forges exports against it;
    a re-import hashes most of a 280 MB Telegram export, ~0.03 s of CPU against SHA-256's
    ~0.16 s with the processor's SHA instructions). `like`: a digest an import kept; one of 64
    hex digits was made by an earlier version with SHA-256, and is compared as such (a state
    kept before still resumes)."""
    if like is not None and len(like) == 64:
        return hashlib.sha256(data)
    return xxhash.xxh3_128(data)


def span_digest(data: Bytes, start: int, end: int, like: str | None = None) -> str:
    h = new_digest(like=like)
    data.hash_into(h, start, end)
    return h.hexdigest()


class Broken(Exception):
    """Where the reading stopped (a byte offset) and why."""

    def __init__(self, at: int, why: str) -> None:
        super().__init__(why)
        self.at, self.why = at, why


class Cursor:
    """Decoded text over a window of the bytes, and a position in it."""

    def __init__(self, data: Bytes) -> None:
        self.data = data
        self.size = len(data)
        self.base = 0  # byte offset of the window
        self.text = ""
        self.i = 0
        self.ascii = True
        self.eof = False
        self.window = WINDOW
        self.load(0)

    def load(self, at: int, window: int = WINDOW) -> None:
        """The window from byte `at`, cut before a character split at its end."""
        chunk = self.data[at:at + window]
        end = len(chunk)
        self.eof = at + end >= self.size
        if not self.eof:
            lead = end - 1
            while lead > 0 and lead > end - 4 and chunk[lead] & 0xC0 == 0x80:
                lead -= 1
            b = chunk[lead]
            need = 1 if b < 0x80 else 2 if b >> 5 == 6 else 3 if b >> 4 == 14 else 4 if b >> 3 == 30 else 1
            if lead + need > end:
                end = lead
        try:
            self.text = chunk[:end].decode("utf-8")
        except UnicodeDecodeError as e:
            raise Broken(at + e.start, "not UTF-8 text") from e
        self.base, self.i, self.window = at, 0, window
        self.ascii = self.text.isascii()

    def pos(self, i: int | None = None) -> int:
        """The byte offset of text index `i` (the cursor's by default)."""
        i = self.i if i is None else i
        return self.base + (i if self.ascii else len(self.text[:i].encode("utf-8")))

    def seek(self, at: int) -> None:
        self.load(at)

    def ws(self) -> str:
        """Past whitespace: the next character ('' at the end of the file)."""
        while True:
            self.i = WHITESPACE.match(self.text, self.i).end()  # type: ignore[union-attr]
            if self.i < len(self.text):
                return self.text[self.i]
            if self.eof:
                return ""
            self.load(self.pos())

    def take(self, expected: str, what: str) -> None:
        c = self.ws()
        if c != expected:
            raise Broken(self.pos(), f"expected {what}, found {shown(c)}")
        self.i += 1

    def value(self) -> Any:
        """The JSON value at the cursor, decoded (the window grows until it holds it whole)."""
        self.ws()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.i)
            except json.JSONDecodeError as e:
                if self.eof or self.window >= MAX_VALUE:
                    raise Broken(self.pos(min(e.pos, len(self.text))), e.msg) from e
                self.load(self.pos(), self.window * 2)
                continue
            except RecursionError as e:
                raise Broken(self.pos(), "nested too deep") from e
            if end == len(self.text) and not self.eof:  # a number may go on past the window
                self.load(self.pos(), self.window * 2)
                continue
            self.i = end
            if self.window > WINDOW and end > WINDOW:  # back to the usual window after a big value
                self.load(self.pos())
            return value

    def key(self) -> str:
        if self.ws() != '"':
            raise Broken(self.pos(), f"expected a key, found {shown(self.ws())}")
        key = self.value()
        self.take(":", "':'")
        return key


def shown(c: str) -> str:
    return repr(c) if c else "the end of the file"


def where(data: Bytes, at: int) -> str:
    """'line L, column C (byte B)' of byte offset `at` (lines and columns from 1, columns in bytes)."""
    at = max(0, min(at, len(data)))
    newlines, line_start = data.count_lines(at)
    return f"line {newlines + 1:,}, column {at - line_start + 1:,} (byte {at:,})"



@contextmanager
def reading(path: Path, explain: Callable[[str, str], str]) -> Iterator[Bytes]:
    """The file's bytes; a Broken reading becomes a FormatError naming the file and
    `explain(where, why)`."""
    try:
        f = path.open("rb")
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e})") from e
    with f:
        data = Bytes(f)
        try:
            yield data
        except Broken as e:
            raise FormatError(f"{path}: {explain(where(data, e.at), e.why)}") from None
        except OSError as e:
            raise FormatError(f"{path}: cannot read ({e})") from e
