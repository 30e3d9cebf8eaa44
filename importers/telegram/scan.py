"""A Telegram Desktop `result.json` read from its bytes: each chat's byte span is found while its
messages are decoded one at a time, and a chat the caller already has can be stepped over
without decoding it (issue 17).

A window of the file is decoded to text (importers/json_scan.py), and each message is one `json`
C decode at the window's cursor, so no message list is ever built whole and memory does not grow
with the file. The structure
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
decoded, numbered from rows + 1, and the chat's digests go on from the caller's hash of those
bytes when it passes it (`hashed`).

A file that is not complete JSON, not UTF-8, or no Telegram export is a FormatError naming the
file, the line, the column and the byte where the reading stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatmem.errors import FormatError

from ..json_scan import Broken, Bytes, Cursor, new_digest, reading, shown, span_digest

CHAT_LISTS = ("chats", "left_chats")  # account export: {"about": ..., "list": [chat, ...]}


@dataclass
class Skip:
    length: int  # bytes of the chat, from its "{" to its "}" included


@dataclass
class From:
    offset: int  # bytes from the chat's "{" to the end of its last message already had
    rows: int  # messages before that point
    # the XXH3 (json_scan.new_digest) of those `offset` bytes as the caller hashed them to check
    # them, going on over the rest: the chat's digests without reading its start again
    hashed: Any = None


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


def parts(path: Path) -> Iterator[Part]:
    """The export's parts in file order (see the module's text)."""
    with reading(path, lambda at, why: f"{at}: {why}; not a complete Telegram export (was it cut off "
                 "or changed while being written?)") as data:
        yield from _Walk(data, path).top()


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
            raise Broken(c.pos(), f"more after the end of the document ({shown(rest)})")

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
                raise Broken(c.pos(c.i - 1), f"expected ',' or ']', found {shown(more)}")
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
        if isinstance(plan, From) and plan.hashed is not None:
            h = plan.hashed
            self.data.hash_into(h, start + plan.offset, last)
        else:
            h = new_digest()
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
            raise Broken(c.pos(c.i - 1), f"expected ',' or {close!r}, found {shown(nxt)}")
        return False

    def _after_chat(self, label: str) -> None:
        """After a chat stepped over: what follows must be the list going on (or ending)."""
        c = self.c
        nxt = c.ws()
        if nxt not in (",", "]") or not label:
            if not label and not nxt:
                return
            raise Broken(c.pos(), f"expected ',' or ']' after a chat, found {shown(nxt)}")


__all__ = ["Block", "ChatEnd", "ChatHead", "ChatMessage", "From", "NotAChat", "Part", "Skip", "Span",
           "parts", "span_digest"]
