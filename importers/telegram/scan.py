"""A Telegram Desktop `result.json` read from its bytes: each chat's byte span is found while its
messages are decoded one at a time, and a chat the caller already has can be stepped over
without decoding it (issue 17).

A window of the file (256 KiB, more for a value that does not fit) is
decoded to text, and each message is one `json` C decode (`raw_decode`) at the window's cursor,
so no message list is ever built whole and memory does not grow with the file. The structure
around the messages (the top-level object, `chats.list`, a chat's keys) is walked one token at a
time. `parts` yields, in file order:

    Block(key, value)           a top-level block of an account export (personal_information, contacts...)
    ChatHead(label, head, ...)  a chat's keys before its messages; the caller may set `plan`
    ChatMessage(row, value)     one message of the current chat (row: 1-based)
    ChatEnd(label, head, span)  the chat is over: its bytes' span and digests
    NotAChat(label, value)      an entry of a chat list that is no object

A ChatHead's `plan` tells what to do with the chat's messages: None decodes them all; `Skip(n)`
steps over the next n bytes from the chat's `{` (the caller checked they are a chat it has,
`span_digest`); `From(offset, rows)` resumes after the message that ends `offset` bytes into the
chat (the caller checked those bytes are the chat's start it has) — the messages past it are
decoded, numbered from rows + 1.

A file that is not complete JSON, not UTF-8, or no Telegram export is a FormatError naming the
file, the line, the column and the byte where the reading stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from chatmem.errors import FormatError

CHAT_LISTS = ("chats", "left_chats")  # account export: {"about": ..., "list": [chat, ...]}
WINDOW = 1 << 18  # bytes decoded at a time
CHUNK = 1 << 18  # bytes hashed at a time
WHITESPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, as the json module reads it
_DECODER = json.JSONDecoder()


@dataclass
class Skip:
    length: int  # bytes of the chat, from its "{" to its "}" included


@dataclass
class From:
    offset: int  # bytes from the chat's "{" to the end of its last message already had
    rows: int  # messages before that point


@dataclass
class Block:
    key: str
    value: Any


@dataclass
class ChatHead:
    label: str
    head: dict[str, Any]
    start: int = 0  # byte offset of the chat's "{"
    data: Any = None  # the file's bytes (to check a span's digest before setting `plan`)
    plan: Skip | From | None = None


@dataclass
class ChatMessage:
    row: int
    value: Any


@dataclass
class Span:
    """Where a chat was in the file, and digests of its bytes (whole, and up to the end of its
    last message: what a chat that only grew still starts with)."""

    start: int
    end: int  # past its "}"
    last: int  # past its last message's "}" (past "[" when it has none)
    rows: int  # messages
    digest: str = ""
    prefix_digest: str = ""


@dataclass
class ChatEnd:
    label: str
    head: dict[str, Any]
    span: Span | None = None  # None for a chat without a message list
    skipped: bool = False


@dataclass
class NotAChat:
    label: str
    value: Any


Part = Block | ChatHead | ChatMessage | ChatEnd | NotAChat


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


def span_digest(data: Bytes, start: int, end: int) -> str:
    h = hashlib.blake2b(digest_size=16)
    data.hash_into(h, start, end)
    return h.hexdigest()


class _Broken(Exception):
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
            raise _Broken(at + e.start, "not UTF-8 text") from e
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
            raise _Broken(self.pos(), f"expected {what}, found {_shown(c)}")
        self.i += 1

    def value(self) -> Any:
        """The JSON value at the cursor, decoded (the window grows until it holds it whole)."""
        self.ws()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.i)
            except json.JSONDecodeError as e:
                if self.eof:
                    raise _Broken(self.pos(min(e.pos, len(self.text))), e.msg) from e
                self.load(self.pos(), self.window * 2)
                continue
            except RecursionError as e:
                raise _Broken(self.pos(), "nested too deep: not a Telegram export") from e
            if end == len(self.text) and not self.eof:  # a number may go on past the window
                self.load(self.pos(), self.window * 2)
                continue
            self.i = end
            if self.window > WINDOW and end > WINDOW:  # back to the usual window after a big value
                self.load(self.pos())
            return value

    def key(self) -> str:
        if self.ws() != '"':
            raise _Broken(self.pos(), f"expected a key, found {_shown(self.ws())}")
        key = self.value()
        self.take(":", "':'")
        return key


def _shown(c: str) -> str:
    return repr(c) if c else "the end of the file"


def parts(path: Path) -> Iterator[Part]:
    """The export's parts in file order (see the module's text)."""
    try:
        f = path.open("rb")
    except OSError as e:
        raise FormatError(f"{path}: cannot read ({e})") from e
    with f:
        data = Bytes(f)
        try:
            yield from _Walk(data, path).top()
        except _Broken as e:
            raise FormatError(f"{path}: {where(data, e.at)}: {e.why}; not a complete Telegram "
                              "export (was it cut off or changed while being written?)") from None
        except OSError as e:
            raise FormatError(f"{path}: cannot read ({e})") from e


def where(data: Bytes, at: int) -> str:
    """'line L, column C (byte B)' of byte offset `at` (lines and columns from 1, columns in bytes)."""
    at = max(0, min(at, len(data)))
    newlines, line_start = data.count_lines(at)
    return f"line {newlines + 1:,}, column {at - line_start + 1:,} (byte {at:,})"


class _Walk:
    def __init__(self, data: Bytes, path: Path) -> None:
        self.data, self.path = data, path
        self.c = Cursor(data)

    def top(self) -> Iterator[Part]:
        c = self.c
        if c.text.startswith("\ufeff"):
            c.i = 1
        first = c.ws()
        if not first:
            raise FormatError(f"{self.path}: empty file, not a Telegram Desktop export")
        if first != "{":
            raise FormatError(f"{self.path}: not a Telegram Desktop export (the file is no JSON object)")
        start = c.pos()
        c.i += 1
        head: dict[str, Any] = {}
        found = False
        for key in self._members():
            if key == "messages" and c.ws() == "[":  # "Export chat history": the file is the chat
                found = True
                yield from self._chat_messages("", head, start)
                self._end_of_document()
                return
            if key in CHAT_LISTS and c.ws() == "{":
                found = True
                c.i += 1
                yield from self._chat_list(key)
                continue
            value = c.value()
            head[key] = value
            yield Block(key, value)
        self._end_of_document()
        if not found:
            raise FormatError(f"{self.path}: not a Telegram Desktop export (no chats or messages)")

    def _members(self) -> Iterator[str]:
        """The keys of the object whose "{" was just taken, each with the cursor at its value
        (the caller reads or walks it); ends past the "}"."""
        c = self.c
        if c.ws() == "}":
            c.i += 1
            return
        yield from self._members_after_comma()

    def _end_of_document(self) -> None:
        c = self.c
        rest = c.ws()
        if rest:
            raise _Broken(c.pos(), f"more after the end of the document ({_shown(rest)})")

    def _chat_list(self, section: str) -> Iterator[Part]:
        c = self.c
        for key in self._members():
            if key != "list" or c.ws() != "[":
                c.value()
                continue
            c.i += 1
            index = 0
            if c.ws() == "]":
                c.i += 1
                continue
            while True:
                label = f"{section}[{index}]"
                index += 1
                if c.ws() != "{":
                    yield NotAChat(label, c.value())
                else:
                    yield from self._chat(label)
                if self._after_item("]"):
                    break

    def _chat(self, label: str) -> Iterator[Part]:
        c = self.c
        start = c.pos()
        c.i += 1
        head: dict[str, Any] = {}
        for key in self._members():
            if key == "messages" and c.ws() == "[":
                yield from self._chat_messages(label, head, start)
                return
            head[key] = c.value()
        yield ChatHead(label, dict(head), start)  # a chat without a message list
        yield ChatEnd(label, head)

    def _chat_messages(self, label: str, head: dict[str, Any], start: int) -> Iterator[Part]:
        """From the "[" of a chat's messages to the chat's "}"."""
        c = self.c
        announced = ChatHead(label, dict(head), start, self.data)
        yield announced
        plan = announced.plan
        if isinstance(plan, Skip):
            end = start + plan.length
            c.seek(end)
            yield ChatEnd(label, head, Span(start, end, end, 0), skipped=True)
            self._after_chat(label)
            return
        row = 0
        if isinstance(plan, From):
            c.seek(start + plan.offset)
            row = plan.rows
            last_at = (c.text, c.base, c.ascii, 0)
            more = c.ws()
            c.i += 1
            if more not in (",", "]"):
                raise _Broken(c.pos(c.i - 1), f"expected ',' or ']', found {_shown(more)}")
        else:
            c.i += 1  # the "["
            last_at = (c.text, c.base, c.ascii, c.i)
            more = "]" if c.ws() == "]" else ","
            if more == "]":
                c.i += 1
        while more == ",":
            value = c.value()
            row += 1
            last_at = (c.text, c.base, c.ascii, c.i)
            yield ChatMessage(row, value)
            more = "]" if self._after_item("]") else ","
        text, base, ascii_, i = last_at
        last = base + (i if ascii_ else len(text[:i].encode("utf-8")))
        del text
        if c.ws() == ",":  # keys after `messages` (Telegram writes none): kept in the head
            c.i += 1
            for key in self._members_after_comma():
                head[key] = c.value()
        else:
            c.take("}", "'}'")
        end = c.pos()
        span = Span(start, end, last, row)
        h = hashlib.blake2b(digest_size=16)
        self.data.hash_into(h, start, last)
        span.prefix_digest = h.hexdigest()
        self.data.hash_into(h, last, end)
        span.digest = h.hexdigest()
        yield ChatEnd(label, head, span)
        if label:
            self._after_chat(label)

    def _members_after_comma(self) -> Iterator[str]:
        """The keys of an object from one after a "," on (see `_members`)."""
        while True:
            yield self.c.key()
            if self._after_item("}"):
                return

    def _after_item(self, close: str) -> bool:
        """Past the "," or the closing bracket after an item: whether it was the closing one."""
        c = self.c
        nxt = c.ws()
        c.i += 1
        if nxt == close:
            return True
        if nxt != ",":
            raise _Broken(c.pos(c.i - 1), f"expected ',' or {close!r}, found {_shown(nxt)}")
        return False

    def _after_chat(self, label: str) -> None:
        """After a chat stepped over: what follows must be the list going on (or ending)."""
        c = self.c
        nxt = c.ws()
        if nxt not in (",", "]") or not label:
            if not label and not nxt:
                return
            raise _Broken(c.pos(), f"expected ',' or ']' after a chat, found {_shown(nxt)}")


__all__ = ["Block", "ChatEnd", "ChatHead", "ChatMessage", "From", "NotAChat", "Part", "Skip", "Span",
           "parts", "span_digest", "where"]
